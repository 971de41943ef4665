"""An independent confirmation of the side wagers' exact returns: cards dealt and classified
one by one, never the outcome tables the PAR sheets are counted from.

Each round deals three cards (the player's two, then the upcard) from a full, freshly
shuffled shoe, as the table engine's shoe holds them (``decks`` copies of the 52 cards): three
distinct places of the shoe drawn uniformly with ``numpy``'s PCG64 generator.  Every dealt
triple is classified by :mod:`sidebet.report.independent`, a second classification written
from the regulation text by rank and suit arithmetic that shares no code with the wager
modules (whose classifier counts the PAR sheets), and paid by the paytable's line; the
outcome tables of :mod:`sidebet.exact.outcomes`, the PAR counts and the simulator's
combination table are not read.  A rule the wager modules read wrong would show here.

Each wager has a precision target: the 95% interval's half-width at most
:data:`TARGET` (0.1 percentage point of return), and its own rounds, at most the run's
budget.  Dealt one round at a time the rounds that reach it follow from the exact standard
deviation, ``(1.96 σ / TARGET)²`` (:data:`MARGIN` more, for the sample's own variance).
A wager that needs more than the budget is dealt *stratified* on the player's two cards:
the 2,704 ordered pairs of card kinds are the strata, each with its dealing probability
``d(d − [same kind]) / (n(n − 1))`` (a full ``d``-deck shoe of ``n`` cards, no outcome
read), a pilot of :data:`PILOT_SHARE` of the budget (at most a million rounds) dealt in proportion to them estimates
each stratum's standard deviation, and the rest of the budget is dealt to the strata in
proportion to ``P(stratum) · σ(stratum)`` (Neyman's allocation, with
:data:`DEFENSIVE` of it in proportion to ``P`` alone), the upcard drawn from the other
``n − 2`` places.  The return is ``Σ P(stratum) · mean(stratum)`` over the second phase
alone (the pilot only chooses the allocation, so the estimate is unbiased), its variance
``Σ P² s² / n``.  A run with fewer rounds than its target needs says the precision it
reached and makes no claim at the target.

>>> from sidebet.regulation.submission import TableConfig
>>> c = confirm(TableConfig(decks=6, side_wagers={"three-card-poker": "classic"}), 20_000, 1)
>>> row = c.rows[0]
>>> row.wager, row.rounds, row.method, row.target_met, row.rounds_needed > 20_000
('three-card-poker', 20000, 'plain', False, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.errors import SidebetError
from sidebet.regulation.submission import TableConfig
from sidebet.regulation.wagers import WAGERS, get_wager
from sidebet.report.independent import OUTCOMES, outcome_codes

__all__ = ["CHUNK", "MIN_STRATIFIED", "TARGET", "ConfirmRow", "Confirmation", "confirm",
           "dealt_returns", "dealt_triples", "stratified_return", "stratum_probabilities"]

TARGET = 0.001
"""The precision target: half-width of the 95% interval of each return (0.1 point)."""
Z95 = 1.959963984540054
CHUNK = 1_000_000
"""Rounds dealt per block (memory)."""
STRATA = 52 * 52
"""Strata of the stratified deal: the ordered pairs of the player's card kinds."""
MARGIN = 1.25
"""Rounds dealt beyond the need of a plain deal (from the exact variance), for the sample's
own variance."""
STRATIFIED_MARGIN = 2.0
"""Rounds dealt beyond the need a stratified deal's pilot estimates (a pilot sees the rare
lines of a few thousand rounds a pair, so its estimate is rougher)."""
PILOT_SHARE = 0.1
"""Share of a stratified wager's budget dealt as the pilot (at most :data:`PILOT_MAX`)."""
PILOT_MAX = 1_000_000
DEFENSIVE = 0.1
"""Share of the second phase dealt in proportion to the strata's probabilities alone
(a stratum the pilot saw no spread in still gets its share)."""
MIN_PER_STRATUM = 20
MIN_STRATIFIED = 4 * MIN_PER_STRATUM * STRATA
"""The least budget that is dealt stratified (each phase at least ``MIN_PER_STRATUM``
rounds a stratum on average); a smaller run is dealt plain and labelled."""


