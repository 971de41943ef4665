"""Game records (§ 810a.11): by player, table and start time; one game."""

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.params import INT32, NO_NUL, TIME
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.schemas import GameRecord
from sidebet.serve.settings import Settings

__all__ = ["GAME_ID", "router"]

GAME_ID = r"^T[0-9]{1,10}-R[0-9]{1,10}$"
"""A game's identifier: ``T<table>-R<round>``."""


def router(settings: Settings) -> APIRouter:
    """The game records' routes, with the page sizes of ``settings``."""
    api = APIRouter(tags=["audit"], route_class=ExactRoute)

    @api.get("/api/games", response_model=list[GameRecord])
    def games(who: CurrentCaller, services: ServicesDep,
              player: Annotated[str | None, Query(max_length=settings.name_max,
                                                  pattern=NO_NUL)] = None,
              table: Annotated[int | None, Query(ge=1, le=INT32)] = None,
              since: Annotated[str | None, Query(pattern=TIME)] = None,
              until: Annotated[str | None, Query(pattern=TIME)] = None,
              limit: Annotated[int, Query(ge=1, le=settings.games_page_max)
                               ] = settings.games_page) -> list[dict[str, Any]]:
        """Game records (§ 810a.11) by player name, table and start time (ISO-8601 UTC);
        players see their own."""
        return services.games.find(who, player=player, table=table, since=since, until=until,
                                   limit=limit)

    @api.get("/api/games/{game_id}", response_model=GameRecord)
    def game(game_id: Annotated[str, Path(pattern=GAME_ID)], who: CurrentCaller,
             services: ServicesDep) -> dict[str, Any]:
        """One game record."""
        return services.games.get(who, game_id)

    return api
