"""Hand evaluation shared by the wagers: three-card poker hands and blackjack totals.

Three-card poker hands (interpretation 3) are formed by the player's initial two cards
and the dealer's upcard; blackjack totals (interpretation 2) follow § 633a.3(e).

>>> from sidebet.core.cards import parse_cards
>>> poker_hand(*parse_cards("QH KH AH")), poker_hand(*parse_cards("KH AH 2H"))
(<PokerHand.STRAIGHT_FLUSH: 4>, <PokerHand.FLUSH: 1>)
>>> blackjack_value(parse_cards("As 8d"))
HandValue(total=19, soft=True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from sidebet.core.cards import Card, Rank

__all__ = [
    "HandValue",
    "PokerHand",
    "blackjack_value",
    "is_blackjack",
    "is_straight",
    "poker_hand",
]


class PokerHand(IntEnum):
    """Three-card poker hands, valued by rank (interpretation 3: highest pays only)."""

    NOTHING = 0
    FLUSH = 1
    STRAIGHT = 2
    THREE_OF_A_KIND = 3
    STRAIGHT_FLUSH = 4
    SUITED_THREE_OF_A_KIND = 5


def is_straight(a: Rank, b: Rank, c: Rank) -> bool:
    """Three consecutive ranks, the ace high or low, no wrap-around (interpretation 3).

    >>> is_straight(Rank.ACE, Rank.TWO, Rank.THREE), is_straight(Rank.QUEEN, Rank.KING, Rank.ACE)
    (True, True)
    >>> is_straight(Rank.KING, Rank.ACE, Rank.TWO)
    False
    """
    lo, mid, hi = sorted((a, b, c))
    if lo + 1 == mid and mid + 1 == hi:
        return True
    return (lo, mid, hi) == (Rank.TWO, Rank.THREE, Rank.ACE)


def poker_hand(a: Card, b: Card, c: Card) -> PokerHand:
    """The highest three-card poker hand the three cards form.

    >>> from sidebet.core.cards import parse_cards
    >>> [poker_hand(*parse_cards(t)).name for t in ("7d 7d 7d", "7d 7h 7d", "2c 3d 4h", "2c 9c Jc")]
    ['SUITED_THREE_OF_A_KIND', 'THREE_OF_A_KIND', 'STRAIGHT', 'FLUSH']
    """
    flush = a.suit == b.suit == c.suit
    if a.rank == b.rank == c.rank:
        return PokerHand.SUITED_THREE_OF_A_KIND if flush else PokerHand.THREE_OF_A_KIND
    straight = is_straight(a.rank, b.rank, c.rank)
    if straight and flush:
        return PokerHand.STRAIGHT_FLUSH
    if straight:
        return PokerHand.STRAIGHT
    if flush:
        return PokerHand.FLUSH
    return PokerHand.NOTHING


@dataclass(frozen=True, slots=True)
class HandValue:
    """A blackjack total; ``soft`` when an ace counts 11 in it."""

    total: int
    soft: bool

    @property
    def busted(self) -> bool:
        """Over 21."""
        return self.total > 21

    def __str__(self) -> str:
        return f"{'soft' if self.soft else 'hard'} {self.total}"


def blackjack_value(cards: Iterable[Card | Rank]) -> HandValue:
    """The blackjack total (§ 633a.3(e), interpretation 2): one ace counts 11 unless that
    would bust the hand.

    >>> from sidebet.core.cards import parse_cards
    >>> [str(blackjack_value(parse_cards(t))) for t in ("As 7d", "Ah Ad", "As 9c 5d", "Kc Qd")]
    ['soft 18', 'soft 12', 'hard 15', 'hard 20']
    """
    total = 0
    aces = 0
    for card in cards:
        rank = card.rank if isinstance(card, Card) else card
        if rank is Rank.ACE:
            aces += 1
            total += 1
        else:
            total += rank.blackjack_value
    if aces and total + 10 <= 21:
        return HandValue(total + 10, True)
    return HandValue(total, False)


def is_blackjack(first: Card | Rank, second: Card | Rank) -> bool:
    """An ace and a 10-value card as the initial two cards (§ 633a.1).

    >>> from sidebet.core.cards import parse_cards
    >>> is_blackjack(*parse_cards("As Jd")), is_blackjack(*parse_cards("As As"))
    (True, False)
    """
    ranks = {c.rank if isinstance(c, Card) else c for c in (first, second)}
    return Rank.ACE in ranks and any(r.blackjack_value == 10 for r in ranks)