def _pair_places(n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per stratum ``a·52 + b``: two distinct places of the shoe holding kinds a and b."""
    s = np.arange(STRATA, dtype=np.int64)
    a, b = s // 52, s % 52
    second = np.where(a == b, b + 52, b)
    return np.minimum(a, second) % n, np.maximum(a, second) % n


def _count(code: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]) -> None:
    counts += np.bincount(code, minlength=52**3)


def dealt_triples(decks: int, rounds: int, seed: int | np.random.Generator
                  ) -> npt.NDArray[np.int64]:
    """How often each ordered triple of card kinds ``(p1, p2, up)`` was dealt, as a
    ``52³`` count array indexed ``p1·2704 + p2·52 + up``: three distinct places of a full
    ``decks``-deck shoe per round."""
    n = 52 * decks
    rng = seed if isinstance(seed, np.random.Generator) else np.random.Generator(
        np.random.PCG64(seed))
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
        _count((i % 52) * 2704 + (j % 52) * 52 + (u % 52), counts)
        left -= k
    return counts


def stratum_probabilities(decks: int) -> npt.NDArray[np.float64]:
    """The probability that the player's two cards are the kinds ``(a, b)``, per stratum
    ``a·52 + b``: ``d(d − [a = b]) / (n(n − 1))``, from the shoe alone."""
    s = np.arange(STRATA)
    same = (s // 52) == (s % 52)
    n = 52 * decks
    return np.asarray(decks * (decks - same) / (n * (n - 1)), dtype=np.float64)


def stratified_triples(decks: int, alloc: npt.NDArray[np.int64], rng: np.random.Generator
                       ) -> npt.NDArray[np.int64]:
    """Deal ``alloc[s]`` rounds whose player's cards are stratum ``s``'s two kinds, the
    upcard from the other ``n − 2`` places; the dealt triples counted as
    :func:`dealt_triples` counts them."""
    n = 52 * decks
    first, second = _pair_places(n)
    counts = np.zeros(52**3, dtype=np.int64)
    ends = np.cumsum(alloc)
    lo_s = 0
    while lo_s < STRATA:
        start = ends[lo_s] - alloc[lo_s]
        hi_s = max(lo_s + 1, int(np.searchsorted(ends, start + CHUNK, side="right")))
        s = np.repeat(np.arange(lo_s, hi_s, dtype=np.int64), alloc[lo_s:hi_s])
        u = rng.integers(0, n - 2, s.size)
        u += u >= first[s]
        u += u >= second[s]
        _count(s * 52 + u % 52, counts)
        lo_s = hi_s
    return counts


def _nets(config: TableConfig, wid: str, seen: npt.NDArray[np.int64]
          ) -> npt.NDArray[np.float64]:
    """The net result per unit of each dealt triple code: classified by
    :mod:`sidebet.report.independent` (not the wager's classifier), paid by the paytable."""
    w = get_wager(wid)
    table = w.paytable(config.side_wagers[wid])
    pays = np.array([table.pays(o) for o in OUTCOMES[w.section]], dtype=np.float64)
    return pays[outcome_codes(w.section)[seen]]


def _moments(config: TableConfig, wid: str, counts: npt.NDArray[np.int64]
             ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per stratum: Σ net and Σ net² of the dealt rounds."""
    seen = np.flatnonzero(counts)
    net = _nets(config, wid, seen)
    freq = counts[seen].astype(np.float64)
    strata = seen // 52
    return (np.asarray(np.bincount(strata, freq * net, STRATA), dtype=np.float64),
            np.asarray(np.bincount(strata, freq * net * net, STRATA), dtype=np.float64))


def dealt_returns(config: TableConfig, rounds: int, seed: int
                  ) -> dict[str, tuple[float, float]]:
    """Each offered wager's mean and variance of the net result per unit over ``rounds``
    dealt rounds (one plain deal shared by every wager): the cards classified by the
    wager's classifier, paid by its paytable."""
    counts = dealt_triples(config.decks, rounds, seed)
    out = {}
    for wid in (w for w in WAGERS if w in config.side_wagers):
        s1, s2 = (float(x.sum()) for x in _moments(config, wid, counts))
        mean = s1 / rounds
        out[wid] = (mean, max(s2 - rounds * mean * mean, 0.0) / max(rounds - 1, 1))
    return out


@dataclass(frozen=True, slots=True)
class Stratified:
    """A stratified deal of one wager: the return, the half-width of its 95% interval,
    the rounds dealt (pilot included) and the rounds the target needs by this pilot."""

    mean: float
    half_width: float
    rounds: int
    pilot: int
    rounds_needed: int


def stratified_return(config: TableConfig, wid: str, budget: int, rng: np.random.Generator
                      ) -> Stratified:
    """Deal ``wid`` stratified on the player's two cards with at most ``budget`` rounds
    (at least :data:`MIN_STRATIFIED`): a proportional pilot, then Neyman's allocation."""
    if budget < MIN_STRATIFIED:
        raise SidebetError(f"a stratified deal needs at least {MIN_STRATIFIED:,} rounds")
    p = stratum_probabilities(config.decks)
    live = p > 0
    floor = np.where(live, MIN_PER_STRATUM, 0).astype(np.int64)
    base = int(floor.sum())
    pilot_size = max(min(int(budget * PILOT_SHARE), PILOT_MAX), 2 * base)
    pilot_alloc = floor + np.floor((pilot_size - base) * p).astype(np.int64)
    pilot = int(pilot_alloc.sum())
    s1, s2 = _moments(config, wid, stratified_triples(config.decks, pilot_alloc, rng))
    k = np.maximum(pilot_alloc, 2)
    sd = np.sqrt(np.maximum(s2 - s1 * s1 / k, 0.0) / (k - 1))
    spread = float((p * sd).sum())
    share = DEFENSIVE * p + (1 - DEFENSIVE) * (p * sd / spread if spread > 0 else p)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_round = float(np.where(live, p * p * sd * sd / share, 0.0).sum())
    needed = math.ceil(STRATIFIED_MARGIN * per_round * (Z95 / TARGET) ** 2)
    second = max(min(budget - pilot, needed), 2 * base)
    alloc = floor + np.floor((second - base) * share).astype(np.int64)
    s1, s2 = _moments(config, wid, stratified_triples(config.decks, alloc, rng))
    k = np.maximum(alloc, 2)
    mean_h = s1 / k
    var_h = np.maximum(s2 - s1 * mean_h, 0.0) / (k - 1)
    mean = float((p * mean_h).sum())
    var = float((p * p * var_h / k).sum())
    return Stratified(mean, Z95 * math.sqrt(var), pilot + int(alloc.sum()), pilot,
                      pilot + needed)


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
    """Rounds for the 95% interval to reach :data:`TARGET` dealt one by one (from the
    exact variance)."""
    method: str = "plain"
    """``plain`` (every round from a full shoe) or ``stratified`` (on the player's cards)."""
    pilot: int = 0
    """Rounds of the stratified deal's pilot (counted in ``rounds``)."""
    stratified_needed: int | None = None
    """Rounds the stratified deal needs for the target, by its pilot's estimate."""

    @property
    def target_met(self) -> bool:
        """Whether the interval is within the precision target."""
        return self.half_width <= TARGET

    @property
    def within(self) -> bool:
        """Whether the exact return lies in the 95% interval."""
        return abs(self.mean - self.exact) <= self.half_width

    @property
    def needs(self) -> int:
        """Rounds the target needs by this row's method."""
        return self.rounds_needed if self.stratified_needed is None else self.stratified_needed

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (floating point)."""
        return {"wager": self.wager, "name": self.name, "rounds": self.rounds,
                "method": self.method, "pilot": self.pilot,
                "exact": self.exact, "dealt": self.mean,
                "ci95": [self.mean - self.half_width, self.mean + self.half_width],
                "half_width": self.half_width, "target": TARGET,
                "target_met": self.target_met, "rounds_needed": self.rounds_needed,
                "stratified_needed": self.stratified_needed, "needs": self.needs,
                "within": self.within}


@dataclass(frozen=True, slots=True)
class Confirmation:
    """Every offered wager dealt its own rounds, at most ``rounds`` (the budget)."""

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
        short = [f"{r.name} ±{r.half_width:.2%} (needs {r.needs:,} rounds {r.method})"
                 for r in self.rows if not r.target_met]
        text = head + ("; precision reached: " + ", ".join(short) if short else "")
        if missed:
            text += "; outside the 95% interval: " + ", ".join(r.name for r in missed)
        return text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"rounds": self.rounds, "seed": self.seed, "decks": self.decks,
                "target": TARGET, "margin": MARGIN,
                "stratified_margin": STRATIFIED_MARGIN, "pilot_share": PILOT_SHARE,
                "pilot_max": PILOT_MAX, "defensive": DEFENSIVE, "min_stratified": MIN_STRATIFIED,
                "dealt": sum(r.rounds for r in self.rows), "summary": self.summary,
                "rows": [r.to_json() for r in self.rows]}


def _plain(config: TableConfig, wid: str, rounds: int, rng: np.random.Generator
           ) -> tuple[float, float]:
    s1, s2 = (float(x.sum()) for x in
              _moments(config, wid, dealt_triples(config.decks, rounds, rng)))
    mean = s1 / rounds
    var = max(s2 - rounds * mean * mean, 0.0) / max(rounds - 1, 1)
    return mean, Z95 * math.sqrt(var / rounds)


def confirm(config: TableConfig, rounds: int, seed: int,
            progress: Callable[[str, int, int], None] | None = None) -> Confirmation:
    """Deal each side wager ``config`` offers its own rounds (at most ``rounds``), settle
    it on them and set its return beside the exact one; ``progress`` is told the wagers
    done and their number."""
    from sidebet.exact.par import par_sheet

    rows = []
    offered = [w for w in WAGERS if w in config.side_wagers]
    for index, wid in enumerate(offered):
        if progress is not None:
            progress("independent confirmation (wagers)", index, len(offered))
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
        sheet = par_sheet(wid, config.decks, config.side_wagers[wid])
        plain_needed = math.ceil((Z95 * sheet.std_dev / TARGET) ** 2)
        head = (wid, get_wager(wid).name)
        exact = float(sheet.expected_return)
        if math.ceil(MARGIN * plain_needed) <= rounds or rounds < MIN_STRATIFIED:
            n = min(rounds, math.ceil(MARGIN * plain_needed))
            mean, half = _plain(config, wid, n, rng)
            rows.append(ConfirmRow(*head, n, exact, mean, half, plain_needed))
        else:
            s = stratified_return(config, wid, rounds, rng)
            rows.append(ConfirmRow(*head, s.rounds, exact, s.mean, s.half_width, plain_needed,
                                   "stratified", s.pilot, s.rounds_needed))
    if progress is not None:
        progress("independent confirmation (wagers)", len(offered), len(offered))
    return Confirmation(rounds, seed, config.decks, tuple(rows))
