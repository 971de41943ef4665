"""Risk of ruin: the formulas of Blackjack Attack and Michael Hall's coin, and the
interval of a simulated share.

With a win per round ``mu`` and a standard deviation ``sd`` (any money unit, the bank in
the same unit) the bank moves like a Brownian motion with drift (Blackjack Attack,
ch. 10, after Schlesinger's derivation):

* simple risk of ruin, playing for ever: ``exp(-2 mu B / sd²)``;
* double barrier, ruin before the bank grows by ``G``:
  ``(1 - exp(-2 mu G / sd²)) / (exp(2 mu B / sd²) - exp(-2 mu G / sd²))``;
* trip ruin within ``n`` rounds: ``Φ((-B - mu n) / (sd √n)) + exp(-2 mu B / sd²) ·
  Φ((-B + mu n) / (sd √n))``, the bank watched once a round: ``B`` moved out by
  ``0.5826 sd`` (Broadie, Glasserman and Kou's correction for a barrier watched at
  discrete steps, exact in the limit for normal rounds).

A game whose rounds' distribution is known (a run's nets) has its trip ruin exactly, for
independent rounds: :func:`walk_trip_ruin`, the chance of the bank falling to zero at the
end of some round of ``n``, by stepping the bank's distribution round by round.

Michael Hall ("Risk of Ruin", 1992) bets a coin of the average squared win instead:
``P = 1/2 + wph / (2 √asw)``, ``S = P / (1 - P)``, ruin before winning ``b`` with a
bank of ``a`` (both in coin units ``/ √asw``) ``(1 - S^b) / (1 - S^(a+b))``.

>>> round(hall_ruin(0.0151, 3.887, 300, 300), 4)
0.0886
>>> round(hall_ruin(0.0151, 3.887, 300, 300, rounded=True), 3)
0.09
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sidebet.core.errors import SidebetError

__all__ = ["DISCRETE_SHIFT", "RUIN_TARGETS", "WALK_WORK", "bank_for_ruin", "barrier_ruin",
           "hall_ruin", "simple_ruin", "tilted", "trip_ruin", "walk_trip_ruin", "wilson"]

DISCRETE_SHIFT = 0.5825971579390106
"""``-ζ(1/2) / √(2π)``: a barrier watched once a step of SD ``sd`` is crossed as a
continuous one ``DISCRETE_SHIFT · sd`` further out (Broadie, Glasserman and Kou, 1997)."""
WALK_WORK = 200_000_000
"""The most bank positions times rounds :func:`walk_trip_ruin` steps through (seconds);
beyond, it answers ``nan``."""

RUIN_TARGETS = (0.01, 0.02, 0.05, 0.135)
"""The risks of ruin the report gives the bankroll for (13.5%: one Kelly bankroll)."""


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def simple_ruin(mu: float, sd: float, bank: float) -> float:
    """The chance of ever losing ``bank`` (1 when the game does not win)."""
    if mu <= 0 or sd <= 0:
        return 1.0
    return math.exp(-2.0 * mu * bank / (sd * sd))


def bank_for_ruin(mu: float, sd: float, risk: float) -> float:
    """The bank whose simple risk of ruin is ``risk``: ``−ln(risk) sd² / (2 mu)`` (infinite
    when the game does not win).

    >>> round(bank_for_ruin(0.02, 3.0, math.exp(-2)), 6)
    450.0
    """
    if mu <= 0 or not 0 < risk < 1:
        return math.inf
    return -math.log(risk) * sd * sd / (2.0 * mu)


def barrier_ruin(mu: float, sd: float, bank: float, goal: float) -> float:
    """The chance of losing ``bank`` before winning ``goal`` (in a form that neither
    overflows nor cancels, for any drift)."""
    if sd <= 0:
        return 0.0 if mu > 0 else 1.0
    k = 2.0 * mu / (sd * sd)
    if abs(k) * (bank + goal) < 1e-12:
        return goal / (bank + goal)
    if k > 0:
        return math.exp(-k * bank) * math.expm1(-k * goal) / math.expm1(-k * (bank + goal))
    a = -k
    return math.expm1(-a * goal) / math.expm1(-a * (bank + goal))


def trip_ruin(mu: float, sd: float, bank: float, rounds: int) -> float:
    """The chance of losing ``bank`` at the end of some round within ``rounds`` rounds
    (the diffusion's, the bank moved out by :data:`DISCRETE_SHIFT` ``· sd``).

    >>> round(trip_ruin(0.0124112, 2.834075, 300, 5000), 4)
    0.0804
    """
    if rounds <= 0:
        return 0.0
    if sd <= 0:
        return 1.0 if mu * rounds <= -bank else 0.0
    bank = bank + DISCRETE_SHIFT * sd
    s = sd * math.sqrt(rounds)
    k = 2.0 * mu * bank / (sd * sd)
    second = 0.0 if k > 700 else math.exp(min(-k, 700.0)) * _phi((-bank + mu * rounds) / s)
    return min(1.0, _phi((-bank - mu * rounds) / s) + second)


def tilted(values: npt.NDArray[np.int64], weights: npt.NDArray[np.float64], mean: float
           ) -> npt.NDArray[np.float64]:
    """The probabilities of ``values`` (weights ``weights``) exponentially tilted,
    ``p·exp(θ v)`` made to sum to one, with ``θ`` chosen so that their mean is ``mean``
    (the shape of the distribution kept, its mean moved; ``mean`` within the values'
    range)."""
    p = weights / weights.sum()
    v = values.astype(np.float64)
    if not v.min() < mean < v.max():
        raise SidebetError("a tilted mean must lie within the values")
    scale = float(np.abs(v).max())

    def at(theta: float) -> npt.NDArray[np.float64]:
        w: npt.NDArray[np.float64] = p * np.exp(theta * (v - v.max()) / scale)
        return np.asarray(w / float(w.sum()), np.float64)

    lo, hi = -1.0, 1.0
    while float(at(lo) @ v) > mean:
        lo *= 2.0
    while float(at(hi) @ v) < mean:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if float(at(mid) @ v) < mean:
            lo = mid
        else:
            hi = mid
    return at(0.5 * (lo + hi))


def walk_trip_ruin(values: npt.NDArray[np.int64], probs: npt.NDArray[np.float64], bank: int,
                   rounds: int, work: int = WALK_WORK) -> float:
    """The chance that a bank of ``bank`` falls to zero or below at the end of some round
    within ``rounds`` independent rounds, each winning ``values[i]`` (integers, the
    bank's unit) with probability ``probs[i]``.

    The bank's distribution is stepped a round at a time (a convolution) on the
    lattice of the values' greatest common divisor, from one step above ruin to a top far
    enough above the start that a bank kept there is not ruined within the trip (the
    mean's drift and 8 SD of the trip above the start, or the losses' alone above zero,
    whichever is lower).  When the
    positions times the rounds exceed ``work`` it gives ``nan`` (no coarser lattice: the
    common small results decide the ruin, and a coarse step would blur them).

    >>> coin = np.array([-1, 1]); half = np.array([0.5, 0.5])
    >>> round(walk_trip_ruin(coin, half, 1, 3), 4)  # lost at once, or -1 +1 -1
    0.625
    """
    if rounds <= 0:
        return 0.0
    if bank <= 0:
        return 1.0
    p = np.asarray(probs, np.float64) / float(np.sum(probs))
    v = np.asarray(values, np.int64)
    keep = p > 0
    v, p = v[keep], p[keep]
    mu = float(p @ v)
    sd = math.sqrt(max(float(p @ (v * v)) - mu * mu, 0.0))
    if v.max() <= 0 and v.min() >= 0:
        return 0.0
    step = math.gcd(*(int(x) for x in np.abs(v[v != 0])))
    # the top kept: far enough above the start by the normal approximation, or above what
    # the losses alone could take in the trip (a bound, whatever the wins); a bank there
    # is kept there, and a win beyond it lands there
    loss = np.minimum(v, 0)
    mu_l = float(p @ loss)
    sd_l = math.sqrt(max(float(p @ (loss * loss)) - mu_l * mu_l, 0.0))
    top = min(bank + max(mu * rounds, 0.0) + 8.0 * sd * math.sqrt(rounds) + float(v.max()),
              max(bank, -mu_l * rounds + 8.0 * sd_l * math.sqrt(rounds) - float(v.min())))
    low = -((bank - 1) // step)  # the lowest position still alive: bank + low·step > 0
    size = max(math.ceil((top - bank) / step) - low + 1, 2)
    if size * rounds > work:
        return math.nan
    k = np.minimum(v // step, size)  # (a win past the top lands there)
    k0 = int(k.min())
    kernel = np.zeros(int(k.max()) - k0 + 1)
    np.add.at(kernel, k - k0, p)
    width = size + len(kernel) - 1
    fft_n = 1 << (width - 1).bit_length()
    spectrum = np.fft.rfft(kernel, fft_n)
    dist = np.zeros(size)
    dist[-low] = 1.0  # position 0: the bank as it started
    shift = k0  # new index = old index + kernel index + shift
    ruined = 0.0
    direct = len(kernel) <= 128  # (few values: a direct convolution is faster)
    for _ in range(rounds):
        if direct:
            new = np.convolve(dist, kernel)
        else:
            new = np.fft.irfft(np.fft.rfft(dist, fft_n) * spectrum, fft_n)[:width]
        np.clip(new, 0.0, None, out=new)
        lo = -shift  # new[lo + j] is at state j
        if lo > 0:
            ruined += float(new[:lo].sum())
            new = new[lo:]
        elif lo < 0:
            new = np.concatenate([np.zeros(-lo), new])
        over = float(new[size:].sum())
        dist = new[:size].copy()
        dist[-1] += over
        if dist.sum() < 1e-15:
            break
    return min(1.0, ruined)


def hall_ruin(wph: float, asw: float, bank: float, goal: float, rounded: bool = False) -> float:
    """Michael Hall's ruin before winning ``goal`` with a bank of ``bank`` (units), for a
    win per hand ``wph`` and an average squared win ``asw``; ``rounded`` rounds ``P`` to 4
    places and ``S`` to 4 as his worked example does."""
    root = math.sqrt(asw)
    p = 0.5 + wph / (2.0 * root)
    if rounded:
        p = round(p, 4)
    s = p / (1.0 - p)
    if rounded:
        s = round(s, 4)
    a = bank / root
    b = goal / root
    if s == 1.0:
        return b / (a + b)
    if s > 1.0:  # the same ratio over s^(a+b): no overflow
        return max(0.0, float((s ** -(a + b) - s ** -a) / (s ** -(a + b) - 1.0)))
    return float((1.0 - s ** b) / (1.0 - s ** (a + b)))


def wilson(hits: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's 95% interval of a share ``hits / trials`` ((nan, nan) without trials)."""
    if trials <= 0:
        return math.nan, math.nan
    p = hits / trials
    den = 1.0 + z * z / trials
    mid = (p + z * z / (2 * trials)) / den
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / den
    return max(0.0, mid - half), min(1.0, mid + half)
