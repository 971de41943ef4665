"""The operator's check of the money: conservation across wallets, the house and the
layout."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from sidebet.serve.models import Account, WalletTx
from sidebet.serve.service.core import Core

__all__ = ["Operator"]


class Operator:
    """Reconciliation of the money the server holds."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def reconcile(self) -> dict[str, Any]:
        """Money conservation: balances (players and house) plus chips on the layout equal
        deposits less withdrawals."""
        core = self.core
        with core.sessions() as s:
            deposits = s.scalar(select(func.coalesce(func.sum(WalletTx.amount), 0))
                                .where(WalletTx.kind == "deposit")) or 0
            withdrawals = s.scalar(select(func.coalesce(func.sum(WalletTx.amount), 0))
                                   .where(WalletTx.kind == "withdrawal")) or 0
            balances = s.scalar(select(func.coalesce(func.sum(Account.balance), 0))) or 0
            house = s.scalar(select(Account.balance).where(Account.role == "house")) or 0
            negative = s.scalar(select(func.count()).select_from(Account)
                                .where(Account.balance < 0, Account.role != "house")) or 0
        layout = 0
        for tid, live in list(core.tables.items()):
            with core.lock(tid):
                if live.round_open and live.state is not None:
                    layout += sum(live.state.ledger.open_stakes().values())
        return {"deposits": int(deposits), "withdrawals": int(withdrawals),
                "balances": int(balances), "house": int(house), "layout": int(layout),
                "negative_balances": int(negative),
                "conserved": int(balances) + layout == int(deposits) - int(withdrawals)}
