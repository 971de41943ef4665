"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the test that runs
this file): the side wagers' exact EV along a few shuffled shoes on the device and on the
CPU, then the design's screen of many paytables on sampled depleted shoes on both; prints
one JSON line each: whether they are equal, and how many values (and nonzero ones)."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np

from sidebet.sim.spec import default_sides, resolve_sides
from sidebet.vuln.design import depleted_sample, screen_sums
from sidebet.vuln.side_ev import ev_tables
from sidebet.vuln.side_ev_device import evs_along_many


def main() -> None:
    warnings.simplefilter("ignore")
    tables = ev_tables(resolve_sides(list(default_sides(6)), 6))
    rng = np.random.default_rng(36)
    full = np.full(52, 6, dtype=np.int64)
    cards = np.array([rng.permutation(np.repeat(np.arange(52), 6)) for _ in range(3)])
    points = np.arange(0, 240, 7, dtype=np.int64)
    counts = np.array([full] * 3)
    gpu = evs_along_many(tables, counts, cards, points)
    cpu = np.array([tables.along(full, cards[i], points) for i in range(3)])
    print(json.dumps({"equal": bool(np.array_equal(gpu, cpu)), "values": int(cpu.size),
                      "nonzero": int(np.count_nonzero(cpu))}))
    # the screen: Blazing 7's paytables (7 outcomes) on 40 shoes dealt to random depths
    from sidebet.exact.par import count_outcomes

    shoes = depleted_sample(1, Fraction(3, 4), 40, 7)
    got = [count_outcomes("blazing7s", left) for left in shoes]
    counts = np.array([g[:6] for g in got], dtype=np.int64)  # (the 7th: losses)
    totals = np.array([g.sum() for g in got], dtype=np.int64)
    pays = np.array([[a, b, c, d, e, f] for a in (500, 2000) for b in (100, 300)
                     for c in (50, 80) for d in (20, 40) for e in (5, 10) for f in (1, 3)],
                    dtype=np.int64)
    on_cpu = screen_sums(pays, counts, totals)
    on_gpu = screen_sums(pays, counts, totals, gpu=True)
    print(json.dumps({"equal": bool(np.array_equal(on_gpu, on_cpu)), "values": int(on_cpu.size),
                      "nonzero": int(np.count_nonzero(on_cpu))}))


if __name__ == "__main__":
    main()
