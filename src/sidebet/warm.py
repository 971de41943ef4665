"""Warm the caches, so that a user's first command neither compiles nor analyses.

``python -m sidebet.warm`` (run by ``make run``) compiles or loads every numba kernel
(kept by numba next to its module, :mod:`sidebet._jit`) and fills sidebet's disk cache
(:mod:`sidebet.diskcache`) for a 6-deck table with the default house rules: the exact
strategy and Press arrays, the exact Blackjack value, the side wagers' outcome tables
and full-shoe PAR counts.  It prints what it did and how long each step took.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

__all__ = ["warm"]


def _steps(decks: int) -> list[tuple[str, Callable[[], object]]]:
    from sidebet.blackjack.house_edge import house_edge
    from sidebet.blackjack.strategy import basic_strategy, composition_strategy
    from sidebet.cli.strategy_cmds import Kind, _strategy_data
    from sidebet.par import all_par_sheets, count_outcomes
    from sidebet.rules import HouseRules
    from sidebet.shoe import Shoe
    from sidebet.sim import SimSpec, default_sides, resolve_sides, simulate

    sides = resolve_sides(list(default_sides(decks)), decks)
    rules = HouseRules()
    return [
        ("PAR sheets and the counting kernel",
         lambda: (all_par_sheets([decks]), count_outcomes(sides[0][0], Shoe.standard(1)))),
        ("simulator, complete rounds (strategy, exact values, kernels)",
         lambda: simulate(SimSpec(decks=decks, sides=sides, press="advice"), 1000, seed=0)),
        ("simulator, side wagers only",
         lambda: simulate(SimSpec(decks=decks, sides=sides, side_only=True), 1000, seed=0)),
        ("exact analyser (basic and composition strategy, house edge)",
         lambda: (basic_strategy(rules, decks), composition_strategy(rules, decks),
                  house_edge(decks, rules, "cd"))),
        ("strategy charts (sidebet strategy, both kinds)",
         lambda: [_strategy_data(rules, decks, kind) for kind in Kind]),
    ]


def warm(decks: int = 6, out: Callable[[str], object] = print) -> None:
    """Run each warming step, reporting its time through ``out``."""
    for label, step in _steps(decks):
        start = time.perf_counter()
        step()
        out(f"warm: {label}: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    warm(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
