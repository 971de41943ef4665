"""Simulator speed: rounds per second of the kernels and of whole runs.

Targets, one core: at least 20 million complete rounds per second for one seat
with basic strategy and all four side wagers, and at least 120 million side-wager-only
rounds per second.

Kernel rates run one chunk in this process (after a warm-up), best of ``REPEAT`` runs,
by the wall clock and by the process's CPU time (on a shared machine the CPU-time rate
is what the kernel does when it runs; the wall-clock rate includes waiting for the
processor).  The kernel is the one compiled ahead of time when it is built (``make run``),
else numba's JIT kernel; the first line says which (``SIDEBET_AOT=off`` forces the JIT
kernel; ``bench_aot.py`` compares the two).  Run rates go through :func:`sidebet.sim.simulate` (chunking, tallies, exact
values excluded).  Also prints a large-run check of the side wagers against their exact
PAR values and of the base game.  The processor and the load average are printed with
the figures: quote them together.

Run: ``.venv/bin/python benchmarks/bench_sim.py [--quick]``.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

from sidebet.regulation.house_rules import BlackjackPays, HoleCard, HouseRules
from sidebet.sim import SimSpec, exact_values, resolve_sides, run_chunk, seed_key, simulate
from sidebet.sim.compiled import load_extension

ALL4 = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)
REPEAT = 3


def processor() -> str:
    """The processor's model name (``/proc/cpuinfo``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def kernel_rate(label: str, spec: SimSpec, rounds: int) -> float:
    """Best wall-clock rate of ``REPEAT`` runs (printed with the best CPU-time rate);
    returns the CPU-time rate."""
    run_chunk(spec, seed_key(0), 0, 2, 100)  # compile / load the cache
    wall = cpu = 0.0
    for k in range(REPEAT):
        start, start_cpu = time.perf_counter(), time.process_time()
        res = run_chunk(spec, seed_key(1 + k), 0, 10**9, rounds)
        wall = max(wall, res.rounds / (time.perf_counter() - start))
        cpu = max(cpu, res.rounds / max(time.process_time() - start_cpu, 1e-9))
    per_seat = 1e9 / cpu / spec.seats
    print(f"{label:<66} {wall / 1e6:8.2f} {cpu / 1e6:8.2f} M rounds/s {per_seat:6.1f} ns")
    return cpu


def run_rate(label: str, spec: SimSpec, rounds: int, workers: int = 1) -> float:
    simulate(spec, 1000, seed=0, with_exact=False)
    result = simulate(spec, rounds, seed=1, workers=workers, with_exact=False)
    print(f"{label:<66} {result.rate / 1e6:8.2f} M rounds/s")
    return result.rate


def main() -> None:
    quick = "--quick" in sys.argv
    n = 5_000_000 if quick else 40_000_000
    print(f"processor: {processor()}; load average {os.getloadavg()[0]:.2f} at start")
    which = ("compiled ahead of time (numba.pycc)" if load_extension() is not None
             else "numba's JIT")
    print(f"kernel: {which}; SIDEBET_AOT=off measures the JIT kernel, bench_aot.py both")
    print(f"kernel, one core, best of {REPEAT}: {'wall':>56} {'CPU':>8}            "
          "CPU ns per seat-round")
    side = kernel_rate("side wagers only, 1 seat, all four (+ Three Card Poker)",
                       SimSpec(sides=ALL4, side_only=True), 4 * n)
    kernel_rate("side wagers only, 7 seats, all four", SimSpec(seats=7, sides=ALL4,
                                                               side_only=True), n)
    kernel_rate("full rounds, 1 seat, basic strategy, no side wagers", SimSpec(), n)
    full = kernel_rate("full rounds, 1 seat, basic strategy, all four side wagers",
                       SimSpec(sides=ALL4), n)
    kernel_rate("  ... and Press by advice", SimSpec(sides=ALL4, press="advice"), n)
    kernel_rate("  ... and Press everything", SimSpec(sides=ALL4, press="all"), n)
    kernel_rate("  ... H17, no peek, RSA, 6:5 rules", SimSpec(sides=ALL4, rules=HouseRules(
        dealer_hits_soft_17=True, resplit_aces=True, hole_card=HoleCard.AFTER_PLAYERS,
        blackjack_pays=BlackjackPays.SIX_TO_FIVE)), n)
    kernel_rate("full rounds, 3 seats (rounds, not seat-rounds), all four, advice",
                SimSpec(seats=3, sides=ALL4, press="advice"), n // 3)
    kernel_rate("full rounds, 7 seats (rounds, not seat-rounds), all four, advice",
                SimSpec(seats=7, sides=ALL4, press="advice"), n // 7)
    print()
    print("whole runs (simulate)")
    one = run_rate("full rounds, 1 seat, all four, 1 worker", SimSpec(sides=ALL4), n)
    two = run_rate("full rounds, 1 seat, all four, 2 worker processes", SimSpec(sides=ALL4), n,
                   workers=2)
    print(f"  2 workers / 1 worker: {two / one:.2f}x on {os.cpu_count()} logical CPUs "
          f"(load average {os.getloadavg()[0]:.2f}; workers receive the kernel arrays once)")
    print()
    print(f"load average {os.getloadavg()[0]:.2f}")
    verdict = "met" if full >= 20e6 else "NOT met"
    print(f"target 20 M full rounds/s (1 seat, all four side wagers, CPU time): {verdict} "
          f"({full / 1e6:.2f} M/s)")
    verdict = "met" if side >= 120e6 else "NOT met"
    print(f"target 120 M side-wager-only rounds/s (CPU time): {verdict} ({side / 1e6:.2f} M/s)")
    print()
    print("convergence (large run, full rounds, 1 seat, all four, Press by advice)")
    spec = SimSpec(sides=ALL4, press="advice")
    result = simulate(spec, n * 2, seed=99)
    exact = exact_values(spec)
    print("  (about one interval in twenty misses its exact value by chance; z is the")
    print("  distance in standard errors)")
    for w in result.wagers():
        lo, hi = w.estimate.ci
        z = (w.estimate.mean - exact[w.wager]) / w.estimate.std_error
        print(f"  {w.name:<18} {w.estimate.mean:+.5f}  95% CI [{lo:+.5f}, {hi:+.5f}]  "
              f"exact {exact[w.wager]:+.5f}  z {z:+.2f}")
    bj = result.blackjack()
    assert bj is not None
    wp = bj["without_press"]
    print(f"  Blackjack (no Press) {wp['return_per_unit']:+.5f}  95% CI "
          f"[{wp['ci95'][0]:+.5f}, {wp['ci95'][1]:+.5f}]"
          + (f"  exact {bj['exact_return']:+.5f}" if "exact_return" in bj else ""))


if __name__ == "__main__":
    main()
