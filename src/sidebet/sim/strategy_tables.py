"""Strategy as arrays for the kernels: play decisions and the Press decision.

The kernels read six play arrays, indexed by a total (or, for pairs, the card value) and
the upcard's blackjack value (2..11, the ace 11), holding :func:`action_code` codes
(``first * 5 + otherwise`` over stand, hit, double, split, surrender):

* ``hard2[total, up]``, ``soft2[total, up]``: two-card hands that are not pairs;
* ``pair[value, up]``: a pair the table lets the player split now; ``nosplit[value, up]``:
  a pair that may not be split (the hand limit, resplit aces);
* ``hs_hard[total, up]``, ``hs_soft[total, up]``: stand (0) or hit (1) for hands of three
  or more cards, and the last fallback of a two-card hand.

A choice that is not allowed falls back to the code's second choice, a split that is not
allowed to the pair's ``nosplit`` code, and then to hit-or-stand — the rules of the exact
analyser's :class:`sidebet.exact.blackjack.strategy.Strategy`; a hit that is not allowed (a
split ace) stands — exactly as the table engine's default
:class:`sidebet.table.policy.ExactStrategy` (``BASIC``) plays it.  The published chart fits
the same arrays: its ``D`` doubles or hits, ``Ds`` doubles or stands, ``Rh`` surrenders or
hits, exactly as the table engine's :class:`sidebet.table.policy.ChartStrategy`
(``CHART``) plays it.

The Press array ``press[value1, value2, up]`` is 1 where the whole TriLux Deluxe winnings
are pressed.  :func:`strategy_arrays` and :func:`press_array` are the one place to plug in
another strategy source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import Card, Rank, Suit
from sidebet.core.errors import SidebetError
from sidebet.native.diskcache import cached_arrays
from sidebet.regulation.base_game.codes import (
    HIT,
    STAND,
    UPCARD_VALUES,
    parse_chart_code,
    value_of_class,
)
from sidebet.regulation.house_rules import HouseRules

__all__ = [
    "PRESS_POLICIES",
    "STRATEGIES",
    "PressArray",
    "StrategyArrays",
    "chart_arrays",
    "exact_arrays",
    "press_array",
    "press_rule",
    "strategy_arrays",
]

PRESS_POLICIES = ("none", "all", "advice", "rule")
"""Press policies: never press, press all winnings, press by the exact advice (the table
engine's ``PressByAdvice``), press by the table engine's simple rule (``PressBySimpleRule``)."""

STRATEGIES = ("chart", "exact")
"""Strategy sources: the published chart (the table engine's ``CHART``), or the exact
analyser's total-dependent basic strategy (the table engine's default ``BASIC``)."""

I8 = npt.NDArray[np.int8]


@dataclass(frozen=True)
class StrategyArrays:
    """Play decisions as kernel arrays, with the name of their source."""

    hard2: I8
    soft2: I8
    pair: I8
    nosplit: I8
    hs_hard: I8
    hs_soft: I8
    source: str


def action_code(code: str) -> int:
    """A chart code as the strategy arrays hold it
    (:attr:`sidebet.regulation.base_game.codes.ChartCode.packed`: ``first * 5 + fallback``)."""
    return parse_chart_code(code).packed


def _hit_or_stand(code: int) -> int:
    """The hit-or-stand play hidden in a code: its first or second choice of the two."""
    first, second = divmod(code, 5)
    if first in (HIT, STAND):
        return first
    return second if second in (HIT, STAND) else HIT


def _frozen(*arrays: I8) -> None:
    for arr in arrays:
        arr.flags.writeable = False


def chart_arrays(
    chart: Mapping[str, Mapping[int, Sequence[str]]], source: str
) -> StrategyArrays:
    """Arrays from a chart ``{"hard": {total: codes}, "soft": ..., "pair": ...}`` whose code
    rows run over the upcards 2..10, A (the layout of
    :data:`sidebet.table.policy.CHART_6D_S17_DAS_LS`).  Missing hard totals stand from 17
    and hit below, missing soft totals stand from 19; pairs not marked ``P`` play by their
    total; hands of three or more cards play the total's hit-or-stand choice.

    >>> a = chart_arrays({"hard": {16: ["S"] * 8 + ["Rh", "Rh"]}, "soft": {},
    ...                   "pair": {8: ["P"] * 10}}, "t")
    >>> int(a.hard2[16, 10]) == action_code("Rh"), int(a.hs_hard[16, 10])
    (True, 1)
    >>> int(a.pair[8, 11]) == action_code("P"), int(a.pair[9, 11]) == int(a.hard2[18, 11])
    (True, True)
    """
    hard2 = np.full((22, 12), action_code("H"), dtype=np.int8)
    hard2[17:, :] = action_code("S")
    soft2 = np.full((22, 12), action_code("H"), dtype=np.int8)
    soft2[19:, :] = action_code("S")
    for name, target in (("hard", hard2), ("soft", soft2)):
        for total, row in chart.get(name, {}).items():
            if len(row) != 10:
                raise SidebetError(f"{name} {total}: a chart row has 10 codes (upcards 2-A)")
            for up, code in zip(UPCARD_VALUES, row, strict=True):
                try:
                    target[total, up] = action_code(code)
                except ValueError as exc:
                    raise SidebetError(f"{name} {total}: {exc}") from None
    nosplit = np.zeros((12, 12), dtype=np.int8)
    for value in range(2, 12):
        nosplit[value] = soft2[12] if value == 11 else hard2[2 * value]
    pair = nosplit.copy()
    for value, row in chart.get("pair", {}).items():
        for up, code in zip(UPCARD_VALUES, row, strict=True):
            if code.startswith("P"):
                pair[value, up] = action_code("P")
    hs_hard = np.vectorize(_hit_or_stand, otypes=[np.int8])(hard2)
    hs_soft = np.vectorize(_hit_or_stand, otypes=[np.int8])(soft2)
    _frozen(hard2, soft2, pair, nosplit, hs_hard, hs_soft)
    return StrategyArrays(hard2, soft2, pair, nosplit, hs_hard, hs_soft, source)


def exact_arrays(strategy: Any, source: str) -> StrategyArrays:
    """Arrays from a total-dependent :class:`sidebet.exact.blackjack.strategy.Strategy`
    (``hard``, ``soft``, ``pairs``, ``pair_nosplit`` and ``hit_stand`` tables keyed by the
    analyser's rank classes)."""
    if getattr(strategy, "kind", "total") != "total":
        raise SidebetError("the simulator plays total-dependent strategies only")
    hs_hard = np.full((22, 12), STAND, dtype=np.int8)
    hs_soft = np.full((22, 12), STAND, dtype=np.int8)
    for (total, soft, up), code in strategy.hit_stand.items():
        if total <= 21:
            (hs_soft if soft else hs_hard)[total, value_of_class(up)] = HIT if code == "H" else STAND
    hard2 = np.full((22, 12), action_code("S"), dtype=np.int8)
    soft2 = np.full((22, 12), action_code("S"), dtype=np.int8)
    for target, hs in ((hard2, hs_hard), (soft2, hs_soft)):
        target[:] = np.where(hs == HIT, action_code("H"), action_code("S"))
    for (total, up), code in strategy.hard.items():
        hard2[total, value_of_class(up)] = action_code(code)
    for (total, up), code in strategy.soft.items():
        soft2[total, value_of_class(up)] = action_code(code)
    pair = np.zeros((12, 12), dtype=np.int8)
    nosplit = np.zeros((12, 12), dtype=np.int8)
    for (cls, up), code in strategy.pair_nosplit.items():
        nosplit[value_of_class(cls), value_of_class(up)] = action_code(code)
    pair[:] = nosplit
    for (cls, up), code in strategy.pairs.items():
        pair[value_of_class(cls), value_of_class(up)] = action_code(code)
    _frozen(hard2, soft2, pair, nosplit, hs_hard, hs_soft)
    return StrategyArrays(hard2, soft2, pair, nosplit, hs_hard, hs_soft, source)


def _published_chart() -> StrategyArrays:
    from sidebet.exact.blackjack.chart import CHART_6D_S17_DAS_LS, CHART_NAME

    return chart_arrays(CHART_6D_S17_DAS_LS, CHART_NAME)


_FIELDS = ("hard2", "soft2", "pair", "nosplit", "hs_hard", "hs_soft")


def _exact_strategy(rules: HouseRules, decks: int) -> StrategyArrays:
    """The exact analyser's basic strategy as arrays, kept in the disk cache
    (:mod:`sidebet.native.diskcache`) by house rules and deck count, so that the analysis
    runs once for them."""

    def build() -> dict[str, npt.NDArray[Any]]:
        # the analyser (and numba) only when the disk cache misses
        from sidebet.exact.blackjack.strategy import basic_strategy

        a = exact_arrays(basic_strategy(rules, decks),
                         f"basic strategy (exact, {decks} decks, {rules.describe()})")
        return {**{f: getattr(a, f) for f in _FIELDS}, "source": np.array(a.source)}

    got = cached_arrays("strategy", f"{rules!r} decks={decks}", build)
    arrays = {f: np.ascontiguousarray(got[f], dtype=np.int8) for f in _FIELDS}
    _frozen(*arrays.values())
    return StrategyArrays(**arrays, source=str(got["source"]))


def strategy_arrays(rules: HouseRules, decks: int, source: str = "exact") -> StrategyArrays:
    """The play arrays of a strategy source: ``"exact"`` (the default: the exact
    analyser's total-dependent basic strategy for these rules and decks, which the table
    engine's default :data:`sidebet.table.policy.BASIC` plays) or ``"chart"`` (the
    published chart the table engine's :data:`sidebet.table.policy.CHART` plays, whatever
    the rules)."""
    if source == "chart":
        return _published_chart()
    if source == "exact":
        return _exact_strategy(rules, decks)
    raise SidebetError(f"unknown strategy {source!r} (strategies: {', '.join(STRATEGIES)})")


def press_rule(v1: int, v2: int, up: int) -> bool:
    """The table engine's :class:`sidebet.table.policy.PressBySimpleRule` (not exact):
    :func:`sidebet.exact.blackjack.press.simple_press_rule` (imported when called: the
    analyser's package imports numba).

    >>> press_rule(11, 10, 11), press_rule(6, 5, 11)
    (True, False)
    """
    from sidebet.exact.blackjack.press import simple_press_rule

    return simple_press_rule(v1, v2, up)


@dataclass(frozen=True)
class PressArray:
    """The Press decision as a kernel array, with where it came from."""

    table: npt.NDArray[np.uint8]
    source: str


def _exact_press(rules: HouseRules, decks: int) -> Callable[[int, int, int], bool]:
    """``decide(v1, v2, up)`` by the table engine's
    :class:`sidebet.table.policy.PressByAdvice`: the exact Press advisor on its full-shoe
    basis (:func:`sidebet.exact.blackjack.press.full_shoe_press_advice`, the basis of the
    advisor's ``press_chart``), so the kernel presses exactly as the engine does."""

    from sidebet.exact.blackjack.press import full_shoe_press_advice  # only when not cached

    def card(value: int, suit: Suit) -> Card:
        return Card(Rank.ACE if value == 11 else Rank(value), suit)

    def decide(v1: int, v2: int, up: int) -> bool:
        cards = (card(v1, Suit.SPADES), card(v2, Suit.HEARTS))
        return bool(full_shoe_press_advice(cards, card(up, Suit.DIAMONDS), decks, rules).press)

    return decide


def press_array(policy: str, rules: HouseRules | None = None, decks: int = 6,
                decide: Callable[[int, int, int], bool] | None = None) -> PressArray:
    """``press[value1, value2, up]``: 1 where the whole winnings are pressed.

    ``"none"`` never presses and ``"all"`` always; ``"rule"`` follows :func:`press_rule`
    (the table engine's ``PressBySimpleRule``); ``"advice"`` follows
    ``decide(v1, v2, up)``, by default the table engine's ``PressByAdvice``: the exact
    Press advisor for these rules and decks on a full-shoe basis (the basis of
    :func:`sidebet.exact.blackjack.press_chart`).
    """
    if policy not in PRESS_POLICIES:
        raise SidebetError(f"unknown press policy {policy!r} (policies: {', '.join(PRESS_POLICIES)})")
    out = np.zeros((12, 12, 12), dtype=np.uint8)
    source = {"none": "never press", "all": "press all winnings"}.get(policy, "")
    if policy == "all":
        out[:] = 1
    elif policy in ("advice", "rule"):
        if decide is not None:
            source = "given advice"
        elif policy == "advice":
            house = rules or HouseRules()
            source = f"exact Press advice ({decks} decks, full shoe)"
            got = cached_arrays("press-advice", f"{house!r} decks={decks}",
                                lambda: {"table": press_array("advice", house, decks,
                                                              _exact_press(house, decks)).table})
            out = np.ascontiguousarray(got["table"], dtype=np.uint8)
            out.flags.writeable = False
            return PressArray(out, source)
        else:
            decide = press_rule
            source = "simple rule (table engine's PressBySimpleRule, not exact)"
        for v1 in range(2, 12):
            for v2 in range(2, 12):
                for up in range(2, 12):
                    out[v1, v2, up] = 1 if decide(v1, v2, up) else 0
    out.flags.writeable = False
    return PressArray(out, source)
