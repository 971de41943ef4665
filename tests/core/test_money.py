"""Money in integer cents (sidebet.core.money)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sidebet.core.errors import SidebetError
from sidebet.core.money import format_money, parse_money


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("25", 2500),
        ("25.00", 2500),
        ("12.50", 1250),
        ("0.01", 1),
        ("$1,000.50", 100050),
        (" 7.5 ", 750),
        ("0", 0),
        (Decimal("2.5"), 250),
        (25, 2500),
        (0, 0),
    ],
)
def test_parse_money(text: str | int | Decimal, cents: int) -> None:
    assert parse_money(text) == cents
    assert isinstance(parse_money(text), int)


@pytest.mark.parametrize("text", ["1.005", "abc", "", "NaN", "Infinity", "1.2.3", True, False])
def test_parse_money_refuses(text: str | bool) -> None:
    with pytest.raises(SidebetError):
        parse_money(text)


def test_parse_money_fraction_of_a_cent_message() -> None:
    with pytest.raises(SidebetError, match=r"whole cents"):
        parse_money("1.005")


@pytest.mark.parametrize(
    ("cents", "text"),
    [(0, "0.00"), (1, "0.01"), (250_00, "250.00"), (-5, "-0.05"), (-1234, "-12.34"), (100050, "1000.50")],
)
def test_format_money(cents: int, text: str) -> None:
    assert format_money(cents) == text


@pytest.mark.parametrize("cents", [0, 1, 99, 100, 12345, 5_000_00, 987654321])
def test_round_trip(cents: int) -> None:
    assert parse_money(format_money(cents)) == cents
