"""Ranks, suits, cards and their text forms.

A card is one of the 52 *kinds* of a standard deck; a shoe of several decks holds
several identical copies of each kind (see :mod:`sidebet.core.shoe`).  Every card kind has
an index ``0..51`` (``rank_index * 4 + suit``) used by the outcome tables and kernels.

>>> Card.parse("AS")
Card(rank=<Rank.ACE: 14>, suit=<Suit.SPADES: 3>)
>>> str(Card.parse("10h")), str(Card.parse("Th")), str(Card.parse("7D"))
('10♥', '10♥', '7♦')
>>> [str(c) for c in parse_cards("A♠ j♠")]
['A♠', 'J♠']
>>> Card.parse("A♠").index, Card.from_index(51)
(51, Card(rank=<Rank.ACE: 14>, suit=<Suit.SPADES: 3>))
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, IntEnum
from functools import cache

from sidebet.core.errors import CardError

__all__ = [
    "ALL_CARDS",
    "Card",
    "Color",
    "Rank",
    "Suit",
    "format_cards",
    "parse_cards",
    "triple_index",
]


class Rank(IntEnum):
    """Card ranks, valued by their poker order (the ace is 14; it may also play low)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The rank as written on a card: ``'2'``..``'10'``, ``'J'``, ``'Q'``, ``'K'``, ``'A'``."""
        return _RANK_SYMBOLS[self]

    @property
    def blackjack_value(self) -> int:
        """Blackjack value (§ 633a.3(e)): 2–10 at face, J/Q/K 10, the ace 11 (or 1, see hands).

        >>> Rank.KING.blackjack_value, Rank.ACE.blackjack_value, Rank.SEVEN.blackjack_value
        (10, 11, 7)
        """
        if self is Rank.ACE:
            return 11
        return min(int(self), 10)


class Color(Enum):
    """Card colours, used by Blazing 7's (§ 633b.20(e))."""

    BLACK = "black"
    RED = "red"


class Suit(IntEnum):
    """The four suits; the value is the suit's place in a card index."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        """The suit glyph: ``♣ ♦ ♥ ♠``."""
        return "♣♦♥♠"[self]

    @property
    def letter(self) -> str:
        """The suit letter: ``c d h s``."""
        return "cdhs"[self]

    @property
    def color(self) -> Color:
        """Diamonds and hearts are red, clubs and spades black.

        >>> Suit.DIAMONDS.color, Suit.SPADES.color
        (<Color.RED: 'red'>, <Color.BLACK: 'black'>)
        """
        return Color.RED if self in (Suit.DIAMONDS, Suit.HEARTS) else Color.BLACK


_RANK_SYMBOLS = {
    **{Rank(v): str(v) for v in range(2, 11)},
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
_RANK_BY_TEXT = {
    **{sym.upper(): rank for rank, sym in _RANK_SYMBOLS.items()},
    "T": Rank.TEN,
}
_SUIT_BY_TEXT = {
    **{s.letter.upper(): s for s in Suit},
    **{s.symbol: s for s in Suit},
    "♤": Suit.SPADES,
    "♡": Suit.HEARTS,
    "♢": Suit.DIAMONDS,
    "♧": Suit.CLUBS,
}
_CARD_RE = re.compile(r"^\s*(10|[2-9TJQKA])\s*([CDHS♣♦♥♠♤♡♢♧])\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card: a rank and a suit.

    >>> Card(Rank.SEVEN, Suit.DIAMONDS)
    Card(rank=<Rank.SEVEN: 7>, suit=<Suit.DIAMONDS: 1>)
    >>> Card.parse("qc").code
    'Qc'
    """

    rank: Rank
    suit: Suit

    @property
    def index(self) -> int:
        """The card kind's index 0..51: ``(rank - 2) * 4 + suit``."""
        return (self.rank - 2) * 4 + self.suit

    @property
    def code(self) -> str:
        """ASCII form, e.g. ``'As'``, ``'10h'``."""
        return f"{self.rank.symbol}{self.suit.letter}"

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.symbol}"

    @staticmethod
    def from_index(index: int) -> Card:
        """The card kind with this index (0..51)."""
        if not 0 <= index < 52:
            raise CardError(f"card index {index} is not in 0..51")
        return ALL_CARDS[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``AS``, ``as``, ``A♠``, ``10h``, ``Th``, ``7D``.

        >>> Card.parse("1x")
        Traceback (most recent call last):
        ...
        sidebet.core.errors.CardError: '1x' is not a card (write a rank 2-10, J, Q, K, A or T and a suit c, d, h, s or ♣ ♦ ♥ ♠, e.g. 'A♠', '10h', 'Td')
        """
        return _parse_card(text)


@cache
def _parse_card(text: str) -> Card:
    match = _CARD_RE.match(text)
    if match is None:
        raise CardError(
            f"{text!r} is not a card (write a rank 2-10, J, Q, K, A or T and a suit "
            "c, d, h, s or ♣ ♦ ♥ ♠, e.g. 'A♠', '10h', 'Td')"
        )
    rank_text, suit_text = match.groups()
    return Card(_RANK_BY_TEXT[rank_text.upper()], _SUIT_BY_TEXT[suit_text.upper()])


ALL_CARDS: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)
"""The 52 card kinds in index order."""


def triple_index(first: int, second: int, up: int) -> int:
    """The flat index of a card triple (the player's first and second card, the upcard,
    as card indices) in a ``[52, 52, 52]`` outcome table laid out as one row; a plain
    function that the kernels compile.

    >>> triple_index(0, 0, 1), triple_index(1, 0, 0), triple_index(51, 51, 51) + 1 == 52**3
    (1, 2704, True)
    """
    return first * 2704 + second * 52 + up


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas (or an iterable of card strings).

    >>> [c.code for c in parse_cards("7d,7s 10c")]
    ['7d', '7s', '10c']
    """
    parts = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    return tuple(Card.parse(p) for p in parts if p)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards joined by spaces in glyph form.

    >>> format_cards(parse_cards("as js"))
    'A♠ J♠'
    """
    return " ".join(str(c) for c in cards)
