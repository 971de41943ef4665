"""The Three Card Poker wager of a Blackjack table (§ 633a.6(e)(9)), which Top 3 requires.

Its paytable is not in this project's regulation texts (interpretation 11): it is a Rules
Submission setting, and the default ``classic`` pays 9 to 1 for any straight flush,
three-of-a-kind, straight or flush of the player's two cards and the dealer's upcard —
the classic "21+3" wager.  Hands follow interpretation 3, like TriLux Deluxe.

>>> from sidebet.core.cards import parse_cards
>>> classify(*parse_cards("As 2d 3c")), WAGER.paytable().pays("flush")
('straight', 9)
"""

from __future__ import annotations

from sidebet.regulation.wagers.base import (
    CountKind,
    EVCategory,
    Paytable,
    PaytableLine,
    Wager,
)
from sidebet.regulation.wagers.trilux import OUTCOMES, classify

__all__ = ["WAGER", "classify"]

_CITE = "§ 633a.6(e)(9)"
_NOTE = "not taken from the seed texts: a Rules Submission setting (interpretation 11)"

PAYTABLES = (
    Paytable(
        "classic",
        tuple(PaytableLine(o.id, 9, f"{_CITE}, interpretation 11") for o in OUTCOMES),
        _CITE,
        from_seed_texts=False,
        note=_NOTE,
    ),
)


WAGER = Wager(
    id="three-card-poker",
    name="Three Card Poker",
    section="§ 633a.6(e)(9)",
    summary="Player's two cards and the upcard form a flush, straight, three-of-a-kind or "
    "straight flush (paytable not in the seed texts).",
    outcomes=OUTCOMES,
    classify=classify,
    paytables=PAYTABLES,
    default_paytable="classic",
    blackjack_wager_rule="§ 633a.6(d)",
    short="3CP",
    ev_category=EVCategory.POKER_HAND,
    counts=(CountKind.SUITS, CountKind.RANKS),
    lose_rule="§ 633a.6(e)(9)",
)
