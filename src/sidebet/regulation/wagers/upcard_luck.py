"""Upcard Luck (58 Pa. Code § 633b.15).

Loses unless the dealer's upcard is a 2 through 7 (§ 633b.15(f)(1)).  With such an upcard
it pays the highest of (§ 633b.15(f)(3), (g), interpretation 9): the player's cards are
exactly the A♠ and J♠ (80 to 1); any other Blackjack (8 to 1); a two-card total of 9, 10
or 11 (4 to 1); a total of 18, 19 or 20, hard or soft (3 to 1).  Totals follow
interpretation 2: A-8 is soft 19, A-A is 12.  Offered only with 4, 6 or 8 decks
(§ 633b.15(b)); the wager may not exceed the Blackjack wager (§ 633b.15(d)).

>>> from sidebet.core.cards import parse_cards
>>> [classify(*parse_cards(t)) for t in ("As Js 5d", "As Qs 5d", "Ac Jc 2h", "Ah 8c 7d")]
['ace_jack_spades', 'blackjack', 'blackjack', 'total_18_to_20']
>>> classify(*parse_cards("Ah Ad 5c")), classify(*parse_cards("5h 5d 8c"))
(None, None)
"""

from __future__ import annotations

from fractions import Fraction

from sidebet.core.cards import Card, Rank, Suit
from sidebet.core.hands import blackjack_value, is_blackjack
from sidebet.regulation.wagers.base import (
    EVCategory,
    Outcome,
    Paytable,
    PaytableLine,
    Wager,
)

__all__ = ["WAGER", "classify"]

_ACE_SPADES = Card(Rank.ACE, Suit.SPADES)
_JACK_SPADES = Card(Rank.JACK, Suit.SPADES)
_LUCKY_UPCARDS = frozenset(Rank(v) for v in range(2, 8))

OUTCOMES = (
    Outcome("ace_jack_spades", "Ace Spades and Jack Spades"),
    Outcome("blackjack", "Blackjack"),
    Outcome("total_9_to_11", "9, 10 or 11"),
    Outcome("total_18_to_20", "18, 19 or 20 (including soft totals)"),
)


def classify(first: Card, second: Card, upcard: Card) -> str | None:
    """The Upcard Luck outcome (§ 633b.15(f)), or ``None`` when the wager loses."""
    if upcard.rank not in _LUCKY_UPCARDS:
        return None
    if {first, second} == {_ACE_SPADES, _JACK_SPADES}:
        return "ace_jack_spades"
    if is_blackjack(first, second):
        return "blackjack"
    total = blackjack_value((first, second)).total
    if 9 <= total <= 11:
        return "total_9_to_11"
    if 18 <= total <= 20:
        return "total_18_to_20"
    return None


def _lose_rule(first: Card, second: Card, upcard: Card) -> str:
    """§ 633b.15(f)(1) collects for an upcard that is not 2-7, (f)(2) for a losing total."""
    return "§ 633b.15(f)(1)" if upcard.rank not in _LUCKY_UPCARDS else "§ 633b.15(f)(2)"


_G = "§ 633b.15(g)"

PAYTABLES = (
    Paytable(
        "standard",
        (
            PaytableLine("ace_jack_spades", 80, _G),
            PaytableLine("blackjack", 8, _G),
            PaytableLine("total_9_to_11", 4, _G),
            PaytableLine("total_18_to_20", 3, _G),
        ),
        _G,
    ),
)


WAGER = Wager(
    id="upcard-luck",
    name="Upcard Luck",
    section="§ 633b.15",
    summary="Dealer's upcard is 2 through 7 and the player's two cards total 9-11, 18-20 "
    "(hard or soft) or are a Blackjack.",
    outcomes=OUTCOMES,
    classify=classify,
    paytables=PAYTABLES,
    default_paytable="standard",
    blackjack_wager_rule="§ 633b.15(d)",
    short="UL",
    ev_category=EVCategory.UPCARD_CLASS,
    allowed_decks=frozenset({4, 6, 8}),
    decks_rule="§ 633b.15(b)",
    max_bet_ratio=Fraction(1),
    max_bet_rule="§ 633b.15(d)",
    lose_rule=_lose_rule,
    paytable_rule=_G,
)
