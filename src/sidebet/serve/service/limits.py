"""The limits a player sets, as interactive-gaming regulators require: deposit and loss
limits per rolling day, week and month, a session time reminder, and a self-exclusion or
cool-off the server enforces at sign-in and at the table.

A lower limit takes effect at once; a higher or removed one after
``Settings.limit_raise_delay`` (it waits in ``pending``); an exclusion cannot be shortened,
and it signs the player out everywhere.  Losses are the net of the player's finished
rounds (their game records) in the period, plus the most the round in progress could
still cost: its net so far (wagers still open counted as lost, what it has paid counted
as won) less the new wager.

A limit is checked and consumed in one transaction holding the account's row
(:func:`hold`: ``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite the process's write
lock already holds every write), so that parallel deposits or wagers of one account are
counted one after the other and never pass a limit together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sidebet.core.errors import Violation
from sidebet.core.money import Cents, format_money, parse_money
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.models import Account, Game, GamePlayer, PlayerLimits, Token, WalletTx
from sidebet.serve.security import Caller, revoke
from sidebet.serve.service.core import Core, amount_of

__all__ = ["KINDS", "PERIODS", "Limits", "hold"]

PERIODS: dict[str, int] = {"day": 1, "week": 7, "month": 30}
"""Each period's length in days (rolling)."""
KINDS = ("deposit", "loss")
"""The limits per period."""

Table = dict[str, dict[str, Cents | None]]


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _empty() -> Table:
    return {k: dict.fromkeys(PERIODS) for k in KINDS}


def _refuse(message: str) -> ApiError:
    v = Violation(HOUSE, message)
    return ApiError(422, message, (v,))


def hold(s: Session, account: int) -> None:
    """Lock the account's row until the transaction ``s`` ends (PostgreSQL's
    ``SELECT ... FOR UPDATE``; SQLite has one writer and ignores it), so that what a limit
    counts cannot change before this transaction's own deposit or wager is written."""
    s.execute(select(Account.id).where(Account.id == account).with_for_update())


def _in_force(limits: str, pending: str | None, pending_from: str | None,
              excluded_until: str | None) -> tuple[Table, int | None, str | None]:
    """A limits row's limits in force now (a pending change promoted once due), reminder
    and exclusion's end."""
    data = json.loads(limits)
    if pending is not None and pending_from is not None and pending_from <= utc_now():
        data = {**data, **json.loads(pending)}
    table: Table = {k: {p: data.get(k, {}).get(p) for p in PERIODS} for k in KINDS}
    return table, data.get("reminder"), excluded_until


