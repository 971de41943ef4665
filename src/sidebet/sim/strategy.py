"""Strategy as arrays for the kernels: play decisions and the Press decision.

The kernels read three play arrays indexed by the upcard's blackjack value (2..11, the
ace 11):

* ``hard[total, up]`` for hard totals 4..21 and ``soft[total, up]`` for soft totals
  12..21, holding the codes of :data:`sidebet.sim.kernels.ACTION_CODES` (stand, hit,
  double else hit, double else stand, surrender else hit, surrender else stand);
* ``pair[value, up]``: 1 when a pair of that card value is split (when the table allows
  the split), 0 to play it by its total.

Fallbacks are the kernels' (as the table engine's :class:`ChartStrategy`): a double that
is not allowed hits (``D``) or stands (``Ds``), a surrender that is not allowed hits
(``Rh``) or stands (``Rs``).

The Press array ``press[value1, value2, up]`` is 1 where the whole TriLux Deluxe winnings
are pressed.  :func:`strategy_arrays` and :func:`press_array` are the one place to plug
in another strategy source (e.g. the exact analyser of :mod:`sidebet.blackjack`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.errors import SidebetError
from sidebet.rules import HouseRules
from sidebet.sim.kernels import ACTION_CODES

__all__ = [
    "PRESS_POLICIES",
    "StrategyArrays",
    "chart_arrays",
    "press_array",
    "press_rule",
    "strategy_arrays",
]

PRESS_POLICIES = ("none", "all", "advice")
"""Press policies: never press, press all winnings, press by advice."""

_UPCARDS = tuple(range(2, 12))  # chart columns 2..10, A


@dataclass(frozen=True)
class StrategyArrays:
    """Play decisions as kernel arrays, with the name of their source."""

    hard: npt.NDArray[np.int8]
    soft: npt.NDArray[np.int8]
    pair: npt.NDArray[np.int8]
    source: str


def chart_arrays(
    chart: Mapping[str, Mapping[int, Sequence[str]]], source: str
) -> StrategyArrays:
    """Arrays from a chart ``{"hard": {total: codes}, "soft": ..., "pair": ...}`` whose code
    rows run over the upcards 2..10, A (the layout of
    :data:`sidebet.table.policy.CHART_6D_S17_DAS_LS`).  Missing hard totals stand (above 17)
    or hit, missing soft totals stand from 19 or hit; missing pairs are not split.

    >>> a = chart_arrays({"hard": {16: ["S"] * 8 + ["Rh", "Rh"]}, "soft": {}, "pair": {8: ["P"] * 10}}, "t")
    >>> int(a.hard[16, 10]), int(a.hard[16, 11]), int(a.pair[8, 11]), int(a.hard[12, 5])
    (4, 4, 1, 1)
    """
    hard = np.full((22, 12), ACTION_CODES["H"], dtype=np.int8)
    hard[17:, :] = ACTION_CODES["S"]
    soft = np.full((22, 12), ACTION_CODES["H"], dtype=np.int8)
    soft[19:, :] = ACTION_CODES["S"]
    pair = np.zeros((12, 12), dtype=np.int8)
    for name, target in (("hard", hard), ("soft", soft)):
        for total, row in chart.get(name, {}).items():
            if len(row) != 10:
                raise SidebetError(f"{name} {total}: a chart row has 10 codes (upcards 2-A)")
            for up, code in zip(_UPCARDS, row, strict=True):
                if code not in ACTION_CODES:
                    raise SidebetError(f"{name} {total}: unknown chart code {code!r}")
                target[total, up] = ACTION_CODES[code]
    for value, row in chart.get("pair", {}).items():
        for up, code in zip(_UPCARDS, row, strict=True):
            pair[value, up] = 1 if code.startswith("P") else 0
    for arr in (hard, soft, pair):
        arr.flags.writeable = False
    return StrategyArrays(hard, soft, pair, source)


def _published_chart() -> StrategyArrays:
    from sidebet.table.policy import CHART_6D_S17_DAS_LS, ChartStrategy

    return chart_arrays(CHART_6D_S17_DAS_LS, ChartStrategy.name)


def _exact_strategy(rules: HouseRules, decks: int) -> StrategyArrays | None:
    """The exact analyser's basic strategy when :mod:`sidebet.blackjack` provides one
    as a chart (``basic_strategy(rules, decks).chart()``); ``None`` otherwise."""
    try:
        from sidebet import blackjack  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    make: Callable[..., Any] | None = getattr(blackjack, "basic_strategy", None)
    if make is None:
        return None
    strategy = make(rules, decks)
    chart = getattr(strategy, "chart", None)
    if not callable(chart):
        return None
    return chart_arrays(chart(), f"basic strategy (exact, {rules.describe()}, {decks} decks)")


STRATEGIES = ("chart", "exact")
"""Strategy sources: the table engine's published chart, or the exact analyser."""


def strategy_arrays(rules: HouseRules, decks: int, source: str = "chart") -> StrategyArrays:
    """The play arrays of a strategy source: ``"chart"`` (the published chart the table
    engine's :data:`sidebet.table.policy.BASIC` plays) or ``"exact"`` (the exact analyser's
    basic strategy for these rules and decks)."""
    if source == "chart":
        return _published_chart()
    if source == "exact":
        found = _exact_strategy(rules, decks)
        if found is None:
            raise SidebetError(
                "the exact analyser's basic strategy (sidebet.blackjack) is not available; "
                "use the published chart (--strategy chart)"
            )
        return found
    raise SidebetError(f"unknown strategy {source!r} (strategies: {', '.join(STRATEGIES)})")


def _two_card_total(v1: int, v2: int) -> int:
    total = v1 + v2
    return total - 10 if total > 21 else total


def press_rule(v1: int, v2: int, up: int) -> bool:
    """The table engine's :class:`sidebet.table.policy.PressByAdvice` rule (not exact):
    press a Blackjack, 20 or 21, 19 against 2–9, 11 against 2–10, 10 against 2–9.

    >>> press_rule(11, 10, 11), press_rule(10, 9, 10), press_rule(6, 5, 10), press_rule(6, 5, 11)
    (True, False, True, False)
    """
    total = _two_card_total(v1, v2)
    return (
        total >= 20
        or (total == 19 and up <= 9)
        or (total == 11 and up <= 10)
        or (total == 10 and up <= 9)
    )


def press_array(policy: str, decide: Callable[[int, int, int], bool] = press_rule
                ) -> npt.NDArray[np.uint8]:
    """``press[value1, value2, up]``: 1 where the whole winnings are pressed.

    ``decide(v1, v2, up)`` gives the advice (default: :func:`press_rule`); the policies
    ``"none"`` and ``"all"`` ignore it.
    """
    if policy not in PRESS_POLICIES:
        raise SidebetError(f"unknown press policy {policy!r} (policies: {', '.join(PRESS_POLICIES)})")
    out = np.zeros((12, 12, 12), dtype=np.uint8)
    if policy == "all":
        out[:] = 1
    elif policy == "advice":
        for v1 in range(2, 12):
            for v2 in range(2, 12):
                for up in range(2, 12):
                    out[v1, v2, up] = 1 if decide(v1, v2, up) else 0
    out.flags.writeable = False
    return out
