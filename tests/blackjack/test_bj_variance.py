"""The exact standard deviation of a round with splits (docs/blackjack.md).

The split's second moment, the cross terms between its hands included, is checked against
the brute-force casino-order enumeration on small shoes for 2, 3 and 4 hands in
``test_bj_exact``; here the whole round's standard deviation is checked against Eric
Farmer's exact value (his analyser's outcome distribution, split to 2 hands).
"""

from __future__ import annotations

import numpy as np
import pytest

from sidebet.exact.blackjack.engine import analyse, split_moments, split_second
from sidebet.exact.blackjack.house_edge import house_edge
from sidebet.regulation.house_rules import HouseRules

SMALL = (3, 1, 0, 1, 1, 1, 2, 3, 3, 7)
"""22 cards (the brute-force shoe of ``test_bj_exact``)."""


@pytest.mark.slow
def test_sd_equals_farmers_exact_value() -> None:
    """1 deck, S17, double any two and after splits, split to 2 hands, no surrender, CDZ-:
    Farmer's `strategy` prints 0.153119996 +/- 115.628078362 (percent).  At 6 decks it
    prints -0.456886297 +/- 114.654005801, and sidebet gives 1.146540058006 (not run here:
    13 s; docs/blackjack.md)."""
    he = house_edge(1, HouseRules(max_split_hands=2, late_surrender=False))
    assert he.player_ev == pytest.approx(0.00153119996, abs=1e-11)
    assert he.std_dev == pytest.approx(1.15628078362, abs=1e-9)


def test_split_moments_add_up() -> None:
    """E[R²] = own squares + cross terms; a split's SD is at least that of its hands apart;
    with split to 2 hands there are exactly two hands."""
    a = analyse(SMALL, HouseRules(max_split_hands=4))
    second = split_second(a)
    for p in (0, 6, 9):
        m = split_moments(a, p)
        assert np.array_equal(second[p], m.second, equal_nan=True)
        assert np.array_equal(a.split_own[p], m.own, equal_nan=True)
        ok = ~np.isnan(m.ev)
        assert np.all(m.own[ok] > 0) and np.all(m.second[ok] >= m.ev[ok] ** 2)
    two = analyse(SMALL, HouseRules(max_split_hands=2))
    m2 = split_moments(two, 9)
    ok = ~np.isnan(m2.ev)
    assert np.allclose(m2.hands[ok], 2.0)
    # with more hands allowed, a T,T split has more hands
    m4 = split_moments(a, 9)
    assert np.all(m4.hands[ok] > 2.0)
