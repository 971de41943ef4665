"""What a math report adds to a PAR sheet: volatility index, hold ranges, the largest win,
and the TriLux Deluxe Press's element of risk.

Everything here is derived from :class:`sidebet.exact.par.ParSheet` (exact fractions) and
:func:`sidebet.exact.blackjack.press_chart`; nothing recomputes a rule.  The confidence factors
``z`` are the two-sided standard-normal quantiles (``statistics.NormalDist``).  A hold range is
the true central range of the hold's distribution (:mod:`sidebet.report.hold`), each wager
dealt from a full shoe; the normal approximation ``house edge ± z · σ / √N`` beside it only
where it is close to the true one and possible.

>>> from sidebet.exact.par import par_sheet
>>> sheet = par_sheet("three-card-poker", 6)
>>> round(volatility_index(sheet, Fraction(95, 100)), 4)
5.7943
>>> win = largest_win(sheet)
>>> win.pays, round(win.one_in, 2), win.longest_outcome
(9, 10.33, 'straight_flush')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from sidebet.exact.par import ParSheet
from sidebet.regulation.wagers import LOSE

__all__ = [
    "CONFIDENCES",
    "HOLD_WAGERS",
    "HoldRange",
    "LargestWin",
    "PressPolicy",
    "hold_ranges",
    "largest_win",
    "press_policies",
    "sheet_lines",
    "volatility_index",
    "z_value",
]

CONFIDENCES = (Fraction(90, 100), Fraction(95, 100), Fraction(99, 100))
"""Confidence levels of the volatility index and the hold ranges."""
HOLD_WAGERS = (100, 1_000, 10_000, 100_000)
"""Numbers of wagers after which the hold's range is reported (and the game cycle)."""


@cache
def z_value(confidence: Fraction) -> float:
    """Two-sided standard-normal quantile: ``P(|Z| ≤ z) = confidence``.

    >>> round(z_value(Fraction(95, 100)), 4)
    1.96
    """
    from statistics import NormalDist

    return NormalDist().inv_cdf(float((1 + confidence) / 2))


def volatility_index(sheet: ParSheet, confidence: Fraction) -> float:
    """The volatility index ``z · σ`` (σ: standard deviation per unit bet)."""
    return z_value(confidence) * sheet.std_dev


@dataclass(frozen=True, slots=True)
class HoldRange:
    """The range the house's hold (its win over the amount wagered) falls in after
    ``wagers`` wagers with probability ``confidence``: the true central range from the
    distribution (:mod:`sidebet.report.hold`), and the normal approximation's band, shown
    only where it is within :data:`~sidebet.report.hold.NORMAL_TOLERANCE` of the true one
    and inside what the wager can pay or lose."""

    wagers: int
    confidence: Fraction
    low: float
    high: float
    covered: float
    """The probability the true range covers (at least ``confidence``)."""
    normal_low: float
    normal_high: float
    normal_covered: float
    """The probability the normal band really covers."""
    normal_ok: bool
    outside: float
    """A bound on the probability the convolution left out (see :mod:`~sidebet.report.hold`)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (fractions of 1); ``normal`` is ``None`` where not shown."""
        return {"wagers": self.wagers, "confidence": float(self.confidence),
                "low": self.low, "high": self.high, "covered": self.covered,
                "normal": ({"low": self.normal_low, "high": self.normal_high,
                            "covered": self.normal_covered} if self.normal_ok else None),
                "normal_rejected": (None if self.normal_ok else
                                    {"low": self.normal_low, "high": self.normal_high,
                                     "covered": self.normal_covered}),
                "outside_bound": self.outside}


def sheet_lines(sheet: ParSheet) -> list[tuple[int, int]]:
    """``(pays, combinations)`` of every line of a PAR sheet."""
    return [(ln.pays, ln.combinations) for ln in sheet.lines]


def hold_ranges(sheet: ParSheet) -> list[HoldRange]:
    """The hold ranges at every :data:`CONFIDENCES` after every :data:`HOLD_WAGERS` and
    after one game cycle (as many wagers as the cycle has combinations)."""
    from sidebet.report.hold import NORMAL_TOLERANCE, hold_distribution

    edge = float(sheet.house_edge)
    top = max(ln.pays for ln in sheet.lines if ln.combinations)
    lines = sheet_lines(sheet)
    out = []
    for n in (*HOLD_WAGERS, sheet.total_combinations):
        dist = hold_distribution(lines, n)
        spread = sheet.std_dev / math.sqrt(n)
        lattice = dist.step / n
        for c in CONFIDENCES:
            low, high, covered = dist.central(float(c))
            half = z_value(c) * spread
            n_low, n_high = edge - half, edge + half
            tol = max(float(NORMAL_TOLERANCE) * (high - low), lattice)
            ok = (abs(n_low - low) <= tol and abs(n_high - high) <= tol
                  and n_low >= -top and n_high <= 1.0)
            out.append(HoldRange(n, c, low, high, covered, n_low, n_high,
                                 dist.coverage(n_low, n_high), ok, dist.outside))
    return out


