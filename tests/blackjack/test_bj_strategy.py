"""Basic strategy charts and the advice API."""

from __future__ import annotations

import json

import pytest

from sidebet.core.cards import parse_cards
from sidebet.exact.blackjack.house_edge import house_edge
from sidebet.exact.blackjack.strategy import basic_strategy, composition_strategy
from sidebet.regulation.house_rules import BlackjackPays, HouseRules

# 6 decks S17 DAS LS, upcards 2..9, T, A (the familiar chart)
EXPECTED_6D_S17 = {
    "hard 9": "H Dh Dh Dh Dh H H H H H",
    "hard 11": "Dh Dh Dh Dh Dh Dh Dh Dh Dh H",
    "hard 12": "H H S S S H H H H H",
    "hard 15": "S S S S S H H H Rh H",
    "hard 16": "S S S S S H H Rh Rh Rh",
    "soft 18": "S Ds Ds Ds Ds S S H H H",
    "soft 17": "H Dh Dh Dh Dh H H H H H",
    "9,9": "P P P P P S P P S S",
    "4,4": "H H H P P H H H H H",
    "A,A": "P P P P P P P P P P",
    "8,8": "P P P P P P P P P P",
}


def test_six_deck_s17_chart() -> None:
    rows = dict(basic_strategy(HouseRules(), 6).chart_rows())
    for label, codes in EXPECTED_6D_S17.items():
        assert " ".join(rows[label]) == codes, label


def test_h17_changes() -> None:
    rows = dict(basic_strategy(HouseRules(dealer_hits_soft_17=True), 6).chart_rows())
    assert rows["hard 11"][-1] == "Dh"  # double 11 v A under H17
    assert rows["8,8"][-1] == "Rp"  # surrender 8,8 v A under H17
    assert rows["hard 15"][-1] == "Rh"


def test_action_fallbacks() -> None:
    s = basic_strategy(HouseRules(), 6)
    hand, ten, ace = parse_cards("Th 6d"), parse_cards("Kc")[0], parse_cards("As")[0]
    assert s.action(hand, ten, True, False, True) == "surrender"
    assert s.action(hand, ten, True, False, False) == "hit"
    soft18 = parse_cards("Ah 7d")
    assert s.action(soft18, parse_cards("4c")[0], True, False, True) == "double"
    assert s.action(soft18, parse_cards("4c")[0], False, False, True) == "stand"
    assert s.action(parse_cards("8h 8s"), ace, True, True, True) == "split"
    assert s.action(parse_cards("8h 8s"), ace, True, False, False) == "hit"
    assert s.action(parse_cards("As Kd"), ten, True, False, True) == "stand"
    assert s.action(parse_cards("4h 4s 4c 4d"), ten, False, False, False) == "hit"


def test_composition_strategy_differs_from_total() -> None:
    cd = composition_strategy(HouseRules(max_split_hands=4, late_surrender=False), 6)
    td = basic_strategy(HouseRules(max_split_hands=4, late_surrender=False), 6)
    assert cd.player_ev > td.player_ev
    # the classic composition play: T,2 v 4 hits, 7,5 v 4 stands (6 decks)
    four = parse_cards("4c")[0]
    assert cd.action(parse_cards("Th 2d"), four, True, False, False) == "hit"
    assert td.action(parse_cards("Th 2d"), four, True, False, False) == "stand"


def test_json_round_trip() -> None:
    data = json.loads(basic_strategy(HouseRules(), 6).dumps())
    assert data["chart"]["hard 16"]["T"] == "Rh"
    assert data["hit_stand"]["hard 16"]["T"] == "H"


def test_td_house_edge_and_six_five() -> None:
    r = HouseRules(max_split_hands=4, late_surrender=False)
    td = house_edge(6, r, "td")
    cd = house_edge(6, r, "cd")
    assert td.player_ev < cd.player_ev < td.player_ev + 0.0005
    six5 = house_edge(6, HouseRules(blackjack_pays=BlackjackPays.SIX_TO_FIVE))
    base = house_edge(6, HouseRules())
    # 6:5 costs 0.3 x P(player BJ and no dealer BJ) ~ 1.36%
    assert base.player_ev - six5.player_ev == pytest.approx(0.0136, abs=0.0005)


def test_composition_chart_on_threads_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """With an idle core the chart's hit/stand is computed on a thread beside the
    analysis' splits: the same chart and the same expectation, to the bit."""
    from sidebet.exact.blackjack import dealer_rows, engine, strategy

    shoe = (4, 4, 4, 4, 4, 4, 4, 4, 3, 15)  # a shoe no other test analyses
    rules = HouseRules(max_split_hands=4)
    got = []
    for cores in (1, 2):
        for fn in (engine.analyse, strategy._total_hit_stand, dealer_rows.base_tables):
            fn.cache_clear()
        monkeypatch.setattr(strategy, "idle_cores", lambda k=cores: k)
        s = strategy.strategy_for_shoe(shoe, rules, "composition", None)
        got.append((json.dumps(s.to_json()), s.chart_text(), s.player_ev.hex()))
    assert got[0] == got[1]
