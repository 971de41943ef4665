"""The wallet: a player's balance, deposits and withdrawals.  In play money (the default)
players credit themselves; in real money deposits and withdrawals come only from an
operator (logged with who) or the payment provider's callback, signed with HMAC-SHA256
over a timestamp and the body; deposits are held to the player's deposit limits either way.

A provider's transaction id is kept with its deposit or withdrawal under a unique index for
good: a callback delivered again, at any later time, is answered with the first answer and
moves no money (an ``Idempotency-Key``'s answer expires; a money fact never does)."""

from __future__ import annotations

import hashlib
import hmac
import time
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
from sidebet.serve.service.limits import Limits
from sidebet.serve.service.oplog import log_action

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

    def __init__(self, core: Core, limits: Limits) -> None:
        self.core = core
        self.limits = limits

    def view(self, caller: Caller) -> dict[str, Any]:
        """Balance and transactions."""
        with self.core.sessions() as s:
            acct = s.get(Account, caller.id)
            assert acct is not None
            txs = s.scalars(select(WalletTx).where(WalletTx.account_id == caller.id)
                            .order_by(WalletTx.id))
            return {"balance": format_money(acct.balance), "mode": self.core.settings.money_mode,
                    "transactions": [tx_json(t) for t in txs]}

    def move(self, caller: Caller, kind: str, amount_text: str, key: str | None, *,
             source: str = "player", by: Caller | None = None,
             provider_id: str | None = None) -> tuple[int, Any]:
        """A deposit or withdrawal (idempotent by its ``Idempotency-Key``, required) to the
        wallet of ``caller``, asked by the player, an operator (``by``) or the payment
        provider (``source``, its transaction id ``provider_id``: applied once for
        good)."""
        if key is None:
            raise ApiError(422, "a deposit or withdrawal needs an Idempotency-Key header")
        amount = amount_of(amount_text, self.core.settings.amount_max)
        if amount <= 0:
            raise ApiError(422, f"the amount must be positive, not {format_money(amount)}")
        if caller.role != "player":
            raise ApiError(403, "only players have a wallet")
        if source == "player" and self.core.settings.money_mode == "real":
            v = Violation(HOUSE, "with real money, deposits and withdrawals are made through "
                                 "the cashier (the operator or the payment provider), not "
                                 "by the player's own request")
            raise ApiError(403, str(v), (v,))
        with self.core.sessions() as s:
            seat = s.scalar(select(Seat).where(Seat.account_id == caller.id))
        table_id = None if seat is None else seat.table_id
        fingerprint = canonical(["wallet", kind, amount, source])

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            if provider_id is not None:
                first = s.scalar(select(WalletTx).where(WalletTx.provider_id == provider_id))
                if first is not None:  # applied before: its answer, no money moved
                    if (first.account_id, first.kind, first.amount) != (caller.id, kind,
                                                                        amount):
                        raise ApiError(422, f"the payment {provider_id!r} was applied "
                                            "before with another account, kind or amount")
                    return 201, tx_json(first)
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
                self.limits.check_deposit(s, caller.id, amount)
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
                         idempotency_key=key, at=utc_now(), provider_id=provider_id)
            s.add(t)
            s.flush()
            if by is not None:
                log_action(s, by, kind, f"account {caller.name}",
                           {"amount": format_money(amount), "key": key})
            return 201, tx_json(t)

        return self.core.run(caller, key, fingerprint, table_id, work)

    def _player(self, name: str) -> Caller:
        with self.core.sessions() as s:
            acct = s.scalar(select(Account).where(Account.name == name))
        if acct is None or acct.role != "player":
            raise ApiError(404, f"no player {name!r}")
        return Caller(acct.id, acct.name, acct.role)

    def cashier(self, by: Caller, name: str, kind: str, amount_text: str, key: str | None
                ) -> tuple[int, Any]:
        """A deposit or withdrawal made by an operator for player ``name`` (logged)."""
        return self.move(self._player(name), kind, amount_text, key, source="operator", by=by)

    def verify_payment(self, body: bytes, signature: str | None,
                       now: float | None = None) -> None:
        """Refuse a payment callback (401) unless ``X-Signature: t=<unix seconds>,
        sha256=<hex>`` is the HMAC-SHA256 of ``<t>.`` and the body with
        ``Settings.payment_secret``, and ``t`` is within ``Settings.payment_window``
        seconds of the server's clock."""
        settings = self.core.settings
        if settings.payment_secret is None:
            raise ApiError(404, "no payment provider is configured (SIDEBET_PAYMENT_SECRET)")
        parts = dict(p.strip().partition("=")[::2] for p in (signature or "").split(","))
        stamp, given = parts.get("t", ""), parts.get("sha256", "").lower()
        if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12 and given):
            raise ApiError(401, "the payment callback's X-Signature is not valid: it must "
                                "be t=<unix seconds>,sha256=<HMAC-SHA256 of t, '.' and the "
                                "body>")
        expected = hmac.new(settings.payment_secret.get_secret_value().encode(),
                            stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(given, expected):
            raise ApiError(401, "the payment callback's X-Signature is not valid")
        skew = abs((time.time() if now is None else now) - int(stamp))
        if skew > settings.payment_window:
            raise ApiError(401, f"the payment callback was signed {int(skew)} s away from "
                                f"the server's clock; at most {settings.payment_window} s "
                                "is accepted")

    def provider_move(self, name: str, kind: str, amount: str, payment_id: str
                      ) -> tuple[int, Any]:
        """A verified payment callback's deposit or withdrawal, applied once for good by
        its id."""
        return self.move(self._player(name), kind, amount, f"payment:{payment_id}",
                         source="provider", provider_id=payment_id)
