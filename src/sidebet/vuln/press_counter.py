"""TriLux Deluxe counted with its Press: the counter bets the wager by a count and presses
each win by the exact Press advice of the shoe as it then stands (§ 633c.11(e)-(g)).

The rounds are the counter simulation's (:func:`sidebet.vuln.counter.counter_chunk`'s: the
same seed deals the same rounds), walked by the same kernel for each round's exact TriLux
Deluxe EV and every count's index.  For every round the wager wins, the cards left when the
Press is offered (the shoe before the round less every seat's two cards and the upcard) are
known, and the pressed winnings earn :func:`press_value` per unit: the exact expected value
of pressing, ``E[X · 1{no dealer Blackjack}]`` under the hand's best play, from the
composition-dependent analyser (:func:`sidebet.exact.blackjack.press.press_advice`'s
computation), pressed when positive.  A round's value is its exact EV plus, when it wins,
``pays · max(press value, 0)``: the expectation of the round's TriLux and Press result given
what the counter knows when it acts, unbiased for its expected result.

Exact Press values cost a focused analysis each (cached by composition, hand and upcard).
Every trigger is searched.  The wins a trigger betting at most :data:`EXACT_SHARE` of the
rounds bets on (where a count's edge is) all get their exact value; of the other wins, a
seeded random sample of as many gets its exact value, weighted by the inverse of its
sampling rate, so a trigger betting more is still estimated without bias (its interval,
from the shoes' totals, includes the sampling's noise).

>>> from sidebet.vuln.counter import counter_spec
>>> spec = counter_spec("trilux", 6, counts=("suits",))
>>> got = press_counter(spec, 3_000, 1)
>>> got.rows[0].count, got.rounds
('suits', 3000)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS
from sidebet.core.errors import SidebetError
from sidebet.native.threads import map_shared
from sidebet.regulation.base_game.codes import rank_class
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.wagers import PRESSABLE
from sidebet.sim.runner import run_chunks
from sidebet.sim.shuffle import shoe_state, shuffle
from sidebet.vuln.counter import (
    CHUNK_SHOES,
    GRID,
    NBINS,
    CounterSpec,
    Estimate,
    _ratio,
    min_bets,
    walk_chunk,
)

__all__ = ["EXACT_SHARE", "MIN_SAMPLED_BETS", "PRESS_STAGE", "SIM_STAGE", "PressCounter",
           "PressRow", "Progress", "press_counter", "press_value"]

Progress = Callable[[str, int, int], None]
"""Called with a stage's name, the work done in it and its whole."""

EXACT_SHARE = 0.05
"""A trigger betting at most this share of the rounds has every win's Press value exact."""
MIN_SAMPLED_BETS = 30
"""The fewest sampled rounds (each weighted by the inverse of the sampling rate) on which
perfect play with the Press bets before its result is judged: fewer, and its interval,
resting on them, is not trusted."""
SIM_STAGE = "rounds dealt"
PRESS_STAGE = "exact Press values"
"""The stages :func:`press_counter` reports: its rounds, then its wins' Press values."""
CLASS_OF = np.array([rank_class(c) for c in ALL_CARDS], dtype=np.int64)
"""Rank class (A, 2, ..., 9, T) of each of the 52 card kinds."""


@lru_cache(maxsize=200_000)
def press_value(before: tuple[int, ...], hand: tuple[int, int], up: int,
                rules: HouseRules) -> float:
    """The exact expected net gain per pressed unit of the two-card hand ``hand`` (rank
    classes) against the upcard class ``up``, the composition ``before`` (rank-class counts
    ``(A, 2, ..., 9, T)``) being the cards left before these three were dealt: what
    :func:`sidebet.exact.blackjack.press.press_advice` computes, cached by composition."""
    from sidebet.exact.blackjack.engine import analyse
    from sidebet.exact.blackjack.press import _unit_value

    key = [0] * 10
    for c in hand:
        key[c] += 1
    # the engine's own cache keeps every analysis; a counter sees thousands of shoes
    a = analyse.__wrapped__(before, rules, tuple(key), up)
    return _unit_value(a, tuple(key), up)[0]


@dataclass(frozen=True)
class PressChunk:
    """One chunk's rounds: shoe, exact EV, every count's index; the winning rounds' cards."""

    rounds: int
    shoe: npt.NDArray[np.int64]
    pos: npt.NDArray[np.int64]
    """Per round: the cards dealt from its shoe before it."""
    ev: npt.NDArray[np.float64]
    x: npt.NDArray[np.float64]
    win: npt.NDArray[np.int64]
    """Rounds (indices into this chunk) the wager won."""
    pay: npt.NDArray[np.float64]
    before: npt.NDArray[np.int64]
    """Per winning round: the rank-class counts before its three cards (the other seats'
    initial cards removed)."""
    cards: npt.NDArray[np.int64]
    """Per winning round: the counter's two cards' and the upcard's rank classes."""


