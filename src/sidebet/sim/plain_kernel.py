"""The simulator's kernel for a process without numpy: the plain library's entry points.

:func:`play_chunk` takes the same records as :func:`sidebet.sim.compiled.play_chunk`, with
any buffers for arrays (``array.array``, ``bytearray``, numpy arrays), checks every field
against :func:`sidebet.sim.layout.kernel_params` and plays the chunk through the library
that :mod:`sidebet.native.cabi` loads (the same numba kernel, built by the warm-up).  Its
results are those of the extension and of the JIT kernel, bit for bit
(``tests/sim/test_plain_kernel.py``).
"""

from __future__ import annotations

from typing import Any

from sidebet.native.cabi import ENTRY_POINTS, block, library
from sidebet.sim.layout import Outputs, PlayArrays, RoundTables, ShoeStream, kernel_params

__all__ = ["available", "play_chunk"]

_FULL, _SIDE = kernel_params(True), kernel_params(False)


def available() -> bool:
    """Whether the plain library is built and loads (``SIDEBET_AOT=off`` says no)."""
    return library() is not None


def play_chunk(src: ShoeStream, tab: RoundTables, play: PlayArrays | None, out: Outputs,
               max_rounds: int, hist_nonzero: Any | None = None) -> int:
    """:func:`sidebet.sim.kernels.play_chunk` through the plain library: rounds played.
    ``hist_nonzero`` (complete rounds only): an int64 buffer of ``1 + 2 * len(out.hist)``
    items, filled with the histogram's non-zero entries as ``[count, index, value, ...]``.
    A :class:`RuntimeError` if the library is not built."""
    lib = library()
    if lib is None:
        raise RuntimeError("the plain kernel library is not built (python -m sidebet.warm)")
    if hist_nonzero is not None:
        if play is None:
            raise ValueError("hist_nonzero: side-wager-only rounds keep no histogram")
        need = 1 + 2 * len(memoryview(out.hist))
        if len(memoryview(hist_nonzero)) < need:
            raise ValueError(f"hist_nonzero: expected at least {need} items")
    values = [*src, *tab, *(play or ()), *out, max_rounds]
    args = block(_FULL if play is not None else _SIDE, values)
    return lib.call(ENTRY_POINTS[0] if play is not None else ENTRY_POINTS[1], args,
                    hist_nonzero)
