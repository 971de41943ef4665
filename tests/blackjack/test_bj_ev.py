"""Public EV API: sanity and symmetry properties, exact dealer odds."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sidebet.core.cards import parse_cards
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.dealer import dealer_probabilities, dealer_probabilities_counts
from sidebet.exact.blackjack.engine import analyse, two_card_hands
from sidebet.exact.blackjack.ev import decision_evs, decision_evs_counts, insurance_ev
from sidebet.regulation.house_rules import HoleCard, HouseRules

from .brute import dealer_no_bj


def evs(text: str, decks: int = 6, rules: HouseRules | None = None):  # type: ignore[no-untyped-def]
    cards = parse_cards(text)
    return decision_evs(cards[:-1], cards[-1], Shoe.standard(decks).remove(cards), rules)


def test_stand_on_twenty_against_six() -> None:
    e = evs("Ts Kd 6c")
    assert 0.69 < e.stand < 0.72
    assert e.best == "stand"
    assert e.hit < -0.8


def test_double_eleven() -> None:
    e = evs("6s 5d 6c")
    assert e.double is not None
    assert e.double == pytest.approx(2 * e.hit, rel=0.1)
    assert 0.64 < e.double < 0.70
    assert e.best == "double"


def test_suits_and_order_do_not_matter() -> None:
    a, b = evs("7s 9d 10c"), evs("9h 7c Kd")
    assert a == b


def test_insurance_breaks_even_at_one_third_tens() -> None:
    unseen = (2, 2, 2, 2, 2, 2, 2, 2, 2, 9)  # 27 cards, 9 tens
    assert insurance_ev(unseen) == 0.0
    e = decision_evs_counts([9, 6], 0, unseen, HouseRules())
    assert e.insurance == 0.0
    assert insurance_ev((4,) * 9 + (16,)) < 0


def test_no_peek_includes_blackjack_loss() -> None:
    peek = evs("Ts 6d Ac")
    enhc = evs("Ts 6d Ac", rules=HouseRules(hole_card=HoleCard.AFTER_PLAYERS))
    unseen = Shoe.standard(6).remove("Ts 6d Ac")
    p_bj = unseen.rank_counts()
    tens = sum(n for r, n in p_bj.items() if r.blackjack_value == 10)
    nb = 1 - tens / unseen.total
    assert enhc.stand == pytest.approx(peek.stand * nb - (1 - nb), abs=1e-12)
    assert peek.conditioned_on_no_blackjack and not enhc.conditioned_on_no_blackjack


@pytest.mark.slow
def test_focused_analysis_equals_full() -> None:
    shoe = (4,) * 9 + (16,)
    rules = HouseRules(max_split_hands=4)
    full = analyse(shoe, rules)
    for a, b in two_card_hands():
        key = [0] * 10
        key[a] += 1
        key[b] += 1
        focus = analyse(shoe, rules, tuple(key))
        for u in (0, 5, 9):
            fv, gv = full.values(tuple(key), u), focus.values(tuple(key), u)
            assert fv.keys() == gv.keys()
            for k in fv:
                assert fv[k] == pytest.approx(gv[k], abs=1e-13), (a, b, u, k)


@pytest.mark.parametrize("up", [0, 5, 9])
def test_exact_dealer_fractions(up: int) -> None:
    unseen = (2, 1, 1, 1, 2, 2, 2, 2, 2, 8)
    d = dealer_probabilities_counts(unseen, up, HouseRules(hole_card=HoleCard.AFTER_PLAYERS))
    brute = dealer_no_bj(unseen, up, False)
    for t in range(17, 22):
        assert d.totals[t - 17] == brute.get(t, Fraction(0))
    assert d.bust == brute.get(22, Fraction(0))
    peek = dealer_probabilities_counts(unseen, up, HouseRules())
    assert sum(peek.as_dict().values()) == 1 and peek.blackjack == 0


def test_dealer_six_busts_about_42_percent() -> None:
    c = parse_cards("6c")[0]
    d = dealer_probabilities(Shoe.standard(8).remove([c]), c)
    assert float(d.bust) == pytest.approx(0.4229, abs=0.0005)
    assert np.isclose(float(sum(d.totals) + d.bust), 1.0)
