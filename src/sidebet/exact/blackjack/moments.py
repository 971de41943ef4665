"""Mean and second moment of a round of Blackjack under an analysis' decisions.

Exact sums over every upcard and every initial two-card hand of the engine's values
(:mod:`sidebet.exact.blackjack.engine`); the second moment uses each decision's exact second
moment, a split's with the cross terms between its hands
(:func:`sidebet.exact.blackjack.engine.split_second`, computed only when the second moment is
asked for).  Read by the strategies (their player expectation) and by
:func:`sidebet.exact.blackjack.house_edge.house_edge`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from sidebet.exact.blackjack.engine import Analysis, split_second, two_card_hands

__all__ = ["mean_moments", "round_moments"]


@cache
def mean_moments(a: Analysis) -> tuple[float, float, dict[int, tuple[float, float]]]:
    """:func:`round_moments` of ``a`` without the second moment, computed once per
    analysis (its strategy and its house edge both read it)."""
    return round_moments(a, second=False)


def round_moments(
    a: Analysis, choose: str = "cd", *, second: bool = True
) -> tuple[float, float, dict[int, tuple[float, float]]]:
    """Mean and second moment of a round under the analysis' decisions, and by upcard.

    ``choose="cd"`` plays each first two cards by their best value (composition-dependent).
    ``second=False``: the mean only (the second moments are ``nan``).
    """
    shoe = np.asarray(a.shoe, dtype=np.float64)
    n = float(shoe.sum())
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
                s = _second(a, key, u, action) if second else float("nan")
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
        return float(split_second(a)[p, u])
    return 0.25 * a.no_bj(key, u)
