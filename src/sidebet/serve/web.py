"""The web table: pages and static files served by ``sidebet serve``, and the read-only
routes the pages need beyond the round's API (exact house edges, why a wager is not
offered, exact advice for a decision).

The pages are plain HTML, CSS and ES modules under ``sidebet/serve/static`` (package data;
no build step, nothing fetched from elsewhere).  They never decide what is legal: every
button follows the ``legal`` list the server computes from the table engine, and every
refusal shown is the server's, with its citation.
"""

import threading
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from sidebet.core.errors import Violation
from sidebet.core.money import format_money
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.submission import TableConfig
from sidebet.regulation.wagers import PRESSABLE, WAGERS, get_wager
from sidebet.serve.errors import ApiError
from sidebet.serve.live import LiveTable
from sidebet.serve.security import Caller
from sidebet.serve.service.services import Services
from sidebet.serve.settings import Settings
from sidebet.table import Phase

__all__ = ["STATIC", "add_web", "house_edges", "not_offered"]

STATIC = Path(str(resources.files("sidebet.serve") / "static"))
"""The pages' files (package data)."""

_SUBMISSION = "§ 601a.2"
_cache: dict[Any, Any] = {}
_cache_lock = threading.Lock()


def _cached(key: Any, compute: Any) -> Any:
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    value = compute()
    with _cache_lock:
        _cache[key] = value
    return value


def not_offered(config: TableConfig, wager: str) -> list[Violation]:
    """Why ``config`` does not offer ``wager``: what the Rules Submission would break if it
    added the wager with the paytable the regulation fixes for its deck count (the deck
    count, a missing prerequisite), else that the submission simply does not list it.

    >>> [str(v) for v in not_offered(TableConfig(decks=2), "upcard-luck")]
    ['§ 633b.15(b): Upcard Luck may be offered only with 4, 6 or 8 decks, not 2']
    >>> [str(v) for v in not_offered(TableConfig(decks=6), "top3")]
    ['§ 633c.7(a): Top 3 may be offered only with the Three Card Poker wager']
    """
    w = get_wager(wager)
    before = {str(v) for v in config.violations()}
    paytable = w.paytable(None, config.decks).name
    trial = TableConfig(decks=config.decks, rules=config.rules, limits=config.limits,
                        side_wagers={**config.side_wagers, w.id: paytable})
    found = [v for v in trial.violations() if str(v) not in before]
    return found or [Violation(_SUBMISSION, f"this table's Rules Submission does not offer "
                                            f"{w.name}")]


def _percent(x: Fraction | float) -> str:
    return f"{float(x) * 100:.4f} %"


def house_edges(config: TableConfig) -> dict[str, Any]:
    """Each wager's exact house edge at this table: side wagers from their exact PAR sheet
    for a full shoe of the table's decks (a fraction), the Blackjack wager from the exact
    analyser (composition-dependent play, full shoe)."""
    from sidebet.exact.blackjack.house_edge import house_edge
    from sidebet.exact.par import par_sheet

    decks = config.decks
    out: dict[str, Any] = {}
    for wid, pt in config.side_wagers.items():
        edge = _cached(("par", wid, decks, pt),
                       lambda wid=wid, pt=pt: par_sheet(wid, decks, pt).house_edge)
        out[wid] = {"exact": str(edge), "percent": _percent(edge),
                    "basis": f"exact PAR sheet, {decks}-deck shoe"}
    rules: HouseRules = config.rules
    bj = _cached(("bj", decks, rules), lambda: house_edge(decks, rules).house_edge)
    out["blackjack"] = {"exact": None, "percent": _percent(bj),
                        "basis": f"exact analyser, composition-dependent play, {decks}-deck "
                                 "shoe (floating point)"}
    return out


def _wagers(live: LiveTable) -> dict[str, Any]:
    config = live.config
    edges = house_edges(config)
    items = []
    for wid, w in WAGERS.items():
        item: dict[str, Any] = {"id": wid, "name": w.name, "section": w.section,
                                "summary": w.summary, "offered": wid in config.side_wagers}
        if item["offered"]:
            item["paytable"] = config.paytable_name(wid)
            item["house_edge"] = edges[wid]
        else:
            item["why_not"] = [{"rule": v.rule, "message": v.message}
                               for v in not_offered(config, wid)]
        items.append(item)
    return {"table": live.id, "decks": config.decks, "blackjack": edges["blackjack"],
            "wagers": items}


