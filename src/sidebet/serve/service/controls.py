"""The operator's account controls: exclude, suspend, reinstate and close a player's
account, each with a reason and logged in the operators' log; a regulator's
self-exclusion list imported from CSV (``name,from,until``), enforced at sign-up and
sign-in by the names' :func:`~sidebet.serve.names.name_key`.

A control other than ``reinstate`` signs the player out everywhere at once and, in the
same transaction, takes her out of her table's round
(:meth:`~sidebet.serve.service.rounds.Rounds.withdraw`): her wagers returned while bets
are open, else her hands standing as they are; her seat is freed at once when she has no
hand in play, else when that round ends
(:meth:`~sidebet.serve.service.seating.Seating.after_round`).
"""

from __future__ import annotations

import contextlib
import csv
import io
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sidebet.core.errors import SidebetError
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.errors import ApiError, NotOwner
from sidebet.serve.models import Account, ExclusionEntry, Seat
from sidebet.serve.names import name_key
from sidebet.serve.security import Caller, revoke
from sidebet.serve.service.accounts import listed
from sidebet.serve.service.core import Core, Tx
from sidebet.serve.service.oplog import log_action
from sidebet.serve.service.rounds import Rounds
from sidebet.serve.service.tables import Tables

__all__ = ["ACTIONS", "Controls", "read_exclusions"]

ACTIONS = {"exclude": "excluded", "suspend": "suspended", "reinstate": "active",
           "close": "closed"}
"""Each control and the account status it sets."""
REASON_MAX = 500
"""The longest reason, in characters."""


def read_exclusions(text: str) -> list[tuple[str, str, str | None]]:
    """A regulator's self-exclusion list: CSV with the header ``name,from,until`` (dates
    ``YYYY-MM-DD``; ``until`` empty: for good); each row's name, start and end, or
    :class:`SidebetError` naming the first bad line.

    >>> read_exclusions("name,from,until\\nann,2026-01-01,\\nbob,2026-02-01,2027-02-01\\n")
    [('ann', '2026-01-01', None), ('bob', '2026-02-01', '2027-02-01')]
    >>> read_exclusions("name,from,until\\ncy,2026-13-01,\\n")
    Traceback (most recent call last):
    ...
    sidebet.core.errors.SidebetError: self-exclusion list, line 2: '2026-13-01' is not a date (YYYY-MM-DD)
    """
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip().lower() for c in rows[0]] != ["name", "from", "until"]:
        raise SidebetError("self-exclusion list, line 1: the header must be name,from,until")
    out: list[tuple[str, str, str | None]] = []
    for number, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) != 3 or not row[0].strip():
            raise SidebetError(f"self-exclusion list, line {number}: a name, a start date "
                               "and an end date (or nothing) are wanted")
        dates: list[str | None] = []
        for text_ in (row[1].strip(), row[2].strip()):
            if not text_ and dates:
                dates.append(None)
                continue
            try:
                dates.append(date.fromisoformat(text_).isoformat())
            except ValueError:
                raise SidebetError(f"self-exclusion list, line {number}: {text_!r} is not "
                                   "a date (YYYY-MM-DD)") from None
        since, until = dates
        assert since is not None
        if until is not None and until < since:
            raise SidebetError(f"self-exclusion list, line {number}: it ends before it "
                               "starts")
        out.append((row[0].strip(), since, until))
    return out


