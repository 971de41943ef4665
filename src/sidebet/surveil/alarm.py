"""The alarm: two CUSUMs of log-likelihood ratios, each at half the operator's false-alarm
rate, so that together they raise a false alarm at most at that rate (the union bound).

The **correlation test** ("bets by the edge" against "bets independently of it"): at each
betting decision the score is ``x = w · z``: ``w`` the change of the player's bet
on that wager since the player's previous decision (0 when the wager was not placed), in
the root-mean-square of the player's earlier changes, and ``z`` the change of the wager's
exact edge over the same span (since the player's previous decision in the same shoe, or
since the full shoe), in the root-mean-square of the table's earlier round-to-round
changes; both clipped to ``±CLIP``.  The edge's change is taken against the edge the
player's own results could have told them of: the shoe at the previous decision less only
the cards of the player's hands and the dealer's since (:mod:`sidebet.surveil.analysis`).
Given those cards, the others' are a random draw from the rest of the shoe, so its mean
is 0 for a player whose bets follow their own wins and losses.  The exact edge of what is left of a randomly shuffled
shoe is a martingale as cards are removed (the expected edge after the next cards is the
edge now), so under "bets independently of the edge" ``z`` has mean 0 whatever came before
and whatever the player's bets: a flat, random or streaky bettor's scores have mean 0.  A
player who bets by the edge raises the bet when the edge has just risen and lowers it when
it has just fallen (a perfect player starts betting exactly when the edge crosses 0
upwards), which gives ``x`` a positive mean.

The log-likelihood ratio of a decision is that of ``z`` having the mean ``δ w`` (bets by
the edge) rather than 0 (independently of it) for a standard normal ``z``:
``δ w z − δ² w² / 2``, which has mean 1 under the null when exponentiated, whatever ``w``
(a bet that changes rarely and by much is not favoured).  The CUSUM
``C = max(0, C + δ w z − δ² w² / 2)`` raises the alarm at ``C ≥ h``; a decision without a
score (``w`` or ``z`` 0) leaves it unchanged.  The threshold ``h = ln(horizon / α)``
bounds the chance that a player who bets independently of the edge raises an alarm within
``horizon`` decisions by ``α``: the CUSUM crosses ``h`` only if the likelihood ratio
started at one of the ``horizon`` decisions crosses ``e^h``, which Ville's inequality
bounds by ``e^−h`` each.  The bound takes ``z`` to be standard normal under the null (its
mean is exactly 0, its spread standardised, its tails clipped);
``docs/surveillance.md`` measures the actual rate on simulated players.

The **advantage test** ("the bets carry more edge than the player's own results give"):
at the end of each shoe a player bet in, ``z = Σ b (e − e₀) / Σ b σ`` over the bets
placed on the wager: ``e`` the edge at the bet, ``e₀`` that of the full shoe less the
player's own cards and the dealer's seen so far in the shoe (what a player who counts
nothing can know: its mean given those cards is ``e₀``), ``σ`` the table's spread of the
edge at that depth (a bound on the spread of ``e − e₀``); so ``z`` has mean 0 and at most
unit spread for a player who does not count, whatever the bets, and is large for a wonger
or a spreader, who bet only or more where ``e`` is high.  ``C = max(0, C + δ z − δ²/2)``
over shoes, the alarm at the same threshold.

The threshold ``h = ln(2 · horizon / alpha)`` gives each test ``alpha / 2``.

>>> rule = AlarmRule(alpha=0.02, horizon=1000)
>>> round(rule.threshold, 3), rule.step(0.0, 2.0, 1.5), rule.step(1.0, 2.0, -1.0)
(11.513, 1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from sidebet.core.errors import SidebetError

__all__ = ["CLIP", "AlarmRule", "AlarmTest", "Running"]


class AlarmTest(Enum):
    """Which test raised an alarm."""

    CORRELATION = "correlation"
    """The bets moved with the edge."""
    ADVANTAGE = "advantage"
    """The bets, taken together, carried more edge than the player's own cards gave."""

CLIP = 3.0
"""Standardised bets and edges are clipped to ±CLIP (one outlier cannot raise an alarm)."""


@dataclass(frozen=True, slots=True)
class AlarmRule:
    """The operator's setting: the false-alarm rate ``alpha`` (both tests together) within
    ``horizon`` decisions of one player on one wager, the alternative ``delta`` (the edge's change has mean
    ``delta`` times the bet's), and the ``warmup`` (bet changes of the player, rounds of
    the table) before a score counts."""

    alpha: float = 0.01
    horizon: int = 10_000
    delta: float = 0.5
    warmup: int = 20

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise SidebetError(f"the false-alarm rate must be between 0 and 1, not {self.alpha}")
        if not 1 <= self.horizon <= 10**9:
            raise SidebetError(f"the horizon must be 1 to 10^9 decisions, not {self.horizon}")
        if not 0 < self.delta < 1:
            raise SidebetError(f"delta must be between 0 and 1, not {self.delta}")
        if not 2 <= self.warmup <= 10**6:
            raise SidebetError(f"the warm-up must be 2 to 10^6, not {self.warmup}")

    @property
    def threshold(self) -> float:
        """``h = ln(2 · horizon / alpha)``: each of the two tests at ``alpha / 2``."""
        return math.log(2 * self.horizon / self.alpha)

    def step(self, cusum: float, w: float, z: float) -> float:
        """The CUSUM after a decision whose standardised bet change is ``w`` and edge change
        ``z`` (either 0: no score, the CUSUM unchanged)."""
        if w == 0.0 or z == 0.0:
            return cusum
        d = self.delta
        return max(0.0, cusum + d * w * z - d * d * w * w / 2)


class Running:
    """Running mean and standard deviation (Welford), and the root-mean-square."""

    __slots__ = ("m2", "mean", "n", "sq")

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.sq = 0.0

    def add(self, x: float) -> None:
        """Count one value."""
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)
        self.sq += x * x

    @property
    def sd(self) -> float:
        """Sample standard deviation (0 below two values)."""
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else 0.0

    @property
    def rms(self) -> float:
        """Root-mean-square (0 before any value)."""
        return math.sqrt(self.sq / self.n) if self.n else 0.0


def clip(x: float) -> float:
    """``x`` clipped to ``±CLIP``."""
    return max(-CLIP, min(CLIP, x))
