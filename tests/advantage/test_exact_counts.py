"""Generated indices and count properties from the exact analysis."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from sidebet.advantage.counts import CountSystem, named_system
from sidebet.advantage.efficiency import (
    Decision,
    decisions,
    efficiency,
    every_decision,
    normal_loss,
)
from sidebet.advantage.generate import (
    Generated,
    count_of,
    decision_hands,
    full_set,
    generate,
    generated_plays,
    insurance_crossing,
    tilted_shoe,
)
from sidebet.advantage.indices import parse_plays
from sidebet.advantage.properties import card_vector, correlation, insurance_eor
from sidebet.core.errors import SidebetError
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import strategy_arrays
from sidebet.vuln.eor import effects_of_removal
from sidebet.vuln.tags import betting_correlation


def test_a_tilted_shoe_reads_its_own_count_in_real_cards() -> None:
    """The shoe at an index is not rounded to whole cards, and the count read from it is
    the index: a true count, or an unbalanced count's running count."""
    hilo, ko = named_system("hi-lo"), named_system("ko")
    shoe = tilted_shoe(hilo, 6, 3, 4)
    assert shoe.sum() == pytest.approx(156) and shoe[9] > 48  # tens rich
    assert count_of(hilo, 6, shoe) == pytest.approx(4)
    assert not np.allclose(shoe, np.rint(shoe))
    for left in (2.0, 3.0, 4.5):  # at the pivot the lean is the same at every depth
        at_pivot = tilted_shoe(ko, 6, left, 4)
        assert count_of(ko, 6, at_pivot) == pytest.approx(4)
        assert count_of(hilo, 6, at_pivot) == pytest.approx(count_of(hilo, 6, tilted_shoe(
            ko, 6, 3.0, 4)), abs=1e-9)
    with pytest.raises(SidebetError, match="cannot be reached"):
        tilted_shoe(hilo, 6, 3, 40)


def test_generated_hilo_insurance_index_at_six_decks_is_plus_three() -> None:
    hilo = named_system("hi-lo")
    assert round(insurance_crossing(hilo, 6)) == 3
    (row,) = generate(parse_plays("ins@0"), hilo, HouseRules(), 6)
    assert row.index == 3 and row.text == "ins@3"


def test_a_hit_or_stand_decision_weighs_the_hands_of_three_cards_and_more() -> None:
    """16 v T: T-6 and 9-7, and the hands the basic strategy hits into a 16 (8-8 splits)."""
    rules = HouseRules()
    hands = decision_hands(parse_plays("16vT:S@0")[0], tilted_shoe(named_system("hi-lo"), 6,
                                                                      3, 0),
                           strategy_arrays(rules, 6))
    share = sum(w for c, w in hands.items() if sum(c) > 2) / sum(hands.values())
    assert 0.3 < share < 0.7  # about half
    assert (0, 0, 0, 0, 0, 0, 0, 2, 0, 0) not in hands and (0, 1, 0, 1, 0, 0, 0, 0, 0, 1) in hands


@pytest.fixture(scope="module")
def hilo_i18() -> tuple[Generated, ...]:
    """Hi-Lo's generated I18 and Fab 4, 6 decks, the default rules (disk cache)."""
    return generated_plays("i18+fab4", named_system("hi-lo"), HouseRules(), 6)[1]


def test_generated_i18_and_fab4_within_one_of_the_published(
        hilo_i18: tuple[Generated, ...]) -> None:
    """Every play of the Illustrious 18 and the Fab 4, 16 v T included, within one count of
    Blackjack Attack's index."""
    assert len(hilo_i18) == 22
    off = {g.play.text: g.index for g in hilo_i18 if g.index is None
           or abs(g.index - g.play.at) > 1}
    assert not off


@pytest.mark.slow  # the split's cross terms and the round's variance: about 40 s
def test_risk_averse_doubles_and_splits_wait_for_a_higher_count(
        hilo_i18: tuple[Generated, ...]) -> None:
    """A double or split must pay for its variance at the Kelly bettor's bet: its
    risk-averse index is not below the EV index, and several are above."""
    averse = generated_plays("i18-ra", named_system("hi-lo"), HouseRules(), 6)[1]
    pairs = [(g, r) for g, r in zip(hilo_i18, averse, strict=False)
             if g.play.play in ("Dh", "P")]
    assert len(pairs) == 7
    assert all(g.crossing is not None for g, _ in pairs)
    # (None: not worth its variance at any count tried)
    assert all(r.crossing is None or r.crossing >= (g.crossing or 0) - 1e-9 for g, r in pairs)
    assert sum(r.crossing is None or r.crossing > (g.crossing or 0) + 0.5
               for g, r in pairs) >= 3


