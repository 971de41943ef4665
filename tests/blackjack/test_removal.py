"""The Blackjack wager's edge of a depleted shoe from the exact effects of removal: close to
the analyser's, and a martingale as cards are removed."""

from __future__ import annotations

import numpy as np
import pytest

from sidebet.exact.blackjack.engine import analyse
from sidebet.exact.blackjack.moments import mean_moments
from sidebet.exact.blackjack.removal import CLASS_OF_CARD, BlackjackEdge
from sidebet.regulation.house_rules import HouseRules


@pytest.mark.parametrize("dealt", [60, 100])
def test_the_edge_is_within_a_quarter_percent_of_the_analyser(dealt: int) -> None:
    rules = HouseRules()
    edge = BlackjackEdge.of(rules, 6)
    order = np.repeat(np.arange(52), 6)
    np.random.default_rng(dealt).shuffle(order)
    left = np.full(52, 6, dtype=np.int64)
    np.subtract.at(left, order[:dealt], 1)
    classes = tuple(int(x) for x in np.bincount(CLASS_OF_CARD, weights=left, minlength=10))
    exact = mean_moments(analyse(classes, rules))[0]
    assert abs(edge.edge(left) - exact) < 0.0025


def test_the_edge_after_a_random_card_is_the_edge_now() -> None:
    edge = BlackjackEdge.of(HouseRules(), 6)
    left = np.full(52, 6, dtype=np.int64)
    left[[8 * 4 + s for s in range(4)]] = 2  # tens gone: a rich or poor shoe, either way
    now = edge.edge(left)
    after = sum(left[k] * edge.edge(left - np.eye(52, dtype=np.int64)[k]) for k in range(52))
    assert after / left.sum() == pytest.approx(now, abs=1e-12)
    assert edge.edge(np.full(52, 6, dtype=np.int64)) == edge.full_ev
