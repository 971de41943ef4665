"""A count's exact properties from effects of removal: betting correlation, playing
efficiency and insurance correlation for the Blackjack wager, and betting correlation
for each side wager.

* **Effects of removal** of the Blackjack wager: the exact composition-dependent EV of
  the shoe less one card of a rank class, minus the full shoe's
  (:func:`sidebet.exact.blackjack.engine.analyse` with
  :func:`sidebet.exact.blackjack.moments.round_moments`); kept in the disk cache.
* **Betting correlation** (Griffin): the correlation over the 52 card kinds between the
  tags and the effects of removal.  Tags equal to the effects have correlation 1.
* **Insurance correlation**: the same with insurance's effects, exact: removing a ten
  changes ``3 p − 1`` by ``3 ((T−1)/(N−1) − T/N)``, any other card by ``3 (T/(N−1) − T/N)``.
* **Playing efficiency** by Griffin's definition over every first decision, and over
  the index plays given, at half the shoe dealt (:mod:`sidebet.advantage.efficiency`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sidebet.advantage.counts import CountSystem
from sidebet.advantage.efficiency import (
    card_vector,
    correlation,
    decisions,
    efficiency,
    every_decision,
)
from sidebet.advantage.indices import IndexPlay
from sidebet.exact.blackjack.removal import blackjack_eor
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import StrategyArrays

__all__ = ["CountProperties", "blackjack_eor", "card_vector", "correlation", "properties"]


def insurance_eor(decks: int) -> tuple[float, ...]:
    """Insurance's exact effect of removing one card of each rank class (EV per unit)."""
    n = 52 * decks
    tens = 16 * decks
    base = 3 * tens / n
    ten = 3 * (tens - 1) / (n - 1) - base
    other = 3 * tens / (n - 1) - base
    return (other,) * 9 + (ten,)


@dataclass(frozen=True, slots=True)
class CountProperties:
    """Betting correlation, insurance correlation, playing efficiency (Blackjack: over
    every first decision, and over the index plays given) and each side wager's
    betting correlation (floats)."""

    system: str
    betting: float
    insurance: float
    playing: float
    sides: tuple[tuple[str, float], ...]
    playing_plays: float = math.nan

    def to_json(self) -> dict[str, Any]:
        """As plain data."""
        return {"system": self.system, "betting_correlation": self.betting,
                "insurance_correlation": self.insurance, "playing_efficiency": self.playing,
                "playing_efficiency_index_plays": self.playing_plays,
                "side_betting_correlation": dict(self.sides)}


def playing_efficiency(system: CountSystem, plays: Sequence[IndexPlay], rules: HouseRules,
                       decks: int, basic: StrategyArrays | None = None) -> float:
    """Griffin's playing efficiency over ``plays`` at half the shoe dealt (float)."""
    return efficiency(system.values, decisions(plays, rules, decks, basic), decks)


def properties(system: CountSystem, rules: HouseRules, decks: int,
               sides: Sequence[tuple[str, str]] = (), plays: Sequence[IndexPlay] = (),
               basic: StrategyArrays | None = None) -> CountProperties:
    """The count's properties at this table."""
    from sidebet.vuln.eor import effects_of_removal
    from sidebet.vuln.tags import betting_correlation

    bc = correlation(system.values, card_vector(blackjack_eor(rules, decks)))
    ic = correlation(system.values, card_vector(insurance_eor(decks)))
    pe = efficiency(system.values, every_decision(rules, decks), decks)
    pe_plays = playing_efficiency(system, plays, rules, decks, basic) if plays else math.nan
    side = tuple((w, betting_correlation(system.values, effects_of_removal(w, decks, pt)))
                 for w, pt in sides)
    return CountProperties(system.name, bc, ic, pe, side, pe_plays)
