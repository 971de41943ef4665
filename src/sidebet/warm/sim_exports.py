"""The simulator's part of the compiled extension (imports numba; used only to build).

The exported functions take the fields of the kernel's argument records
(:mod:`sidebet.sim.layout`) one by one, in field order, rebuild the records and call
:func:`sidebet.sim.kernels.play_chunk` (without a counter); their signatures are written from the layout's
type table, the same table :mod:`sidebet.sim.compiled` checks every call against.
:mod:`sidebet.warm.extension` compiles them with the analyser's kernels into one extension.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidebet.sim import kernels
from sidebet.sim.layout import (
    DECISION_TABLE_TYPES,
    OUTPUTS_TYPES,
    PLAY_ARRAYS_TYPES,
    ROUND_TABLES_TYPES,
    SHOE_STREAM_TYPES,
    ArgType,
    Outputs,
    PlayArrays,
    RoundTables,
    ShoeStream,
    output_types,
    signature,
)

__all__ = ["decision_table", "exports", "play_full", "play_side"]

_play_chunk = kernels.play_chunk
_decision_table = kernels.decision_table


def play_full(buf: Any, base: Any, orders: Any, key0: Any, key1: Any, shoe0: int,
              nshoes: int, cut: int,
              seats: int, bet: int, combo_tab: Any, combo_net: Any, combo_offer: Any,
              combo_pay: Any, press_mode: int, press_tab: Any, rules: Any, vals: Any,
              hist_off: int,
              decide2: Any, hs_hard: Any, hs_soft: Any,
              combo_counts: Any, round2: Any, seat_stats: Any, stats: Any, hist: Any,
              trace: Any, info: Any, marks: Any,
              max_rounds: int) -> int:  # pragma: no cover - compiled
    """Complete rounds: :func:`sidebet.sim.kernels.play_chunk` with strategy arrays."""
    return _play_chunk(
        ShoeStream(buf, base, orders, key0, key1, shoe0, nshoes, cut),
        RoundTables(seats, bet, combo_tab, combo_net, combo_offer, combo_pay, press_mode,
                    press_tab, rules, vals, hist_off),
        PlayArrays(decide2, hs_hard, hs_soft),
        Outputs(combo_counts, round2, seat_stats, stats, hist, trace, info, marks),
        max_rounds, None, None)


def play_side(buf: Any, base: Any, orders: Any, key0: Any, key1: Any, shoe0: int,
              nshoes: int, cut: int,
              seats: int, bet: int, combo_tab: Any, combo_net: Any, combo_offer: Any,
              combo_pay: Any, press_mode: int, press_tab: Any, rules: Any, vals: Any,
              hist_off: int,
              combo_counts: Any, round2: Any, seat_stats: Any, stats: Any, hist: Any,
              trace: Any, info: Any, marks: Any,
              max_rounds: int) -> int:  # pragma: no cover - compiled
    """Side wagers only: :func:`sidebet.sim.kernels.play_chunk` with ``play`` None."""
    return _play_chunk(
        ShoeStream(buf, base, orders, key0, key1, shoe0, nshoes, cut),
        RoundTables(seats, bet, combo_tab, combo_net, combo_offer, combo_pay, press_mode,
                    press_tab, rules, vals, hist_off),
        None,
        Outputs(combo_counts, round2, seat_stats, stats, hist, trace, info, marks),
        max_rounds, None, None)


def decision_table(hard2: Any, soft2: Any, pair: Any, nosplit: Any, hs_hard: Any,
                   hs_soft: Any, rules: Any) -> Any:  # pragma: no cover - compiled
    """:func:`sidebet.sim.kernels.decision_table`."""
    return _decision_table(hard2, soft2, pair, nosplit, hs_hard, hs_soft, rules)


def exports() -> dict[str, tuple[Callable[..., Any], str]]:
    """Each exported function with its signature in numba's notation."""
    count = ArgType("int64", 0).numba_code
    records = f"{signature(SHOE_STREAM_TYPES)}, {signature(ROUND_TABLES_TYPES)}"
    table = PLAY_ARRAYS_TYPES[0].numba_code
    return {
        "play_full": (play_full, f"{count}({records}, {signature(PLAY_ARRAYS_TYPES)}, "
                                 f"{signature(OUTPUTS_TYPES)}, {count})"),
        "play_side": (play_side, f"{count}({records}, {signature(output_types(False))}, "
                                 f"{count})"),
        "decision_table": (decision_table, f"{table}("
                           f"{signature(tuple(t for _, t in DECISION_TABLE_TYPES))})"),
    }
