"""The operator's routes: money conservation, the cashier (deposits and withdrawals for a
player), revoking an account's tokens, the account controls (exclude, suspend, reinstate,
close) and a regulator's self-exclusion list, ending a stuck round, and the operators'
log; every action logged with who did it."""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from sidebet.serve.api.bodies import AmountIn
from sidebet.serve.api.deps import OperatorCaller, ServicesDep
from sidebet.serve.api.params import NO_NUL, TableId
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.api.schemas import Reconciliation, WalletTxOut
from sidebet.serve.api.security_schemas import (
    ControlIn,
    ControlOut,
    ExclusionsOut,
    OperatorActionOut,
    Revoked,
    RoundEnded,
)
from sidebet.serve.errors import ApiError
from sidebet.serve.settings import Settings

__all__ = ["router"]


def router(settings: Settings) -> APIRouter:
    """The operator's routes."""
    api = APIRouter(tags=["audit"], route_class=ExactRoute)
    Key = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]
    Name = Annotated[str, Path(min_length=1, max_length=settings.name_max, pattern=NO_NUL)]

    @api.get("/api/reconcile", response_model=Reconciliation)
    def reconcile(_who: OperatorCaller, services: ServicesDep) -> dict[str, Any]:
        """Money conservation (operators)."""
        return services.operator.reconcile()

    def cashier(kind: str, path: str) -> None:
        @api.post(f"/api/operator/accounts/{{name}}/{path}", status_code=201,
                  response_model=WalletTxOut, tags=["operator"],
                  summary=f"A {kind} for a player (operators; Idempotency-Key; logged)")
        def move(name: Name, body: AmountIn, who: OperatorCaller, services: ServicesDep,
                 response: Response, key: Key = None) -> Any:
            return answered(services.wallet.cashier(who, name, kind, body.amount, key),
                            response)

    cashier("deposit", "deposits")
    cashier("withdrawal", "withdrawals")

    @api.post("/api/operator/accounts/{name}/revoke", response_model=Revoked,
              tags=["operator"])
    def revoke(name: Name, who: OperatorCaller, services: ServicesDep) -> dict[str, Any]:
        """Revoke every token of the account (operators; logged)."""
        return services.operator.revoke_tokens(who, name)

    @api.post("/api/operator/accounts/{name}/controls", response_model=ControlOut,
              tags=["operator"])
    def control(name: Name, body: ControlIn, who: OperatorCaller, services: ServicesDep
                ) -> dict[str, Any]:
        """Exclude, suspend, reinstate or close a player's account, with a reason
        (operators; logged): a barred player is signed out everywhere and unseated."""
        return services.controls.set(who, name, body.action, body.reason)

    @api.post("/api/operator/exclusion-list", response_model=ExclusionsOut,
              tags=["operator"], openapi_extra={"requestBody": {"required": True, "content": {
                  "text/csv": {"schema": {"type": "string"}}}}})
    async def exclusions(request: Request, who: OperatorCaller) -> dict[str, Any]:
        """Import a regulator's self-exclusion list (CSV ``name,from,until``; operators;
        logged): enforced at sign-up and sign-in; listed players are signed out and
        unseated."""
        try:
            text = (await request.body()).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ApiError(422, "the self-exclusion list is not UTF-8 text") from None
        services = request.app.state.services
        result: dict[str, Any] = await run_in_threadpool(services.controls.import_list,
                                                         who, text)
        return result

    @api.post("/api/operator/tables/{table_id}/end-round", response_model=RoundEnded,
              tags=["operator"])
    def end_round(table_id: TableId, who: OperatorCaller, services: ServicesDep
                  ) -> dict[str, Any]:
        """End the round in progress by the table's default actions (operators; logged)."""
        return services.timing.end_round(who, table_id)

    @api.get("/api/operator/actions", response_model=list[OperatorActionOut],
             tags=["operator"])
    def actions(_who: OperatorCaller, services: ServicesDep,
                limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> list[dict[str, Any]]:
        """The operators' log, newest first: every operator action and who did it."""
        return services.operator.actions(limit)

    return api
