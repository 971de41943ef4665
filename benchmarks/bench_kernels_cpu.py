"""Kernel rates by process CPU time, best of three: for comparing two trees on a busy
machine (wall-clock rates, as ``bench_sim.py`` prints them, follow the machine's load).

Each case runs one chunk in this process after a warm-up; the rate is rounds per second of
CPU time of this process, the best of three runs.  Compare two trees by running this file
under each (e.g. ``PYTHONPATH=/path/to/other/src``), interleaved.

Run: ``.venv/bin/python benchmarks/bench_kernels_cpu.py [rounds] [case prefix ...]``.
"""

from __future__ import annotations

import sys
import time

from sidebet.rules import BlackjackPays, HoleCard, HouseRules
from sidebet.sim import SimSpec, resolve_sides, run_chunk, seed_key

ALL4 = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)
H17_NOPEEK_RSA_65 = HouseRules(dealer_hits_soft_17=True, resplit_aces=True,
                               hole_card=HoleCard.AFTER_PLAYERS,
                               blackjack_pays=BlackjackPays.SIX_TO_FIVE)


def rate(spec: SimSpec, rounds: int) -> float:
    """Best of three rounds per CPU second."""
    run_chunk(spec, seed_key(0), 0, 2, 100)  # compile / load the cache
    best = 0.0
    for _ in range(3):
        start = time.process_time()
        res = run_chunk(spec, seed_key(1), 0, 10**9, rounds)
        best = max(best, res.rounds / (time.process_time() - start))
    return best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000_000
    wanted = tuple(sys.argv[2:]) or ("",)
    cases = [
        ("side only 1 seat all4", SimSpec(sides=ALL4, side_only=True), 4 * n),
        ("side only 7 seats", SimSpec(seats=7, sides=ALL4, side_only=True), n),
        ("full 1 seat no sides", SimSpec(), n),
        ("full 1 seat all4", SimSpec(sides=ALL4), n),
        ("full advice", SimSpec(sides=ALL4, press="advice"), n),
        ("full H17 nopeek RSA 6:5", SimSpec(sides=ALL4, rules=H17_NOPEEK_RSA_65), n),
        ("full 7 seats advice", SimSpec(seats=7, sides=ALL4, press="advice"), n // 7),
    ]
    for label, spec, rounds in cases:
        if label.startswith(wanted):
            print(f"{label:<30} {rate(spec, rounds) / 1e6:8.2f} M rounds/s (CPU)", flush=True)


if __name__ == "__main__":
    main()
