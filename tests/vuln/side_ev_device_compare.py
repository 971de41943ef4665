"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the test that runs
this file): the side wagers' exact EV along a few shuffled shoes on the device and on the
CPU; prints one JSON line: whether they are equal, and how many values."""

from __future__ import annotations

import json
import warnings

import numpy as np

from sidebet.sim.spec import default_sides, resolve_sides
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


if __name__ == "__main__":
    main()
