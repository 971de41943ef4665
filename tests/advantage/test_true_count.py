"""The true count is an exact fraction made whole: the kernel's arithmetic (no division,
a product with a reciprocal put right by the remainder) against :mod:`fractions`."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from sidebet.advantage.counts import Resolution, Rounding, deck_estimate, true_count, whole
from sidebet.sim.counting import whole as _whole


def _made_whole(x: Fraction, rounding: Rounding) -> int:
    if rounding is Rounding.FLOOR:
        return math.floor(x)
    if rounding is Rounding.TRUNCATE:
        return math.trunc(x)
    return int(math.copysign(math.floor(abs(x) + Fraction(1, 2)), x))


@settings(max_examples=300, deadline=None)
@given(num=st.integers(-(1 << 30), 1 << 30), den=st.integers(1, 1 << 16),
       rounding=st.sampled_from(list(Rounding)))
def test_kernel_and_python_make_the_same_whole_number(num: int, den: int,
                                                      rounding: Rounding) -> None:
    expected = _made_whole(Fraction(num, den), rounding)
    assert whole(num, den, rounding) == expected
    assert _whole(num, den, 1.0 / den, rounding.code) == expected


def test_exact_quotients_and_halves_are_not_lost_to_rounding() -> None:
    # 49 * (1/49) is 0.9999999999999999 in floating point: the remainder puts it right
    for d in range(1, 500):
        for k in (-3, -1, 1, 2, 7):
            assert _whole(k * d, d, 1.0 / d, Rounding.FLOOR.code) == k
            assert _whole(2 * k * d + d, 2 * d, 1.0 / (2 * d), Rounding.ROUND.code) == (
                k + 1 if k >= 0 else k)


@settings(max_examples=200, deadline=None)
@given(running=st.integers(-400, 400), cards=st.integers(0, 416),
       resolution=st.sampled_from(list(Resolution)), rounding=st.sampled_from(list(Rounding)),
       scale=st.sampled_from([1, 2]))
def test_true_count_is_the_running_count_over_the_decks_estimated(
        running: int, cards: int, resolution: Resolution, rounding: Rounding,
        scale: int) -> None:
    steps, per_deck = deck_estimate(cards, resolution)
    decks = Fraction(steps, per_deck)
    if resolution is Resolution.EXACT:
        assert decks == Fraction(max(cards, 1), 52)
    else:  # the nearest step, halves up, at least one step
        assert decks == Fraction(max(1, math.floor(Fraction(cards * per_deck, 52)
                                                   + Fraction(1, 2))), per_deck)
    assert true_count(running, cards, resolution, rounding, scale) == _made_whole(
        Fraction(running, scale) / decks, rounding)
