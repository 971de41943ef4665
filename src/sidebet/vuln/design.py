"""The paytable search: integer paytables in a house-edge band, ranked by counting exposure.

Every candidate paytable of a wager (each winning line's odds from a range the designer
sets) is judged in three steps:

1. **Exact full-shoe figures**, for all candidates at once: the combinations of each
   outcome in a full shoe (:func:`sidebet.exact.par.count_outcomes`, the one rule) times
   the odds give the house edge as an exact fraction, the hit frequency, the standard
   deviation and the volatility index.  The designer's constraints (the edge band, the
   order of the lines, the largest pay, the volatility) filter them.
2. **The exposure screen**: a fixed sample of depleted shoes, each the cards left when a
   round is dealt at a random depth before the cut card.  A wager's return at a shoe is
   linear in the odds, ``sum_o (pays_o + 1) P_o(shoe) - 1``, so the outcome
   probabilities of each sampled shoe (exact, from the same outcome table) give every
   candidate's return at every sampled shoe in one matrix product.  The screen is the
   perfect player's win per 100 rounds on that sample: the mean of the positive returns.
3. **The front**: the candidates no other beats at once on exposure (lower), house edge
   (lower: within the band the casino accepts, a better return sells the game) and
   largest pay (higher: the headline win); :func:`confirm` then measures perfect play and
   every simple count on simulated shoes at the table's penetration.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.errors import SidebetError
from sidebet.core.shoe import MAX_DECKS, MIN_DECKS
from sidebet.exact.par import count_outcomes
from sidebet.regulation.wagers import Wager, get_wager
from sidebet.regulation.wagers.custom_pays import MAX_ODDS

__all__ = [
    "MAX_CANDIDATES",
    "Candidate",
    "Confirmation",
    "DesignResult",
    "DesignSpec",
    "LineRange",
    "brute_force_screen",
    "confirm",
    "depleted_sample",
    "exposure",
    "is_dominated",
    "line_range",
    "screen_sums",
    "search",
]

MAX_CANDIDATES = 20_000_000
"""The most paytables one search enumerates."""
VOLATILITY_CONFIDENCE = 0.90
"""The volatility index is ``z * sigma`` at this two-sided confidence."""
_Z_VI = NormalDist().inv_cdf((1 + VOLATILITY_CONFIDENCE) / 2)
_Z95 = NormalDist().inv_cdf(0.975)
_CHUNK = 65_536


@dataclass(frozen=True, slots=True)
class LineRange:
    """The odds a line may pay: ``values`` (to 1), smallest first."""

    outcome: str
    values: tuple[int, ...]


def line_range(wager: Wager, text: str) -> LineRange:
    """``outcome=N`` (fixed), ``outcome=LO:HI`` or ``outcome=LO:HI:STEP``.

    >>> line_range(get_wager("blazing7s"), "two_sevens=40:60:10")
    LineRange(outcome='two_sevens', values=(40, 50, 60))
    """
    outcome, sep, spec = text.partition("=")
    outcome = outcome.strip()
    ids = [o.id for o in wager.outcomes]
    if not sep or outcome not in ids:
        raise SidebetError(f"--line takes OUTCOME=LO:HI[:STEP] or OUTCOME=N with OUTCOME one "
                           f"of {', '.join(ids)}, not {text[:60]!r}")
    parts = spec.strip().split(":")
    if len(parts) > 3 or not all(p.strip().isdigit() and len(p.strip()) <= 7 for p in parts):
        raise SidebetError(f"--line {outcome}: odds are whole numbers LO:HI[:STEP], not "
                           f"{spec.strip()[:40]!r}")
    nums = [int(p) for p in parts]
    low, high = nums[0], nums[1] if len(nums) > 1 else nums[0]
    step = nums[2] if len(nums) > 2 else 1
    if not 1 <= low <= high <= MAX_ODDS or step < 1:
        raise SidebetError(f"--line {outcome}: odds run from 1 to {MAX_ODDS:,} to 1, low first, "
                           f"with a positive step, not {spec.strip()[:40]!r}")
    return LineRange(outcome, tuple(range(low, high + 1, step)))


def _default_values(base: int) -> tuple[int, ...]:
    """Around a listed line: 1/2, 3/4, 1, 5/4, 3/2 and 2 times it (at least 1)."""
    return tuple(sorted({max(1, round(base * f)) for f in (0.5, 0.75, 1, 1.25, 1.5, 2)}))


@dataclass(frozen=True, slots=True)
class DesignSpec:
    """A search: the wager, the shoe, each line's odds and the designer's constraints.

    ``edge`` is the house-edge band (inclusive); ``keep_order``: a rarer hand never pays
    less than a commoner one; ``max_pay``: the largest odds any line may pay;
    ``max_volatility``: the largest volatility index; ``hit_frequency``: a band the hit
    frequency must fall in; ``penetration``: the share of the shoe dealt before the cut
    card; ``samples``: the depleted shoes of the screen, drawn with ``seed``.
    """

    wager: str
    decks: int
    lines: tuple[LineRange, ...]
    edge: tuple[Fraction, Fraction]
    keep_order: bool = True
    max_pay: int | None = None
    max_volatility: float | None = None
    hit_frequency: tuple[Fraction, Fraction] | None = None
    penetration: Fraction = Fraction(3, 4)
    samples: int = 2000
    seed: int = 1

    @staticmethod
    def build(wager: str, decks: int, lines: Sequence[str], edge: tuple[Fraction, Fraction],
              **options: Any) -> DesignSpec:
        """A spec checked for bad input; lines not given range around the wager's default
        paytable (:func:`_default_values`)."""
        w = get_wager(wager)
        if not MIN_DECKS <= decks <= MAX_DECKS:
            raise SidebetError(f"--decks must be {MIN_DECKS} to {MAX_DECKS}, not {decks}")
        given = {r.outcome: r for r in (line_range(w, t) for t in lines)}
        if len(given) != len(lines):
            raise SidebetError("--line: a line is given twice")
        base = w.paytable(None, decks)
        ranges = tuple(given.get(o.id) or LineRange(o.id, _default_values(base.pays(o.id)))
                       for o in w.outcomes)
        low, high = edge
        if not -1 < low <= high < 1:
            raise SidebetError(f"--edge must be LOW:HIGH with -100% < LOW <= HIGH < 100%, not "
                               f"{float(low):.4%}:{float(high):.4%}")
        spec = DesignSpec(w.id, decks, ranges, edge, **options)
        if spec.size > MAX_CANDIDATES:
            raise SidebetError(f"{spec.size:,} paytables is more than the {MAX_CANDIDATES:,} "
                               "one search enumerates: narrow the --line ranges")
        pen = spec.penetration
        if not 0 < pen < 1 or int(52 * decks * pen) < 1:
            raise SidebetError(f"--penetration must be between 0 and 1, not {float(pen):g}")
        if not 10 <= spec.samples <= 1_000_000:
            raise SidebetError(f"--samples must be 10 to 1,000,000, not {spec.samples}")
        return spec

    @property
    def size(self) -> int:
        """How many paytables the ranges hold."""
        return math.prod(len(r.values) for r in self.lines)


@dataclass(frozen=True, slots=True)
class Confirmation:
    """Perfect play and the best simple count on simulated shoes (units per 100 rounds,
    95% intervals)."""

    rounds: int
    seed: int
    perfect: tuple[float, float, float]
    best_count: str
    count: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A paytable and its figures; ``screen`` is the perfect player's win per 100 rounds
    on the screen's sample, with its 95% interval."""

    wager: str
    outcomes: tuple[str, ...]
    pays: tuple[int, ...]
    house_edge: Fraction
    hit_frequency: Fraction
    std_dev: float
    volatility_index: float
    screen: tuple[float, float, float]
    confirmation: Confirmation | None = None

    @property
    def paytable(self) -> str:
        """The paytable's name: a listed one's, else ``custom:...`` (read by every
        command)."""
        return get_wager(self.wager).custom_paytable(
            dict(zip(self.outcomes, self.pays, strict=True))).name

    @property
    def largest_pay(self) -> int:
        """The largest odds paid."""
        return max(self.pays)

    def to_json(self) -> dict[str, Any]:
        """``{pays, house_edge (exact), hit_frequency, volatility_index,
        perfect_play_units_per_100 and its interval, ...}``."""
        c = self.confirmation
        return {
            "paytable": self.paytable,
            "pays": dict(zip(self.outcomes, self.pays, strict=True)),
            "house_edge": str(self.house_edge),
            "house_edge_float": float(self.house_edge),
            "hit_frequency": float(self.hit_frequency),
            "std_dev": self.std_dev,
            "volatility_index": self.volatility_index,
            "largest_pay": self.largest_pay,
            "screen_units_per_100": self.screen[0],
            "screen_units_per_100_ci": [self.screen[1], self.screen[2]],
            "perfect_play_units_per_100": c.perfect[0] if c else None,
            "perfect_play_units_per_100_ci": [c.perfect[1], c.perfect[2]] if c else None,
            "best_count": c.best_count if c else None,
            "best_count_units_per_100": c.count[0] if c else None,
            "best_count_units_per_100_ci": [c.count[1], c.count[2]] if c else None,
            "confirmed_rounds": c.rounds if c else None,
        }


