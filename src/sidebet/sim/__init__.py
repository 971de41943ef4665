"""The simulator: complete rounds with every side wager at compiled speed.

>>> from sidebet.sim import SimSpec, resolve_sides, simulate
>>> spec = SimSpec(decks=6, seats=2, sides=resolve_sides(["trilux", "blazing7s"], 6),
...                press="all")
>>> result = simulate(spec, rounds=2_000, seed=1, with_exact=False)
>>> result.rounds, result.seat_rounds
(2000, 4000)
>>> result.to_json()["side_wagers"][0]["wager"]
'trilux'

Every name is loaded on first use (PEP 562), so that importing one module of the package
(say :mod:`sidebet.sim.results`) runs no other: the kernels and numpy only come with the
names that need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sidebet.sim.chunk import ChunkResult, OrdersRun, run_chunk, run_orders, seed_key
    from sidebet.sim.results import Estimate, SimResult, Tally, WagerResult
    from sidebet.sim.runner import BACKENDS, CHUNK_SHOES, exact_values, simulate
    from sidebet.sim.spec import MAX_SEATS, KernelInputs, SimSpec, default_sides, resolve_sides
    from sidebet.sim.strategy_tables import (
        PRESS_POLICIES,
        STRATEGIES,
        PressArray,
        StrategyArrays,
        chart_arrays,
        press_array,
        press_rule,
        strategy_arrays,
    )

__all__ = [
    "BACKENDS",
    "CHUNK_SHOES",
    "MAX_SEATS",
    "PRESS_POLICIES",
    "STRATEGIES",
    "ChunkResult",
    "Estimate",
    "KernelInputs",
    "OrdersRun",
    "PressArray",
    "SimResult",
    "SimSpec",
    "StrategyArrays",
    "Tally",
    "WagerResult",
    "chart_arrays",
    "default_sides",
    "exact_values",
    "press_array",
    "press_rule",
    "resolve_sides",
    "run_chunk",
    "run_orders",
    "seed_key",
    "simulate",
    "strategy_arrays",
]

_LAZY = {
    **dict.fromkeys(("ChunkResult", "OrdersRun", "run_chunk", "run_orders", "seed_key"),
                    "sidebet.sim.chunk"),
    **dict.fromkeys(("Estimate", "SimResult", "Tally", "WagerResult"), "sidebet.sim.results"),
    **dict.fromkeys(("BACKENDS", "CHUNK_SHOES", "exact_values", "simulate"),
                    "sidebet.sim.runner"),
    **dict.fromkeys(("MAX_SEATS", "KernelInputs", "SimSpec", "default_sides",
                     "resolve_sides"), "sidebet.sim.spec"),
    **dict.fromkeys(("PRESS_POLICIES", "STRATEGIES", "PressArray", "StrategyArrays",
                     "chart_arrays", "press_array", "press_rule", "strategy_arrays"),
                    "sidebet.sim.strategy_tables"),
}
"""Where each name of the package lives, imported on first use."""


def __getattr__(name: str) -> Any:
    """The package's names, imported on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sidebet.sim' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

