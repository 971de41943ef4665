"""The wallet: balance, deposits and withdrawals (an ``Idempotency-Key`` required)."""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Response

from sidebet.serve.api.bodies import AmountIn
from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.api.schemas import WalletOut, WalletTxOut
from sidebet.serve.settings import Settings

__all__ = ["router"]


def router(settings: Settings) -> APIRouter:
    """The wallet's routes."""
    api = APIRouter(tags=["wallet"], route_class=ExactRoute)
    Key = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]

    @api.get("/api/wallet", response_model=WalletOut)
    def wallet(who: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
        """Balance and deposits/withdrawals."""
        return services.wallet.view(who)

    @api.post("/api/wallet/deposits", status_code=201, response_model=WalletTxOut)
    def deposit(body: AmountIn, who: CurrentCaller, services: ServicesDep, response: Response,
                key: Key = None) -> Any:
        """Deposit (Idempotency-Key required)."""
        return answered(services.wallet.move(who, "deposit", body.amount, key), response)

    @api.post("/api/wallet/withdrawals", status_code=201, response_model=WalletTxOut)
    def withdraw(body: AmountIn, who: CurrentCaller, services: ServicesDep, response: Response,
                 key: Key = None) -> Any:
        """Withdraw (Idempotency-Key required; not while seated)."""
        return answered(services.wallet.move(who, "withdrawal", body.amount, key), response)

    return api