@dataclass(frozen=True, slots=True)
class LargestWin:
    """The largest amount the wager can pay, the probability of being paid it (every line
    that pays it), and the line with the longest odds."""

    outcome: str
    label: str
    pays: int
    probability: Fraction
    lines: tuple[str, ...]
    """Every line that pays the largest amount."""
    longest_outcome: str
    longest_label: str
    longest_pays: int
    longest_probability: Fraction

    @property
    def one_in(self) -> float:
        """Odds as "1 in N"."""
        return float(1 / self.probability)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"outcome": self.outcome, "label": self.label, "pays": self.pays,
                "probability": float(self.probability), "one_in": self.one_in,
                "exact": str(self.probability), "lines": list(self.lines),
                "longest_odds": {"outcome": self.longest_outcome, "label": self.longest_label,
                                 "pays": self.longest_pays,
                                 "probability": float(self.longest_probability),
                                 "exact": str(self.longest_probability)}}


def largest_win(sheet: ParSheet) -> LargestWin:
    """The highest pay among lines with at least one combination, summed over every line
    paying it; and the winning line least likely to happen."""
    won = [ln for ln in sheet.lines if ln.outcome != LOSE and ln.combinations]
    top = max(ln.pays for ln in won)
    paying = [ln for ln in won if ln.pays == top]
    rare = min(won, key=lambda ln: (ln.probability, -ln.pays))
    label = paying[0].label if len(paying) == 1 else f"any of {len(paying)} lines"
    return LargestWin(paying[0].outcome, label, top,
                      sum((ln.probability for ln in paying), Fraction(0)),
                      tuple(ln.label for ln in paying), rare.outcome, rare.label, rare.pays,
                      rare.probability)


@dataclass(frozen=True, slots=True)
class PressPolicy:
    """TriLux Deluxe with its Press under one pressing policy, per unit of TriLux wager.

    ``press_value`` is what the pressed winnings earn; ``winnings_pressed`` the average
    winnings pressed (the units the chart's EV per pressed unit is per, docs/blackjack.md);
    ``expected_pressed`` the average pressed money at risk (the winnings pressed, and what
    doubles and splits of the pressed hand add); the house edge is per unit of TriLux wager, the element of risk per unit of
    all money at risk (:func:`sidebet.exact.blackjack.press.element_of_risk`).  Floating
    point (the Blackjack analyser's values), not exact fractions.
    """

    policy: str
    press_value: float
    expected_pressed: float
    trilux_return: float
    winnings_pressed: float = 0.0

    @property
    def return_per_unit_pressed(self) -> float:
        """What each unit of winnings pressed earns (``E[X · 1{no dealer Blackjack}]``
        averaged over the pressed wins): the value of the Press over the winnings pressed;
        0 where nothing is pressed."""
        return self.press_value / self.winnings_pressed if self.winnings_pressed else 0.0

    @property
    def house_edge(self) -> float:
        """The house's expected win per unit of TriLux Deluxe wager, Press included."""
        return -(self.trilux_return + self.press_value)

    @property
    def element_of_risk(self) -> float:
        """The house's expected win per unit of money at risk."""
        from sidebet.exact.blackjack.press import element_of_risk

        return element_of_risk(self.house_edge, self.expected_pressed)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"policy": self.policy, "press_value": self.press_value,
                "expected_pressed": self.expected_pressed,
                "winnings_pressed": self.winnings_pressed,
                "return_per_unit_pressed": self.return_per_unit_pressed,
                "house_edge": self.house_edge,
                "element_of_risk": self.element_of_risk}


def press_policies(chart: Any, trilux: ParSheet) -> list[PressPolicy]:
    """Optimal, always and never pressing, from a :class:`sidebet.exact.blackjack.PressChart`
    (its summary's values and pressed money at risk) and TriLux's exact PAR."""
    ret = float(trilux.expected_return)
    s = chart.summary
    return [PressPolicy("optimal", float(s.optimal), s.at_risk_optimal, ret, s.pressed_optimal),
            PressPolicy("always", float(s.always), s.at_risk_always, ret, s.pressed_always),
            PressPolicy("never", float(s.never), 0.0, ret)]
