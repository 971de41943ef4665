"""House edge (player expectation) of a strategy over a full shoe, overall and by upcard.

Exact sums over every upcard and every initial two-card hand of the engine's values
(:mod:`sidebet.blackjack.engine`); the standard deviation uses each decision's second
moment (exact but for the cross terms between the hands of a split: ``docs/blackjack.md``).

>>> from sidebet.rules import HouseRules
>>> r = HouseRules(max_split_hands=4, late_surrender=False)
>>> f"{house_edge(6, r).player_ev:.4%}"
'-0.4029%'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sidebet.blackjack.engine import CLASS_NAMES, Analysis, analyse, two_card_hands
from sidebet.rules import HouseRules

__all__ = ["HouseEdge", "house_edge", "round_moments"]


@dataclass(frozen=True, slots=True)
class HouseEdge:
    """Player expectation per unit of initial wager (negative: the house's edge)."""

    decks: int | None
    rules: HouseRules
    strategy: str
    player_ev: float
    std_dev: float
    by_upcard: tuple[tuple[str, float, float], ...]
    """(upcard class, probability of the upcard, player EV given the upcard)."""

    @property
    def house_edge(self) -> float:
        """The house's edge: minus the player's expectation."""
        return -self.player_ev


def round_moments(
    a: Analysis, choose: str = "cd"
) -> tuple[float, float, dict[int, tuple[float, float]]]:
    """Mean and second moment of a round under the analysis' decisions, and by upcard.

    ``choose="cd"`` plays each first two cards by their best value (composition-dependent).
    """
    shoe = np.asarray(a.shoe, dtype=np.int64)
    n = int(shoe.sum())
    odds = float(a.rules.blackjack_pays.odds)
    total_m = 0.0
    total_s = 0.0
    by_up: dict[int, tuple[float, float]] = {}
    for u in range(10):
        if shoe[u] == 0:
            continue
        pu = shoe[u] / n
        rest = shoe.copy()
        rest[u] -= 1
        m_u = 0.0
        s_u = 0.0
        for c1, c2 in two_card_hands():
            if c1 == c2:
                if rest[c1] < 2:
                    continue
                ph = rest[c1] * (rest[c1] - 1) / ((n - 1) * (n - 2))
            else:
                if rest[c1] < 1 or rest[c2] < 1:
                    continue
                ph = 2 * rest[c1] * rest[c2] / ((n - 1) * (n - 2))
            cards = [0] * 10
            cards[c1] += 1
            cards[c2] += 1
            key = tuple(cards)
            nb = a.no_bj(key, u)
            if c1 == 0 and c2 == 9:
                m, s = nb * odds, nb * odds * odds
            else:
                action, m = a.best(key, u)
                s = _second(a, key, u, action)
                loss = 1.0
                if action == "double" and not a.rules.peek and a.rules.dealer_blackjack_takes_doubles:
                    loss = 2.0
                    m += 1.0 - nb  # best() already charged the extra unit; charge it once here
                m -= loss * (1.0 - nb)
                s += loss * loss * (1.0 - nb)
            m_u += ph * m
            s_u += ph * s
        by_up[u] = (m_u, s_u)
        total_m += pu * m_u
        total_s += pu * s_u
    return total_m, total_s, by_up


def _second(a: Analysis, key: tuple[int, ...], u: int, action: str) -> float:
    i = a.row(key)
    if action == "stand":
        return float(a.stand2[i, u])
    if action == "hit":
        return float(a.hit2[i, u])
    if action == "double":
        return float(a.dbl2[i, u])
    if action == "split":
        p = key.index(2)
        return float(a.split2[p, u])
    return 0.25 * a.no_bj(key, u)


def house_edge(decks: int, rules: HouseRules | None = None, strategy: str = "cd") -> HouseEdge:
    """Exact player expectation of a full ``decks``-deck shoe.

    ``strategy``: ``"cd"`` composition-dependent zero-memory play (split hands played by
    the decisions of the same cards unsplit), ``"td"`` total-dependent basic strategy.
    """
    rules = rules or HouseRules()
    shoe = (4 * decks,) * 9 + (16 * decks,)
    if strategy == "td":
        from sidebet.blackjack.strategy import total_dependent_analysis

        a = total_dependent_analysis(shoe, rules)[0]
    else:
        a = analyse(shoe, rules)
    mean, second, by_up = round_moments(a)
    n = sum(shoe)
    rows = tuple(
        (CLASS_NAMES[u], a.shoe[u] / n, float(m)) for u, (m, _s) in sorted(by_up.items())
    )
    return HouseEdge(
        decks=decks,
        rules=rules,
        strategy=strategy,
        player_ev=float(mean),
        std_dev=math.sqrt(max(second - mean * mean, 0.0)),
        by_upcard=rows,
    )