@dataclass(frozen=True)
class DesignResult:
    """A search's outcome: how many paytables were enumerated, kept by the constraints
    and screened, how fast, the front, and every kept candidate's edge and screen (for
    the plot)."""

    spec: DesignSpec
    enumerated: int
    kept: int
    seconds: float
    front: tuple[Candidate, ...]
    edges: npt.NDArray[np.float64] = field(repr=False)
    screens: npt.NDArray[np.float64] = field(repr=False)

    @property
    def rate(self) -> float:
        """Paytables screened per second."""
        return self.enumerated / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        """The search and its front (a list of candidates)."""
        s = self.spec
        return {
            "wager": s.wager,
            "decks": s.decks,
            "edge_band": [str(s.edge[0]), str(s.edge[1])],
            "penetration": float(s.penetration),
            "samples": s.samples,
            "seed": s.seed,
            "enumerated": self.enumerated,
            "kept": self.kept,
            "candidates_per_second": self.rate,
            "candidates": [c.to_json() for c in self.front],
        }


def depleted_sample(decks: int, penetration: Fraction, samples: int, seed: int
                    ) -> npt.NDArray[np.int64]:
    """``[sample, kind]``: the cards left when a round is dealt at a depth drawn evenly
    from the start of a shuffled shoe to the cut card."""
    rng = np.random.default_rng(seed)
    n = 52 * decks
    cut = max(1, int(n * penetration))
    full = np.repeat(np.arange(52), decks)
    out = np.empty((samples, 52), dtype=np.int64)
    for s in range(samples):
        dealt = rng.permutation(full)[: rng.integers(0, cut)]
        out[s] = decks - np.bincount(dealt, minlength=52)
    return out


