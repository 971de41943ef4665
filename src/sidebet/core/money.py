"""Money in integer minor units (cents); never a float.

>>> parse_money("25"), parse_money("12.50"), format_money(250_00), format_money(-5)
(2500, 1250, '250.00', '-0.05')
>>> parse_money("1.005")
Traceback (most recent call last):
...
sidebet.core.errors.SidebetError: '1.005' is not an amount of money in whole cents
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sidebet.core.bounded import MAX_TEXT
from sidebet.core.errors import SidebetError

__all__ = [
    "CENTS_PER_UNIT",
    "MAX_CENTS",
    "TENTHS_PER_UNIT",
    "Cents",
    "format_money",
    "parse_money",
    "tenths_to_units",
    "units_to_cents",
    "units_to_tenths",
]

Cents = int
"""An amount of money in minor units (hundredths)."""

MAX_CENTS = 10**15
"""The largest amount accepted anywhere (10 trillion units): larger input is refused
before it is computed with."""

CENTS_PER_UNIT = 100
"""Cents in a whole unit of money."""
TENTHS_PER_UNIT = 10
"""Tenths in a table unit: the simulator's money unit (bets are whole units, so 3:2, 6:5
and half of a surrender are exact in tenths)."""


def units_to_cents(units: int) -> Cents:
    """Whole units as cents.

    >>> units_to_cents(25)
    2500
    """
    return units * CENTS_PER_UNIT


def units_to_tenths(units: int) -> int:
    """Whole table units as the simulator's tenths.

    >>> units_to_tenths(5)
    50
    """
    return units * TENTHS_PER_UNIT


def tenths_to_units(tenths: int) -> float:
    """Tenths as table units, for display and statistics (the edge where floats begin).

    >>> tenths_to_units(15)
    1.5
    """
    return tenths / TENTHS_PER_UNIT


def parse_money(text: str | int | Decimal) -> Cents:
    """Parse an amount like ``'25'``, ``'25.00'`` or ``Decimal('2.5')`` into cents.

    ``int`` input is taken as whole units (``25`` is 25.00).
    """
    if isinstance(text, bool):
        raise SidebetError(f"{text!r} is not an amount of money")
    if isinstance(text, int):
        if abs(units_to_cents(text)) > MAX_CENTS:
            raise SidebetError(f"amount {_short(str(text))} is too large")
        return units_to_cents(text)
    raw = str(text).strip()
    if len(raw) > MAX_TEXT:
        raise SidebetError(f"{_short(raw)!r} is not an amount of money (too long)")
    try:
        value = Decimal(raw.replace(",", "").lstrip("$"))
    except InvalidOperation:
        raise SidebetError(f"{text!r} is not an amount of money") from None
    if not value.is_finite():
        raise SidebetError(f"{text!r} is not an amount of money")
    if value and (value.adjusted() > 14 or value.adjusted() < -3):
        raise SidebetError(f"{raw!r} is not an amount of money in whole cents up to "
                           f"{format_money(MAX_CENTS)}")
    cents = value * CENTS_PER_UNIT
    if cents != cents.to_integral_value():
        raise SidebetError(f"{text!r} is not an amount of money in whole cents")
    if abs(cents) > MAX_CENTS:
        raise SidebetError(f"amount {raw} is too large (at most {format_money(MAX_CENTS)})")
    return int(cents)


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} characters)"


def format_money(cents: Cents) -> str:
    """Cents as a decimal string with two places: ``'250.00'``."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), CENTS_PER_UNIT)
    return f"{sign}{whole}.{frac:02d}"
