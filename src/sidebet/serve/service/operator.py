"""The operator's check of the money (conservation across wallets, the house and the
layout), the operator's order to revoke an account's tokens, and the operators' log."""

from __future__ import annotations

import contextlib
from typing import Any

from sqlalchemy import func, select

from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, GameTable, WalletTx
from sidebet.serve.security import Caller, revoke
from sidebet.serve.service.core import Core
from sidebet.serve.service.oplog import log_action, recent_actions

__all__ = ["Operator"]


class Operator:
    """Reconciliation of the money the server holds."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def reconcile(self) -> dict[str, Any]:
        """Money conservation: balances (players and house) plus chips on the layout equal
        deposits less withdrawals.  The house's balance is its account row, plus each
        table's ``house_net`` (its finished rounds), plus what the rounds in progress have
        moved (``LiveTable.house_pending``, rebuilt from the log at start).  ``faults``:
        what this process found damaged and worked around (a snapshot skipped)."""
        core = self.core

        def total(column: Any, *where: Any) -> Any:
            return select(func.coalesce(func.sum(column), 0)).where(*where).scalar_subquery()

        # one statement (one snapshot), every table's lock held and SQLite's batch
        # committed: no table's change is half in memory and half in the database
        with contextlib.ExitStack() as held:
            for tid in sorted(core.tables):
                held.enter_context(core.lock(tid))
            with core.writing(), core.sessions() as s:
                deposits, withdrawals, balances, house, tables, negative = s.execute(select(
                    total(WalletTx.amount, WalletTx.kind == "deposit"),
                    total(WalletTx.amount, WalletTx.kind == "withdrawal"),
                    total(Account.balance),
                    total(Account.balance, Account.role == "house"),
                    total(GameTable.house_net),
                    select(func.count()).select_from(Account).where(
                        Account.balance < 0, Account.role != "house").scalar_subquery(),
                )).one()
            layout = pending = 0
            for live in core.tables.values():
                if live.round_open and live.state is not None:
                    layout += sum(live.state.ledger.open_stakes().values())
                    pending += live.house_pending
        # the house: its account row, each table's finished rounds, the rounds in progress
        house, balances = house + tables + pending, balances + tables + pending
        return {"deposits": int(deposits), "withdrawals": int(withdrawals),
                "balances": int(balances), "house": int(house), "layout": int(layout),
                "negative_balances": int(negative),
                "conserved": int(balances) + layout == int(deposits) - int(withdrawals),
                "faults": list(core.faults)}

    def revoke_tokens(self, by: Caller, name: str) -> dict[str, Any]:
        """Revoke every token of account ``name`` (an operator's order, logged)."""
        with self.core.writing(), self.core.sessions.begin() as s:
            acct = s.scalar(select(Account).where(Account.name == name))
            if acct is None or acct.role == "house":
                raise ApiError(404, f"no account {name!r}")
            n = revoke(s, acct.id)
            log_action(s, by, "revoke-tokens", f"account {name}", {"revoked": n})
            account = acct.id
        self.core.revoked(account)
        return {"revoked": n}

    def actions(self, limit: int) -> list[dict[str, Any]]:
        """The operators' log, newest first."""
        with self.core.sessions() as s:
            return recent_actions(s, limit)
