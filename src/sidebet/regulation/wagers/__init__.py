"""The side wagers, one module each, and their registry.

>>> sorted(WAGERS)
['blazing7s', 'three-card-poker', 'top3', 'trilux', 'upcard-luck']
>>> get_wager("TriLux").name
'TriLux Deluxe'
"""

from __future__ import annotations

from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import blazing7s, three_card_poker, top3, trilux, upcard_luck
from sidebet.regulation.wagers.base import (
    LOSE,
    BetContext,
    CountKind,
    EVCategory,
    Outcome,
    Paytable,
    PaytableLine,
    Wager,
)

__all__ = [
    "LOSE",
    "PRESSABLE",
    "REGULATED",
    "WAGERS",
    "BetContext",
    "CountKind",
    "EVCategory",
    "Outcome",
    "Paytable",
    "PaytableLine",
    "Wager",
    "get_wager",
    "help_ids",
    "help_required",
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

REGULATED: tuple[str, ...] = tuple(
    wid for wid, w in WAGERS.items() if all(p.from_seed_texts for p in w.paytables)
)
"""The four side wagers of the seed regulations (every paytable from their texts)."""

PRESSABLE: Wager = next(w for w in WAGERS.values() if w.pressable)
"""The wager whose winnings may be pressed onto the Blackjack wager (TriLux Deluxe)."""

_ALIASES = {
    "upcard_luck": "upcard-luck",
    "upcardluck": "upcard-luck",
    "three_card_poker": "three-card-poker",
    "3cp": "three-card-poker",
    "tcp": "three-card-poker",
    "blazing7": "blazing7s",
    "blazing-7s": "blazing7s",
    **{w.name.lower().replace(" ", "-"): w.id for w in WAGERS.values()},
}


def get_wager(name: str) -> Wager:
    """The wager with this identifier (case-insensitive; a few aliases accepted)."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in WAGERS:
        raise SidebetError(f"unknown wager {name!r} (wagers: {', '.join(WAGERS)})")
    return WAGERS[key]


def help_ids(last: str = " or ") -> str:
    """The wagers' identifiers in the registry's order, as the CLI's help lists them.

    >>> help_ids()
    'trilux, upcard-luck, top3, blazing7s or three-card-poker'
    """
    ids = list(WAGERS)
    return ", ".join(ids[:-1]) + last + ids[-1]


def help_required(form: str) -> str:
    """Each wager that requires others, in ``form`` (``{name}``: its name, ``{required}``:
    theirs), as the CLI's help says it.

    >>> help_required("{name} brings its {required} wager.")
    'Top 3 brings its Three Card Poker wager.'
    """
    return " ".join(form.format(name=w.name, required=w.required_names)
                    for w in WAGERS.values() if w.requires)
