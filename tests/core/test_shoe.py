"""Shoe compositions (sidebet.core.shoe), interpretation 1."""

from __future__ import annotations

from typing import Any

import pytest

from sidebet.core.cards import ALL_CARDS, Card, Rank, parse_cards
from sidebet.core.errors import CardError, ShoeError
from sidebet.core.shoe import MAX_DECKS, MIN_DECKS, Shoe


@pytest.mark.parametrize("decks", range(1, 9))
def test_standard(decks: int) -> None:
    shoe = Shoe.standard(decks)
    assert shoe.decks == decks
    assert shoe.total == 52 * decks
    assert shoe.counts == (decks,) * 52
    assert all(shoe.count(card) == decks for card in ALL_CARDS)
    assert shoe.rank_counts() == dict.fromkeys(Rank, 4 * decks)
    assert list(shoe.array()) == [decks] * 52
    assert shoe.describe() == f"{decks} deck{'s' if decks > 1 else ''}"


def test_deck_bounds() -> None:
    assert (MIN_DECKS, MAX_DECKS) == (1, 8)


@pytest.mark.parametrize("decks", [0, 9, -1, 100, "6", 2.5, None])
def test_standard_refuses_bad_deck_counts(decks: Any) -> None:
    with pytest.raises(ShoeError, match=r"1 to 8 decks"):
        Shoe.standard(decks)


@pytest.mark.parametrize("decks", [0, 9])
def test_constructor_refuses_bad_deck_counts(decks: int) -> None:
    with pytest.raises(ShoeError):
        Shoe((1,) * 52, decks)


def test_removing_a_third_ace_of_spades_from_two_decks() -> None:
    shoe = Shoe.standard(2)
    assert shoe.remove("AS AS").count(Card.parse("A♠")) == 0
    with pytest.raises(ShoeError, match=r"A♠ cannot be dealt: a 2-deck shoe holds only 2 A♠"):
        shoe.remove("AS AS AS")
    with pytest.raises(CardError, match=r"A♠"):
        shoe.remove(parse_cards("As As As"))


def test_removing_from_a_depleted_shoe_names_the_card() -> None:
    shoe = Shoe.standard(2).remove("7d")
    with pytest.raises(ShoeError, match=r"7♦ cannot be dealt: the shoe holds only 1 7♦"):
        shoe.remove("7d 7d")


@pytest.mark.parametrize(("decks", "dealable"), [(1, False), (2, False), (3, True), (8, True)])
def test_three_identical_cards_need_three_decks(decks: int, dealable: bool) -> None:
    shoe = Shoe.standard(decks)
    if dealable:
        shoe.check_dealable("7d 7d 7d")
    else:
        with pytest.raises(ShoeError, match=r"7♦"):
            shoe.check_dealable("7d 7d 7d")


def test_remove_is_pure() -> None:
    shoe = Shoe.standard(1)
    less = shoe.remove("7d 7s")
    assert shoe.total == 52
    assert less.total == 50
    assert less.count(Card.parse("7d")) == 0
    assert less.decks == 1
    assert less.describe() == "1 deck less 2 cards"
    assert Shoe.standard(6).remove("As").describe() == "6 decks less 1 card"


def test_from_counts() -> None:
    shoe = Shoe.from_counts([1] * 52)
    assert shoe.decks is None
    assert shoe.total == 52
    assert shoe.describe() == "52 cards"
    with pytest.raises(ShoeError, match=r"52 counts"):
        Shoe.from_counts([1] * 51)
    with pytest.raises(ShoeError, match=r"negative"):
        Shoe.from_counts([-1] + [1] * 51)


def test_shoe_error_is_a_card_error() -> None:
    assert issubclass(ShoeError, CardError)


def test_standard_refuses_a_bool() -> None:
    with pytest.raises(ShoeError):
        Shoe.standard(True)
