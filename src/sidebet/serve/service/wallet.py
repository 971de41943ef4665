"""The wallet: a player's balance, deposits and withdrawals."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from sidebet.core.errors import Violation
from sidebet.core.money import format_money
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.models import Account, Seat, WalletTx
from sidebet.serve.security import Caller
from sidebet.serve.service.core import Core, Tx, amount_of

__all__ = ["Wallet", "tx_json"]


def tx_json(t: WalletTx) -> dict[str, Any]:
    """A deposit or withdrawal as the API shows it."""
    return {"id": t.id, "kind": t.kind, "amount": format_money(t.amount),
            "balance_after": format_money(t.balance_after), "at": t.at,
            "idempotency_key": t.idempotency_key}


class Wallet:
    """Players' wallets.  A seated player deposits only between rounds or while bets are
    open (the round's credits follow) and withdraws only after leaving the table, so the
    engine's view of a seat's chips never exceeds the wallet."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def view(self, caller: Caller) -> dict[str, Any]:
        """Balance and transactions."""
        with self.core.sessions() as s:
            acct = s.get(Account, caller.id)
            assert acct is not None
            txs = s.scalars(select(WalletTx).where(WalletTx.account_id == caller.id)
                            .order_by(WalletTx.id))
            return {"balance": format_money(acct.balance),
                    "transactions": [tx_json(t) for t in txs]}

    def move(self, caller: Caller, kind: str, amount_text: str, key: str | None
             ) -> tuple[int, Any]:
        """A deposit or withdrawal (idempotent by its ``Idempotency-Key``, required)."""
        if key is None:
            raise ApiError(422, "a deposit or withdrawal needs an Idempotency-Key header")
        amount = amount_of(amount_text, self.core.settings.amount_max)
        if amount <= 0:
            raise ApiError(422, f"the amount must be positive, not {format_money(amount)}")
        if caller.role != "player":
            raise ApiError(403, "only players have a wallet")
        with self.core.sessions() as s:
            seat = s.scalar(select(Seat).where(Seat.account_id == caller.id))
        table_id = None if seat is None else seat.table_id
        fingerprint = canonical(["wallet", kind, amount])

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            row = s.scalar(select(Seat).where(Seat.account_id == caller.id))
            if (row is None) != (table_id is None) or (row and row.table_id != table_id):
                raise ApiError(409, "the account changed seats meanwhile; try again")
            live = tx.table
            if kind == "withdrawal":
                done = s.execute(update(Account).where(Account.id == caller.id,
                                                       Account.balance >= amount)
                                 .values(balance=Account.balance - amount))
                if done.rowcount != 1:  # type: ignore[attr-defined]
                    raise ApiError(409, f"the wallet holds less than {format_money(amount)}")
                # checked after the row lock: a concurrent sit waits for it or is seen here
                if live is not None or s.scalar(select(Seat).where(
                        Seat.account_id == caller.id)) is not None:
                    raise ApiError(409, "leave the table before withdrawing",
                                   (Violation(HOUSE, "leave the table before withdrawing"),))
            else:
                seat_no = None if row is None else row.seat
                if live is not None and seat_no is not None and live.round_open:
                    if not live.in_betting:
                        raise ApiError(409, "a seated player deposits between rounds or "
                                            "while bets are open",
                                       (Violation(HOUSE, "deposit between rounds or while "
                                                         "bets are open"),))
                    chips = live.round_chips.get(seat_no, 0) + amount
                    self.core.append(s, tx, "round-chips",
                                     {"chips": {str(seat_no): chips},
                                      "accounts": {str(seat_no): caller.id}})
                s.execute(update(Account).where(Account.id == caller.id)
                          .values(balance=Account.balance + amount))
            balance = s.scalar(select(Account.balance).where(Account.id == caller.id))
            assert balance is not None
            t = WalletTx(account_id=caller.id, kind=kind, amount=amount, balance_after=balance,
                         idempotency_key=key, at=utc_now())
            s.add(t)
            s.flush()
            return 201, tx_json(t)

        return self.core.run(caller, key, fingerprint, table_id, work)
