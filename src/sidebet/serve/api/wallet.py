"""The wallet: balance, deposits and withdrawals (an ``Idempotency-Key`` required; a
player's own only with play money), the limits a player sets, and the payment provider's
signed callback."""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import ValidationError

from sidebet.serve.api.bodies import AmountIn
from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.api.schemas import WalletOut, WalletTxOut
from sidebet.serve.api.security_schemas import LimitsIn, LimitsOut, PaymentIn
from sidebet.serve.errors import ApiError
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

    @api.get("/api/wallet/limits", response_model=LimitsOut)
    def limits(who: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
        """The money mode and the limits the player set: deposits and losses per rolling
        day, week and month, the session reminder, the self-exclusion's end."""
        return services.limits.view(who)

    @api.put("/api/wallet/limits", response_model=LimitsOut)
    def set_limits(body: LimitsIn, who: CurrentCaller, services: ServicesDep
                   ) -> dict[str, Any]:
        """Set limits: a lower one at once, a higher or removed one after the house's
        delay; ``excluded_until`` (self-exclusion or cool-off) signs the player out until
        then and cannot be shortened."""
        return services.limits.set(who, body.model_dump())

    @api.post("/api/payments/callback", status_code=201, response_model=WalletTxOut,
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": PaymentIn.model_json_schema()}}}})
    async def payment(request: Request, response: Response,
                      signature: Annotated[str | None, Header(alias="X-Signature",
                                                              max_length=100)] = None) -> Any:
        """The payment provider's callback (real money): a deposit or withdrawal, signed
        ``X-Signature: t=<unix seconds>,sha256=<HMAC-SHA256 of t, '.' and the body>`` and
        refused outside the payment window; applied once for good by its ``id`` (a
        delivery again answers the first answer)."""
        services = request.app.state.services
        raw = await request.body()
        services.wallet.verify_payment(raw, signature)
        try:
            body = PaymentIn.model_validate_json(raw)
        except ValidationError as exc:
            raise ApiError(422, f"the payment callback is malformed ({exc.error_count()} "
                                "error(s))") from None
        result = await run_in_threadpool(services.wallet.provider_move, body.account,
                                         body.kind, body.amount, body.id)
        return answered(result, response)

    return api