def test_the_full_set_keeps_the_decisions_a_count_changes() -> None:
    """Every hard, soft, pair, double and surrender decision against every upcard is a
    candidate; against a ten those whose best play changes within -8..+8 keep an index."""
    rules = HouseRules()
    basic = strategy_arrays(rules, 6)
    full = full_set(rules, basic)
    assert len(full) == 350
    rows = generate([p for p in full if p.up == 10], named_system("hi-lo"), rules, 6,
                    basic=basic)
    kept = {g.indexed.text for g in rows if g.index is not None}
    assert {"16vT:S@0/H", "15vT:S@4/H", "10vT:Dh@4", "14vT:Rh@3"} <= kept
    assert not any(g.play.hand in ("12", "13", "17") and g.play.play == "S"
                   and g.index is not None for g in rows)  # hit (stand) at every count


def test_generated_fifteen_v_ten_surrender_near_zero() -> None:
    """Fab 4: surrender 15 v T from 0 (Hi-Lo, 6 decks, S17): the exact analyser's
    crossing on tilted shoes, at the count of the decision."""
    (row,) = generate(parse_plays("15vT:Rh@9"), named_system("hi-lo"), HouseRules(), 6,
                      counts=range(-2, 3), basic=strategy_arrays(HouseRules(), 6))
    assert row.against == "hit" and row.index == 0


def test_tags_equal_to_the_effects_of_removal_correlate_fully() -> None:
    ins = card_vector(insurance_eor(6))
    tags = CountSystem("ins", tuple(round(x * 1e6) for x in ins))
    assert correlation(tags.values, ins) == pytest.approx(1.0, abs=1e-9)
    assert correlation(named_system("hi-lo").values, ins) == pytest.approx(0.76, abs=0.01)
    eor = effects_of_removal("blazing7s", 6)
    exact = [round(float(e.exact) * 1e4) for e in eor.effects]
    assert betting_correlation(exact, eor) == pytest.approx(1.0, abs=1e-6)
    assert np.isclose(correlation(ins, -ins), -1.0)


@pytest.fixture(scope="module")
def one_deck() -> tuple[Decision, ...]:
    """Every first decision's exact gain and effects of removal, one deck."""
    return every_decision(HouseRules(), 1)


def test_tags_equal_to_a_decisions_effects_play_it_perfectly(
        one_deck: tuple[Decision, ...]) -> None:
    """Griffin's efficiency is 1 for the decision whose own effects are the tags, and
    below 1 for a tag set that is not (Hi-Lo on 16 v T)."""
    row = next(r for r in one_deck if r.play.kind == "hard" and r.play.total == 16
               and r.play.up == 10)
    # 6-T and 7-9 in either order, then a ten up (8-8 is the pair's decision)
    assert row.freq == Fraction(2 * (4 * 16 * 15 + 4 * 4 * 16), 52 * 51 * 50)
    own = tuple(round(x * 1e9) for x in row.card_effects())
    assert efficiency(own, [row], 1) == pytest.approx(1.0, abs=1e-9)
    assert efficiency([-x for x in own], [row], 1) == pytest.approx(1.0, abs=1e-9)
    hilo = named_system("hi-lo").values
    assert 0.0 < efficiency(hilo, [row], 1) < 1.0
    assert row.perfect_gain(1) > row.count_gain(hilo, 1) > 0.0
    # the same decision from the analyser focused on its hands (the index plays' path)
    (same,) = decisions([row.play], HouseRules(), 1)
    assert same.against == row.against and same.gain == pytest.approx(row.gain, abs=1e-12)
    assert same.eor == pytest.approx(row.eor, abs=1e-12)


def test_playing_efficiency_near_the_literature_and_in_its_order(
        one_deck: tuple[Decision, ...]) -> None:
    """Over every first decision of one deck (Griffin's frame), half dealt: Hi-Lo within
    0.05 of Griffin's 0.51, Hi-Opt II within 0.05 of 0.67, both above Hi-Lo
    (docs/advantage.md)."""
    assert len(one_deck) == 330 and all(r.gain <= 0 for r in one_deck)
    # every two-card hand but a natural, against every upcard, exactly once
    assert sum(r.freq for r in one_deck) == 1 - Fraction(2 * 4 * 16, 52 * 51)
    pe = {n: efficiency(named_system(n).values, one_deck, 1)
          for n in ("hi-lo", "hi-opt-ii", "omega-ii")}
    assert abs(pe["hi-lo"] - 0.51) <= 0.05 and abs(pe["hi-opt-ii"] - 0.67) <= 0.05
    assert pe["hi-opt-ii"] > pe["hi-lo"] + 0.05 and pe["omega-ii"] > pe["hi-lo"] + 0.05
    assert normal_loss(0.0) == pytest.approx(1 / math.sqrt(2 * math.pi))
    with pytest.raises(SidebetError, match="depth"):
        one_deck[0].sigma(1, Fraction(1))
