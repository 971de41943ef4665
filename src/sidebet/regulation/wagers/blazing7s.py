"""Blazing 7's (58 Pa. Code § 633b.20).

Wins when either of the player's initial two cards is a seven (§ 633b.20(b), (d)).  One
seven pays 2 to 1 and two sevens 40 to 1, whatever the upcard; two player sevens with a
seven upcard make the three-seven hands, highest only (§ 633b.20(d)(3), (e),
interpretation 12): three 7♦ (3+ decks), three 7s of one suit, of one colour, any three.

>>> from sidebet.core.cards import parse_cards
>>> [classify(*parse_cards(t)) for t in ("7d 7d 7d", "7s 7s 7s", "7h 7d 7h", "7c 7d 7s")]
['three_sevens_diamonds', 'three_sevens_suited', 'three_sevens_same_color', 'three_sevens']
>>> classify(*parse_cards("7c 8d 7s")), classify(*parse_cards("7c 7d Ks")), classify(*parse_cards("8c 9d 7s"))
('one_seven', 'two_sevens', None)
"""

from __future__ import annotations

from sidebet.core.cards import Card, Rank, Suit
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
    Outcome("three_sevens_diamonds", "Three 7's - all diamonds"),
    Outcome("three_sevens_suited", "Three 7's same suit"),
    Outcome("three_sevens_same_color", "Three 7's same color"),
    Outcome("three_sevens", "Three 7's"),
    Outcome("two_sevens", "Player first two cards (two 7's)"),
    Outcome("one_seven", "Either of player's first two cards (one 7)"),
)


def classify(first: Card, second: Card, upcard: Card) -> str | None:
    """The Blazing 7's outcome (§ 633b.20(d), (e)), or ``None`` when the wager loses."""
    sevens = (first.rank is Rank.SEVEN) + (second.rank is Rank.SEVEN)
    if sevens == 0:
        return None
    if sevens == 1:
        return "one_seven"
    if upcard.rank is not Rank.SEVEN:
        return "two_sevens"
    suits = {first.suit, second.suit, upcard.suit}
    if suits == {Suit.DIAMONDS}:
        return "three_sevens_diamonds"
    if len(suits) == 1:
        return "three_sevens_suited"
    if len({s.color for s in suits}) == 1:
        return "three_sevens_same_color"
    return "three_sevens"


_E = "§ 633b.20(e)"

PAYTABLES = (
    Paytable(
        "A",
        (
            PaytableLine("three_sevens_diamonds", 5000, _E),
            PaytableLine("three_sevens_suited", 2000, _E),
            PaytableLine("three_sevens_same_color", 1000, _E),
            PaytableLine("three_sevens", 500, _E),
            PaytableLine("two_sevens", 40, _E),
            PaytableLine("one_seven", 2, _E),
        ),
        _E,
    ),
)

WAGER = Wager(
    id="blazing7s",
    name="Blazing 7's",
    section="§ 633b.20",
    summary="Either of the player's two cards is a seven; more sevens with the upcard pay more.",
    outcomes=OUTCOMES,
    classify=classify,
    paytables=PAYTABLES,
    default_paytable="A",
    blackjack_wager_rule="§ 633b.20(b)",
    short="B7",
    ev_category=EVCategory.SEVENS,
    counts=(CountKind.SEVENS,),
    lose_rule="§ 633b.20(d)(1)",
    paytable_rule=_E,
)
