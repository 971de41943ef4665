"""The standard published basic-strategy chart (4-8 decks, S17, DAS, late surrender).

:data:`CHART_6D_S17_DAS_LS` is the chart printed on strategy cards for the
interpretation-14 default table.  It is *not* computed for any table's exact rules: the
table engine's chart policy (:class:`sidebet.table.policy.ChartStrategy`) and the
simulator's ``--strategy chart`` play it as printed, resolving its codes against what the
table allows (:func:`sidebet.regulation.base_game.legality.choose`).

>>> from sidebet.core.cards import parse_cards
>>> chart_action(parse_cards("10h 6d"), parse_cards("Ks")[0], can_split=False)
'Rh'
>>> chart_action(parse_cards("8h 8d"), parse_cards("As")[0], can_split=True)
'P'
"""

from __future__ import annotations

from collections.abc import Sequence

from sidebet.core.cards import Card, Rank
from sidebet.core.hands import blackjack_value

__all__ = ["CHART_6D_S17_DAS_LS", "CHART_NAME", "chart_action"]

CHART_NAME = "basic strategy (published chart, 6 decks S17 DAS LS)"
"""How the chart is labelled wherever it is played."""

# Columns: dealer upcard 2,3,4,5,6,7,8,9,10,A.  H hit, S stand, D double (else hit),
# Ds double (else stand), P split, Rh surrender (else hit).
_HARD = {
    **{t: "H H H H H H H H H H" for t in range(4, 9)},
    9: "H D D D D H H H H H",
    10: "D D D D D D D D H H",
    11: "D D D D D D D D D H",
    12: "H H S S S H H H H H",
    13: "S S S S S H H H H H",
    14: "S S S S S H H H H H",
    15: "S S S S S H H H Rh H",
    16: "S S S S S H H Rh Rh Rh",
    **{t: "S S S S S S S S S S" for t in range(17, 22)},
}
_SOFT = {
    12: "H H H H H H H H H H",
    13: "H H H D D H H H H H",
    14: "H H H D D H H H H H",
    15: "H H D D D H H H H H",
    16: "H H D D D H H H H H",
    17: "H D D D D H H H H H",
    18: "S Ds Ds Ds Ds S S H H H",
    19: "S S S S S S S S S S",
    20: "S S S S S S S S S S",
    21: "S S S S S S S S S S",
}
_PAIRS = {
    2: "P P P P P P H H H H",
    3: "P P P P P P H H H H",
    4: "H H H P P H H H H H",
    6: "P P P P P H H H H H",
    7: "P P P P P P H H H H",
    8: "P P P P P P P P P P",
    9: "P P P P P S P P S S",
    11: "P P P P P P P P P P",
}

CHART_6D_S17_DAS_LS: dict[str, dict[int, tuple[str, ...]]] = {
    "hard": {k: tuple(v.split()) for k, v in _HARD.items()},
    "soft": {k: tuple(v.split()) for k, v in _SOFT.items()},
    "pair": {k: tuple(v.split()) for k, v in _PAIRS.items()},
}
"""Published basic strategy, 4–8 decks S17 DAS LS (not computed for the table's rules)."""


def _column(upcard: Card) -> int:
    return 9 if upcard.rank is Rank.ACE else upcard.rank.blackjack_value - 2


def chart_action(cards: Sequence[Card], upcard: Card, can_split: bool) -> str:
    """The chart's code for a hand: ``H``, ``S``, ``D``, ``Ds``, ``P`` or ``Rh``."""
    col = _column(upcard)
    if can_split and len(cards) == 2:
        value = cards[0].rank.blackjack_value
        if cards[0].rank.blackjack_value == cards[1].rank.blackjack_value and value in _PAIRS:
            code = CHART_6D_S17_DAS_LS["pair"][value][col]
            if code == "P":
                return code
    v = blackjack_value(cards)
    if v.soft and v.total in _SOFT:
        return CHART_6D_S17_DAS_LS["soft"][v.total][col]
    return CHART_6D_S17_DAS_LS["hard"][min(max(v.total, 4), 21)][col]
