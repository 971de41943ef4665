"""House edge (player expectation) of a strategy over a full shoe, overall and by upcard.

The moments are :func:`sidebet.exact.blackjack.moments.round_moments`: exact sums over every
upcard and every initial two-card hand of the engine's values
(:mod:`sidebet.exact.blackjack.engine`); the standard deviation uses each decision's exact
second moment, a split's with the cross terms between its hands (``docs/blackjack.md``),
computed the first time it is read.

>>> from sidebet.regulation.house_rules import HouseRules
>>> r = HouseRules(max_split_hands=4, late_surrender=False)
>>> f"{house_edge(6, r).player_ev:.4%}"
'-0.4029%'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

from sidebet.exact.blackjack.dealer_rows import full_shoe
from sidebet.exact.blackjack.engine import Analysis, analyse
from sidebet.exact.blackjack.moments import mean_moments, round_moments
from sidebet.exact.blackjack.strategy import total_dependent_analysis
from sidebet.regulation.base_game.codes import CLASS_NAMES
from sidebet.regulation.house_rules import HouseRules

__all__ = ["HouseEdge", "house_edge", "round_moments"]


@dataclass(frozen=True, slots=True)
class HouseEdge:
    """Player expectation per unit of initial wager (negative: the house's edge)."""

    decks: int | None
    rules: HouseRules
    strategy: str
    player_ev: float
    by_upcard: tuple[tuple[str, float, float], ...]
    """(upcard class, probability of the upcard, player EV given the upcard)."""
    analysis: Analysis = field(repr=False, compare=False)
    """The analysis the figures come from (its decisions are the strategy's)."""

    @property
    def std_dev(self) -> float:
        """Standard deviation of a round's result, exact (the split's cross terms are
        the costly part: computed the first time, then kept with the analysis)."""
        return _std_dev(self.analysis)

    @property
    def house_edge(self) -> float:
        """The house's edge: minus the player's expectation."""
        return -self.player_ev


def house_edge(decks: int, rules: HouseRules | None = None, strategy: str = "cd") -> HouseEdge:
    """Exact player expectation of a full ``decks``-deck shoe.

    ``strategy``: ``"cd"`` composition-dependent zero-memory play (split hands played by
    the decisions of the same cards unsplit), ``"td"`` total-dependent basic strategy.
    """
    rules = rules or HouseRules()
    shoe = full_shoe(decks)
    a = total_dependent_analysis(shoe, rules)[0] if strategy == "td" else analyse(shoe, rules)
    mean, _second, by_up = mean_moments(a)
    n = sum(shoe)
    rows = tuple(
        (CLASS_NAMES[u], a.shoe[u] / n, float(m)) for u, (m, _s) in sorted(by_up.items())
    )
    return HouseEdge(
        decks=decks,
        rules=rules,
        strategy=strategy,
        player_ev=float(mean),
        by_upcard=rows,
        analysis=a,
    )


@cache
def _std_dev(a: Analysis) -> float:
    mean, second, _by_up = round_moments(a)
    return math.sqrt(max(second - mean * mean, 0.0))
