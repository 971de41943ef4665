"""Seats and the round: sitting, leaving, client seeds, and every decision of the round at
one's own seat (bets, the deal, the Press, insurance, hit, stand, double, split,
surrender), each checked and applied by the table engine."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, Field

from sidebet.regulation.wagers import PRESSABLE
from sidebet.serve.api.bodies import AmountIn, OptionalAmountIn
from sidebet.serve.api.dealer_schemas import HELD
from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.params import MONEY, ExpectedSeq, SeatNo, TableId
from sidebet.serve.api.routing import ExactRoute, acted, answered
from sidebet.serve.api.schemas import ActionOut, SeatChange, ShoeOut
from sidebet.serve.security import Caller
from sidebet.serve.settings import Settings
from sidebet.table import Step

__all__ = ["router"]

SEAT = "/api/tables/{table_id}/seats/{seat}"
"""Every route of this router is under a seat of a table."""


def decide(request: Request, who: Caller, table_id: int, seat: int, step: Step,
           amount: str | None = None, wager: str | None = None, *, key: str | None,
           expected: int | None) -> Response:
    """A decision applied by the table engine, and its answer (:func:`acted`): the app's
    services and tables' state serialiser read from ``request.app.state`` (no dependency
    to solve per decision)."""
    app = request.app.state
    return acted(app.services.rounds.act(who, table_id, seat, step, amount, wager, key=key,
                                         expected=expected), app.state_json)


def router(settings: Settings) -> APIRouter:
    """The seats' and the round's routes, with the wager and client-seed lengths of
    ``settings``."""
    api = APIRouter(tags=["round"], route_class=ExactRoute)
    Key = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]

    class BetIn(BaseModel):
        """A wager (``blackjack`` or a side wager identifier) and its amount."""

        wager: str = Field(min_length=1, max_length=settings.wager_id_max,
                           examples=["blackjack"])
        amount: str = Field(pattern=MONEY, examples=["10.00"])

    class SeedIn(BaseModel):
        """A client seed for the next shoe's shuffle."""

        seed: str = Field(min_length=1, max_length=settings.client_seed_max,
                          examples=["my lucky seed"])

    def seat_route(path: str, summary: str, model: type[BaseModel]
                   ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return api.post(SEAT + path, status_code=201, summary=summary, response_model=model,
                        responses=HELD if model is ActionOut else None)

    @seat_route("", "Sit at a free seat", SeatChange)
    def sit(table_id: TableId, seat: SeatNo, who: CurrentCaller, services: ServicesDep,
            response: Response, key: Key = None) -> Any:
        return answered(services.tables.sit(who, table_id, seat, key), response)

    @seat_route("/leave", "Leave the seat (no wagers in the round in progress)", SeatChange)
    def leave(table_id: TableId, seat: SeatNo, who: CurrentCaller, services: ServicesDep,
              response: Response, key: Key = None) -> Any:
        return answered(services.tables.leave(who, table_id, seat, key), response)

    @seat_route("/client-seed", "Give a client seed for the next shoe's shuffle", ShoeOut)
    def client_seed(table_id: TableId, seat: SeatNo, body: SeedIn, who: CurrentCaller,
                    services: ServicesDep, response: Response, key: Key = None) -> Any:
        return answered(services.tables.client_seed(who, table_id, seat, body.seed, key),
                        response)

    @seat_route("/bets", "Place a wager (blackjack or a side wager the table offers)",
                ActionOut)
    def bet(table_id: TableId, seat: SeatNo, body: BetIn, who: CurrentCaller,
            request: Request, key: Key = None, expected: ExpectedSeq = None) -> Response:
        return decide(request, who, table_id, seat, Step.BET, body.amount, body.wager,
                      key=key, expected=expected)

    @seat_route("/deal", "No more bets: deal and settle the side wagers", ActionOut)
    def deal(table_id: TableId, seat: SeatNo, who: CurrentCaller, request: Request,
             key: Key = None, expected: ExpectedSeq = None) -> Response:
        return decide(request, who, table_id, seat, Step.CLOSE_BETS, key=key,
                      expected=expected)

    @seat_route("/press", f"Press the {PRESSABLE.name} winnings (0 collects them)", ActionOut)
    def press(table_id: TableId, seat: SeatNo, body: AmountIn, who: CurrentCaller,
              request: Request, key: Key = None, expected: ExpectedSeq = None) -> Response:
        return decide(request, who, table_id, seat, Step.PRESS, body.amount, key=key,
                      expected=expected)

    @seat_route("/insurance", "Take insurance (0 declines)", ActionOut)
    def insurance(table_id: TableId, seat: SeatNo, body: AmountIn, who: CurrentCaller,
                  request: Request, key: Key = None,
                  expected: ExpectedSeq = None) -> Response:
        return decide(request, who, table_id, seat, Step.INSURANCE, body.amount, key=key,
                      expected=expected)

    @seat_route("/double", "Double down (default: the whole wager)", ActionOut)
    def double(table_id: TableId, seat: SeatNo, who: CurrentCaller, request: Request,
               body: OptionalAmountIn | None = None, key: Key = None,
               expected: ExpectedSeq = None) -> Response:
        return decide(request, who, table_id, seat, Step.DOUBLE,
                      None if body is None else body.amount, key=key, expected=expected)

    def plain(step: Step, summary: str) -> None:
        @seat_route(f"/{step.value}", summary, ActionOut)
        def act(table_id: TableId, seat: SeatNo, who: CurrentCaller, request: Request,
                key: Key = None, expected: ExpectedSeq = None) -> Response:
            return decide(request, who, table_id, seat, step, key=key, expected=expected)

    plain(Step.HIT, "Hit the hand to act")
    plain(Step.STAND, "Stand on the hand to act")
    plain(Step.SPLIT, "Split the pair")
    plain(Step.SURRENDER, "Surrender the hand")
    return api
