"""Dealer-assist tables, the dealer's and the supervisor's routes: staff accounts, the
dealer's screen (``GET``) and page (``/dealer``), cards typed or tapped by the dealer, a
seat's decision entered for its player, a new shoe, corrections asked for by a dealer and
approved by a supervisor.  The engine decides every answer (the service asks it)."""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Response
from fastapi.responses import FileResponse
from pydantic import Field

from sidebet.serve.api.bodies import AmountIn, OptionalAmountIn
from sidebet.serve.api.dealer_schemas import (
    AGAIN,
    HELD,
    CardIn,
    CardOut,
    CorrectionAskedOut,
    CorrectionIn,
    CorrectionOut,
    DealerScreen,
    StaffIn,
    StaffOut,
    StaffTablesIn,
)
from sidebet.serve.api.deps import CurrentCaller, OperatorCaller, ServicesDep
from sidebet.serve.api.params import INT32, NO_NUL, SeatNo, TableId
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.api.schemas import ActionOut, Out
from sidebet.serve.api.web import STATIC
from sidebet.serve.settings import Settings
from sidebet.table import Step

__all__ = ["DEALER_TABLE", "router"]

DEALER_TABLE = "/api/dealer/tables/{table_id}"
"""The dealer's routes of one table."""

Request = Annotated[int, Path(ge=1, le=INT32)]
StaffName = Annotated[str, Path(min_length=1, max_length=64, pattern=NO_NUL)]