def press_chunk(spec: CounterSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                max_rounds: int) -> PressChunk:
    """Play shoes ``shoe0 ..`` as :func:`sidebet.vuln.counter.counter_chunk` does and keep
    each round's EV and indexes and each win's cards."""
    _, run, pays, ev, x = walk_chunk(spec, key, shoe0, nshoes, max_rounds, traced=True)
    inp = spec.sim.inputs()
    r = run.result.rounds
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    win = np.flatnonzero(pays[:r] > 0)
    seats = spec.sim.seats
    n = inp.base.shape[0]
    buf = inp.base.copy()
    before = np.zeros((win.size, 10), np.int64)
    cards = np.zeros((win.size, 3), np.int64)
    full = np.bincount(CLASS_OF[inp.base.astype(np.int64)], minlength=10)
    current = -1
    seen = np.zeros((n + 1, 10), np.int64)
    for i, rnd in enumerate(win.tolist()):
        shoe, pos = (int(v) for v in run.marks[rnd])
        if shoe != current:
            shuffle(buf, inp.base, n, np.uint64(shoe_state(shoe, k0, k1)))
            order = CLASS_OF[buf.astype(np.int64)]
            seen[1:] = np.cumsum(np.eye(10, dtype=np.int64)[order], axis=0)
            current = shoe
        first, up, second = order[pos], order[pos + seats], order[pos + seats + 1]
        left = full - seen[pos + 2 * seats + 1]
        left[first] += 1
        left[second] += 1
        left[up] += 1
        before[i] = left
        cards[i] = (first, second, up)
    return PressChunk(r, run.marks[:r, 0].copy(), run.marks[:r, 1].copy(), ev, x, win,
                      pays[win], before, cards)


class _Tally:
    """The chunks in chunk order (:class:`sidebet.sim.runner.Tallying`)."""

    def __init__(self) -> None:
        self.rounds = 0
        self.chunks = 0
        self.parts: list[tuple[int, PressChunk]] = []

    def add(self, chunk: PressChunk) -> None:
        self.parts.append((self.rounds, chunk))
        self.rounds += chunk.rounds
        self.chunks += 1


@dataclass(frozen=True, slots=True)
class PressRow:
    """One count's best trigger with the Press: TriLux Deluxe and the pressed winnings, per
    100 rounds in TriLux units (``trigger`` ``None``: no searched trigger wins)."""

    count: str
    trigger: float | None
    frequency: float
    units_per_100: Estimate
    press_per_100: float
    """Of ``units_per_100``, what the Press adds."""
    beyond: Estimate | None = None
    """The best of the triggers betting more than :data:`EXACT_SHARE` of the rounds, per
    100 rounds (``None``: no such trigger has enough bets)."""
    beyond_frequency: float = 0.0
    """The share of the rounds that trigger bets."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (floating point)."""
        u, b = self.units_per_100, self.beyond
        return {"count": self.count, "trigger": self.trigger, "frequency": self.frequency,
                "units_per_100": u.value, "units_per_100_ci": _ci(u),
                "press_per_100": self.press_per_100,
                "beyond_exact_share": None if b is None else {
                    "units_per_100": b.value, "units_per_100_ci": _ci(b),
                    "frequency": self.beyond_frequency}}


def _ci(e: Estimate) -> list[float | None]:
    return [None if math.isnan(e.low) else e.low, None if math.isnan(e.high) else e.high]


