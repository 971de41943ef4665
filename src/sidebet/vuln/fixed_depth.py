"""Perfect play at a fixed depth: the exact edge over random shoes with exactly
``cards_left`` cards left.

Sample ``i`` is shoe ``i`` of the seed, shuffled as the simulator shuffles it; its first
``52·decks − cards_left`` cards are gone.  For each the wager's exact EV is computed
(:mod:`sidebet.vuln.side_ev_kernel`); reported are the probability that it is positive
(Wilson 95% interval) and the mean edge when it is (normal 95% interval).

>>> d = fixed_depth("blazing7s", 6, cards_left=78, samples=20_000, seed=1)
>>> 0.2 < d.p_positive.value < 0.5, d.to_json()["cards_left"]
(True, 78)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sidebet.core.errors import SidebetError
from sidebet.sim.chunk import seed_key
from sidebet.sim.runner import fresh_seed
from sidebet.vuln.counter import Z95, Estimate
from sidebet.vuln.eor import checked_table
from sidebet.vuln.side_ev import ev_tables
from sidebet.vuln.side_ev_kernel import fixed_depth as depth_kernel

__all__ = ["FixedDepth", "fixed_depth"]

BLOCK = 100_000


@dataclass(frozen=True, slots=True)
class FixedDepth:
    """The distribution of the perfect-play edge at ``cards_left`` cards left."""

    wager: str
    decks: int
    paytable: str
    cards_left: int
    samples: int
    seed: int
    p_positive: Estimate
    average_positive_edge: Estimate | None
    average_edge: float
    interrupted: bool = False

    def to_json(self) -> dict[str, Any]:
        """``{wager, decks, cards_left, samples, p_positive, p_positive_ci,
        average_positive_edge, ...}`` (fractions of 1)."""
        ape = self.average_positive_edge
        return {
            "wager": self.wager,
            "decks": self.decks,
            "paytable": self.paytable,
            "cards_left": self.cards_left,
            "samples": self.samples,
            "seed": self.seed,
            "p_positive": self.p_positive.value,
            "p_positive_ci": [self.p_positive.low, self.p_positive.high],
            "average_positive_edge": ape.value if ape else None,
            "average_positive_edge_ci": [ape.low, ape.high] if ape else None,
            "average_edge": self.average_edge,
        }


def wilson(k: float, n: float) -> Estimate:
    """A proportion ``k / n`` with its Wilson 95% interval."""
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half))


def fixed_depth(
    wager: str,
    decks: int,
    paytable: str | None = None,
    *,
    cards_left: int,
    samples: int = 1_000_000,
    seed: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> FixedDepth:
    """Sample ``samples`` shoes with ``cards_left`` cards left (see the module)."""
    w, table = checked_table(wager, decks, paytable)
    n = 52 * decks
    if not 3 <= cards_left <= n:
        raise SidebetError(f"--cards-left must be 3 to {n} with {decks} decks, not {cards_left}")
    if samples < 2:
        raise SidebetError("--samples must be at least 2")
    seed = fresh_seed() if seed is None else seed
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    k0, k1 = (np.uint64(x) for x in seed_key(seed))
    tables = ev_tables(((w.id, table.name),))
    base = np.tile(np.arange(52, dtype=np.uint8), decks)
    out = np.zeros(5, dtype=np.float64)
    done = 0
    interrupted = False
    try:
        while done < samples:
            m = min(BLOCK, samples - done)
            depth_kernel(k0, k1, base, cards_left, done, m, tables.weights, 0, *tables.args(), out)
            done += m
            if progress is not None:
                progress(done)
    except KeyboardInterrupt:
        interrupted = True
    if done < 2:
        raise SidebetError("interrupted before any sample")
    pos = out[0]
    ape = None
    if pos > 0:
        mean = out[1] / pos
        var = max(out[2] / pos - mean * mean, 0.0)
        half = Z95 * math.sqrt(var / pos) if pos > 1 else math.nan
        ape = Estimate(float(mean), float(mean - half), float(mean + half))
    return FixedDepth(w.id, decks, table.name, cards_left, done, seed, wilson(float(pos), done),
                      ape, float(out[3] / done), interrupted)
