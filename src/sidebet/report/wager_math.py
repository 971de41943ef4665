"""What a math report adds to a PAR sheet: volatility index, hold ranges, the largest win,
and the TriLux Deluxe Press's element of risk.

Everything here is derived from :class:`sidebet.exact.par.ParSheet` (exact fractions) and
:func:`sidebet.exact.blackjack.press_chart`; nothing recomputes a rule.  The confidence factors
``z`` are the two-sided standard-normal quantiles (``scipy.stats.norm``), so a hold range
is the normal approximation every PAR sheet uses: ``house edge ± z · σ / √N``, with ``σ``
the exact standard deviation per unit and each wager dealt from a full shoe.

>>> from sidebet.exact.par import par_sheet
>>> sheet = par_sheet("three-card-poker", 6)
>>> round(volatility_index(sheet, Fraction(95, 100)), 4)
5.7943
>>> win = largest_win(sheet)
>>> win.outcome, win.pays, str(win.probability)
('straight_flush', 9, '1296/626665')
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
    "volatility_index",
    "z_value",
]

CONFIDENCES = (Fraction(90, 100), Fraction(95, 100), Fraction(99, 100))
"""Confidence levels of the volatility index and the hold ranges."""
HOLD_WAGERS = (1_000, 10_000, 100_000, 1_000_000)
"""Numbers of wagers after which the hold's range is reported."""


@cache
def z_value(confidence: Fraction) -> float:
    """Two-sided standard-normal quantile: ``P(|Z| ≤ z) = confidence``.

    >>> round(z_value(Fraction(95, 100)), 4)
    1.96
    """
    from scipy import stats

    return float(stats.norm.ppf(float((1 + confidence) / 2)))


def volatility_index(sheet: ParSheet, confidence: Fraction) -> float:
    """The volatility index ``z · σ`` (σ: standard deviation per unit bet)."""
    return z_value(confidence) * sheet.std_dev


@dataclass(frozen=True, slots=True)
class HoldRange:
    """The range the house's hold (its win over the amount wagered) falls in after
    ``wagers`` wagers with probability ``confidence``."""

    wagers: int
    confidence: Fraction
    low: float
    high: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (fractions of 1)."""
        return {"wagers": self.wagers, "confidence": float(self.confidence),
                "low": self.low, "high": self.high}


def hold_ranges(sheet: ParSheet) -> list[HoldRange]:
    """The hold ranges at every :data:`CONFIDENCES` after every :data:`HOLD_WAGERS`."""
    edge = float(sheet.house_edge)
    out = []
    for n in HOLD_WAGERS:
        spread = sheet.std_dev / math.sqrt(n)
        for c in CONFIDENCES:
            half = z_value(c) * spread
            out.append(HoldRange(n, c, edge - half, edge + half))
    return out


@dataclass(frozen=True, slots=True)
class LargestWin:
    """The best-paying outcome that can happen and its odds."""

    outcome: str
    label: str
    pays: int
    probability: Fraction

    @property
    def one_in(self) -> float:
        """Odds as "1 in N"."""
        return float(1 / self.probability)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"outcome": self.outcome, "label": self.label, "pays": self.pays,
                "probability": float(self.probability), "one_in": self.one_in,
                "exact": str(self.probability)}


def largest_win(sheet: ParSheet) -> LargestWin:
    """The line with the highest pay among those with at least one combination."""
    line = max((ln for ln in sheet.lines if ln.outcome != LOSE and ln.combinations),
               key=lambda ln: ln.pays)
    return LargestWin(line.outcome, line.label, line.pays, line.probability)


@dataclass(frozen=True, slots=True)
class PressPolicy:
    """TriLux Deluxe with its Press under one pressing policy, per unit of TriLux wager.

    ``press_value`` is what the pressed winnings earn; ``expected_pressed`` the average
    amount pressed (money added at risk); the house edge is per unit of TriLux wager, the
    element of risk per unit of all money at risk (the wager plus the pressed winnings).
    """

    policy: str
    press_value: float
    expected_pressed: float
    trilux_return: float

    @property
    def house_edge(self) -> float:
        """The house's expected win per unit of TriLux Deluxe wager, Press included."""
        return -(self.trilux_return + self.press_value)

    @property
    def element_of_risk(self) -> float:
        """The house's expected win per unit of money at risk."""
        return self.house_edge / (1 + self.expected_pressed)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"policy": self.policy, "press_value": self.press_value,
                "expected_pressed": self.expected_pressed, "house_edge": self.house_edge,
                "element_of_risk": self.element_of_risk}


def press_policies(chart: Any, trilux: ParSheet) -> list[PressPolicy]:
    """Optimal, always and never pressing, from a :class:`sidebet.exact.blackjack.PressChart`
    (its summary's values; the amounts pressed from its cells) and TriLux's exact PAR."""
    ret = float(trilux.expected_return)
    summary = chart.summary
    out = []
    for policy, value in (("optimal", summary.optimal), ("always", summary.always),
                          ("never", summary.never)):
        pressed = 0.0
        for cell in chart.cells.values():
            if policy == "always" or (policy == "optimal" and cell.press):
                pressed += cell.win_probability * cell.mean_pay
        out.append(PressPolicy(policy, float(value), pressed, ret))
    return out
