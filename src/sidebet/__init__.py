"""sidebet: deal, settle and exactly analyse the blackjack side wagers of 58 Pa. Code ch. 633.

The public facade: the primitives (cards, shoes, errors), the wagers, and the exact PAR
sheet.  Everything else is imported from its layer (``docs/architecture.md``).

>>> from sidebet import Card, Shoe, get_wager
>>> get_wager("blazing7s").outcome(Card.parse("7d"), Card.parse("7d"), Card.parse("7d"))
'three_sevens_diamonds'
>>> from sidebet import par_sheet
>>> par_sheet("three-card-poker", 6).house_edge
Fraction(4059, 125333)

Every name is loaded on first use: ``import sidebet`` (which runs first whenever any of
its modules is imported, e.g. by the ``sidebet`` command) imports nothing more.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a command's start imports no typing (mypy reads it alike)
if TYPE_CHECKING:
    from typing import Any

    from sidebet.core.cards import Card, Rank, Suit, format_cards, parse_cards
    from sidebet.core.errors import (
        CardError,
        ConfigError,
        RuleError,
        ShoeError,
        SidebetError,
        Violation,
    )
    from sidebet.core.shoe import Shoe
    from sidebet.exact.par import ParSheet, par_sheet
    from sidebet.regulation.wagers import WAGERS, Wager, get_wager

__all__ = [
    "WAGERS",
    "Card",
    "CardError",
    "ConfigError",
    "ParSheet",
    "Rank",
    "RuleError",
    "Shoe",
    "ShoeError",
    "SidebetError",
    "Suit",
    "Violation",
    "Wager",
    "format_cards",
    "get_wager",
    "par_sheet",
    "parse_cards",
]

__version__ = "0.1.0"

_LAZY = {
    **dict.fromkeys(("Card", "Rank", "Suit", "format_cards", "parse_cards"),
                    "sidebet.core.cards"),
    **dict.fromkeys(("CardError", "ConfigError", "RuleError", "ShoeError", "SidebetError",
                     "Violation"), "sidebet.core.errors"),
    "Shoe": "sidebet.core.shoe",
    **dict.fromkeys(("WAGERS", "Wager", "get_wager"), "sidebet.regulation.wagers"),
    **dict.fromkeys(("ParSheet", "par_sheet"), "sidebet.exact.par"),
}
"""Where each name of the facade lives: it is imported on first use (PEP 562), so that
``import sidebet``, which runs before any of its modules, costs a command nothing."""


def __getattr__(name: str) -> Any:
    """The facade's names, imported on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sidebet' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
