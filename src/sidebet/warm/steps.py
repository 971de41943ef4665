"""Warm the caches, so that a user's first command neither compiles nor analyses.

``python -m sidebet.warm`` (run by ``make run``) compiles or loads every numba kernel
(kept by numba next to its module, :mod:`sidebet.native.jit`) and fills sidebet's disk cache
(:mod:`sidebet.native.diskcache`) for a 6-deck table with the default house rules: the exact
strategy and Press arrays, the exact Blackjack value, the side wagers' outcome tables
and full-shoe PAR counts; and it compiles the simulator's and the analyser's kernels ahead
of time into that cache (:mod:`sidebet.native.extension`), so that ``sidebet simulate`` and ``sidebet
strategy`` need not import numba.
It prints what it did and how long each step took.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

__all__ = ["warm"]


def _steps(decks: int, out: Callable[[str], object]) -> list[tuple[str, Callable[[], object]]]:
    from sidebet.cli.strategy_cmds import Kind, _strategy_data
    from sidebet.core.shoe import Shoe
    from sidebet.exact.blackjack.engine import analyse
    from sidebet.exact.blackjack.house_edge import house_edge
    from sidebet.exact.blackjack.strategy import basic_strategy, composition_strategy
    from sidebet.exact.par import all_par_sheets, count_outcomes
    from sidebet.regulation.house_rules import HouseRules
    from sidebet.sim import SimSpec, default_sides, resolve_sides, simulate
    from sidebet.warm.extension import ensure_built

    sides = resolve_sides(list(default_sides(decks)), decks)
    rules = HouseRules()
    return [
        ("simulator and analyser compiled ahead of time (numba.pycc; skipped if built)",
         lambda: ensure_built(lambda line: out(f"warm: {line}"))),
        ("PAR sheets and the counting kernel",
         lambda: (all_par_sheets([decks]), count_outcomes(sides[0][0], Shoe.standard(1)))),
        ("simulator, complete rounds (strategy, exact values, kernels)",
         lambda: simulate(SimSpec(decks=decks, sides=sides, press="advice"), 1000, seed=0)),
        ("simulator, side wagers only",
         lambda: simulate(SimSpec(decks=decks, sides=sides, side_only=True), 1000, seed=0)),
        ("simulator's JIT kernels (the fallback: SIDEBET_AOT=off or no compiled simulator)",
         lambda: _jit_only(lambda: [
             simulate(SimSpec(decks=decks, sides=sides, press="advice"), 1000, seed=0),
             simulate(SimSpec(decks=decks, sides=sides, side_only=True), 1000, seed=0)])),
        ("analyser's JIT kernels (the fallback), on a 51-card shoe no other step analyses",
         lambda: _jit_only(lambda: analyse((4,) * 9 + (15,), rules))),
        ("exact analyser (basic and composition strategy, house edge)",
         lambda: (basic_strategy(rules, decks), composition_strategy(rules, decks),
                  house_edge(decks, rules, "cd"))),
        ("strategy charts (sidebet strategy, both kinds)",
         lambda: [_strategy_data(rules, decks, kind) for kind in Kind]),
    ]


def _jit_only(step: Callable[[], object]) -> object:
    """Run ``step`` with the compiled kernels turned off (``SIDEBET_AOT=off``)."""
    before = os.environ.get("SIDEBET_AOT")
    os.environ["SIDEBET_AOT"] = "off"
    try:
        return step()
    finally:
        if before is None:
            del os.environ["SIDEBET_AOT"]
        else:
            os.environ["SIDEBET_AOT"] = before


def warm(decks: int = 6, out: Callable[[str], object] = print) -> None:
    """Run each warming step, reporting its time through ``out``."""
    for label, step in _steps(decks, out):
        start = time.perf_counter()
        step()
        out(f"warm: {label}: {time.perf_counter() - start:.2f} s")

