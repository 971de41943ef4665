"""Tables: listing and creating them, their rules, state and shoes, their events and the
export of their log."""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from sidebet.serve.api.deps import OperatorCaller, OptionalCaller, ServicesDep
from sidebet.serve.api.params import MONEY, Since, TableId
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.api.schemas import EventOut, ShoeOut, TableInfo, TableState, TableSummary
from sidebet.serve.service.tables import MAX_SEATS
from sidebet.serve.settings import Settings

__all__ = ["EXPORT_TYPE", "router"]

EXPORT_TYPE = "application/x-ndjson"
"""The media type of an exported log (JSON lines)."""


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
            default_action=body.default_action, key=key), response)

    @api.get("/api/tables/{table_id}", tags=["tables"], response_model=TableInfo)
    def table(table_id: TableId, services: ServicesDep) -> dict[str, Any]:
        """The table's rules, paytables, limits and state."""
        return services.tables.info(table_id)

    @api.get("/api/tables/{table_id}/state", tags=["tables"],
             response_model=TableState)
    def state(table_id: TableId, services: ServicesDep) -> dict[str, Any]:
        """The live state: seats, hands, dealer (hole card hidden), legal actions per seat."""
        return services.tables.state(table_id)

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
