"""The counter on real rounds: whole shoes, a cut card, seats, the count before every
round, the exact EV of the wager, perfect play, the trigger that wins most.

The rounds are the simulator's (:func:`sidebet.sim.chunk.run_marked`: complete Blackjack
rounds by basic strategy, so a round takes as many cards as it really does), seeded per
shoe, chunked and run in this process, worker processes or on Ray by
:func:`sidebet.sim.schedule.run_chunks`: a seed gives the same result whatever the
workers.  The counter sits at seat 1 and bets the side wager there; the other seats
play Blackjack and take cards.  Before each round the counter knows every card dealt
from this shoe.

Estimates.  For each round the exact EV of the wager for the composition before it is
known, and it is the expected value of the round's result given what the counter knows;
so the win per round is estimated from those EVs (unbiased, and far steadier than the
paid results, which are tallied too as a check).  Shoes are independent, so intervals
are those of a ratio over shoes: Σ X / Σ R with X a shoe's sum and R its rounds.

>>> spec = counter_spec("blazing7s", 6, counts=("sevens",), seats=1)
>>> res = run_counter(spec, rounds=20_000, seed=1)
>>> res.rounds, res.rows[0].count
(20000, 'sevens')
>>> -0.1 < res.every_round.average_edge < -0.06
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS
from sidebet.core.errors import SidebetError
from sidebet.core.money import units_to_tenths
from sidebet.exact.par import par_sheet
from sidebet.sim.chunk import MarkedRun, run_marked
from sidebet.sim.runner import fresh_seed, on_gpu, run_chunks
from sidebet.sim.spec import MAX_SEATS, SimSpec, resolve_sides
from sidebet.vuln.counter_kernel import NACC, left_before, walk
from sidebet.vuln.eor import checked_table, effects_of_removal
from sidebet.vuln.side_ev import ev_tables
from sidebet.vuln.tags import Count, IndexKind, default_counts, named_count, parse_tags

__all__ = [
    "CHUNK_SHOES",
    "CounterChunk",
    "CounterSpec",
    "CounterTally",
    "DepthRow",
    "EdgeBin",
    "Estimate",
    "Result",
    "Row",
    "counter_spec",
    "run_counter",
]

CHUNK_SHOES = 512
"""Shoes per chunk (each chunk keeps its rounds' marks and traces in memory)."""

NBINS = 600
"""Index bins (triggers) of each count."""
GRID = {
    IndexKind.TRUE_COUNT: (-20.0, 0.1),
    IndexKind.SUITS: (0.0, 0.1),
    IndexKind.RANKS: (0.0, 0.25),
    IndexKind.SEVENS: (0.0, 0.05),
}
"""Per index kind: the lowest trigger and the step between triggers."""
DEPTH_BINS = 10
Z95 = 1.959963984540054


@dataclass(frozen=True)
class CounterSpec:
    """What to simulate: the table (a :class:`SimSpec` of complete rounds with the wager),
    the wager and paytable analysed and the counts."""

    sim: SimSpec
    wager: str
    paytable: str
    counts: tuple[Count, ...]

    @property
    def decks(self) -> int:
        """Decks in the shoe."""
        return self.sim.decks

    @property
    def continuous(self) -> bool:
        """Whether every round is dealt from a freshly shuffled shoe."""
        return self.sim.cut <= 1


def counter_spec(
    wager: str,
    decks: int = 6,
    paytable: str | None = None,
    *,
    penetration: Fraction | float | None = None,
    cut_cards: int | None = None,
    seats: int = 1,
    counts: Sequence[str] = (),
    tags: str | None = None,
    continuous: bool = False,
    perfect_only: bool = False,
) -> CounterSpec:
    """A :class:`CounterSpec` checked for bad input.  Without ``counts`` or ``tags``, the
    wager's default counts (:func:`sidebet.vuln.tags.default_counts`).  ``continuous``:
    a continuous shuffler (each round from a full, freshly shuffled shoe);
    ``perfect_only``: no counts, perfect play only."""
    w, table = checked_table(wager, decks, paytable)
    if not 1 <= seats <= MAX_SEATS:
        raise SidebetError(f"--seats must be 1 to {MAX_SEATS}, not {seats}")
    n = 52 * decks
    if penetration is not None and cut_cards is not None:
        raise SidebetError("give --penetration or --cut-cards, not both")
    if continuous:
        pen = Fraction(1, n)
    elif cut_cards is not None:
        if not 1 <= cut_cards < n:
            raise SidebetError(f"--cut-cards must be between 1 and {n - 1} for {decks} decks, "
                               f"not {cut_cards}")
        pen = Fraction(cut_cards, n)
    elif penetration is not None:
        pen = Fraction(penetration).limit_denominator(10**6)
        if not 0 < pen < 1:
            raise SidebetError(f"--penetration must be between 0 and 1 (exclusive), not "
                               f"{float(pen):g}")
        if int(n * pen) < 1:
            raise SidebetError(f"--penetration {float(pen):g} places the cut card before the "
                               "first card")
    else:
        pen = Fraction(3, 4)
    eor = effects_of_removal(w, decks, table.name)
    chosen: list[Count] = [named_count(c, eor) for c in counts]
    if tags is not None:
        chosen.append(Count.linear("tags", parse_tags(tags, eor)))
    if not chosen and not perfect_only:
        chosen = list(default_counts(eor))
    names = [c.name for c in chosen]
    if len(set(names)) != len(names):
        raise SidebetError("--count: a count is named twice")
    sim = SimSpec(decks=decks, seats=seats, sides=resolve_sides([w.id], decks, {w.id: table.name}),
                  penetration=pen)
    sim.verify()
    return CounterSpec(sim, w.id, table.name, tuple(chosen))


def _count_arrays(counts: tuple[Count, ...]) -> tuple[npt.NDArray[Any], ...]:
    kinds = np.array([int(c.kind) for c in counts], dtype=np.int64)
    tags = np.zeros((len(counts), 52), dtype=np.float64)
    lo = np.zeros(len(counts), dtype=np.float64)
    width = np.zeros(len(counts), dtype=np.float64)
    for i, c in enumerate(counts):
        if c.tags is not None:
            t = np.array(c.tags.values, dtype=np.float64)
            tags[i] = t - t.mean()  # an unbalanced count takes off its imbalance
        lo[i], width[i] = GRID[c.kind]
    return kinds, tags, lo, width


@dataclass(frozen=True)
class CounterChunk:
    """One chunk's sums (see :func:`sidebet.vuln.counter_kernel.walk`)."""

    rounds: int
    bin_n: npt.NDArray[np.int64]
    bin_ev: npt.NDArray[np.float64]
    bin_pay: npt.NDArray[np.float64]
    sx: npt.NDArray[np.float64]
    sxx: npt.NDArray[np.float64]
    sxr: npt.NDArray[np.float64]
    acc: npt.NDArray[np.float64]
    depth: npt.NDArray[np.float64]


def walk_chunk(spec: CounterSpec, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int, traced: bool = False, gpu: bool = False
               ) -> tuple[CounterChunk, MarkedRun, npt.NDArray[np.float64],
                          npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Play shoes ``shoe0 ..`` (at most ``max_rounds`` rounds) and walk them: the sums,
    the rounds played, each round's paid net per unit and, ``traced``, each round's exact
    EV and every count's index (else empty).  ``gpu``: each round's exact EV is computed
    on a CUDA device (:func:`sidebet.vuln.side_ev_device.evs_along_many`, one round a
    thread, from the cards left), the same values."""
    run = run_marked(spec.sim, key, shoe0, nshoes, max_rounds)
    inp = spec.sim.inputs()
    w = inp.wagers.index(spec.wager)
    combos = run.trace[:, 0, 0]
    pays = inp.combo_pay[combos, w].astype(np.float64) / units_to_tenths(spec.sim.side_bet)
    tables = ev_tables(((spec.wager, spec.paytable),))
    kinds, tags, lo, width = _count_arrays(spec.counts)
    nc = len(spec.counts)
    out = CounterChunk(
        rounds=run.result.rounds,
        bin_n=np.zeros((nc, NBINS), np.int64),
        bin_ev=np.zeros((nc, NBINS), np.float64),
        bin_pay=np.zeros((nc, NBINS), np.float64),
        sx=np.zeros((nc, NBINS), np.float64),
        sxx=np.zeros((nc, NBINS), np.float64),
        sxr=np.zeros((nc, NBINS), np.float64),
        acc=np.zeros(NACC, np.float64),
        depth=np.zeros((DEPTH_BINS, 5), np.float64),
    )
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    none = np.zeros((0, 0), np.int64)
    traces = run.result.rounds if traced else 0
    ev, x = np.zeros(traces), np.zeros((traces, nc))
    given = np.zeros(0, np.float64)
    if gpu and len(run.marks):
        from sidebet.vuln.side_ev_device import evs_along_many

        left = np.zeros((len(run.marks), 52), np.int64)
        left_before(run.marks, k0, k1, inp.base, left)
        given = evs_along_many(tables, left, np.zeros((len(left), 0), np.int64),
                               np.zeros(1, np.int64))[:, 0, 0].copy()
    walk(run.marks, pays, k0, k1, inp.base, tables.weights, 0, *tables.args(), kinds, tags,
         lo, width, out.bin_n, out.bin_ev, out.bin_pay, out.sx, out.sxx, out.sxr, out.acc,
         out.depth, none.astype(np.uint8), ev, x, given)
    return out, run, pays, ev, x


def counter_chunk(spec: CounterSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                  max_rounds: int) -> CounterChunk:
    """Play shoes ``shoe0 ..`` (at most ``max_rounds`` rounds) and walk them."""
    return walk_chunk(spec, key, shoe0, nshoes, max_rounds)[0]


def counter_chunk_gpu(spec: CounterSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                      max_rounds: int) -> CounterChunk:
    """:func:`counter_chunk` with each round's exact EV computed on a CUDA device."""
    return walk_chunk(spec, key, shoe0, nshoes, max_rounds, gpu=True)[0]


@dataclass
class CounterTally:
    """Sums of the chunks added so far (in chunk order)."""

    ncounts: int
    rounds: int = 0
    chunks: int = 0
    sums: dict[str, Any] = field(default_factory=dict)

    def add(self, chunk: CounterChunk) -> None:
        """Add one chunk."""
        self.rounds += chunk.rounds
        self.chunks += 1
        for name in ("bin_n", "bin_ev", "bin_pay", "sx", "sxx", "sxr", "acc", "depth"):
            value = getattr(chunk, name)
            if name in self.sums:
                self.sums[name] = self.sums[name] + value
            else:
                self.sums[name] = value.copy()


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean per round with its 95% interval."""

    value: float
    low: float
    high: float


def _ratio(x: float, xx: float, xr: float, sr: float, srr: float, shoes: float) -> Estimate:
    """Σ X / Σ R over independent shoes, with the delta-method 95% interval."""
    if sr <= 0:
        return Estimate(math.nan, math.nan, math.nan)
    u = x / sr
    if shoes < 2:
        return Estimate(float(u), math.nan, math.nan)
    resid = max(xx - 2 * u * xr + u * u * srr, 0.0)
    mean_r = sr / shoes
    se = math.sqrt(resid / (shoes - 1) / shoes) / mean_r
    return Estimate(float(u), float(u - Z95 * se), float(u + Z95 * se))


@dataclass(frozen=True, slots=True)
class Row:
    """One count's best (or chosen) trigger.  ``trigger`` ``None``: no trigger wins, so
    the counter never bets; ``best_edge`` is then the best average edge any trigger
    reached (with enough bets to measure)."""

    count: str
    tags: str
    index: str
    correlation: float | None
    trigger: float | None
    frequency: float
    average_edge: float | None
    units_per_100: Estimate
    best_edge: float | None = None

    def money_per_hour(self, max_bet: float, rounds_per_hour: float) -> float:
        """Expected win per hour betting ``max_bet`` when triggered."""
        return self.units_per_100.value / 100 * rounds_per_hour * max_bet


@dataclass(frozen=True, slots=True)
class EdgeBin:
    """Rounds whose index is in ``[low, high)``: their share and mean exact edge."""

    low: float
    high: float
    share: float
    rounds: int
    average_edge: float


@dataclass(frozen=True, slots=True)
class DepthRow:
    """Perfect play by the share of the shoe dealt before the round."""

    low: float
    high: float
    rounds: int
    p_positive: float
    average_positive_edge: float | None
    average_edge: float


@dataclass(frozen=True)
class Result:
    """A counter simulation: one :class:`Row` per count, perfect play, every round."""

    spec: CounterSpec
    seed: int
    rounds: int
    shoes: int
    rows: tuple[Row, ...]
    perfect: Row
    every_round: Row
    paid_every_round: Estimate
    paid_perfect: Estimate
    full_shoe_return: float
    edges: tuple[tuple[EdgeBin, ...], ...]
    depth: tuple[DepthRow, ...]
    elapsed: float
    workers: int
    interrupted: bool

    @property
    def rate(self) -> float:
        """Rounds per second."""
        return self.rounds / self.elapsed if self.elapsed > 0 else math.nan


def min_bets(rounds: int) -> int:
    """Fewest bets a trigger needs before it may be chosen (its estimate is then usable)."""
    return max(200, rounds // 20_000)


def _snap(count: Count, trigger: float) -> int:
    lo, width = GRID[count.kind]
    t = math.ceil((trigger - lo) / width - 1e-9)
    if not 0 <= t < NBINS:
        top = lo + (NBINS - 1) * width
        raise SidebetError(f"--trigger {trigger:g} is outside the {count.index_name} triggers "
                           f"of count {count.name} ({lo:g} to {top:g})")
    return t


def reachable(count: Count, spec: CounterSpec) -> float:
    """The highest index the count can show before a round, given the cut card."""
    n = 52 * spec.decks
    seen = max(spec.sim.cut - 1, 0)
    decks_left = (n - seen) / 52
    if count.kind is IndexKind.TRUE_COUNT:
        assert count.tags is not None
        t = np.array(count.tags.values, dtype=np.float64)
        t = np.sort(np.repeat(t - t.mean(), spec.decks))[::-1]
        return float(np.clip(t[:seen], 0, None).sum()) / decks_left
    if count.kind is IndexKind.SUITS:
        return min(seen, n // 4) / decks_left
    if count.kind is IndexKind.SEVENS:
        return min(4 * spec.decks, n - seen) / decks_left
    return 12.0 * (n - seen)


def check_trigger(spec: CounterSpec, trigger: float) -> None:
    """Refuse a trigger that is off the grid or that no count can reach."""
    best = -math.inf
    for c in spec.counts:
        _snap(c, trigger)
        best = max(best, reachable(c, spec))
    if trigger > best:
        raise SidebetError(
            f"--trigger {trigger:g}: no count reaches it with the cut card after "
            f"{spec.sim.cut} cards (highest reachable {best:.2f})")


def _row(count: Count, sums: dict[str, Any], i: int, rounds: int, trigger: float | None
         ) -> Row:
    acc = sums["acc"]
    shoes, sr, srr = acc[0], acc[1], acc[2]
    n_ge = np.cumsum(sums["bin_n"][i][::-1])[::-1]
    ev_ge = np.cumsum(sums["bin_ev"][i][::-1])[::-1]
    sx, sxx, sxr = sums["sx"][i], sums["sxx"][i], sums["sxr"][i]
    lo, width = GRID[count.kind]
    need = min_bets(rounds)
    edges = np.where(n_ge >= need, ev_ge / np.maximum(n_ge, 1), -np.inf)
    best_edge = float(edges.max()) if np.isfinite(edges.max()) else None
    if trigger is None:
        units = np.where(n_ge >= need, sx / max(sr, 1.0), -np.inf)
        t = int(np.argmax(units))
        if not units[t] > 0:
            tags = count.tags.describe() if count.tags else count.describe()
            return Row(count.name, tags, count.index_name, _bc(count), None, 0.0, None,
                       Estimate(0.0, 0.0, 0.0), best_edge)
    else:
        t = _snap(count, trigger)
    est = _ratio(sx[t], sxx[t], sxr[t], sr, srr, shoes)
    freq = float(n_ge[t]) / rounds if rounds else math.nan
    avg = float(ev_ge[t] / n_ge[t]) if n_ge[t] else None
    return Row(count.name, count.describe(), count.index_name, _bc(count),
               round(lo + t * width, 10), freq, avg,
               Estimate(100 * est.value, 100 * est.low, 100 * est.high), best_edge)


def _bc(count: Count) -> float | None:
    if count.tags is None or math.isnan(count.tags.correlation):
        return None
    return count.tags.correlation


def _edges(count: Count, sums: dict[str, Any], i: int, rounds: int) -> tuple[EdgeBin, ...]:
    lo, width = GRID[count.kind]
    group = max(1, round(1.0 / width)) if count.kind is IndexKind.TRUE_COUNT else 10
    n = sums["bin_n"][i]
    ev = sums["bin_ev"][i]
    out = []
    for g in range(0, NBINS, group):
        k = int(n[g:g + group].sum())
        if k == 0 or k < max(50, rounds // 100_000):
            continue
        out.append(EdgeBin(round(lo + g * width, 10), round(lo + (g + group) * width, 10),
                           k / rounds, k, float(ev[g:g + group].sum()) / k))
    return tuple(out)


def _depth(sums: dict[str, Any]) -> tuple[DepthRow, ...]:
    out = []
    for d, (k, pos, s1, _s2, sev) in enumerate(sums["depth"]):
        if k == 0:
            continue
        out.append(DepthRow(d / DEPTH_BINS, (d + 1) / DEPTH_BINS, int(k), float(pos / k),
                            float(s1 / pos) if pos else None, float(sev / k)))
    return tuple(out)


def summarise(spec: CounterSpec, tally: CounterTally, seed: int, trigger: float | None,
              elapsed: float, workers: int, interrupted: bool) -> Result:
    """The :class:`Result` of a tally (``trigger`` ``None``: the best of each count)."""
    s = tally.sums
    rounds = tally.rounds
    if rounds == 0:
        raise SidebetError("no round was played")
    acc = s["acc"]
    shoes, sr, srr = acc[0], acc[1], acc[2]
    rows = tuple(_row(c, s, i, rounds, trigger) for i, c in enumerate(spec.counts))

    def est(j: int) -> Estimate:
        e = _ratio(acc[j], acc[j + 1], acc[j + 2], sr, srr, shoes)
        return Estimate(100 * e.value, 100 * e.low, 100 * e.high)

    pp_bets = acc[15]
    perfect = Row("perfect play", "exact EV of the composition", "exact EV", None, 0.0,
                  float(pp_bets / rounds), float(acc[9] / pp_bets) if pp_bets else None,
                  est(9))
    every = Row("every round", "(no count)", "", None, None, 1.0, float(acc[3] / sr), est(3))
    full = float(par_sheet(spec.wager, spec.decks, spec.paytable).expected_return)
    return Result(
        spec=spec, seed=seed, rounds=rounds, shoes=int(shoes), rows=rows, perfect=perfect,
        every_round=every, paid_every_round=est(6), paid_perfect=est(12),
        full_shoe_return=full,
        edges=tuple(_edges(c, s, i, rounds) for i, c in enumerate(spec.counts)),
        depth=_depth(s), elapsed=elapsed, workers=workers, interrupted=interrupted,
    )


def run_counter(
    spec: CounterSpec,
    rounds: int,
    seed: int | None = None,
    *,
    trigger: float | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    chunk_shoes: int = CHUNK_SHOES,
    progress: Callable[[int], None] | None = None,
    device: str = "cpu",
) -> Result:
    """Simulate ``rounds`` rounds of ``spec`` and analyse every count (``trigger``
    ``None``: find each count's best trigger; else bet at that index and above).
    ``device`` (:func:`sidebet.sim.runner.on_gpu`): where each round's exact EV is
    computed; the rounds are played on the CPU, and the results are the same."""
    gpu = on_gpu(device)
    if rounds < 1:
        raise SidebetError("--rounds must be at least 1")
    if workers < 1:
        raise SidebetError("--workers must be at least 1")
    if trigger is not None and not spec.continuous:
        check_trigger(spec, trigger)
    seed = fresh_seed() if seed is None else seed
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    tally = CounterTally(len(spec.counts))
    per_shoe = max(1.0, spec.sim.cut / (2.75 * spec.sim.seats + 2.9))
    run = run_chunks(counter_chunk_gpu if gpu else counter_chunk, spec, seed, rounds, tally,
                     workers=workers, backend=backend, address=address,
                     chunk_shoes=chunk_shoes, progress=progress, rounds_per_shoe=per_shoe,
                     gpu=gpu)
    return summarise(spec, tally, seed, trigger, run.elapsed, run.workers, run.interrupted)


def with_setting(spec: CounterSpec, name: str, value: float) -> CounterSpec:
    """``spec`` with one table setting changed (for the countermeasure sweeps)."""
    sim = spec.sim
    if name == "penetration":
        return replace(spec, sim=replace(sim, penetration=Fraction(value).limit_denominator(10**6)))
    if name == "cut-cards":
        n = 52 * sim.decks
        if not 1 <= value < n:
            raise SidebetError(f"--sweep: cut-cards {value:g} is not between 1 and {n - 1}")
        return replace(spec, sim=replace(sim, penetration=Fraction(int(value), n)))
    if name == "seats":
        return replace(spec, sim=replace(sim, seats=int(value)))
    if name == "decks":
        return counter_spec(spec.wager, int(value), spec.paytable,
                            penetration=sim.penetration, seats=sim.seats,
                            counts=[c.name for c in spec.counts if c.name != "tags"],
                            tags=next((",".join(f"{k}:{v}" for k, v in _tag_items(c))
                                       for c in spec.counts if c.name == "tags"), None),
                            perfect_only=not spec.counts)
    raise SidebetError(f"--sweep: unknown setting {name!r} (penetration, cut-cards, decks, seats)")


def _tag_items(count: Count) -> list[tuple[str, int]]:
    assert count.tags is not None
    return [(ALL_CARDS[k].code.upper(), v) for k, v in enumerate(count.tags.values) if v]
