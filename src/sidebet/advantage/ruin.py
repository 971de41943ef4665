"""Risk of ruin: the formulas of Blackjack Attack and Michael Hall's coin, and the
interval of a simulated share.

With a win per round ``mu`` and a standard deviation ``sd`` (any money unit, the bank in
the same unit) the bank moves like a Brownian motion with drift (Blackjack Attack,
ch. 10, after Schlesinger's derivation):

* simple risk of ruin, playing for ever: ``exp(-2 mu B / sd²)``;
* double barrier, ruin before the bank grows by ``G``:
  ``(1 - exp(-2 mu G / sd²)) / (exp(2 mu B / sd²) - exp(-2 mu G / sd²))``;
* trip ruin within ``n`` rounds: ``Φ((-B - mu n) / (sd √n)) + exp(-2 mu B / sd²) ·
  Φ((-B + mu n) / (sd √n))``.

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

__all__ = ["RUIN_TARGETS", "bank_for_ruin", "barrier_ruin", "hall_ruin", "simple_ruin",
           "trip_ruin", "wilson"]

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
    """The chance of losing ``bank`` at some point within ``rounds`` rounds."""
    if rounds <= 0:
        return 0.0
    if sd <= 0:
        return 1.0 if mu * rounds <= -bank else 0.0
    s = sd * math.sqrt(rounds)
    k = 2.0 * mu * bank / (sd * sd)
    second = 0.0 if k > 700 else math.exp(min(-k, 700.0)) * _phi((-bank + mu * rounds) / s)
    return min(1.0, _phi((-bank - mu * rounds) / s) + second)


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
