"""The web table: its pages and static files, and the read-only routes the pages need
beyond the round's API (the wagers' names, the card codes, exact house edges and why a
wager is not offered, exact advice, each betting area's limits), plus the test-only
stacked shoe.

The pages are plain HTML, CSS and ES modules under ``sidebet/serve/static`` (package data;
no build step, nothing fetched from elsewhere).  They never decide what is legal: every
button follows the ``legal`` list the server computes from the table engine, and every
refusal shown is the server's, with its citation.
"""

from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from sidebet.core.cards import Card
from sidebet.core.money import parse_money
from sidebet.regulation.wagers import WAGERS
from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.params import SeatNo, TableId
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.schemas import Advice, Out, ShoeOut, TableWagers, ViolationOut
from sidebet.serve.betting import BETS_PATTERN, area_limits
from sidebet.serve.errors import ApiError
from sidebet.serve.settings import Settings

__all__ = ["STATIC", "AreaLimit", "WagerName", "router"]

STATIC = Path(str(resources.files("sidebet.serve") / "static"))
"""The pages' files (package data), served under ``/static``."""


class AreaLimit(Out):
    """A betting area as the table engine sees it with the bets shown on the page: the
    least and most it may hold now (``null``: no limit) with the rule setting the most, and
    what a bet of ``amount`` (or, with none, of the least) would break."""

    wager: str
    amount: str
    min: str | None
    max: str | None
    max_rule: str | None
    violations: list[ViolationOut]


class WagerName(Out):
    """A side wager as the pages name it: its name, its short label on the table and
    whether its winnings may be pressed (the Press bears its name)."""

    id: str
    name: str
    short: str
    pressable: bool


def router(settings: Settings) -> APIRouter:
    """The pages and the web table's routes (the stacked shoe only with ``test_stack``)."""
    api = APIRouter(route_class=ExactRoute)

    class StackIn(BaseModel):
        """TESTS ONLY: the cards a shoe deals first."""

        cards: str = Field(min_length=2, max_length=settings.stack_cards_max,
                           examples=["8h 8d 8s 5c"])

    @api.get("/", include_in_schema=False)
    def lobby() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @api.get("/tables/{table_id}", include_in_schema=False)
    def table_page(table_id: int) -> FileResponse:
        return FileResponse(STATIC / "table.html")

    @api.get("/tables/{table_id}/fair", include_in_schema=False)
    def fair_page(table_id: int) -> FileResponse:
        return FileResponse(STATIC / "fair.html")

    @api.get("/api/wagers", tags=["tables"], response_model=list[WagerName])
    def wager_names() -> list[dict[str, Any]]:
        """Every side wager the server knows, in the order of settlement: its name and the
        short label the table page shows."""
        return [{"id": w.id, "name": w.name, "short": w.short, "pressable": w.pressable}
                for w in WAGERS.values()]

    @api.get("/api/cards", tags=["fairness"], response_model=list[str])
    def cards() -> list[str]:
        """The 52 card kinds' codes by index (0..51): what a shuffle's indices mean."""
        return [Card.from_index(i).code for i in range(52)]

    @api.get("/api/tables/{table_id}/wagers", tags=["tables"], response_model=TableWagers)
    def wagers(table_id: int, services: ServicesDep) -> dict[str, Any]:
        """Every wager at this table: offered ones with their exact house edge, the others
        with why they are not offered (deck count, missing prerequisite, not submitted)."""
        return services.advice.wagers(table_id)

    @api.get("/api/tables/{table_id}/seats/{seat}/advice", tags=["round"],
             response_model=Advice)
    def seat_advice(table_id: int, seat: int, who: CurrentCaller, services: ServicesDep
                    ) -> dict[str, Any]:
        """Exact advice for your decision now (the Press, or the play of your first two
        cards, surrender included)."""
        return services.advice.advice(who, table_id, seat)

    @api.get("/api/tables/{table_id}/seats/{seat}/limits", tags=["round"],
             response_model=list[AreaLimit])
    def limits(table_id: TableId, seat: SeatNo, services: ServicesDep,
               bets: Annotated[str, Query(max_length=200, pattern=BETS_PATTERN)] = ""
               ) -> list[dict[str, Any]]:
        """Each betting area's limits with the bets a page shows (``bets``:
        ``blackjack:10.00,trilux:5.00``, added to those already placed at the seat): the
        TriLux Deluxe maximum follows the Blackjack wager (§ 633c.11(c)), Top 3 needs a
        Three Card Poker wager (§ 633c.7(c)), as the table engine says."""
        live = services.core.live(table_id)
        if not 1 <= seat <= live.seats:
            raise ApiError(404, f"table {table_id} has seats 1 to {live.seats}, not {seat}")
        shown = {w: parse_money(a) for w, _, a in (x.partition(":") for x in bets.split(",") if x)}
        with services.core.lock(table_id):
            placed = dict(live.state.bets(seat)) if live.round_open and live.state else {}
        return area_limits(live.config, live.unit, {**placed, **shown})

    @api.post("/api/tables/{table_id}/test-stack", include_in_schema=False, status_code=201,
              response_model=ShoeOut)
    def stack(table_id: int, body: StackIn, who: CurrentCaller, services: ServicesDep
              ) -> dict[str, Any]:
        """TESTS ONLY (``sidebet serve --test-stack``): the next shoe not yet shuffled
        deals these cards first (operators)."""
        if not settings.test_stack:
            raise ApiError(404, "not found")
        if not who.operator:
            raise ApiError(403, "operators only")
        return services.tables.stack_shoe(table_id, body.cards)

    return api
