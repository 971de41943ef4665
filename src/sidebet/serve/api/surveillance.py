"""Surveillance of the live tables (operators only): ``GET /api/surveillance`` and its
page ``/surveillance``.

Per table and player, on each side wager: the exact edge at each betting decision (placed
with its amount, or not placed), the correlation of bet size with it, the CUSUM alarm at
the operator's false-alarm rate and the result against expectation, all from rounds that
ended longer ago than the operator's delay (``SIDEBET_SURVEILLANCE_DELAY``).  The analysis
is :mod:`sidebet.surveil`'s, fed by :class:`~sidebet.serve.service.surveillance.Watch`.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse

from sidebet.serve.api.deps import OperatorCaller
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.schemas import Out
from sidebet.serve.api.web import STATIC
from sidebet.serve.service.services import Services
from sidebet.serve.service.surveillance import Watch
from sidebet.serve.settings import Settings

__all__ = ["AlarmOut", "AlarmRuleOut", "DecisionOut", "PlayerWagerOut", "SurveillanceOut",
           "TableSurveillanceOut", "router"]


class AlarmRuleOut(Out):
    """The alarm the operator set: two CUSUMs of log-likelihood ratios (the correlation
    and the advantage tests) raised at ``threshold = ln(2 horizon / alpha)``."""

    test: str
    alpha: float
    horizon_decisions: int
    delta: float
    warmup: int
    threshold: float


class AlarmRaised(Out):
    """Where an alarm was raised: the round, the player's decision on that wager and the
    test that raised it (``correlation`` or ``advantage``)."""

    game: str
    decision: int
    test: str | None


class AlarmOut(Out):
    """An alarm: the table, the player, the wager, the round it was raised in and the
    player's decision there, the test that raised it, the CUSUMs' highest value so far,
    and the bets' mean edge, expected result (a float of cents) and actual result."""

    table: int
    table_name: str
    player: str
    wager: str
    game: str
    decision: int
    test: str | None
    max_cusum: float
    mean_edge_placed_float: float | None
    expected_float_cents: float
    result: str


class PlayerWagerOut(Out):
    """One player on one side wager: decisions, bets placed, the correlation of bet size
    (0 when not placed) with the exact edge, the bet-weighted mean edge of what was bet,
    the CUSUM now and at most, the alarm, and the result against expectation (cents, the
    expectation and the full shoe's standard deviation floats, so labelled)."""

    player: str
    wager: str
    decisions: int
    placed: int
    total_bet: str
    correlation_float: float | None
    mean_edge_placed_float: float | None
    cusum: float
    max_cusum: float
    threshold: float
    advantage_cusum: float
    advantage_max_cusum: float
    advantage_shoes: int
    mean_excess_placed_float: float | None
    alarm: AlarmRaised | None
    result: str
    expected_float_cents: float
    result_minus_expected_float_cents: float
    sd_full_shoe_float_cents: float


class DecisionOut(Out):
    """One betting decision: the wager's exact edge for the shoe at the moment of the bets
    (a float: expected return per unit), whether it was placed and its amount, what it
    returned, its score and the CUSUM after it."""

    game: str
    player: str
    seat: int
    wager: str
    edge_float: float
    placed: bool
    bet: str
    net: str
    score: float
    cusum: float


class TableSurveillanceOut(Out):
    """One table: its side wagers with their full-shoe edges, the rounds analysed (those
    ended before the delay), the last of them, an error that stopped its analysis (a
    round missing from the log, a card the shoe no longer held), each player's statistics
    and the newest decisions asked for."""

    table: int
    name: str
    decks: int
    side_wagers: list[str]
    full_shoe_edge_float: dict[str, float]
    rounds: int
    last_game: str | None
    last_round_at: str | None
    error: str | None
    players: list[PlayerWagerOut]
    decisions: list[DecisionOut]


class SurveillanceOut(Out):
    """The surveillance of the tables as of ``as_of`` (now less ``delay_seconds``):
    every alarm raised, by table, then each table."""

    delay_seconds: int
    as_of: str
    alarm_rule: AlarmRuleOut
    alarms: list[AlarmOut]
    tables: list[TableSurveillanceOut]


def router(settings: Settings, services: Services) -> APIRouter:
    """The surveillance route and page, over one :class:`Watch` of ``services``' tables."""
    api = APIRouter(route_class=ExactRoute)
    watch = Watch(services.core, settings)

    @api.get("/surveillance", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "surveillance.html")

    @api.get("/api/surveillance", response_model=SurveillanceOut, tags=["operator"])
    def surveillance(
        _who: OperatorCaller,
        table: Annotated[int | None, Query(ge=1, le=2**31 - 1,
                                           description="one table only")] = None,
        player: Annotated[str | None, Query(min_length=1, max_length=settings.name_max,
                                            description="one player only")] = None,
        decisions: Annotated[int, Query(
            ge=0, le=max(settings.surveillance_decisions_kept, 0),
            description="the newest betting decisions of each table to list")] = 0,
    ) -> dict[str, Any]:
        """Surveillance of side-wager counting (operators): per table and player, each
        side wager's exact edge at every betting decision, the correlation of bet size
        with it, the CUSUM alarm at the operator's false-alarm rate and the result
        against expectation, from rounds that ended more than the delay ago."""
        return watch.report(table, player, decisions)

    return api
