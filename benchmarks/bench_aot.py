"""The simulator's kernel compiled ahead of time (``numba.pycc``) against numba's JIT kernel.

Both run the same chunks in this process, interleaved (AOT, JIT, AOT, JIT, ...), so a
busy machine slows both alike; the best rate of ``--repeat`` runs by the process's CPU
time is printed, with the ratio AOT / JIT.  The extension is built into the disk cache
first if it is not there (as ``make run`` does).  The processor and the load average are
printed with the figures: quote them together.

Run: ``.venv/bin/python benchmarks/bench_aot.py [--repeat N] [--rounds N ...]``.
"""

from __future__ import annotations

import argparse
import os
import time

from bench_sim import processor  # this folder: benchmarks run as scripts
from sidebet.sim import SimSpec, resolve_sides, run_chunk, seed_key
from sidebet.sim.compiled import load_extension
from sidebet.warm.extension import ensure_built

ALL4 = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)
SPECS = [
    ("complete rounds, 1 seat, all four side wagers", SimSpec(decks=6, seats=1, sides=ALL4)),
    ("complete rounds, 7 seats, press by advice",
     SimSpec(decks=6, seats=7, sides=ALL4, press="advice")),
    ("side wagers only, 1 seat", SimSpec(decks=6, seats=1, sides=ALL4, side_only=True)),
]


def cpu_rate(spec: SimSpec, rounds: int, aot: bool, k: int) -> float:
    """Rounds per CPU second of one chunk of ``rounds`` rounds by one kernel."""
    if aot:
        os.environ.pop("SIDEBET_AOT", None)
    else:
        os.environ["SIDEBET_AOT"] = "off"
    start = time.process_time()
    res = run_chunk(spec, seed_key(1 + k), 0, 10**9, rounds)
    return res.rounds / max(time.process_time() - start, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=float, nargs="*", default=[1e5, 1e6, 1e7])
    opts = parser.parse_args()
    if ensure_built(print) is None or load_extension() is None:
        raise SystemExit("no compiled simulator here; nothing to compare")
    print(f"processor: {processor()}; load average {os.getloadavg()[0]:.2f} at start")
    print(f"{'kernel':<48} {'rounds':>8} {'AOT':>9} {'JIT':>9} {'AOT/JIT':>8}")
    for label, spec in SPECS:
        for aot in (True, False):  # load or compile both before timing
            cpu_rate(spec, 1000, aot, 0)
        for rounds in (int(r) for r in opts.rounds):
            best = {True: 0.0, False: 0.0}
            for k in range(opts.repeat):
                for aot in (True, False):
                    best[aot] = max(best[aot], cpu_rate(spec, rounds, aot, k))
            print(f"{label:<48} {rounds:>8.0e} {best[True] / 1e6:>7.2f} M "
                  f"{best[False] / 1e6:>7.2f} M {best[True] / best[False]:>8.3f}", flush=True)
    os.environ.pop("SIDEBET_AOT", None)
    print(f"load average {os.getloadavg()[0]:.2f} at the end; rates: best of {opts.repeat} "
          "by process CPU time, rounds per second")


if __name__ == "__main__":
    main()
