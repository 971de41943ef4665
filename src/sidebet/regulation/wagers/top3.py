"""Top 3 (58 Pa. Code § 633c.7).

Needs a Blackjack wager and the Three Card Poker wager (§ 633c.7(a), (c)).  Wins when
the player's two cards and the dealer's upcard form a three-of-a-kind or a straight
flush, paying the highest three-card hand (§ 633c.7(d), (e)): suited three-of-a-kind
(three identical cards, possible with 3 or more decks), straight flush, three-of-a-kind.
Paytable A or B is chosen in the Rules Submission (§ 633c.7(e)).

>>> from sidebet.core.cards import parse_cards
>>> [classify(*parse_cards(t)) for t in ("9h 9h 9h", "9h 9c 9h", "Ah 2h 3h", "Ah 2h 4h")]
['suited_three_of_a_kind', 'three_of_a_kind', 'straight_flush', None]
"""

from __future__ import annotations

from sidebet.core.cards import Card
from sidebet.core.hands import PokerHand, poker_hand
from sidebet.regulation.wagers import three_card_poker
from sidebet.regulation.wagers.base import (
    CountKind,
    EVCategory,
    Outcome,
    Paytable,
    PaytableLine,
    Wager,
)

__all__ = ["WAGER", "classify"]

OUTCOMES = (
    Outcome("suited_three_of_a_kind", "Three-of-a-kind suited"),
    Outcome("straight_flush", "Straight flush"),
    Outcome("three_of_a_kind", "Three-of-a-kind"),
)

_BY_HAND = {
    PokerHand.SUITED_THREE_OF_A_KIND: "suited_three_of_a_kind",
    PokerHand.STRAIGHT_FLUSH: "straight_flush",
    PokerHand.THREE_OF_A_KIND: "three_of_a_kind",
}


def classify(first: Card, second: Card, upcard: Card) -> str | None:
    """The Top 3 outcome (§ 633c.7(d), (e)), or ``None`` when the wager loses."""
    return _BY_HAND.get(poker_hand(first, second, upcard))


_E = "§ 633c.7(e)"


def _paytable(name: str, suited: int, sf: int, trips: int) -> Paytable:
    return Paytable(
        name,
        (
            PaytableLine("suited_three_of_a_kind", suited, _E),
            PaytableLine("straight_flush", sf, _E),
            PaytableLine("three_of_a_kind", trips, _E),
        ),
        _E,
    )


PAYTABLES = (_paytable("A", 270, 180, 90), _paytable("B", 1000, 100, 70))


WAGER = Wager(
    id="top3",
    name="Top 3",
    section="§ 633c.7",
    summary="Player's two cards and the upcard form a three-of-a-kind or a straight flush "
    "(requires the Three Card Poker wager).",
    outcomes=OUTCOMES,
    classify=classify,
    paytables=PAYTABLES,
    default_paytable="A",
    blackjack_wager_rule="§ 633c.7(c)",
    short="T3",
    ev_category=EVCategory.POKER_HAND,
    counts=(CountKind.SUITS, CountKind.RANKS),
    requires=(three_card_poker.WAGER,),
    requires_rule="§ 633c.7(a)",
    requires_bet_rule="§ 633c.7(c)",
    lose_rule="§ 633c.7(d)(1)",
    paytable_rule=_E,
)
