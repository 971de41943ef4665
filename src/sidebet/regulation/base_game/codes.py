"""Codes of a Blackjack hand: rank classes, actions, decisions and chart codes.

The leaf every other module reads (it imports nothing of sidebet):

* **rank classes** ``0..9``: the ace, 2..9, any 10-value card (the exact analyser's shoe
  counts); **blackjack values** ``2..11`` (the ace 11; the kernels' card values);
* **actions** ``0..4``: stand, hit, double, split, surrender (:class:`Action`); a
  *decision* of the analyser's arrays is an action code (hit/stand tables hold 0 or 1,
  two-card tables 0, 1 or 2);
* **chart codes** (``H``, ``S``, ``P``, ``D``/``Dh``, ``Ds``, ``Rh``, ``Rs``, ``Rp``):
  parsed once into a first choice and the fallback played when the first is not allowed
  (:class:`ChartCode`), packed as ``first * 5 + fallback`` for the kernels.

>>> parse_chart_code("Ds")
ChartCode(first=<Action.DOUBLE: 2>, fallback=<Action.STAND: 0>)
>>> parse_chart_code("D").text, parse_chart_code("Rp").packed == SURRENDER * 5 + SPLIT
('Dh', True)
>>> class_of_value(11), value_of_class(9), CLASS_NAMES[class_of_text("K")]
(0, 10, 'T')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import Protocol

__all__ = [
    "ACE",
    "ACTION_LETTERS",
    "ACTION_NAMES",
    "CHART_CODES",
    "CLASS_NAMES",
    "DOUBLE",
    "HIT",
    "NACTIONS",
    "SPLIT",
    "STAND",
    "SURRENDER",
    "TEN",
    "UPCARD_VALUES",
    "UP_ORDER",
    "Action",
    "ChartCode",
    "chart_code_of",
    "class_of_text",
    "class_of_value",
    "parse_chart_code",
    "rank_class",
    "unpack",
    "value_of_class",
]

# ----- rank classes and blackjack values --------------------------------------------

CLASS_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
"""Rank classes ``0..9``; all 10-value ranks are class ``9``."""
ACE = 0
"""Rank class of the ace."""
TEN = 9
"""Rank class of every 10-value card."""
UP_ORDER = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
"""Upcard classes in chart column order: 2..9, T, A."""
UPCARD_VALUES = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
"""Upcard blackjack values in chart column order: 2..10, A (11)."""


def class_of_value(value: int) -> int:
    """Rank class of a blackjack value (the ace 11 or 1).

    >>> [class_of_value(v) for v in (11, 1, 2, 10)]
    [0, 0, 1, 9]
    """
    return 0 if value in (1, 11) else value - 1


def value_of_class(cls: int) -> int:
    """Blackjack value of a rank class (the ace 11).

    >>> [value_of_class(c) for c in (0, 1, 9)]
    [11, 2, 10]
    """
    return 11 if cls == 0 else cls + 1


class _Valued(Protocol):
    @property
    def blackjack_value(self) -> int: ...


class _Ranked(Protocol):
    @property
    def rank(self) -> _Valued: ...


def rank_class(card: _Ranked) -> int:
    """Rank class of a card (:class:`sidebet.core.cards.Card`): 0 for an ace, 1..8 for 2..9,
    9 for any 10-value card."""
    return class_of_value(card.rank.blackjack_value)


def class_of_text(text: str) -> int:
    """Rank class of ``'A'``, ``'2'``..``'9'``, ``'T'`` / ``'10'`` / ``'J'`` / ``'Q'`` / ``'K'``.

    >>> class_of_text("A"), class_of_text("K"), class_of_text("7")
    (0, 9, 6)
    """
    t = text.strip().upper()
    if t in ("T", "10", "J", "Q", "K"):
        return TEN
    if t in ("A", "1", "11"):
        return ACE
    return int(t) - 1


# ----- actions ----------------------------------------------------------------------

STAND = 0
HIT = 1
DOUBLE = 2
SPLIT = 3
SURRENDER = 4
NACTIONS = 5
ACTION_NAMES = ("stand", "hit", "double", "split", "surrender")
"""Action names by code (the exact analyser's ``ACTIONS``; ``Step`` values of the table)."""
ACTION_LETTERS = ("S", "H", "D", "P", "R")
"""Chart letters by action code."""


class Action(IntEnum):
    """A player's action on a hand; the value is its code in every array and kernel."""

    STAND = STAND
    HIT = HIT
    DOUBLE = DOUBLE
    SPLIT = SPLIT
    SURRENDER = SURRENDER

    @property
    def word(self) -> str:
        """``'stand'``, ``'hit'``, ``'double'``, ``'split'`` or ``'surrender'``."""
        return ACTION_NAMES[self]

    @property
    def letter(self) -> str:
        """The chart letter: ``S``, ``H``, ``D``, ``P`` or ``R``."""
        return ACTION_LETTERS[self]

    @classmethod
    def named(cls, word: str) -> Action:
        """The action called ``word`` (``'hit'`` ...)."""
        return cls(ACTION_NAMES.index(word))


# ----- chart codes ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChartCode:
    """A chart code as a first choice and the fallback played when it is not allowed.

    ``H``, ``S`` and ``P`` stand alone (fallback: themselves); ``D`` is ``Dh``.  Should
    the fallback not be allowed either, the hand plays its hit-or-stand choice; a split
    that is not allowed plays the pair's no-split code (see
    :func:`sidebet.regulation.base_game.legality.choose`).
    """

    first: Action
    fallback: Action

    @property
    def packed(self) -> int:
        """``first * 5 + fallback``: the code the kernels' strategy arrays hold."""
        return self.first * NACTIONS + self.fallback

    @property
    def text(self) -> str:
        """The code as a chart prints it (``Dh``, ``Rs``, ``P`` ...)."""
        if self.first == self.fallback:
            return self.first.letter
        return self.first.letter + self.fallback.letter.lower()


@cache
def parse_chart_code(code: str) -> ChartCode:
    """Parse a chart code (case of the second letter ignored); :class:`ValueError` if
    unknown.

    >>> parse_chart_code("Rh").text, parse_chart_code("P").packed
    ('Rh', 18)
    """
    text = code.strip()
    if not text or text[0].upper() not in ACTION_LETTERS:
        raise ValueError(f"unknown chart code {code!r}")
    first = Action(ACTION_LETTERS.index(text[0].upper()))
    second: Action
    if len(text) == 1:
        second = Action.HIT if first == Action.DOUBLE else first
    elif len(text) == 2 and text[1].upper() in ACTION_LETTERS:
        second = Action(ACTION_LETTERS.index(text[1].upper()))
    else:
        raise ValueError(f"unknown chart code {code!r}")
    return ChartCode(first, second)


def chart_code_of(first: int, fallback: int) -> str:
    """The chart text of a first choice and fallback (``chart_code_of(DOUBLE, STAND)`` is
    ``'Ds'``)."""
    return ChartCode(Action(first), Action(fallback)).text


def unpack(packed: int) -> tuple[int, int]:
    """``(first, fallback)`` of a packed kernel code."""
    return packed // NACTIONS, packed % NACTIONS


CHART_CODES = {c: parse_chart_code(c) for c in ("S", "H", "P", "D", "Dh", "Ds", "Rh", "Rs", "Rp")}
"""The chart codes in use, parsed."""
