"""Counting-vulnerability speed: rounds per second with the exact EV of all
four side wagers maintained before every round, one core.

Target: at least 1 million simulated rounds per second on one core with
the exact per-round EV of all four side wagers maintained.  Measured here:

* the EV walk alone: the simulator's marked rounds replayed through the incremental
  exact-EV state of all four wagers (TriLux Deluxe, Upcard Luck, Top 3, Blazing 7's)
  plus Three Card Poker, no counts;
* the complete rounds that produce the marks (:func:`sidebet.sim.chunk.run_marked`);
* both together (a round dealt by the full Blackjack kernel, then its EVs);
* whole runs of :func:`sidebet.vuln.counter.run_counter` (one wager, its default counts,
  trigger search, in this process).

Each rate is given by wall-clock time and by the process's CPU time (``time.process_time``:
on a shared, loaded machine the CPU time is the fairer "one core" figure; quote both).

Run: ``.venv/bin/python benchmarks/bench_vuln.py [--quick]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from sidebet.sim import SimSpec, resolve_sides
from sidebet.sim.chunk import run_marked, seed_key
from sidebet.vuln.counter import DEPTH_BINS, counter_spec, run_counter
from sidebet.vuln.counter_kernel import NACC, walk
from sidebet.vuln.side_ev import ev_tables

SIDES = (("trilux", "TLX-3"), ("upcard-luck", "standard"), ("top3", "A"), ("blazing7s", "A"),
         ("three-card-poker", "classic"))


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(t0: tuple[float, float]) -> tuple[float, float]:
    t1 = clocks()
    return t1[0] - t0[0], t1[1] - t0[1]


def rate(label: str, rounds: int, took: tuple[float, float]) -> None:
    print(f"  {label:<58} {rounds / took[0] / 1e6:6.2f} M/s wall {rounds / took[1] / 1e6:6.2f} "
          "M/s CPU")


def walk_all(spec: SimSpec, key: tuple[int, int], marks: np.ndarray) -> tuple[float, float]:
    tables = ev_tables(SIDES)
    r = len(marks)
    z = np.zeros((0, 600))
    t0 = clocks()
    walk(marks, np.zeros(r), np.uint64(key[0]), np.uint64(key[1]), spec.inputs().base,
         tables.weights, 0, *tables.args(), np.zeros(0, np.int64), np.zeros((0, 52)),
         np.zeros(0), np.zeros(0), np.zeros((0, 600), np.int64), z, z.copy(), z.copy(),
         z.copy(), z.copy(), np.zeros(NACC), np.zeros((DEPTH_BINS, 5)),
         np.zeros((0, 0), np.uint8), np.zeros(0), np.zeros((0, 0)))
    return since(t0)


def main() -> None:
    quick = "--quick" in sys.argv
    n = 1_000_000 if quick else 5_000_000
    spec = SimSpec(sides=resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6))
    key = seed_key(1)
    small = run_marked(spec, key, 0, 4, 10**9)
    walk_all(spec, key, small.marks)  # compile / load the caches
    t0 = clocks()
    run = run_marked(spec, key, 0, 10**9, n)
    t_rounds = since(t0)
    t_walk = walk_all(spec, key, run.marks)
    rounds = run.result.rounds
    both = (t_walk[0] + t_rounds[0], t_walk[1] + t_rounds[1])
    print("one core, 6 decks, 1 seat, cut card at 75%, all four side wagers (+ Three Card Poker)")
    rate("exact EV of all five wagers before every round (walk only)", rounds, t_walk)
    rate("complete Blackjack rounds with their marks (run_marked)", rounds, t_rounds)
    rate("both: real rounds and the exact EVs before each", rounds, both)
    verdict = "met" if rounds / both[1] >= 1e6 else "NOT met"
    print(f"  target 1 M rounds/s (CPU time) with the exact EV of all four maintained: {verdict}")
    print()
    print("whole runs (run_counter: one wager, its default counts, trigger search, 1 worker)")
    for wager in ("blazing7s", "upcard-luck", "trilux", "top3"):
        cs = counter_spec(wager, 6)
        run_counter(cs, 2_000, seed=0)
        t0 = clocks()
        res = run_counter(cs, n // 2, seed=1)
        rate(f"{wager} ({len(cs.counts)} counts)", res.rounds, since(t0))


if __name__ == "__main__":
    main()