@dataclass(frozen=True)
class PressCounter:
    """Every count of a TriLux Deluxe counter spec, counted with the exact Press."""

    rounds: int
    shoes: int
    seed: int
    rows: tuple[PressRow, ...]
    evaluations: int
    """Exact Press values computed (distinct composition, hand and upcard)."""
    sample_rate: float = 1.0
    """The share of the wins outside every count's top :data:`EXACT_SHARE` of rounds whose
    Press value is computed (each weighted by its inverse)."""
    perfect: PressRow | None = None
    """Perfect play with the Press (:mod:`sidebet.vuln.press_perfect`; one seat only)."""
    perfect_evaluations: int = 0
    """Rounds whose exact expected result with the Press was computed for perfect play."""
    perfect_sample_rate: float = 1.0
    """The share of the rounds outside the highest-EV ``perfect_evaluations / 2`` valued."""
    perfect_sampled_bets: int = 0
    """Sampled rounds (outside the highest-EV ones) on which perfect play bets: its estimate
    and interval rest mostly on these, each weighing the inverse of the sampling rate
    (:data:`MIN_SAMPLED_BETS`)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"rounds": self.rounds, "shoes": self.shoes, "seed": self.seed,
                "exact_share": EXACT_SHARE, "sample_rate": self.sample_rate,
                "evaluations": self.evaluations,
                "rows": [r.to_json() for r in self.rows],
                "perfect_play": None if self.perfect is None else {
                    **self.perfect.to_json(), "evaluations": self.perfect_evaluations,
                    "sample_rate": self.perfect_sample_rate,
                    "sampled_bets": self.perfect_sampled_bets,
                    "min_sampled_bets": MIN_SAMPLED_BETS,
                    "established": (self.perfect_sample_rate >= 1.0
                                    or self.perfect_sampled_bets >= MIN_SAMPLED_BETS)}}


def _kinds_before(spec: CounterSpec, seed: int, shoe: npt.NDArray[np.int64],
                  pos: npt.NDArray[np.int64]) -> Callable[[int], npt.NDArray[np.int64]]:
    """Round ``i``'s 52 card-kind counts before its deal, rebuilt from its shoe's seed."""
    from sidebet.sim.chunk import seed_key

    inp = spec.sim.inputs()
    n = inp.base.shape[0]
    k0, k1 = (np.uint64(w) for w in seed_key(seed))
    full = np.bincount(inp.base.astype(np.int64), minlength=52)
    buf = inp.base.copy()
    current = [-1]

    def kinds(i: int) -> npt.NDArray[np.int64]:
        if int(shoe[i]) != current[0]:
            shuffle(buf, inp.base, n, np.uint64(shoe_state(int(shoe[i]), k0, k1)))
            current[0] = int(shoe[i])
        return full - np.bincount(buf[:int(pos[i])].astype(np.int64), minlength=52)

    return kinds


def _stage(progress: Progress | None, stage: str, whole: int
           ) -> Callable[[int], None] | None:
    """``progress`` for one stage of ``whole`` parts, its start reported now."""
    if progress is None:
        return None
    progress(stage, 0, whole)
    return lambda done: progress(stage, done, whole)


def press_counter(spec: CounterSpec, rounds: int, seed: int,
                  perfect_budget: int | None = None, progress: Progress | None = None
                  ) -> PressCounter:
    """Simulate ``rounds`` rounds of ``spec`` (TriLux Deluxe) and find each count's best
    trigger, every trigger searched, with optimal pressing at the shoe as it stands; and,
    for one seat, perfect play with the Press, valuing the ``perfect_budget`` rounds of
    highest TriLux Deluxe EV (default ``rounds // 1000``) and as many others sampled.
    The exact values are computed on the idle cores' threads
    (:func:`sidebet.native.threads.map_shared`: the same values however shared);
    ``progress(stage, done, whole)`` hears of each (:data:`SIM_STAGE`,
    :data:`PRESS_STAGE`, :data:`sidebet.vuln.press_perfect.PERFECT_STAGE`)."""
    if spec.wager != PRESSABLE.id:
        raise SidebetError(f"the Press belongs to {PRESSABLE.name}, not {spec.wager}")
    if rounds < 1:
        raise SidebetError("--rounds must be at least 1")
    tally = _Tally()
    per_shoe = max(1.0, spec.sim.cut / (2.75 * spec.sim.seats + 2.9))
    run_chunks(press_chunk, spec, seed, rounds, tally, chunk_shoes=CHUNK_SHOES,
               rounds_per_shoe=per_shoe, progress=_stage(progress, SIM_STAGE, rounds))
    shoe = np.concatenate([c.shoe for _, c in tally.parts])
    pos = np.concatenate([c.pos for _, c in tally.parts])
    ev = np.concatenate([c.ev for _, c in tally.parts])
    x = np.concatenate([c.x for _, c in tally.parts])
    win = np.concatenate([c.win + off for off, c in tally.parts])
    pay = np.concatenate([c.pay for _, c in tally.parts])
    before = np.concatenate([c.before for _, c in tally.parts])
    cards = np.concatenate([c.cards for _, c in tally.parts])
    total = tally.rounds
    _, shoe_id = np.unique(shoe, return_inverse=True)
    nshoes = int(shoe_id.max()) + 1 if total else 0
    r_shoe = np.bincount(shoe_id, minlength=nshoes).astype(np.float64)
    sr, srr = float(r_shoe.sum()), float((r_shoe ** 2).sum())
    weight, rate = _press_weights(x, win, len(spec.counts), seed)
    gain = np.zeros(total, np.float64)
    rules = spec.sim.rules
    valued = np.flatnonzero(weight)
    keys = []
    for i in valued.tolist():
        a, b, u = (int(v) for v in cards[i])
        keys.append((tuple(int(v) for v in before[i]), (min(a, b), max(a, b)), u))
    made = sorted(set(keys))
    step = _stage(progress, PRESS_STAGE, len(made))
    of = dict(zip(made, map_shared(lambda key: press_value(*key, rules), made, step),
                  strict=True))
    for i, key in zip(valued.tolist(), keys, strict=True):
        gain[win[i]] = weight[i] * pay[i] * max(of[key], 0.0)
    value = ev + gain
    need = min_bets(total)
    rows = []
    for c, count in enumerate(spec.counts):
        lo, width = GRID[count.kind]
        bins = np.clip(np.floor((x[:, c] - lo) / width), 0, NBINS - 1).astype(np.int64)
        near = np.arange(total)
        best: tuple[float, int, Estimate, float, float] | None = None
        wide: tuple[Estimate, float] | None = None
        for t in range(NBINS):
            bet = near[bins[near] >= t]
            near = bet
            if bet.size < need:
                break
            xs = np.bincount(shoe_id[bet], value[bet], minlength=nshoes)
            est = _ratio(float(xs.sum()), float((xs ** 2).sum()), float((xs * r_shoe).sum()),
                         sr, srr, nshoes)
            if best is None or est.value > best[0]:
                best = (est.value, t, est, bet.size / total, float(gain[bet].sum()) / total)
            if bet.size > EXACT_SHARE * total and (wide is None or est.value > wide[0].value):
                wide = (est, bet.size / total)
        beyond = None if wide is None else Estimate(
            100 * wide[0].value, 100 * wide[0].low, 100 * wide[0].high)
        wide_freq = 0.0 if wide is None else wide[1]
        if best is None or not best[0] > 0:
            rows.append(PressRow(count.name, None, 0.0, Estimate(0.0, 0.0, 0.0), 0.0,
                                 beyond, wide_freq))
            continue
        _, t, est, freq, press = best
        rows.append(PressRow(count.name, round(lo + t * width, 10), freq,
                             Estimate(100 * est.value, 100 * est.low, 100 * est.high),
                             100 * press, beyond, wide_freq))
    perfect, p_evals, p_rate, p_bets = None, 0, 1.0, 0
    if spec.sim.seats == 1 and total:
        from sidebet.vuln.press_perfect import perfect_values

        budget = max(1, total // 1000) if perfect_budget is None else perfect_budget
        pv = perfect_values(ev, _kinds_before(spec, seed, shoe, pos), spec.paytable, rules,
                            budget, seed, progress=progress)
        xs = np.bincount(shoe_id, pv.value, minlength=nshoes)
        est = _ratio(float(xs.sum()), float((xs ** 2).sum()), float((xs * r_shoe).sum()),
                     sr, srr, nshoes)
        if not pv.bets.any():
            est = Estimate(0.0, 0.0, 0.0)
        perfect = PressRow("perfect play", None, float(pv.bets.sum()) / total,
                           Estimate(100 * est.value, 100 * est.low, 100 * est.high), 0.0)
        p_evals, p_rate = pv.evaluations, pv.sample_rate
        p_bets = int(np.count_nonzero(pv.bets > 1.0))  # weighted: the sampled rounds
    return PressCounter(total, nshoes, seed, tuple(rows), len(made), rate, perfect, p_evals,
                        p_rate, p_bets)


def _press_weights(x: npt.NDArray[np.float64], win: npt.NDArray[np.int64], ncounts: int,
                   seed: int) -> tuple[npt.NDArray[np.float64], float]:
    """Each win's weight (0: its Press value is not computed) and the sampling rate of the
    wins outside every count's top :data:`EXACT_SHARE` of rounds: every win inside is
    weighted 1; outside, a seeded sample as large as the wins inside (all of them when
    there are fewer), each weighted ``1 / rate``."""
    top = np.zeros(win.size, bool)
    for c in range(ncounts):
        floor = float(np.quantile(x[:, c], 1 - EXACT_SHARE)) if x.shape[0] else 0.0
        top |= x[win, c] >= floor
    rest = np.flatnonzero(~top)
    rate = min(1.0, max(int(top.sum()), 1) / rest.size) if rest.size else 1.0
    weight = top.astype(np.float64)
    picked = np.random.default_rng([seed, 0x7072657373]).random(rest.size) < rate
    weight[rest[picked]] = 1.0 / rate
    return weight, rate
