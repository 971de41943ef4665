"""House policies that keep a table moving (not rules of the game): a seat needs money for
the table minimum, and a seat is freed from a player who sat out the house's number of
rounds in a row or has no money left for the minimum (a ``leave`` event with its reason)."""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table, bindparam, delete, select
from sqlalchemy.orm import Session

from sidebet.core.errors import Violation
from sidebet.core.money import Cents, format_money
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.live import LiveTable
from sidebet.serve.models import Account, Seat
from sidebet.serve.service.core import Core, Tx
from sidebet.serve.service.rows import read_rows

__all__ = ["Seating", "table_minimum"]

_SEATS = cast(Table, Seat.__table__)
_FREE = delete(_SEATS).where(_SEATS.c.table_id == bindparam("tid"),
                             _SEATS.c.seat == bindparam("place"))


def table_minimum(live: LiveTable) -> Cents:
    """The smallest Blackjack wager the table takes (its minimum, else one cent)."""
    limit = live.config.limits.get("blackjack")
    return max(1, limit.min if limit is not None and limit.min is not None else 1)


class Seating:
    """Who may sit, and whose seat is freed at the end of a round."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def free(self, s: Session, tx: Tx, seat: int) -> None:
        """Delete ``seat``'s row at the table of ``tx`` (if it has one), with the
        transaction's last writes (:meth:`~sidebet.serve.service.core.Core.later`)."""
        assert tx.table is not None
        self.core.later(s, tx, _FREE, [{"tid": tx.table.id, "place": seat}])

    def check_sit(self, s: Session, live: LiveTable, account: int) -> None:
        """Refuse a seat to a player without money for the table minimum."""
        balance = s.scalar(select(Account.balance).where(Account.id == account)) or 0
        least = table_minimum(live)
        if balance < least:
            v = Violation(HOUSE, f"a seat needs at least the table minimum "
                                 f"{format_money(least)} in the wallet")
            raise ApiError(409, str(v), (v,))

    def after_round(self, s: Session, tx: Tx) -> None:
        """At a round's end: free the seats of players whose account the operator has
        barred, who sat out ``Settings.sit_out_rounds`` rounds in a row or who cannot cover
        the minimum."""
        live = tx.table
        assert live is not None and live.state is not None
        least = table_minimum(live)
        limit = self.core.settings.sit_out_rounds
        seated = sorted(live.seat_accounts.items())
        rows = read_rows(s.connection(), select(
            Account.id, Account.balance, Account.status).where(
            Account.id.in_([a for _, a in seated]))) if seated else []
        balances = {int(a): int(b) + tx.owed.get(int(a), 0) for a, b, _ in rows}
        barred = {int(a): str(st) for a, _, st in rows if st != "active"}
        for seat, account in seated:
            sat_out = live.sat_out.get(seat, 0)  # counted by the round-end event (the log)
            balance = balances.get(account) or 0
            reason = None
            if account in barred:
                reason = f"the account is {barred[account]} by the operator"
            elif sat_out >= limit:
                reason = f"sat out {sat_out} rounds in a row"
            elif balance < least:
                reason = f"no money for the table minimum {format_money(least)}"
            if reason is None:
                continue
            self.free(s, tx, seat)
            self.core.append(s, tx, "leave", {"seat": seat, "account": account,
                                              "reason": reason})