def _outcome_counts(wager: Wager, shoes: npt.NDArray[np.int64]
                    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``[sample, outcome]``: each winning outcome's combinations at each sampled shoe
    (exact, the one rule), and ``[sample]`` all the combinations there."""
    n = len(wager.outcomes)
    counts = np.empty((len(shoes), n), dtype=np.int64)
    totals = np.empty(len(shoes), dtype=np.int64)
    for s, left in enumerate(shoes):
        got = count_outcomes(wager, left)
        counts[s] = got[:n]
        totals[s] = got.sum()
    return counts, totals


@cache
def _screen_counts(wager: str, decks: int, penetration: Fraction, samples: int, seed: int
                   ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`_outcome_counts` of the screen's sample (kept for the process)."""
    shoes = depleted_sample(decks, penetration, samples, seed)
    return _outcome_counts(get_wager(wager), shoes)


def screen_sums(pays: npt.NDArray[np.int64], counts: npt.NDArray[np.int64],
                totals: npt.NDArray[np.int64], gpu: bool = False) -> npt.NDArray[np.float64]:
    """``[paytable, 2]``: the perfect player's positive returns on the sampled shoes, summed
    and squared (:func:`sidebet.vuln.side_ev_kernel.screen`; ``gpu``: on a CUDA device,
    :func:`sidebet.vuln.side_ev_device.screen_many`, the same values)."""
    if gpu:
        from sidebet.vuln.side_ev_device import screen_many  # numba.cuda: only on a device

        return screen_many(pays, counts, totals)
    from sidebet.vuln.side_ev_kernel import screen

    out = np.zeros((len(pays), 2), dtype=np.float64)
    screen(np.ascontiguousarray(pays, dtype=np.int64), counts, totals, out)
    return out


def _per_100(sums: npt.NDArray[np.float64], samples: int
             ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The screens (units per 100 rounds: the mean positive return) and their 95%
    half-widths, from :func:`screen_sums`."""
    mean = sums[:, 0] / samples
    var = np.maximum(sums[:, 1] - sums[:, 0] * mean, 0.0) / max(samples - 1, 1)
    return 100 * mean, 100 * _Z95 * np.sqrt(var) / math.sqrt(samples)


def _grid(spec: DesignSpec, start: int, stop: int) -> npt.NDArray[np.int64]:
    """Candidates ``start`` to ``stop`` of the ranges' product, one row each."""
    sizes = [len(r.values) for r in spec.lines]
    idx = np.unravel_index(np.arange(start, stop, dtype=np.int64), sizes)
    cols = [np.asarray(r.values, dtype=np.int64)[i] for r, i in zip(spec.lines, idx, strict=True)]
    return np.stack(cols, axis=1)


def is_dominated(a: Candidate, b: Candidate) -> bool:
    """Whether ``b`` beats ``a``: an exposure and a house edge as low and a largest pay
    as high, and better in one of them."""
    no_worse = (b.house_edge <= a.house_edge and b.screen[0] <= a.screen[0]
                and b.largest_pay >= a.largest_pay)
    better = (b.house_edge < a.house_edge or b.screen[0] < a.screen[0]
              or b.largest_pay > a.largest_pay)
    return no_worse and better


def _front(cands: list[Candidate]) -> list[Candidate]:
    """The non-dominated candidates, lowest exposure first: taken in order of exposure,
    one is dominated when an earlier one pays as much at the top and holds a lower edge
    (or the same edge with a lower exposure or a larger top pay)."""
    order = sorted(cands, key=lambda c: (c.screen[0], c.house_edge, -c.largest_pay))
    levels = sorted({c.largest_pay for c in order})
    best: list[Candidate | None] = [None] * len(levels)  # lowest edge at each top pay
    out: list[Candidate] = []
    for c in order:
        lv = levels.index(c.largest_pay)
        dominated = False
        for k in range(lv, len(levels)):
            seen = best[k]
            if seen is None:
                continue
            if seen.house_edge < c.house_edge or (seen.house_edge == c.house_edge and (
                    k > lv or seen.screen[0] < c.screen[0])):
                dominated = True
                break
        if not dominated:
            out.append(c)
        held = best[lv]
        if held is None or c.house_edge < held.house_edge:
            best[lv] = c
    return out


def search(spec: DesignSpec, progress: Callable[[int], None] | None = None,
           device: str = "cpu") -> DesignResult:
    """Enumerate, filter and screen every paytable of ``spec``; the front, unconfirmed.
    ``device`` (:func:`sidebet.sim.runner.on_gpu`): where every kept paytable is
    screened (the same values)."""
    from sidebet.sim.runner import on_gpu

    gpu = on_gpu(device)
    w = get_wager(spec.wager)
    outcomes = tuple(o.id for o in w.outcomes)
    full = count_outcomes(w, np.full(52, spec.decks, dtype=np.int64))
    total = int(full.sum())
    wins = full[: len(outcomes)].astype(np.int64)
    counts, totals = _screen_counts(w.id, spec.decks, spec.penetration, spec.samples,
                                    spec.seed)
    rarer = [(a, b) for a in range(len(outcomes)) for b in range(len(outcomes))
             if 0 < wins[a] < wins[b]]  # a is rarer than b: pays at least as much
    lo, hi = spec.edge
    hit = Fraction(int(wins.sum()), total)
    if spec.hit_frequency is not None and not spec.hit_frequency[0] <= hit <= spec.hit_frequency[1]:
        raise SidebetError(f"{w.name} wins {float(hit):.4%} of rounds at {spec.decks} decks, "
                           "whatever the odds: outside the --hit-frequency band")
    kept_pays: list[npt.NDArray[np.int64]] = []
    kept_sums: list[npt.NDArray[np.float64]] = []
    kept_sd: list[npt.NDArray[np.float64]] = []
    started = time.perf_counter()
    done = 0
    while done < spec.size:
        stop = min(spec.size, done + _CHUNK)
        pays = _grid(spec, done, stop)
        keep = np.ones(len(pays), dtype=bool)
        for a, b in rarer if spec.keep_order else ():
            keep &= pays[:, a] >= pays[:, b]
        if spec.max_pay is not None:
            keep &= pays.max(axis=1) <= spec.max_pay
        returned = (pays + 1) @ wins  # sum of (pays + 1) * combinations: exact integers
        edge_num = total - returned  # house edge = edge_num / total
        keep &= edge_num * lo.denominator >= lo.numerator * total
        keep &= edge_num * hi.denominator <= hi.numerator * total
        moment2 = (pays.astype(np.float64) ** 2) @ wins + (total - int(wins.sum()))
        mean = -edge_num / total
        sd = np.sqrt(np.maximum(moment2 / total - mean * mean, 0.0))
        if spec.max_volatility is not None:
            keep &= _Z_VI * sd <= spec.max_volatility
        chosen = pays[keep]
        if len(chosen):
            kept_sums.append(screen_sums(chosen, counts, totals, gpu))
            kept_pays.append(chosen)
            kept_sd.append(sd[keep])
        done = stop
        if progress is not None:
            progress(done)
    seconds = time.perf_counter() - started
    if not kept_pays:
        return DesignResult(spec, spec.size, 0, seconds, (), np.zeros(0), np.zeros(0))
    pays_all = np.concatenate(kept_pays)
    sds = np.concatenate(kept_sd)
    means, half = _per_100(np.concatenate(kept_sums), spec.samples)
    cands = []
    for row, m, h, sd in zip(pays_all, means, half, sds, strict=True):
        odds = tuple(int(x) for x in row)
        edge = Fraction(total - sum((p + 1) * int(c) for p, c in zip(odds, wins, strict=True)),
                        total)
        cands.append(Candidate(w.id, outcomes, odds, edge, hit, float(sd), float(_Z_VI * sd),
                               (float(m), float(m - h), float(m + h))))
    edges = np.array([float(c.house_edge) for c in cands])
    return DesignResult(spec, spec.size, len(cands), seconds, tuple(_front(cands)), edges,
                        means)


def confirm(result: DesignResult, top: int, rounds: int, seed: int,
            progress: Callable[[int], None] | None = None,
            device: str = "cpu") -> DesignResult:
    """The first ``top`` candidates of the front measured on ``rounds`` simulated rounds
    at the spec's penetration: perfect play and every default simple count (each round's
    exact EV on ``device``, :func:`sidebet.vuln.counter.run_counter`'s)."""
    from dataclasses import replace

    from sidebet.vuln.counter import counter_spec, run_counter

    spec = result.spec
    out = []
    for n, cand in enumerate(result.front):
        if n >= top:
            out.append(cand)
            continue
        cs = counter_spec(spec.wager, spec.decks, cand.paytable, penetration=spec.penetration)
        res = run_counter(cs, rounds, seed + n, progress=progress, device=device)
        p = res.perfect.units_per_100
        best = max(res.rows, key=lambda r: r.units_per_100.value)
        b = best.units_per_100
        out.append(replace(cand, confirmation=Confirmation(
            res.rounds, res.seed, (p.value, p.low, p.high), best.count,
            (b.value, b.low, b.high))))
    return DesignResult(spec, result.enumerated, result.kept, result.seconds, tuple(out),
                        result.edges, result.screens)


def brute_force_screen(spec: DesignSpec, pays: Sequence[int]) -> float:
    """The screen of one paytable the slow way, for tests: each sampled shoe's exact
    return from its own PAR count, in fractions (units per 100 rounds)."""
    w = get_wager(spec.wager)
    shoes = depleted_sample(spec.decks, spec.penetration, spec.samples, spec.seed)
    total = Fraction(0)
    for counts in shoes:
        got = count_outcomes(w, counts)
        ret = Fraction(sum(int(c) * (p + 1) for c, p in zip(got, pays, strict=False)),
                       int(got.sum())) - 1
        total += max(ret, Fraction(0))
    return float(100 * total / len(shoes))



def exposure(wager: str, decks: int, paytable: str | None, penetration: Fraction,
             samples: int = 2000, seed: int = 1) -> tuple[float, float, float]:
    """One paytable's screen: the perfect player's win per 100 rounds on the sample of
    depleted shoes (with its 95% interval), as :func:`search` ranks candidates."""
    w = get_wager(wager)
    table = w.paytable(paytable, decks)
    odds = np.array([[table.pays(o.id) for o in w.outcomes]], dtype=np.int64)
    counts, totals = _screen_counts(w.id, decks, penetration, samples, seed)
    means, half = _per_100(screen_sums(odds, counts, totals), samples)
    mean, h = float(means[0]), float(half[0])
    return mean, mean - h, mean + h
