"""sidebet: deal, settle and exactly analyse the blackjack side wagers of 58 Pa. Code ch. 633.

>>> from sidebet import Card, Shoe, get_wager
>>> get_wager("blazing7s").outcome(Card.parse("7d"), Card.parse("7d"), Card.parse("7d"))
'three_sevens_diamonds'
"""

# first, before numba is imported: a read-only install still runs
from sidebet import _numba_cache  # noqa: F401
from sidebet.cards import Card, Rank, Suit, format_cards, parse_cards
from sidebet.errors import CardError, ConfigError, RuleError, ShoeError, SidebetError, Violation
from sidebet.shoe import Shoe
from sidebet.wagers import WAGERS, Wager, get_wager

__all__ = [
    "WAGERS",
    "Card",
    "CardError",
    "ConfigError",
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
    "parse_cards",
]

__version__ = "0.1.0"
