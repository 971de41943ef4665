"""The Blackjack wager's effects of removal and its edge for a depleted shoe from them.

* :func:`blackjack_eor`: the exact composition-dependent EV of the shoe less one card of
  each rank class, minus the full shoe's (:func:`sidebet.exact.blackjack.engine.analyse`
  with :func:`sidebet.exact.blackjack.moments.round_moments`); kept in the disk cache.
* :class:`BlackjackEdge`: the edge of a depleted shoe, the full shoe's exact EV plus the
  effects of the cards seen (centred), each scaled by the full shoe over the cards left (the effect
  of one card removed from the shoe as it now stands: the true count's reading of the
  effects).  First order in the cards seen; ``tests/exact`` compares it with the analyser
  on depleted shoes.  The analyser itself takes about a quarter of a second a shoe, too
  slow to value every round of a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.exact.blackjack.dealer_rows import full_shoe
from sidebet.native.diskcache import cached_arrays
from sidebet.regulation.house_rules import HouseRules

__all__ = ["BlackjackEdge", "blackjack_eor", "blackjack_full_ev"]

BLACKJACK_SD = 1.15
"""A round's standard deviation per unit of the Blackjack wager, for scale (the analyser's
exact figure, :attr:`sidebet.exact.blackjack.house_edge.HouseEdge.std_dev`, needs the
splits' cross terms: minutes of computing)."""

CLASS_OF_CARD = np.array([min(i // 4 + 1, 9) if i // 4 < 12 else 0 for i in range(52)],
                         dtype=np.int64)
"""The rank class (A = 0, 2..9 = 1..8, T = 9) of each card index ``0..51`` (ranks 2..A)."""


def _moments(decks: int, rules: HouseRules) -> dict[str, Any]:
    from sidebet.exact.blackjack.engine import analyse
    from sidebet.exact.blackjack.moments import mean_moments

    full = full_shoe(decks)
    base = mean_moments(analyse(full, rules))[0]
    out = []
    for c in range(10):
        shoe = list(full)
        shoe[c] -= 1
        out.append(mean_moments(analyse(tuple(shoe), rules))[0] - base)
    return {"eor": np.array(out, np.float64), "full": np.array([base], np.float64)}


def _cached(rules: HouseRules, decks: int) -> dict[str, npt.NDArray[Any]]:
    return cached_arrays("blackjack-eor-3", f"{rules!r} decks={decks}",
                         lambda: _moments(decks, rules))


def blackjack_eor(rules: HouseRules, decks: int) -> tuple[float, ...]:
    """The Blackjack wager's effect of removing one card of each rank class A, 2..9, T
    (EV per unit, composition-dependent play), from a ``decks``-deck shoe."""
    return tuple(float(x) for x in _cached(rules, decks)["eor"])


def blackjack_full_ev(rules: HouseRules, decks: int) -> float:
    """The full shoe's exact EV per unit of a round (composition-dependent play)."""
    return float(_cached(rules, decks)["full"][0])


@dataclass(frozen=True, slots=True)
class BlackjackEdge:
    """The Blackjack wager's edge for a depleted ``decks``-deck shoe (§ 633a.7), from
    the full shoe's exact EV and the exact effects of removal."""

    decks: int
    full_ev: float
    eor: tuple[float, ...]

    @staticmethod
    def of(rules: HouseRules, decks: int) -> BlackjackEdge:
        """From the analyser (or the disk cache), the effects centred so that removing
        an average card changes nothing: the edge then has the martingale property of the
        exact one (its mean after a random card is its value now)."""
        eor = np.asarray(blackjack_eor(rules, decks))
        full = np.asarray(full_shoe(1), dtype=np.float64)
        centred = eor - float(np.dot(full, eor)) / float(full.sum())
        return BlackjackEdge(decks, blackjack_full_ev(rules, decks),
                             tuple(float(x) for x in centred))

    def edge(self, remaining: npt.ArrayLike) -> float:
        """The EV per unit for the 52 card counts left (full-shoe counts minus those)."""
        left = np.asarray(remaining, dtype=np.int64)
        seen = np.bincount(CLASS_OF_CARD, weights=self.decks - left, minlength=10)
        n_left = int(left.sum())
        if n_left <= 0:
            return self.full_ev
        scale = 52 * self.decks / n_left
        return self.full_ev + scale * float(np.dot(seen, np.asarray(self.eor)))
