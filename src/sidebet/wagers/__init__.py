"""The side wagers, one module each, and their registry.

>>> sorted(WAGERS)
['blazing7s', 'three-card-poker', 'top3', 'trilux', 'upcard-luck']
>>> get_wager("TriLux").name
'TriLux Deluxe'
"""

from __future__ import annotations

from sidebet.errors import SidebetError
from sidebet.wagers import blazing7s, three_card_poker, top3, trilux, upcard_luck
from sidebet.wagers.base import (
    LOSE,
    BetContext,
    Outcome,
    Paytable,
    PaytableLine,
    Wager,
)

__all__ = [
    "LOSE",
    "REGULATED",
    "WAGERS",
    "BetContext",
    "Outcome",
    "Paytable",
    "PaytableLine",
    "Wager",
    "get_wager",
]

WAGERS: dict[str, Wager] = {
    w.id: w
    for w in (
        trilux.WAGER,
        upcard_luck.WAGER,
        top3.WAGER,
        blazing7s.WAGER,
        three_card_poker.WAGER,
    )
}
"""Every wager by identifier, the four regulated ones first."""

REGULATED: tuple[str, ...] = ("trilux", "upcard-luck", "top3", "blazing7s")
"""The four side wagers of the seed regulations."""

_ALIASES = {
    "upcard_luck": "upcard-luck",
    "upcardluck": "upcard-luck",
    "three_card_poker": "three-card-poker",
    "3cp": "three-card-poker",
    "tcp": "three-card-poker",
    "blazing7": "blazing7s",
    "blazing-7s": "blazing7s",
    "trilux-deluxe": "trilux",
}


def get_wager(name: str) -> Wager:
    """The wager with this identifier (case-insensitive; a few aliases accepted)."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in WAGERS:
        raise SidebetError(f"unknown wager {name!r} (wagers: {', '.join(WAGERS)})")
    return WAGERS[key]
