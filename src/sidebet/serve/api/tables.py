"""Tables: listing and creating them, their rules, state and shoes, their events and the
export of their log."""

import asyncio
import contextlib
import json
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from sidebet.serve.api.deps import OperatorCaller, OptionalCaller, ServicesDep
from sidebet.serve.api.params import INT32, MONEY, Since, TableId
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.api.schemas import EventOut, ShoeOut, TableInfo, TableState, TableSummary
from sidebet.serve.api.stream import Subscribers
from sidebet.serve.live import Published
from sidebet.serve.service.services import Services
from sidebet.serve.service.tables import MAX_SEATS
from sidebet.serve.settings import Settings

__all__ = ["EXPORT_TYPE", "STATE_WAIT", "news", "router"]

EXPORT_TYPE = "application/x-ndjson"
"""The media type of an exported log (JSON lines)."""


STATE_WAIT = 10.0
"""How long ``GET /api/tables/{id}/state?after=N`` waits for an event past ``N``."""

After = Annotated[int | None, Query(
    ge=0, le=INT32, description="wait (at most 10 s) until the table's last event is past "
                                "this one: a client waiting its turn asks once, not again "
                                "and again")]


WaitSeat = Annotated[int | None, Query(
    ge=1, le=MAX_SEATS, description="with after: wait until this seat's legal actions or "
                                    "the seated players change (a player waiting its "
                                    "turn is not woken by every other seat's move)")]


def _watched(view: dict[str, Any], seat: int | None) -> object:
    """What a wait for ``seat`` watches in a table's view: its legal actions and who sits
    where (``None``: nothing, every event answers)."""
    if seat is None:
        return None
    seats = view["seats"]
    return json.dumps((seats[seat - 1]["legal"] if seat <= len(seats) else None,
                       [s["player"] for s in seats]))  # a copy: what it was then


_UNSEEN = object()
"""No view at the event a wait began from has been published here yet."""


async def news(services: Services, subscribers: Subscribers, table_id: int, after: int,
               seat: int | None = None) -> Published:
    """The table once its last committed event is past ``after`` (or as it is after
    :data:`STATE_WAIT` seconds): woken by the broadcast that follows each commit.  With
    ``seat``, once what :func:`_watched` sees for that seat has changed too since event
    ``after`` (compared with the view published at ``after``: the client's answer may come
    before this process publishes it; a view past ``after`` with none seen at ``after``
    answers at once)."""
    queue = subscribers.add(table_id)
    before: object = _UNSEEN  # what the seat saw at event ``after``, once published here
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STATE_WAIT):
                while True:
                    shown = services.tables.published(table_id)
                    if shown.seq > after and (seat is None or before is _UNSEEN
                                              or _watched(shown.view, seat) != before):
                        break
                    if shown.seq == after and before is _UNSEEN:
                        before = _watched(shown.view, seat)
                    await queue.get()
    finally:
        subscribers.discard(table_id, queue)
    return services.tables.published(table_id)


def router(settings: Settings) -> APIRouter:
    """The tables' routes, with the submission size, time-limit range and page sizes of
    ``settings``."""
    api = APIRouter(route_class=ExactRoute)
    Key = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]

    class TableIn(BaseModel):
        """A Rules Submission (the TOML ``check-table`` reads) and the house's settings."""

        submission: str = Field(max_length=settings.submission_max,
                                examples=['decks = 6\n[limits]\nmin = "10"\n'])
        seats: int = Field(default=MAX_SEATS, ge=1, le=MAX_SEATS)
        unit: str = Field(default="1.00", pattern=MONEY)
        time_limit: int = Field(default=settings.time_limit_default, ge=1,
                                le=max(1, settings.time_limit_max),
                                description="seconds a player has to act, then the table's "
                                            "default action")
        default_action: str = Field(default="stand", pattern="^(stand|surrender)$")
        shoe: str = Field(default="fair", pattern="^(fair|physical)$",
                          description="fair: the server's provably fair shoe; physical: a "
                                      "dealer-assist table whose cards are entered from a "
                                      "physical shoe (docs/dealer-assist.md)")

    @api.get("/api/tables", tags=["tables"], response_model=list[TableSummary])
    def tables(services: ServicesDep) -> list[dict[str, Any]]:
        """Every table: name, decks, side wagers, limits, occupied seats."""
        return services.tables.summaries()

    @api.post("/api/tables", status_code=201, tags=["tables"], response_model=TableInfo)
    def create_table(body: TableIn, who: OperatorCaller, services: ServicesDep,
                     response: Response, key: Key = None) -> Any:
        """Create a table from a Rules Submission (operators); a non-compliant one is
        refused (422) with every violation and its citation."""
        return answered(services.tables.create(
            who, body.submission, seats=body.seats, unit=body.unit, time_limit=body.time_limit,
            default_action=body.default_action, key=key, shoe=body.shoe), response)

    @api.get("/api/tables/{table_id}", tags=["tables"], response_model=TableInfo)
    def table(table_id: TableId, services: ServicesDep) -> dict[str, Any]:
        """The table's rules, paytables, limits and state."""
        return services.tables.info(table_id)

    @api.get("/api/tables/{table_id}/state", tags=["tables"],
             response_model=TableState)
    async def state(table_id: TableId, request: Request, after: After = None,
                    seat: WaitSeat = None) -> Response:
        """The live state: seats, hands, dealer (hole card hidden), legal actions per seat;
        with ``after``, once the table's last event is past it (at most 10 seconds
        later: then as it is), and with ``seat`` too, once that seat's legal actions or
        the seated players have changed since the request came."""
        app = request.app.state  # no dependencies to solve on the most frequent read
        if app.services.core.owns(table_id):  # as of its last commit here: no thread
            shown = app.services.tables.published(table_id)
        else:  # another process may own it: its log read first (off the event loop)
            shown = await asyncio.to_thread(app.services.tables.current, table_id)
        if after is not None and shown.seq <= after:
            shown = await news(app.services, app.subscribers, table_id, after, seat)
        return Response(app.state_json(shown.view), media_type="application/json")

    @api.get("/api/tables/{table_id}/events", tags=["tables"],
             response_model=list[EventOut])
    def events(table_id: TableId, services: ServicesDep, who: OptionalCaller, since: Since = 0,
               limit: Annotated[int, Query(ge=1, le=settings.events_page_max)
                                ] = settings.events_page) -> list[dict[str, Any]]:
        """The table's events after sequence number ``since``: as an observer at the table
        sees them (what the WebSocket sends: no account ids, balances or game records), or
        with an operator's token as the log holds them (the hole card of the round in
        progress hidden)."""
        return services.games.events(table_id, since, limit,
                                     full=who is not None and who.operator)

    @api.get("/api/tables/{table_id}/shoes", tags=["fairness"], response_model=list[ShoeOut])
    def shoes(table_id: TableId, services: ServicesDep) -> list[dict[str, Any]]:
        """Every shoe's commitment and client seeds; finished shoes with their server seed."""
        return services.tables.shoes(table_id)

    @api.get("/api/tables/{table_id}/export", tags=["audit"], response_class=StreamingResponse,
             responses={200: {"description": "the log, one JSON object a line",
                              "content": {EXPORT_TYPE: {"schema": {"type": "string"}}}}})
    def export(table_id: TableId, _who: OperatorCaller, services: ServicesDep
               ) -> StreamingResponse:
        """The table's log as JSON lines (operators), for ``sidebet audit``."""
        return StreamingResponse(services.games.export(table_id), media_type=EXPORT_TYPE)

    return api
