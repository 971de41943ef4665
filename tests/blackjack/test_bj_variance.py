"""The standard deviation of a round when pairs split to 3 or 4 hands (docs/blackjack.md).

The hands' own squares are checked exactly against the brute force in ``test_bj_exact``;
here the 6-deck figures are pinned to 1e-5, so an error of 1e-4 (the size of the bound on
the cross-term approximation) fails.  Independent check of the pinned PA figure: simulating
the same strategy one round per shoe gives 1.13911 ± 0.00006 (10⁸ rounds); before the fix
the analyser printed 1.13825.
"""

from __future__ import annotations

import numpy as np
import pytest

from sidebet.exact.blackjack.engine import analyse, split_moments
from sidebet.exact.blackjack.house_edge import house_edge
from sidebet.regulation.house_rules import HouseRules

SIX_DECKS = (24,) * 9 + (96,)


@pytest.mark.parametrize(
    ("hands", "strategy", "sd"),
    [
        (2, "td", 1.132898),  # split to 2: no resplit, unchanged by the fix
        (3, "td", 1.139149),  # PA defaults (interpretation 14)
        (4, "td", 1.140510),
        (3, "cd", 1.140263),
    ],
)
def test_six_deck_sd_pa_rules(hands: int, strategy: str, sd: float) -> None:
    he = house_edge(6, HouseRules(max_split_hands=hands), strategy)
    assert he.std_dev == pytest.approx(sd, abs=1e-5)


def test_six_deck_sd_anchor_rules() -> None:
    """Split to 4, no surrender, composition-dependent: 1.1540 (1.1530 before the fix)."""
    he = house_edge(6, HouseRules(max_split_hands=4, late_surrender=False))
    assert he.std_dev == pytest.approx(1.154044, abs=1e-5)


def test_split_moments_add_up() -> None:
    """E[R²] = own squares + cross terms; a split's SD is at least that of its hands apart;
    with split to 2 hands there are exactly two hands of the kind dealt any second card."""
    a = analyse(SIX_DECKS, HouseRules(max_split_hands=4))
    for p in range(10):
        m = split_moments(a, p)
        assert np.array_equal(a.split2[p], m.second)
        assert np.all(m.own > 0) and np.all(m.second >= m.ev**2)
    two = analyse(SIX_DECKS, HouseRules(max_split_hands=2))
    m2 = split_moments(two, 7)
    assert np.allclose(m2.hands, 2.0)
    # with more hands allowed, an 8,8 split has more hands and a larger second moment
    m4 = split_moments(a, 7)
    assert np.all(m4.hands > 2.0) and np.all(m4.second > m2.second)
