"""Cards, ranks, suits and their text forms (sidebet.core.cards)."""

from __future__ import annotations

import pytest

from sidebet.core.cards import ALL_CARDS, Card, Color, Rank, Suit, format_cards, parse_cards
from sidebet.core.errors import CardError, SidebetError


@pytest.mark.parametrize(
    ("text", "rank", "suit", "shown"),
    [
        ("AS", Rank.ACE, Suit.SPADES, "A♠"),
        ("as", Rank.ACE, Suit.SPADES, "A♠"),
        ("A♠", Rank.ACE, Suit.SPADES, "A♠"),
        ("a♤", Rank.ACE, Suit.SPADES, "A♠"),
        ("10h", Rank.TEN, Suit.HEARTS, "10♥"),
        ("10H", Rank.TEN, Suit.HEARTS, "10♥"),
        ("Th", Rank.TEN, Suit.HEARTS, "10♥"),
        ("tH", Rank.TEN, Suit.HEARTS, "10♥"),
        ("7D", Rank.SEVEN, Suit.DIAMONDS, "7♦"),
        ("7♦", Rank.SEVEN, Suit.DIAMONDS, "7♦"),
        ("7♢", Rank.SEVEN, Suit.DIAMONDS, "7♦"),
        ("qc", Rank.QUEEN, Suit.CLUBS, "Q♣"),
        ("K♧", Rank.KING, Suit.CLUBS, "K♣"),
        ("J♡", Rank.JACK, Suit.HEARTS, "J♥"),
        ("2c", Rank.TWO, Suit.CLUBS, "2♣"),
        ("9s", Rank.NINE, Suit.SPADES, "9♠"),
        (" 5 d ", Rank.FIVE, Suit.DIAMONDS, "5♦"),
    ],
)
def test_parse_and_format(text: str, rank: Rank, suit: Suit, shown: str) -> None:
    card = Card.parse(text)
    assert card == Card(rank, suit)
    assert str(card) == shown
    assert Card.parse(str(card)) == card
    assert Card.parse(card.code) == card


@pytest.mark.parametrize(
    "text",
    ["", "A", "S", "10", "Ax", "11h", "0s", "1x", "Zs", "AS AS", "♠A", "10 h x", "AA", "7DD", "1 0h"],
)
def test_bad_text_is_a_card_error(text: str) -> None:
    with pytest.raises(CardError, match=r"is not a card"):
        Card.parse(text)


def test_card_error_is_a_sidebet_and_value_error() -> None:
    assert issubclass(CardError, SidebetError)
    assert issubclass(CardError, ValueError)


@pytest.mark.parametrize(("text", "code"), [("AS", "As"), ("10h", "10h"), ("Th", "10h"), ("7D", "7d")])
def test_code(text: str, code: str) -> None:
    assert Card.parse(text).code == code


def test_all_cards_are_52_distinct_in_index_order() -> None:
    assert len(ALL_CARDS) == 52
    assert len(set(ALL_CARDS)) == 52
    for i, card in enumerate(ALL_CARDS):
        assert card.index == i
        assert Card.from_index(i) is card


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_from_index_out_of_range(index: int) -> None:
    with pytest.raises(CardError):
        Card.from_index(index)


def test_index_endpoints() -> None:
    assert Card.parse("2c").index == 0
    assert Card.parse("A♠").index == 51


def test_parse_cards_spaces_commas_and_iterables() -> None:
    expected = (Card.parse("7d"), Card.parse("7s"), Card.parse("10c"))
    assert parse_cards("7d,7s 10c") == expected
    assert parse_cards("  7d ,  7s,10c  ") == expected
    assert parse_cards(["7d", "7s", "10c"]) == expected
    assert parse_cards("") == ()


def test_parse_cards_bad_card() -> None:
    with pytest.raises(CardError, match=r"'7x'"):
        parse_cards("7d 7x")


def test_format_cards() -> None:
    assert format_cards(parse_cards("as js")) == "A♠ J♠"
    assert format_cards(parse_cards("Th 7D qc")) == "10♥ 7♦ Q♣"
    assert format_cards([]) == ""


@pytest.mark.parametrize(
    ("rank", "value"),
    [(Rank.TWO, 2), (Rank.SEVEN, 7), (Rank.NINE, 9), (Rank.TEN, 10), (Rank.JACK, 10),
     (Rank.QUEEN, 10), (Rank.KING, 10), (Rank.ACE, 11)],
)
def test_blackjack_value_of_rank(rank: Rank, value: int) -> None:
    assert rank.blackjack_value == value


@pytest.mark.parametrize(
    ("suit", "color"),
    [(Suit.CLUBS, Color.BLACK), (Suit.SPADES, Color.BLACK), (Suit.DIAMONDS, Color.RED),
     (Suit.HEARTS, Color.RED)],
)
def test_suit_colour(suit: Suit, color: Color) -> None:
    assert suit.color is color


def test_rank_symbols() -> None:
    assert [r.symbol for r in Rank] == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert [s.symbol for s in Suit] == ["♣", "♦", "♥", "♠"]
    assert [s.letter for s in Suit] == ["c", "d", "h", "s"]


def test_cards_are_hashable_and_ordered() -> None:
    assert len({Card.parse("As"), Card.parse("A♠"), Card.parse("as")}) == 1
    assert Card.parse("2c") < Card.parse("As")