def advice(service: Services, who: Caller, table_id: int, seat: int) -> dict[str, Any]:
    """Exact advice for the decision ``seat`` faces now: the Press (expected gain of pressing
    vs collecting, the Press advisor), insurance, or the play of the first two cards
    (expected value of each legal action, surrender included; :func:`decision_evs`), on the
    full-shoe basis of the advisor (the shoe less the player's two cards and the upcard)."""
    from sidebet.core.shoe import Shoe
    from sidebet.exact.blackjack.ev import decision_evs
    from sidebet.table import PressByAdvice

    with service.core.lock(table_id):
        live = service.core.live(table_id)
        service.tables.own_seat(who, live, seat)
        state = live.state if live.round_open else None
        legal = {x["action"]: x for x in live.legal(seat)}
        if state is not None and state.phase is Phase.PRESS and "press" in legal:
            adv = PressByAdvice().advice(state, seat)
            offer = state.press_offers()[seat]
            winnings = next(s.winnings for s in state.side_settlements(seat)
                            if s.wager == PRESSABLE.id)
            assert adv is not None
            gain = Fraction(adv.ev_per_unit) * offer / 100
            return {"kind": "press", "winnings": format_money(winnings),
                    "max": format_money(offer), "unit": format_money(live.unit),
                    "ev_per_unit": adv.ev_per_unit,
                    "ev_press_all": f"{float(gain):+.2f}", "ev_collect": "+0.00",
                    "advice": "press all" if adv.press else "collect",
                    "play": adv.play, PRESSABLE.id: adv.trilux,
                    "basis": "full shoe less your two cards and the upcard (the Press "
                             "advisor's basis); the gain is linear in the amount pressed, "
                             "so part of the winnings never beats the better of all or "
                             "nothing"}
        hands = state.hands_of(seat) if state is not None else []
        hand = state.current_hand if state is not None else None
        insuring = "insurance" in legal
        if insuring and hands:
            hand = hands[0]
        if (state is None or hand is None or hand.seat != seat or len(hand.cards) != 2
                or not hand.original or hand.was_split or state.upcard is None):
            return {"kind": "none"}
        cards = list(hand.cards)
        up = state.upcard
        decks, rules = live.config.decks, live.config.rules
    evs = decision_evs(cards, up, Shoe.standard(decks).remove([*cards, up]), rules)
    if insuring:
        ev = evs.insurance if evs.insurance is not None else 0.0
        return {"kind": "insurance", "ev_per_unit": ev, "max": legal["insurance"]["max"],
                "advice": "insure" if ev > 0 else "decline",
                "basis": "full shoe less your two cards and the upcard, per unit of "
                         "insurance"}
    values = {"stand": evs.stand, "hit": evs.hit, "double": evs.double, "split": evs.split,
              "surrender": evs.surrender}
    open_now = {k: v for k, v in values.items() if v is not None and k in legal}
    best = max(open_now, key=lambda k: open_now[k]) if open_now else None
    return {"kind": "play", "actions": [{"action": k, "ev": v} for k, v in open_now.items()],
            "best": best,
            "basis": "exact analyser, full shoe less your two cards and the upcard, per unit "
                     "of the Blackjack wager" + (", given no dealer Blackjack"
                                                 if evs.conditioned_on_no_blackjack else "")}


def add_web(app: FastAPI, service: Services, caller: Any, settings: Settings) -> None:
    """Add the pages, the static files and the pages' read-only routes to ``app``."""
    who_t = Annotated[Caller, Depends(caller)]

    class StackIn(BaseModel):
        """TESTS ONLY: the cards a shoe deals first."""

        cards: str = Field(min_length=2, max_length=settings.stack_cards_max,
                           examples=["8h 8d 8s 5c"])

    @app.get("/", include_in_schema=False)
    def lobby() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/tables/{table_id}", include_in_schema=False)
    def table_page(table_id: int) -> FileResponse:
        return FileResponse(STATIC / "table.html")

    @app.get("/tables/{table_id}/fair", include_in_schema=False)
    def fair_page(table_id: int) -> FileResponse:
        return FileResponse(STATIC / "fair.html")

    @app.get("/api/cards", tags=["fairness"])
    def cards() -> list[str]:
        """The 52 card kinds' codes by index (0..51): what a shuffle's indices mean."""
        from sidebet.core.cards import Card

        return [Card.from_index(i).code for i in range(52)]

    @app.get("/api/tables/{table_id}/wagers", tags=["tables"])
    def wagers(table_id: int) -> dict[str, Any]:
        """Every wager at this table: offered ones with their exact house edge, the others
        with why they are not offered (deck count, missing prerequisite, not submitted)."""
        with service.core.lock(table_id):
            live = service.core.live(table_id)
        return _wagers(live)

    @app.get("/api/tables/{table_id}/seats/{seat}/advice", tags=["round"])
    def seat_advice(table_id: int, seat: int, who: who_t) -> dict[str, Any]:
        """Exact advice for your decision now (the Press, or the play of your first two
        cards, surrender included)."""
        return advice(service, who, table_id, seat)

    @app.post("/api/tables/{table_id}/test-stack", include_in_schema=False, status_code=201)
    def stack(table_id: int, body: StackIn, who: who_t) -> dict[str, Any]:
        """TESTS ONLY (``sidebet serve --test-stack``): the next shoe not yet shuffled
        deals these cards first (operators)."""
        if not settings.test_stack:
            raise ApiError(404, "not found")
        if not who.operator:
            raise ApiError(403, "operators only")
        return service.tables.stack_shoe(table_id, body.cards)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

