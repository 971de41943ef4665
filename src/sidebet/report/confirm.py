"""An independent confirmation of the side wagers' exact returns: cards dealt and classified
one by one, never the outcome tables the PAR sheets are counted from.

Each round deals three cards (the player's two, then the upcard) from a full, freshly
shuffled shoe, as the table engine's shoe holds them (``decks`` copies of the 52 cards): three
distinct places of the shoe drawn uniformly with ``numpy``'s PCG64 generator.  Every dealt
triple is classified by the wager's own classifier (``Wager.outcome``, the function the table
engine calls on the cards it deals) and paid by the paytable's line; the outcome tables of
:mod:`sidebet.exact.outcomes`, the PAR counts and the simulator's combination table are not
read.  (Triples are tallied first, so each distinct triple is classified once.)

Each wager has a precision target: the 95% interval's half-width at most
:data:`TARGET` (0.1 percentage point of return).  The rounds that reach it follow from the
exact standard deviation, ``(1.96 σ / TARGET)²``; a run with fewer rounds says the precision
it reached and makes no claim at the target.

>>> from sidebet.regulation.submission import TableConfig
>>> c = confirm(TableConfig(decks=6, side_wagers={"three-card-poker": "classic"}), 20_000, 1)
>>> row = c.rows[0]
>>> row.wager, row.rounds, row.target_met, row.rounds_needed > 20_000
('three-card-poker', 20000, False, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS
from sidebet.regulation.submission import TableConfig
from sidebet.regulation.wagers import WAGERS, get_wager

__all__ = ["CHUNK", "TARGET", "ConfirmRow", "Confirmation", "confirm", "dealt_returns",
           "dealt_triples"]

TARGET = 0.001
"""The precision target: half-width of the 95% interval of each return (0.1 point)."""
Z95 = 1.959963984540054
CHUNK = 1_000_000
"""Rounds dealt per block (memory)."""


def dealt_triples(decks: int, rounds: int, seed: int) -> npt.NDArray[np.int64]:
    """How often each ordered triple of card kinds ``(p1, p2, up)`` was dealt, as a
    ``52³`` count array indexed ``p1·2704 + p2·52 + up``: three distinct places of a full
    ``decks``-deck shoe per round."""
    n = 52 * decks
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = np.zeros(52**3, dtype=np.int64)
    left = rounds
    while left:
        k = min(left, CHUNK)
        i = rng.integers(0, n, k)
        j = rng.integers(0, n - 1, k)
        j += j >= i
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        u = rng.integers(0, n - 2, k)
        u += u >= lo
        u += u >= hi
        code = (i % 52) * 2704 + (j % 52) * 52 + (u % 52)
        counts += np.bincount(code, minlength=52**3)
        left -= k
    return counts


@dataclass(frozen=True, slots=True)
class ConfirmRow:
    """One wager's dealt return against its exact return."""

    wager: str
    name: str
    rounds: int
    exact: float
    mean: float
    half_width: float
    rounds_needed: int
    """Rounds for the 95% interval to reach :data:`TARGET`."""

    @property
    def target_met(self) -> bool:
        """Whether the interval is within the precision target."""
        return self.half_width <= TARGET

    @property
    def within(self) -> bool:
        """Whether the exact return lies in the 95% interval."""
        return abs(self.mean - self.exact) <= self.half_width

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (floating point)."""
        return {"wager": self.wager, "name": self.name, "rounds": self.rounds,
                "exact": self.exact, "dealt": self.mean,
                "ci95": [self.mean - self.half_width, self.mean + self.half_width],
                "half_width": self.half_width, "target": TARGET,
                "target_met": self.target_met, "rounds_needed": self.rounds_needed,
                "within": self.within}


@dataclass(frozen=True, slots=True)
class Confirmation:
    """Every offered wager dealt the same ``rounds`` rounds."""

    rounds: int
    seed: int
    decks: int
    rows: tuple[ConfirmRow, ...]

    @property
    def summary(self) -> str:
        """The claim the run supports, in words."""
        met = [r for r in self.rows if r.target_met]
        missed = [r for r in self.rows if not r.within]
        head = (f"{len(met)} of {len(self.rows)} returns confirmed to ±{TARGET:.1%}"
                if met else f"no return reached the ±{TARGET:.1%} target")
        short = [f"{r.name} ±{r.half_width:.2%} (needs {r.rounds_needed:,} rounds)"
                 for r in self.rows if not r.target_met]
        text = head + ("; precision reached: " + ", ".join(short) if short else "")
        if missed:
            text += "; outside the 95% interval: " + ", ".join(r.name for r in missed)
        return text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"rounds": self.rounds, "seed": self.seed, "decks": self.decks,
                "target": TARGET, "summary": self.summary,
                "rows": [r.to_json() for r in self.rows]}


def dealt_returns(config: TableConfig, rounds: int, seed: int
                  ) -> dict[str, tuple[float, float]]:
    """Each offered wager's mean and variance of the net result per unit over ``rounds``
    dealt rounds: the cards classified by the wager's classifier, paid by its paytable."""
    counts = dealt_triples(config.decks, rounds, seed)
    seen = np.flatnonzero(counts)
    freq = counts[seen].astype(np.float64)
    cards = [(ALL_CARDS[c // 2704], ALL_CARDS[c // 52 % 52], ALL_CARDS[c % 52])
             for c in seen.tolist()]
    out = {}
    for wid in (w for w in WAGERS if w in config.side_wagers):
        w = get_wager(wid)
        table = w.paytable(config.side_wagers[wid])
        net = np.array([table.pays(w.outcome(a, b, u)) for a, b, u in cards], dtype=np.float64)
        mean = float((freq * net).sum() / rounds)
        out[w.id] = (mean, float((freq * (net - mean) ** 2).sum() / max(rounds - 1, 1)))
    return out


def confirm(config: TableConfig, rounds: int, seed: int) -> Confirmation:
    """Deal ``rounds`` rounds, settle every side wager ``config`` offers on them and set each
    return beside the exact one."""
    from sidebet.exact.par import par_sheet

    rows = []
    for wid, (mean, var) in dealt_returns(config, rounds, seed).items():
        sheet = par_sheet(wid, config.decks, config.side_wagers[wid])
        rows.append(ConfirmRow(wid, get_wager(wid).name, rounds, float(sheet.expected_return),
                               mean, Z95 * math.sqrt(var / rounds),
                               math.ceil((Z95 * sheet.std_dev / TARGET) ** 2)))
    return Confirmation(rounds, seed, config.decks, tuple(rows))
