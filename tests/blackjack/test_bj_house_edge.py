"""House edge against published combinatorial-analyser figures."""

from __future__ import annotations

import pytest

from sidebet.exact.blackjack.house_edge import house_edge
from sidebet.regulation.house_rules import HouseRules

ANCHOR_RULES = HouseRules(max_split_hands=4, late_surrender=False)
"""6 decks, S17, DA2, DAS, SPL to 4 hands, no RSA, peek, 3:2, no surrender."""


def test_published_anchor_six_decks_cdz() -> None:
    he = house_edge(6, ANCHOR_RULES)
    assert f"{he.player_ev:.4%}" == "-0.4029%"
    assert he.player_ev == pytest.approx(-0.004029, abs=5e-7)


def test_by_upcard_sums_to_overall() -> None:
    he = house_edge(6, ANCHOR_RULES)
    assert sum(p * ev for _, p, ev in he.by_upcard) == pytest.approx(he.player_ev, abs=1e-14)
