"""The simulator's kernel, compiled ahead of time when it can be, else by numba's JIT.

:func:`sidebet.sim.kernels.play_chunk` and :func:`sidebet.sim.kernels.decision_table`
are compiled ahead of time into sidebet's one extension (:mod:`sidebet.native.extension`, which also
loads it; the adapters are in :mod:`sidebet.warm.sim_exports`).  When that extension is
there, :func:`play_chunk` and :func:`decision_table` call it and the process never
imports numba; when it is absent, cannot be loaded, or ``SIDEBET_AOT=off``, they call the
JIT kernels (:mod:`sidebet.sim.kernels`), with identical results.

Every call is checked first against the types of :mod:`sidebet.sim.layout`, the table the
compiled signatures are made from; the JIT path gets the same checks, so both fail alike.
(The loader's names, :func:`load_extension`, :func:`extension_path`, ..., are re-exported
here from :mod:`sidebet.native.extension`; :func:`sidebet.warm.extension.ensure_built`
builds it.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from sidebet.native.extension import (
    EXPORTS,
    aot_enabled,
    build_key,
    call,
    cpu_identity,
    extension_path,
    load_extension,
)
from sidebet.sim.layout import (
    DECISION_TABLE_TYPES,
    MAX_ROUNDS_TYPE,
    PLAY_ARRAYS_TYPES,
    ROUND_TABLES_TYPES,
    SHOE_STREAM_TYPES,
    Outputs,
    PlayArrays,
    RoundTables,
    ShoeStream,
    check_record,
    output_types,
)

__all__ = ["DECISION_TABLE_TYPES", "EXPORTS", "aot_enabled", "build_key", "cpu_identity",
           "decision_table", "extension_path", "load_extension", "play_chunk"]


def play_chunk(src: ShoeStream, tab: RoundTables, play: PlayArrays | None, out: Outputs,
               max_rounds: int) -> int:
    """:func:`sidebet.sim.kernels.play_chunk` (same arguments, same result), by the
    compiled extension when there is one.  Every field is checked first: a wrong dtype,
    number of dimensions, a non-contiguous array or a read-only output raises a
    :class:`TypeError` or :class:`ValueError` naming the field."""
    args = [*check_record(src, ShoeStream, SHOE_STREAM_TYPES),
            *check_record(tab, RoundTables, ROUND_TABLES_TYPES)]
    if play is not None:
        args += check_record(play, PlayArrays, PLAY_ARRAYS_TYPES)
    args += check_record(out, Outputs, output_types(play is not None))
    rounds = MAX_ROUNDS_TYPE.check("max_rounds", max_rounds)
    module = load_extension()
    if module is not None:
        fn = module.play_side if play is None else module.play_full
        return int(fn(*args, rounds))
    from sidebet.sim import kernels  # numba: only without the compiled extension

    return int(kernels.play_chunk(src, tab, play, out, max_rounds, None, None))


def decision_table(hard2: npt.NDArray[np.int8], soft2: npt.NDArray[np.int8],
                   pair: npt.NDArray[np.int8], nosplit: npt.NDArray[np.int8],
                   hs_hard: npt.NDArray[np.int8], hs_soft: npt.NDArray[np.int8],
                   rules: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
    """:func:`sidebet.sim.kernels.decision_table`, by the compiled extension when there
    is one (arguments checked as for :func:`play_chunk`)."""
    table: npt.NDArray[np.int8] = call(
        "decision_table", "decision_table", DECISION_TABLE_TYPES,
        (hard2, soft2, pair, nosplit, hs_hard, hs_soft, rules), _jit_decision_table)
    return table


def _jit_decision_table() -> Callable[..., npt.NDArray[np.int8]]:
    from sidebet.sim import kernels  # numba: only without the compiled extension

    fn: Callable[..., npt.NDArray[np.int8]] = kernels.decision_table
    return fn
