"""Compile the simulator's kernel ahead of time with ``numba.pycc`` (imported only to build).

The exported functions take the fields of the kernel's argument records
(:mod:`sidebet.sim.layout`) one by one, in field order, rebuild the records and call
:func:`sidebet.sim.kernels.play_chunk`; their signatures are written from the layout's
type table, the same table :mod:`sidebet.sim.compiled` checks every call against.  The
extension is built in a temporary folder next to its place and renamed into place, so a
concurrent process finds either no file or a whole one.

``numba.pycc`` is deprecated (pending) upstream; if it is gone or fails, :func:`build`
reports one line and the simulator keeps using numba's JIT kernels.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
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

__all__ = ["build", "decision_table", "exports", "play_full", "play_side"]

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
        max_rounds)


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
        max_rounds)


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


def build(path: Path, module: str, cpu: tuple[str, bool],
          report: Callable[[str], object] | None = None) -> Path | None:
    """Compile the extension ``module`` to ``path`` (tuned for this processor when
    ``cpu[1]``); ``None`` with one line to ``report`` if it cannot be built here."""
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba.pycc's pending deprecation
            pycc: Any = importlib.import_module("numba.pycc")  # untyped

            cc = pycc.CC(module)
            if cpu[1]:
                cc.target_cpu = "host"
            cc.verbose = False
            for name, (func, sig) in exports().items():
                cc.export(name, sig)(func)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".build-"))
            try:
                cc.output_dir = str(tmp)
                cc.compile()
                _write_info(path.parent / "build.json", cpu, time.perf_counter() - start)
                os.replace(tmp / cc.output_file, path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    except Exception as exc:  # any failure: one line, then the JIT kernels
        if report is not None:
            report(f"the compiled simulator cannot be built here ({type(exc).__name__}: "
                   f"{exc}); the simulator uses numba's JIT kernels")
        return None
    return path


def _write_info(where: Path, cpu: tuple[str, bool], seconds: float) -> None:
    """What the extension was built for, for people (the digest in its name decides)."""
    import numba
    import numpy

    llvm: Any = importlib.import_module("llvmlite.binding")  # untyped
    info = {"numba": numba.__version__, "numpy": numpy.__version__, "python": sys.version,
            "target_cpu": llvm.get_host_cpu_name() if cpu[1] else "generic",
            "cpu": cpu[0][:200], "seconds": round(seconds, 1)}
    where.write_text(json.dumps(info, indent=1) + "\n")
