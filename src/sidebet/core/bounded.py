"""Numbers from people and files, checked for size before anything is computed with them.

A count or a fraction typed on a command line, at a prompt or in a TOML file may be
``1e999999999``, thousands of digits, ``inf`` or ``nan``; each is refused with one line
naming the input (a :class:`SidebetError`) before Python would build the number.

>>> parse_fraction("0.75", "--penetration"), parse_fraction("3/4", "--penetration")
(Fraction(3, 4), Fraction(3, 4))
>>> parse_fraction("1e99999999", "--penetration")
Traceback (most recent call last):
...
sidebet.core.errors.SidebetError: --penetration must be a number like 0.75 or 3/4, not '1e99999999'
>>> parse_count("1e9", "--rounds", high=10**12)
1000000000
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from sidebet.core.errors import SidebetError

__all__ = ["MAX_ROUNDS", "MAX_TEXT", "parse_count", "parse_fraction", "parse_penetration"]

MAX_TEXT = 40
"""The longest number accepted, in characters."""
MAX_ROUNDS = 10**12
"""The most rounds one run (a simulation, a counter's run, a report) may ask for; more is
refused rather than left running for years (how long this many takes:
``docs/simulator.md``, Speed)."""

_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?")
_RATIO = re.compile(r"[+-]?\d{1,20}/\d{1,20}")


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else f"{text[:20]}... ({len(text)} characters)"


def parse_fraction(text: object, what: str) -> Fraction:
    """A decimal (``0.75``, ``7.5e-1``) or a ratio (``3/4``) as an exact fraction; an
    exponent of at most three digits, at most :data:`MAX_TEXT` characters."""
    raw = str(text).strip()
    if len(raw) <= MAX_TEXT and (_DECIMAL.fullmatch(raw) or _RATIO.fullmatch(raw)):
        try:
            value = Fraction(raw)
        except (ValueError, ZeroDivisionError):
            pass
        else:
            if abs(value) < 10**40:
                return value
    raise SidebetError(f"{what} must be a number like 0.75 or 3/4, not {_short(raw)!r}")


def parse_count(text: object, what: str, *, low: int = 1, high: int) -> int:
    """A whole number from ``low`` to ``high``: ``1000000``, ``1_000_000``, ``2,000``,
    ``1e9``."""
    raw = str(text).strip()
    cleaned = raw.replace("_", "").replace(",", "")
    value: Decimal | None = None
    if len(cleaned) <= MAX_TEXT and _DECIMAL.fullmatch(cleaned):
        try:
            value = Decimal(cleaned)
        except InvalidOperation:
            value = None
    if value is None or not value.is_finite():
        raise SidebetError(f"{what} must be a whole number, not {_short(raw)!r}")
    if value != value.to_integral_value() or not low <= value <= high:
        raise SidebetError(f"{what} must be a whole number from {low:,} to {high:,}, not "
                           f"{_short(raw)}")
    return int(value)


def parse_penetration(text: object, what: str = "--penetration") -> Fraction:
    """A share of the shoe dealt before the cut card: strictly between 0 and 1.

    >>> parse_penetration("3/4")
    Fraction(3, 4)
    >>> parse_penetration("1")
    Traceback (most recent call last):
    ...
    sidebet.core.errors.SidebetError: --penetration must be between 0 and 1 (exclusive), not 1
    """
    value = parse_fraction(text, what)
    if not 0 < value < 1:
        raise SidebetError(f"{what} must be between 0 and 1 (exclusive), not {value}")
    return value
