"""Effects of removal and count tags."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from sidebet.core.cards import ALL_CARDS, Card
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.par import par_sheet
from sidebet.regulation.wagers import get_wager
from sidebet.vuln.eor import effects_of_removal
from sidebet.vuln.tags import (
    IndexKind,
    betting_correlation,
    default_counts,
    linear_tags,
    named_count,
    parse_tags,
)


def brute_return(wager: str, paytable: str, shoe: list[int]) -> Fraction:
    """Expected return by enumerating every unordered pair and upcard of physical cards."""
    w = get_wager(wager)
    table = w.paytable(paytable)
    cards = [ALL_CARDS[k] for k, n in enumerate(shoe) for _ in range(n)]
    total = 0
    moment = 0
    for a, b in itertools.combinations(range(len(cards)), 2):
        for u in range(len(cards)):
            if u in (a, b):
                continue
            total += 1
            moment += table.pays(w.outcome(cards[a], cards[b], cards[u]))
    return Fraction(moment, total)


@pytest.mark.parametrize(("wager", "paytable", "card"), [
    ("trilux", "TLX-1", "Ah"), ("blazing7s", "A", "7d"), ("top3", "A", "5s"),
])
def test_effect_matches_brute_force_on_a_depleted_deck(wager: str, paytable: str,
                                                        card: str) -> None:
    # one deck less a handful of cards keeps the brute force small
    gone = [Card.parse(c).index for c in ("2c", "9d", "Kh", "Qs", "3s", "8h", "Jc",
                                          "4d", "6h", "10c", "5c", "Kd", "7s", "Ac")]
    shoe = [1] * 52
    for k in gone:
        shoe[k] = 0
    less = shoe.copy()
    less[Card.parse(card).index] -= 1
    brute = brute_return(wager, paytable, less) - brute_return(wager, paytable, shoe)
    kernel = (par_sheet(wager, Shoe.from_counts(less), paytable).expected_return
              - par_sheet(wager, Shoe.from_counts(shoe), paytable).expected_return)
    assert brute == kernel


def test_effects_are_exact_differences_of_par_sheets() -> None:
    eor = effects_of_removal("upcard-luck", 6)
    full = par_sheet("upcard-luck", 6).expected_return
    for card in ("As", "Js", "Ac", "7d"):
        less = par_sheet("upcard-luck", Shoe.standard(6).remove(card)).expected_return
        assert eor.effects[Card.parse(card).index].exact == (less - full) * 100
    assert eor.house_edge == par_sheet("upcard-luck", 6).house_edge
    # A♠ and J♠ differ from their ranks; suits matter
    assert [r.rank for r in eor.by_rank if r.suits_differ] == ["J", "A"]


def test_flush_wagers_have_no_first_order_suit_effect() -> None:
    for wager in ("trilux", "three-card-poker", "top3"):
        eor = effects_of_removal(wager, 6)
        assert len(set(eor.by_suit)) == 1
        assert not eor.suits_matter
        assert eor.summary == "rank"


def test_eor_json_shape() -> None:
    data = effects_of_removal("blazing7s", 6).to_json()
    assert {"wager", "decks", "paytable", "house_edge", "effects"} <= data.keys()
    e = data["effects"][Card.parse("7d").index]
    assert e["card"] == "7D"
    assert abs(float(Fraction(e["exact"])) - e["effect"]) < 1e-12
    assert len(data["effects"]) == 52


def test_wager_not_offered_is_refused() -> None:
    with pytest.raises(SidebetError, match=r"633b.15\(b\)"):
        effects_of_removal("upcard-luck", 2)
    with pytest.raises(SidebetError, match=r"633c.11\(i\)"):
        effects_of_removal("trilux", 3)


def test_linear_tags() -> None:
    eor = effects_of_removal("blazing7s", 6)
    for level in (1, 2, 3):
        tags = linear_tags(eor, level)
        assert tags.balanced and tags.level <= level
        assert tags.values[Card.parse("7c").index] < 0 < tags.values[Card.parse("2c").index]
        assert 0 < tags.correlation <= 1
    assert linear_tags(eor, 3).correlation > linear_tags(eor, 1).correlation
    unbalanced = linear_tags(eor, 1, balanced=False)
    assert unbalanced.describe() == "7:-1" and unbalanced.correlation > 0.99
    assert betting_correlation(unbalanced.values, eor) == unbalanced.correlation


def test_counts_by_name_and_defaults() -> None:
    eor = effects_of_removal("trilux", 6)
    names = [c.name for c in default_counts(eor)]
    assert "suits" in names and "ranks" in names
    assert named_count("sevens", eor).kind is IndexKind.SEVENS
    with pytest.raises(SidebetError, match="unknown count"):
        named_count("hilo", eor)


@pytest.mark.parametrize(("text", "message"), [
    ("", "give RANK:TAG"), ("A:x", "whole-number"), ("A:1,A:2", "tagged twice"),
    ("Z:1", "not a rank"), ("A:0,K:0", "every tag is 0"), ("A:500", "outside"),
])
def test_impossible_tags(text: str, message: str) -> None:
    with pytest.raises(SidebetError, match=message):
        parse_tags(text)