def router(settings: Settings) -> APIRouter:
    """The dealer's and the supervisor's routes."""
    api = APIRouter(tags=["dealer-assist"], route_class=ExactRoute)
    Key = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]

    class LayoutBetIn(AmountIn):
        """A wager the seat's player put on the layout (``blackjack`` or a side wager)."""

        wager: str = Field(min_length=1, max_length=settings.wager_id_max)

    class NewShoeOut(Out):
        """A new physical shoe begun: its number and the table's last event."""

        table: int
        shoe: int
        seq: int

    @api.get("/dealer", include_in_schema=False)
    def dealer_page() -> FileResponse:
        return FileResponse(STATIC / "dealer.html")

    @api.post("/api/dealer/staff", status_code=201, response_model=StaffOut)
    def add_staff(body: StaffIn, who: OperatorCaller, services: ServicesDep) -> Any:
        """Add a dealer, a supervisor or a card-reading shoe, with the dealer-assist
        tables it works at (operators)."""
        return services.dealer.add_staff(who, body.name, body.password, body.role,
                                         body.tables)

    @api.put("/api/dealer/staff/{name}/tables", response_model=StaffOut)
    def assign(name: StaffName, body: StaffTablesIn, who: OperatorCaller,
               services: ServicesDep) -> Any:
        """The dealer-assist tables a staff account works at from now on, or ``"all"``
        for a house-wide supervisor (operators)."""
        return services.dealer.assign(who, name, body.tables)

    @api.get(DEALER_TABLE, response_model=DealerScreen)
    def screen(table_id: TableId, who: CurrentCaller, services: ServicesDep) -> Any:
        """The dealer's screen: cards waiting, what to pay or collect seat by seat
        (§ 633c.11(d)), the Press offers, the rest of the round (dealers, supervisors)."""
        return services.dealer.screen(who, table_id)

    @api.post(DEALER_TABLE + "/cards", status_code=201, response_model=CardOut,
              responses=AGAIN)
    def card(table_id: TableId, body: CardIn, who: CurrentCaller, services: ServicesDep,
             response: Response, key: Key = None) -> Any:
        """A card drawn from the shoe, typed or tapped by the dealer: 409 out of the
        dealing order, 422 not left in the shoe (the rule cited)."""
        return answered(services.dealer.enter_card(who, table_id, body.position, body.card,
                                                   body.confidence, key), response)

    @api.post(DEALER_TABLE + "/cards/{position}/undo", status_code=201,
              response_model=CardOut)
    def undo_card(table_id: TableId, position: Annotated[int, Path(ge=0, le=415)],
                  who: CurrentCaller, services: ServicesDep, response: Response,
                  key: Key = None) -> Any:
        """The last card entered, not yet dealt, taken back (a mistyped entry): 409 for
        any other."""
        return answered(services.dealer.undo_card(who, table_id, position, key), response)

    @api.post(DEALER_TABLE + "/shoes", status_code=201, response_model=NewShoeOut)
    def new_shoe(table_id: TableId, who: CurrentCaller, services: ServicesDep,
                 response: Response, key: Key = None) -> Any:
        """A new physical shoe (shuffled), between rounds."""
        return answered(services.dealer.new_shoe(who, table_id, key), response)

    @api.post(DEALER_TABLE + "/corrections", status_code=201,
              response_model=CorrectionAskedOut)
    def ask(table_id: TableId, body: CorrectionIn, who: CurrentCaller, services: ServicesDep,
            response: Response, key: Key = None) -> Any:
        """A dealer asks for a correction (void, misdeal, a card) and says why."""
        return answered(services.dealer.ask(who, table_id, body.kind, body.reason,
                                            body.position, body.card, key), response)

    @api.post(DEALER_TABLE + "/corrections/{request}/approve", status_code=201,
              response_model=CorrectionOut)
    def approve(table_id: TableId, request: Request, who: CurrentCaller,
                services: ServicesDep, response: Response, key: Key = None) -> Any:
        """A supervisor approves a correction: its money is reversed or redone exactly."""
        return answered(services.dealer.approve(who, table_id, request, key), response)

    seat_path = DEALER_TABLE + "/seats/{seat}"

    @api.post(seat_path + "/bets", status_code=201, response_model=ActionOut, responses=HELD)
    def bet(table_id: TableId, seat: SeatNo, body: LayoutBetIn, who: CurrentCaller,
            services: ServicesDep, response: Response, key: Key = None) -> Any:
        """A wager the seat's player placed on the layout."""
        return answered(services.dealer.act(who, table_id, seat, Step.BET, body.amount,
                                            body.wager, key=key), response)

    def with_amount(step: Step, path: str, summary: str) -> None:
        @api.post(seat_path + path, status_code=201, response_model=ActionOut,
                  summary=summary, responses=HELD)
        def act(table_id: TableId, seat: SeatNo, body: AmountIn, who: CurrentCaller,
                services: ServicesDep, response: Response, key: Key = None) -> Any:
            return answered(services.dealer.act(who, table_id, seat, step, body.amount,
                                                key=key), response)

    with_amount(Step.PRESS, "/press", "The Press the player chose (0 collects)")
    with_amount(Step.INSURANCE, "/insurance", "Insurance the player took (0 declines)")

    @api.post(seat_path + "/double", status_code=201, response_model=ActionOut,
              responses=HELD)
    def double(table_id: TableId, seat: SeatNo, who: CurrentCaller, services: ServicesDep,
               response: Response, body: OptionalAmountIn | None = None,
               key: Key = None) -> Any:
        """The player doubles down (default: the whole wager)."""
        amount = None if body is None else body.amount
        return answered(services.dealer.act(who, table_id, seat, Step.DOUBLE, amount,
                                            key=key), response)

    def plain(step: Step, path: str, summary: str) -> None:
        @api.post(seat_path + path, status_code=201, response_model=ActionOut,
                  summary=summary, responses=HELD)
        def act(table_id: TableId, seat: SeatNo, who: CurrentCaller, services: ServicesDep,
                response: Response, key: Key = None) -> Any:
            return answered(services.dealer.act(who, table_id, seat, step, key=key),
                            response)

    plain(Step.CLOSE_BETS, "/deal", "No more bets: the deal (its cards entered next)")
    plain(Step.HIT, "/hit", "The player hits")
    plain(Step.STAND, "/stand", "The player stands")
    plain(Step.SPLIT, "/split", "The player splits the pair")
    plain(Step.SURRENDER, "/surrender", "The player surrenders")
    return api