class Controls:
    """The operator's controls of players' accounts."""

    def __init__(self, core: Core, tables: Tables, rounds: Rounds) -> None:
        self.core = core
        self.tables = tables
        self.rounds = rounds

    def set(self, by: Caller, name: str, action: str, reason: str, *,
            unseat: bool = True) -> dict[str, Any]:
        """Exclude, suspend, reinstate or close player ``name``'s account, with a reason
        (logged); a barred player is signed out and, in the same transaction, taken out
        of her table's round (:meth:`Rounds.withdraw`) unless ``unseat`` is false (a
        process beside the servers: their clock does it, :meth:`Timing.withdraw_barred`)."""
        if action not in ACTIONS:
            raise ApiError(422, f"a control is one of {', '.join(ACTIONS)}, not {action!r}")
        reason = reason.strip()
        if not 1 <= len(reason) <= REASON_MAX:
            raise ApiError(422, f"a control needs a reason of 1 to {REASON_MAX} characters")
        status = ACTIONS[action]

        def change(s: Session) -> int:
            acct = s.scalar(select(Account).where(Account.name == name))
            if acct is None or acct.role != "player":
                raise ApiError(404, f"no player {name!r}")
            if acct.status == "closed":
                raise ApiError(409, f"the account {name!r} is closed; a closed account stays "
                                    "closed")
            acct.status, acct.status_reason = status, (None if status == "active"
                                                       else reason)
            if status != "active":
                revoke(s, acct.id)
            log_action(s, by, action, f"account {name}", {"reason": reason})
            return int(acct.id)

        table = self._table_of(name) if unseat and status != "active" else None
        account = None
        if table is not None:
            def work(s: Session, tx: Tx) -> tuple[int, Any]:
                account = change(s)
                self.rounds.withdraw(s, tx, account, status, reason, by.id)
                return 200, account

            # another process serves her table (NotOwner): its clock withdraws her
            with contextlib.suppress(NotOwner):
                account = int(self.core.run(None, None, canonical(["control", name, action]),
                                            table, work)[1])
        if account is None:
            with self.core.writing(), self.core.sessions.begin() as s:
                account = change(s)
        if status != "active":
            self.core.revoked(account)
        return {"name": name, "status": status, "reason": reason}

    def _table_of(self, name: str) -> int | None:
        """The table where player ``name`` is seated, if any."""
        with self.core.sessions() as s:
            return s.scalar(select(Seat.table_id).join(Account, Account.id == Seat.account_id)
                            .where(Account.name == name))

    def unseat(self, account: int, status: str, reason: str) -> None:
        """Take a barred account out of her table's round and seat
        (:meth:`Rounds.withdraw`), in a transaction of her table."""
        with self.core.sessions() as s:
            table = s.scalar(select(Seat.table_id).where(Seat.account_id == account))
        if table is None:
            return

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            self.rounds.withdraw(s, tx, account, status, reason, None)
            return 200, True

        self.core.run(None, None, canonical(["unseat", account]), table, work)

    def import_list(self, by: Caller, text: str, *, unseat: bool = True) -> dict[str, Any]:
        """Load a regulator's self-exclusion list (CSV, :func:`read_exclusions`; all or
        nothing): each name is refused at sign-up and sign-in while listed, and a player
        listed now is excluded (until the operator reinstates her), signed out and
        unseated (as :meth:`set`)."""
        try:
            entries = read_exclusions(text)
        except SidebetError as exc:
            raise ApiError(422, str(exc)) from None
        now = utc_now()
        barred: list[tuple[int, str]] = []  # and the reason, as the clock reads it
        with self.core.writing(), self.core.sessions.begin() as s:
            for name, since, until in entries:
                key = name_key(name)
                entry = s.get(ExclusionEntry, key)
                if entry is None:
                    s.add(ExclusionEntry(name_key=key, name=name[:64], since=since,
                                         until=until, imported_at=now))
                else:
                    entry.name, entry.since, entry.until = name[:64], since, until
                    entry.imported_at = now
            s.flush()
            for name, _, _ in entries:
                acct = s.scalar(select(Account).where(Account.name_key == name_key(name)))
                entry = None if acct is None or acct.role != "player" \
                    else listed(s, acct.name)
                if acct is not None and entry is not None and acct.status == "active":
                    acct.status = "excluded"
                    acct.status_reason = "on the self-exclusion list until " + (
                        entry.until or "further notice")
                    revoke(s, acct.id)
                    barred.append((acct.id, acct.status_reason))
            log_action(s, by, "import-exclusions", "self-exclusion list",
                       {"entries": len(entries), "accounts": len(barred)})
        for account, reason in barred:  # unless the clock has withdrawn her already
            self.core.revoked(account)
            if unseat:
                self.unseat(account, "excluded", reason)
        return {"entries": len(entries), "accounts": len(barred)}
