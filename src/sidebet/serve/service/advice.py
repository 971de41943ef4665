"""The web table's read-only answers beyond the round's API: each wager's exact house edge
at a table or why it is not offered (§ 601a.2, the wagers' own subsections), and exact
advice for the decision a seat faces (the Press, insurance, the play of the first two
cards).  They never decide what is legal: that is the table engine's ``legal`` list."""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import Any

from sidebet.core.errors import Violation
from sidebet.core.money import format_money
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.submission import TableConfig
from sidebet.regulation.wagers import PRESSABLE, WAGERS, get_wager
from sidebet.serve.live import LiveTable
from sidebet.serve.security import Caller
from sidebet.serve.service.core import Core
from sidebet.serve.service.tables import Tables
from sidebet.table import Phase

__all__ = ["Advisor", "house_edges", "not_offered", "table_wagers"]

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


def table_wagers(live: LiveTable) -> dict[str, Any]:
    """Every wager at the table: offered ones with their exact house edge, the others with
    why they are not offered."""
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


class Advisor:
    """The exact figures the web table shows: house edges, and advice for a decision."""

    def __init__(self, core: Core, tables: Tables) -> None:
        self.core = core
        self.tables = tables

    def wagers(self, table_id: int) -> dict[str, Any]:
        """Every wager at this table (:func:`table_wagers`)."""
        with self.core.lock(table_id):
            live = self.core.live(table_id)
        return table_wagers(live)

    def advice(self, who: Caller, table_id: int, seat: int) -> dict[str, Any]:
        """Exact advice for the decision ``seat`` faces now: the Press (expected gain of
        pressing vs collecting, the Press advisor), insurance, or the play of the first two
        cards (expected value of each legal action, surrender included;
        :func:`~sidebet.exact.blackjack.ev.decision_evs`), on the full-shoe basis of the
        advisor (the shoe less the player's two cards and the upcard)."""
        from sidebet.core.shoe import Shoe
        from sidebet.exact.blackjack.ev import decision_evs
        from sidebet.table import PressByAdvice

        with self.core.lock(table_id):
            live = self.core.live(table_id)
            self.tables.own_seat(who, live, seat)
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
        return {"kind": "play",
                "actions": [{"action": k, "ev": v} for k, v in open_now.items()],
                "best": best,
                "basis": "exact analyser, full shoe less your two cards and the upcard, per "
                         "unit of the Blackjack wager" + (
                             ", given no dealer Blackjack"
                             if evs.conditioned_on_no_blackjack else "")}
