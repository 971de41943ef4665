"""The house's hold after ``N`` wagers: its whole distribution, by convolution of the exact
outcome distribution, and its true central ranges.

One wager's net result ``X`` (units per unit bet) takes the values ``-1`` (lost) and the
paytable's pays; ``Y = (X + 1) / g`` is a whole number, ``g`` the greatest common divisor of
the ``pays + 1`` (the lattice step).  After ``N`` independent wagers, each dealt from a full
shoe, the sum ``S`` of the ``Y`` has the ``N``-fold convolution of ``Y``'s exact distribution
(its probabilities are the PAR sheet's fractions), and the house's hold is
``(N − g·S) / N``: it lives on a lattice of step ``g / N`` and never leaves
``[−max pays, 100%]``.

The convolution is computed with the FFT in floating point (double precision), over a
window of ``L`` lattice points (a power of two): where ``L`` holds every attainable sum the
distribution is the whole one; otherwise the window is centred on the mean and wide enough
that Bernstein's inequality bounds the probability outside it (which the FFT folds back
onto the window) by :data:`TAIL_BOUND` on each side, and that bound is reported.  The
central ``c`` range is the smallest sum with ``P(S ≤ s) ≥ (1 − c)/2`` to the smallest with
``P(S ≤ s) ≥ (1 + c)/2``: it covers at least ``c``.

>>> lines = [(-1, 3), (1, 1)]         # lose 3 times in 4, else paid even money
>>> d = hold_distribution(lines, 2)   # two wagers: the house holds 100%, 0% or -100%
>>> [round(float(h), 6) for h in d.holds()], [round(float(p), 6) for p in d.probs]
([1.0, 0.0, -1.0], [0.5625, 0.375, 0.0625])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

import numpy as np
import numpy.typing as npt

__all__ = [
    "MAX_POINTS",
    "NORMAL_TOLERANCE",
    "TAIL_BOUND",
    "HoldDistribution",
    "hold_distribution",
]

TAIL_BOUND = 1e-12
"""Most probability left outside the convolution's window, on each side."""
MAX_POINTS = 1 << 23
"""Largest FFT window (lattice points)."""
NORMAL_TOLERANCE = Fraction(5, 100)
"""The normal band is shown only where each end is within this share of the true range's
width (or one lattice step, if larger) of the true range's end."""

FArr = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class HoldDistribution:
    """``P(S = first + i) = probs[i]`` for the sum ``S`` of ``wagers`` lattice values."""

    wagers: int
    step: int
    """The lattice step ``g`` of the net result, in units."""
    first: int
    probs: FArr
    outside: float
    """A bound on the probability outside the window (0: the window holds every sum)."""

    def holds(self) -> FArr:
        """The house's hold at each point of the window (a fraction of the amount bet)."""
        s = self.first + np.arange(len(self.probs), dtype=np.float64)
        return (self.wagers - self.step * s) / self.wagers

    def hold_of(self, index: int) -> float:
        """The hold at window point ``index``."""
        return (self.wagers - self.step * (self.first + index)) / self.wagers

    def central(self, confidence: float) -> tuple[float, float, float]:
        """The true central range ``(low, high)`` of the hold at ``confidence`` and the
        probability it covers."""
        cdf = np.cumsum(self.probs)
        lo_i = int(np.searchsorted(cdf, (1 - confidence) / 2))
        hi_i = min(int(np.searchsorted(cdf, (1 + confidence) / 2)), len(cdf) - 1)
        covered = float(cdf[hi_i] - (cdf[lo_i - 1] if lo_i else 0.0))
        return self.hold_of(hi_i), self.hold_of(lo_i), covered

    def coverage(self, low: float, high: float) -> float:
        """The probability that the hold lies in ``[low, high]``."""
        h = self.holds()
        return float(self.probs[(h >= low - 1e-15) & (h <= high + 1e-15)].sum())


def _bernstein(variance: float, bound: float, eps: float) -> float:
    """The deviation ``t`` with ``exp(−t² / (2(V + b·t/3))) = eps``."""
    ln = math.log(1 / eps)
    a = bound * ln / 3
    return a + math.sqrt(a * a + 2 * variance * ln)


def hold_distribution(lines: Sequence[tuple[int, int]], wagers: int) -> HoldDistribution:
    """The distribution of the sum after ``wagers`` wagers of one whose outcomes are
    ``(pays, combinations)`` (``pays`` −1: lost)."""
    weights: dict[int, int] = {}
    for pays, combos in lines:
        if combos:
            weights[pays] = weights.get(pays, 0) + combos
    total = sum(weights.values())
    step = reduce(math.gcd, (p + 1 for p in weights), 0) or 1
    top = max((p + 1) // step for p in weights)
    pmf = np.zeros(top + 1)
    for p, c in weights.items():
        pmf[(p + 1) // step] += c / total
    mean = sum(Fraction(c, total) * ((p + 1) // step) for p, c in weights.items())
    var = float(sum(Fraction(c, total) * ((p + 1) // step - mean) ** 2
                    for p, c in weights.items()))
    centre = float(mean) * wagers
    below = _bernstein(wagers * var, float(mean), TAIL_BOUND)
    above = _bernstein(wagers * var, top - float(mean), TAIL_BOUND)
    support = wagers * top + 1
    need = min(support, math.ceil(below + above) + 2)
    size = 1 << max(1, math.ceil(math.log2(need)))
    if size > MAX_POINTS:
        raise ValueError(f"the hold of {wagers:,} wagers needs {size:,} lattice points")
    first = 0 if support <= size else max(0, math.floor(centre - below))
    spectrum = np.fft.rfft(pmf, size) if top + 1 <= size else np.fft.rfft(
        np.bincount(np.arange(top + 1) % size, weights=pmf, minlength=size), size)
    power = np.ones_like(spectrum)
    base, k = spectrum, wagers
    while k:  # base ** wagers by repeated squaring
        if k & 1:
            power = power * base
        base = base * base
        k >>= 1
    circular = np.clip(np.fft.irfft(power, size), 0.0, None)
    length = min(size, support - first)
    probs = circular[(first + np.arange(length)) % size]
    outside = 0.0 if support <= size else 2 * TAIL_BOUND
    return HoldDistribution(wagers, step, first, probs, outside)
