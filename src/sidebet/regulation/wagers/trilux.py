"""TriLux Deluxe (58 Pa. Code § 633c.11).

Wins when the player's initial two cards and the dealer's upcard form a flush, straight,
three-of-a-kind or straight flush (§ 633c.11(a), (j)); the highest hand is paid
(interpretation 3), a suited three-of-a-kind as three-of-a-kind.  The paytable is fixed by
the deck count (§ 633c.11(i)) and the wager may not exceed twice the Blackjack wager
(§ 633c.11(c)).  The Press (§ 633c.11(e)–(g)) belongs to the Blackjack round.

>>> from sidebet.core.cards import parse_cards
>>> classify(*parse_cards("QH KH AH")), classify(*parse_cards("KH AH 2H"))
('straight_flush', 'flush')
>>> classify(*parse_cards("7d 7d 7d")), classify(*parse_cards("2c 9d Kh")) is None
('three_of_a_kind', True)
"""

from __future__ import annotations

from fractions import Fraction

from sidebet.core.cards import Card
from sidebet.core.hands import PokerHand, poker_hand
from sidebet.regulation.wagers.base import (
    CountKind,
    EVCategory,
    Outcome,
    Paytable,
    PaytableLine,
    Wager,
)

__all__ = ["WAGER", "classify"]

_H = "§ 633c.11(h)"

OUTCOMES = (
    Outcome("straight_flush", "Straight flush"),
    Outcome("three_of_a_kind", "Three-of-a-kind"),
    Outcome("straight", "Straight"),
    Outcome("flush", "Flush"),
)

_BY_HAND = {
    PokerHand.SUITED_THREE_OF_A_KIND: "three_of_a_kind",
    PokerHand.STRAIGHT_FLUSH: "straight_flush",
    PokerHand.THREE_OF_A_KIND: "three_of_a_kind",
    PokerHand.STRAIGHT: "straight",
    PokerHand.FLUSH: "flush",
}


def classify(first: Card, second: Card, upcard: Card) -> str | None:
    """The TriLux Deluxe outcome (§ 633c.11(d), (j)), or ``None`` when the wager loses."""
    return _BY_HAND.get(poker_hand(first, second, upcard))


def _paytable(name: str, sf: int, trips: int, straight: int, flush: int) -> Paytable:
    return Paytable(
        name,
        (
            PaytableLine("straight_flush", sf, _H),
            PaytableLine("three_of_a_kind", trips, _H),
            PaytableLine("straight", straight, _H),
            PaytableLine("flush", flush, _H),
        ),
        _H,
    )


PAYTABLES = (
    _paytable("TLX-1", 20, 15, 9, 6),
    _paytable("TLX-2", 20, 15, 9, 5),
    _paytable("TLX-3", 25, 15, 8, 5),
)

PAYTABLE_BY_DECKS = {1: "TLX-1", 2: "TLX-2", 4: "TLX-3", 6: "TLX-3", 8: "TLX-3"}
"""§ 633c.11(i): the paytable each deck count must use (3, 5 or 7 decks: not offered)."""


WAGER = Wager(
    id="trilux",
    name="TriLux Deluxe",
    section="§ 633c.11",
    summary="Player's two cards and the upcard form a flush, straight, three-of-a-kind "
    "or straight flush.",
    outcomes=OUTCOMES,
    classify=classify,
    paytables=PAYTABLES,
    default_paytable="TLX-3",
    blackjack_wager_rule="§ 633c.11(c)",
    short="TLX",
    ev_category=EVCategory.POKER_HAND,
    counts=(CountKind.SUITS, CountKind.RANKS),
    paytable_by_decks=PAYTABLE_BY_DECKS,
    decks_rule="§ 633c.11(i)",
    max_bet_ratio=Fraction(2),
    max_bet_rule="§ 633c.11(c)",
    pressable=True,
    press_rule="§ 633c.11(e)-(g)",
    lose_rule="§ 633c.11(d)(2)",
    paytable_rule="§ 633c.11(h)-(i)",
)
