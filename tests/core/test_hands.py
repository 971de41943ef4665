"""Three-card poker hands and blackjack totals (sidebet.core.hands), interpretations 2 and 3."""

from __future__ import annotations

import itertools

import pytest

from sidebet.core.cards import Rank, parse_cards
from sidebet.core.hands import (
    HandValue,
    PokerHand,
    blackjack_value,
    is_blackjack,
    is_straight,
    poker_hand,
)

R = Rank


@pytest.mark.parametrize(
    ("ranks", "straight"),
    [
        ((R.ACE, R.TWO, R.THREE), True),
        ((R.THREE, R.ACE, R.TWO), True),
        ((R.TWO, R.THREE, R.FOUR), True),
        ((R.NINE, R.TEN, R.JACK), True),
        ((R.JACK, R.QUEEN, R.KING), True),
        ((R.QUEEN, R.KING, R.ACE), True),
        ((R.ACE, R.KING, R.QUEEN), True),
        ((R.KING, R.ACE, R.TWO), False),
        ((R.ACE, R.TWO, R.KING), False),
        ((R.ACE, R.ACE, R.TWO), False),
        ((R.ACE, R.TWO, R.FOUR), False),
        ((R.TWO, R.THREE, R.FIVE), False),
        ((R.SEVEN, R.SEVEN, R.SEVEN), False),
        ((R.QUEEN, R.KING, R.KING), False),
    ],
)
def test_is_straight(ranks: tuple[Rank, Rank, Rank], straight: bool) -> None:
    assert is_straight(*ranks) is straight


@pytest.mark.parametrize(
    ("cards", "hand"),
    [
        ("7d 7d 7d", PokerHand.SUITED_THREE_OF_A_KIND),
        ("As As As", PokerHand.SUITED_THREE_OF_A_KIND),
        ("7d 7h 7d", PokerHand.THREE_OF_A_KIND),
        ("7c 7d 7s", PokerHand.THREE_OF_A_KIND),
        ("Ah 2h 3h", PokerHand.STRAIGHT_FLUSH),
        ("Qh Kh Ah", PokerHand.STRAIGHT_FLUSH),
        ("9s Js 10s", PokerHand.STRAIGHT_FLUSH),
        ("Ah 2c 3h", PokerHand.STRAIGHT),
        ("Qd Kh Ac", PokerHand.STRAIGHT),
        ("4c 2d 3h", PokerHand.STRAIGHT),
        ("Kh Ah 2h", PokerHand.FLUSH),
        ("2c 9c Jc", PokerHand.FLUSH),
        ("Kc Ad 2h", PokerHand.NOTHING),
        ("2c 9d Kh", PokerHand.NOTHING),
        ("7c 7d 8h", PokerHand.NOTHING),
        ("7c 7c 8c", PokerHand.FLUSH),
    ],
)
def test_poker_hand(cards: str, hand: PokerHand) -> None:
    a, b, c = parse_cards(cards)
    for perm in itertools.permutations((a, b, c)):
        assert poker_hand(*perm) is hand


def test_poker_hand_order() -> None:
    assert (
        PokerHand.SUITED_THREE_OF_A_KIND
        > PokerHand.STRAIGHT_FLUSH
        > PokerHand.THREE_OF_A_KIND
        > PokerHand.STRAIGHT
        > PokerHand.FLUSH
        > PokerHand.NOTHING
    )


def test_straight_flush_beats_flush_and_straight() -> None:
    # The same three cards are both a straight and a flush: only the straight flush counts.
    assert poker_hand(*parse_cards("5d 6d 7d")) is PokerHand.STRAIGHT_FLUSH


@pytest.mark.parametrize(
    ("cards", "total", "soft"),
    [
        ("As 7d", 18, True),
        ("As 8d", 19, True),
        ("As 9d", 20, True),
        ("Ah Ad", 12, True),
        ("As Kd", 21, True),
        ("Kc Qd", 20, False),
        ("4c 4d", 8, False),
        ("5c 4d", 9, False),
        ("6c 5d", 11, False),
        ("10c 2d", 12, False),
        ("10c 7d", 17, False),
        ("10c 8d", 18, False),
        ("2c 2d", 4, False),
        ("As 9c 5d", 15, False),
        ("As Ad 9c", 21, True),
        ("Kc Qd 5h", 25, False),
    ],
)
def test_blackjack_value(cards: str, total: int, soft: bool) -> None:
    value = blackjack_value(parse_cards(cards))
    assert value == HandValue(total, soft)
    assert value.busted is (total > 21)
    assert blackjack_value(reversed(parse_cards(cards))) == value


def test_blackjack_value_of_ranks_and_text() -> None:
    assert blackjack_value([R.ACE, R.EIGHT]) == HandValue(19, True)
    assert str(HandValue(19, True)) == "soft 19"
    assert str(HandValue(12, False)) == "hard 12"


@pytest.mark.parametrize(
    ("cards", "blackjack"),
    [
        ("As 10d", True),
        ("10d As", True),
        ("Ac Jc", True),
        ("Qh Ad", True),
        ("Ad Ks", True),
        ("As 9d", False),
        ("As Ad", False),
        ("10s Jd", False),
        ("Ks Qs", False),
    ],
)
def test_is_blackjack(cards: str, blackjack: bool) -> None:
    assert is_blackjack(*parse_cards(cards)) is blackjack


def test_two_card_21_is_always_blackjack() -> None:
    # A two-card 21 that is not a Blackjack cannot exist (interpretation 2).
    for first, second in itertools.product(Rank, repeat=2):
        value = blackjack_value([first, second])
        assert (value.total == 21) is is_blackjack(first, second), (first, second)


def test_two_card_totals_range() -> None:
    totals = {blackjack_value([a, b]).total for a, b in itertools.product(Rank, repeat=2)}
    assert totals == set(range(4, 22))