class Limits:
    """Players' limits: read, set, and checked on every deposit and bet."""

    def __init__(self, core: Core) -> None:
        self.core = core

    # ----- reading ----------------------------------------------------------------------

    def _row(self, s: Session, account: int) -> tuple[Table, int | None, str | None,
                                                       PlayerLimits | None]:
        """The limits in force now (a pending change promoted once due), the reminder,
        the exclusion's end and the row."""
        row = s.get(PlayerLimits, account)
        if row is None:
            return _empty(), None, None, None
        return (*_in_force(row.limits, row.pending, row.pending_from, row.excluded_until),
                row)

    def _recent(self, s: Session, account: int) -> tuple[Table, str | None] | None:
        """The limits in force and the exclusion's end (``None``: no row), from
        ``Core.limit_rows`` when read lately (no statement), else read and kept."""
        cache = self.core.limit_rows
        known = cache.get(account)
        if known is None:
            generation = cache.generation
            row = s.get(PlayerLimits, account)
            fields = None if row is None else (row.limits, row.pending, row.pending_from,
                                               row.excluded_until)
            cache.put(account, fields, generation)
            known = (fields,)
        if known[0] is None:
            return None
        table, _, until = _in_force(*known[0])
        return table, until

    def view(self, caller: Caller) -> dict[str, Any]:
        """The caller's limits (``GET /api/wallet/limits``)."""
        with self.core.sessions() as s:
            table, reminder, excluded, row = self._row(s, caller.id)
            started = s.scalar(select(func.min(Token.created_at))
                               .where(Token.session == caller.session)) if caller.session \
                else None
            pending = None
            if row is not None and row.pending is not None and row.pending_from is not None \
                    and row.pending_from > utc_now():
                pending = json.loads(row.pending)
        out: dict[str, Any] = {
            "mode": self.core.settings.money_mode,
            "deposit_limits": {p: None if c is None else format_money(c)
                               for p, c in table["deposit"].items()},
            "loss_limits": {p: None if c is None else format_money(c)
                            for p, c in table["loss"].items()},
            "session_reminder_minutes": reminder,
            "excluded_until": excluded if excluded and excluded > utc_now() else None,
            "session_started_at": started,
        }
        if pending is not None and row is not None:
            out["pending"] = {k: {p: None if c is None else format_money(c)
                                  for p, c in pending[k].items()} for k in KINDS
                              if k in pending}
            out["pending_from"] = row.pending_from
        return out

    # ----- setting ----------------------------------------------------------------------

    def set(self, caller: Caller, body: dict[str, Any]) -> dict[str, Any]:
        """Set the caller's limits (``PUT /api/wallet/limits``): lower at once, higher or
        removed after the house's delay; an exclusion only lengthened."""
        if caller.role != "player":
            raise ApiError(403, "only players set limits")
        lim = self.core.settings
        wanted: Table = {
            k: {p: None if body[f"{k}_limits"].get(p) is None
                else amount_of(str(body[f"{k}_limits"][p]), lim.amount_max, f"{k} limit")
                for p in PERIODS} for k in KINDS}
        until = body.get("excluded_until")
        now = datetime.now(UTC)
        if until is not None:
            try:
                moment = datetime.fromisoformat(until.replace("Z", "+00:00"))
            except ValueError:
                raise ApiError(422, f"excluded_until {until!r} is not a UTC time") from None
            if moment <= now:
                raise ApiError(422, "excluded_until must be in the future")
            until = _time(moment)
        with self.core.writing(), self.core.sessions.begin() as s:
            current, _, excluded, row = self._row(s, caller.id)
            if excluded is not None and excluded > _time(now) and (until is None
                                                                   or until < excluded):
                raise ApiError(409, f"the self-exclusion until {excluded} cannot be shortened")
            now_table: Table = {k: {} for k in KINDS}
            looser = False
            for k in KINDS:
                for p in PERIODS:
                    old, new = current[k][p], wanted[k][p]
                    stricter = new is not None and (old is None or new <= old)
                    now_table[k][p] = new if stricter else old
                    looser = looser or (not stricter and new != old)
            data = {**now_table, "reminder": body.get("session_reminder_minutes")}
            if row is None:
                row = PlayerLimits(account_id=caller.id, limits=canonical(data))
                s.add(row)
            row.limits = canonical(data)
            if looser:
                row.pending = canonical(wanted)
                row.pending_from = _time(now + timedelta(seconds=lim.limit_raise_delay))
            else:
                row.pending, row.pending_from = None, None
            if until is not None:
                row.excluded_until = until
                revoke(s, caller.id)  # signed out everywhere until it ends
            self.core.limits_changed(s, caller.id)
        self.core.limit_rows.forget(caller.id)  # committed: no read before it is kept
        if until is not None:
            self.core.revoked(caller.id)
        return self.view(caller)

    # ----- checks -----------------------------------------------------------------------

    def check_deposit(self, s: Session, account: int, amount: Cents) -> None:
        """Refuse a deposit that would pass one of the account's deposit limits (the
        account's row held first: parallel deposits are counted one after the other)."""
        hold(s, account)
        table, _, _, row = self._row(s, account)
        if row is None:
            return

        def deposited(since: str) -> Cents:
            return int(s.scalar(select(func.coalesce(func.sum(WalletTx.amount), 0))
                                .where(WalletTx.account_id == account,
                                       WalletTx.kind == "deposit", WalletTx.at >= since))
                       or 0)

        for period, days, limit, done in self._periods(table["deposit"], deposited):
            if done + amount > limit:
                raise _refuse(f"the deposit limit per {period} is {format_money(limit)}; "
                              f"{format_money(done)} deposited in the last {days} day(s)")

    @staticmethod
    def _periods(limits: dict[str, Cents | None], used: Callable[[str], Cents]
                 ) -> Iterator[tuple[str, int, Cents, Cents]]:
        """Each period with a limit: its name, days, limit and what ``used`` counts since
        its start."""
        now = datetime.now(UTC)
        for period, days in PERIODS.items():
            limit = limits[period]
            if limit is not None:
                yield period, days, limit, used(_time(now - timedelta(days=days)))

    def excluded(self, s: Session, account: int) -> str | None:
        """The end of the account's self-exclusion, if it is excluded now."""
        until = s.scalar(select(PlayerLimits.excluded_until)
                         .where(PlayerLimits.account_id == account))
        return until if until is not None and until > utc_now() else None

    def check_bet(self, s: Session, account: int, amount: Cents, at_risk: Cents) -> None:
        """Refuse a wager while excluded, or one that could take the account's losses past a
        loss limit (``at_risk``: what the round in progress could cost before it, at
        worst)."""
        found = self._recent(s, account)  # one read for both checks, kept a while
        if found is None:
            return
        table, until = found
        if until is not None and until > utc_now():
            v = Violation(HOUSE, f"the account is self-excluded until {until}")
            raise ApiError(403, str(v), (v,))
        if all(v is None for v in table["loss"].values()):
            return
        hold(s, account)  # the losses counted cannot change before this wager is written

        def lost(since: str) -> Cents:
            records = s.scalars(select(Game.record).join(GamePlayer,
                                                         GamePlayer.game_id == Game.id)
                                .where(GamePlayer.account_id == account,
                                       Game.ended_at >= since, Game.record.is_not(None)))
            net = 0
            for text in records:
                for p in json.loads(text or "{}").get("players", []):
                    if p.get("account") == account:
                        net += parse_money(str(p["net"]))
            return max(0, -net)

        for period, days, limit, done in self._periods(table["loss"], lost):
            if done + at_risk + amount > limit:
                raise _refuse(f"the loss limit per {period} is {format_money(limit)}: "
                              f"{format_money(done)} lost in the last {days} day(s) and "
                              f"{format_money(at_risk)} at risk in this round")
