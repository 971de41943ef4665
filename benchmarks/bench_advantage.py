"""Advantage-play speed: rounds per second on one core for a Hi-Lo
counter with index plays, a bet ramp and all four side wagers settled, beside flat
basic-strategy play, measured in the same run, interleaved.

Measured (each a chunk of whole shoes in this process, 6 decks, 75%
penetration, one spot, the median of interleaved runs):

* ``simulator, flat basic strategy``: :func:`sidebet.sim.chunk.run_chunk`, the simulator's
  kernel, all four side wagers bet flat (the peer);
* ``counter kernel, flat``: :func:`sidebet.advantage.run.advantage_chunk`, flat bets, no
  index plays, all four side wagers flat (the same rounds, plus the count);
* ``Hi-Lo, I18+Fab 4, 1-12, four sides by count``: the counter's usual configuration: every side
  wager bet by its own count and ramp (so five running counts are kept);
* ``... four sides by exact EV``: the side wagers bet by their exact EV before every
  round (perfect play; the EV kept up to date card by card), for comparison;
* ``..., every net traced``: the same configuration keeping every round's net (what
  a report's simulated ruin keeps of its first ``--trace-rounds`` rounds, 10 million by
  default); the other rows keep none, as the simulator's row keeps no trace.

Each rate is by wall-clock and by the process's CPU time, the median of the runs (on a
shared, loaded machine the CPU time is the fairer one-core figure; quote both with the
processor and the load average printed).

Run: ``.venv/bin/python benchmarks/bench_advantage.py [--quick] [--repeats N]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction

from sidebet.advantage.indices import parse_plays
from sidebet.advantage.run import advantage_chunk
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_ramp
from sidebet.sim.chunk import run_chunk, seed_key
from sidebet.sim.spec import resolve_sides
from sidebet.vuln.eor import effects_of_removal
from sidebet.vuln.tags import linear_tags

SIDES = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)
PEN = Fraction(3, 4)


def count_plans() -> tuple[SidePlan, ...]:
    """Each side wager by its best balanced level-1 linear count, from +3 (TCP with Top 3)."""
    out = []
    for wager, paytable in SIDES:
        if wager == "three-card-poker":
            continue
        tags = linear_tags(effects_of_removal(wager, 6, paytable), 1)
        out.append(SidePlan(wager, "count", 1, "linear", tags.values, parse_ramp("3:1")))
    return tuple(out)


def main() -> None:
    quick = "--quick" in sys.argv
    shoes = 2000 if quick else 20000
    repeats = 2 if quick else 9
    if "--repeats" in sys.argv:
        repeats = int(sys.argv[sys.argv.index("--repeats") + 1])
    key = seed_key(2026)
    flat = AdvantageSpec(sides=SIDES, penetration=PEN,
                         plans=tuple(SidePlan(w, "flat") for w, _ in SIDES))
    counted = AdvantageSpec(sides=SIDES, penetration=PEN, plans=count_plans(),
                            plays=parse_plays("i18+fab4"), ramp=parse_ramp("1-12"))
    perfect = AdvantageSpec(sides=SIDES, penetration=PEN,
                            plans=tuple(SidePlan(w, "ev") for w, _ in SIDES),
                            plays=parse_plays("i18+fab4"), ramp=parse_ramp("1-12"))
    sim_spec = flat.sim()
    runs: dict[str, Callable[[int], int]] = {
        "simulator, flat basic strategy": lambda n: run_chunk(sim_spec, key, 0, n, 10**12).rounds,
        "counter kernel, flat": lambda n: advantage_chunk(flat, key, 0, n, 10**12, 0).rounds,
        "Hi-Lo, I18+Fab 4, 1-12, four sides by count":
            lambda n: advantage_chunk(counted, key, 0, n, 10**12, 0).rounds,
        "Hi-Lo, I18+Fab 4, 1-12, four sides by count, every net traced":
            lambda n: advantage_chunk(counted, key, 0, n, 10**12).rounds,
        "Hi-Lo, I18+Fab 4, 1-12, four sides by exact EV":
            lambda n: advantage_chunk(perfect, key, 0, n, 10**12, 0).rounds,
    }
    for fn in runs.values():  # compile, build the tables
        fn(10)
    load0 = os.getloadavg()[0]
    rates: dict[str, list[tuple[float, float]]] = {label: [] for label in runs}
    for _ in range(repeats):
        for label, fn in runs.items():
            n = shoes // 10 if "exact EV" in label else shoes
            w0, c0 = time.perf_counter(), time.process_time()
            rounds = fn(n)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            rates[label].append((rounds / wall, rounds / cpu))
    print(f"rounds per second, median of {repeats} interleaved runs, one core, 6 decks, 75% "
          f"(load average {load0:.1f} to {os.getloadavg()[0]:.1f}):")
    base = statistics.median(cpu for _, cpu in rates["simulator, flat basic strategy"])
    for label, got in rates.items():
        wall = statistics.median(w for w, _ in got)
        cpu = statistics.median(c for _, c in got)
        print(f"  {label:<62} {wall / 1e6:6.2f} M/s wall {cpu / 1e6:6.2f} M/s CPU "
              f"(best {max(c for _, c in got) / 1e6:5.2f})  ({cpu / base:.2f}x the simulator)")


if __name__ == "__main__":
    main()
