"""The side wagers' exact EV along many shoes at once on a CUDA device: one shoe a thread.

Each thread walks one shoe with :func:`sidebet.vuln.side_ev_kernel.walk`, the function the
CPU's :func:`~sidebet.vuln.side_ev_kernel.evs_along` runs, compiled again as a CUDA device
function (:func:`sidebet.native.jit.device_kernel`), in its own local EV state.  The sums
are integers and each expected return is one division of them, so on numba's CUDA
simulator the values equal the CPU's exactly (``tests/vuln/test_side_ev_device.py``); a
device may fuse a multiply and an add in the last step (a difference of an ulp at most,
still to be measured).  ``vulnerability --device gpu`` uses it for the EV before every
round (:func:`sidebet.vuln.counter.walk_chunk`).

:func:`screen_many` is the perfect player's return on sampled shoes for many paytables
(:func:`sidebet.vuln.side_ev_kernel.screen_row`, one paytable a thread), which ``design
--device gpu`` runs for every paytable it screens.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.native.jit import device_kernel
from sidebet.sim.exact_ev import NCAT, NSTATE
from sidebet.vuln.side_ev import EVTables
from sidebet.vuln.side_ev_kernel import screen_row, walk

cuda: Any = None
with contextlib.suppress(ImportError):  # (numba without its CUDA target: no device)
    from numba import cuda

__all__ = ["evs_along_many", "screen_many"]

THREADS = 64
"""Threads (shoes) per block."""
SCREEN_THREADS = 128
"""Threads (paytables) per block of the screen."""


def _walks(counts: Any, cards: Any, points: Any, weights: Any, cls: Any, ma: Any, mb: Any,
           lucky: Any, nb: Any, out: Any) -> None:  # pragma: no cover - device
    """Thread ``t`` walks shoe ``t``: ``counts[t]`` less ``cards[t]``, into ``out[t]``."""
    t = cuda.grid(1)
    if t < counts.shape[0]:
        st = cuda.local.array(NSTATE, np.int64)
        cats = cuda.local.array(NCAT, np.int64)
        walk(st, cats, counts[t], cards[t], points, weights, cls, ma, mb, lucky, nb, out[t])


def evs_along_many(tables: EVTables, counts: npt.ArrayLike, cards: npt.ArrayLike,
                   points: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``[shoe, point, wager]``: for each shoe ``i`` what
    :meth:`sidebet.vuln.side_ev.EVTables.along` gives for ``counts[i]``, ``cards[i]`` and
    the shared ``points``, computed on the device."""
    c = np.ascontiguousarray(counts, dtype=np.int64)
    seq = np.ascontiguousarray(cards, dtype=np.int64)
    pts = np.ascontiguousarray(points, dtype=np.int64)
    out = np.zeros((c.shape[0], len(pts), len(tables.sides)), dtype=np.float64)
    if c.shape[0]:
        kernel = device_kernel(_walks)
        ins = [cuda.to_device(a) for a in (c, seq, pts, tables.weights, *tables.args())]
        d_out = cuda.to_device(out)
        kernel[math.ceil(c.shape[0] / THREADS), THREADS](*ins, d_out)
        cuda.synchronize()
        d_out.copy_to_host(out)
    return out


def _screens(pays: Any, counts: Any, totals: Any, out: Any) -> None:  # pragma: no cover
    """Thread ``c`` screens paytable ``c``."""
    c = cuda.grid(1)
    if c < pays.shape[0]:
        screen_row(c, pays, counts, totals, out)


def screen_many(pays: npt.ArrayLike, counts: npt.ArrayLike, totals: npt.ArrayLike
                ) -> npt.NDArray[np.float64]:
    """``[paytable, 2]``: what :func:`sidebet.vuln.side_ev_kernel.screen` gives, computed
    on the device."""
    p = np.ascontiguousarray(pays, dtype=np.int64)
    out = np.zeros((p.shape[0], 2), dtype=np.float64)
    if p.shape[0]:
        kernel = device_kernel(_screens)
        ins = [cuda.to_device(np.ascontiguousarray(a, dtype=np.int64))
               for a in (p, counts, totals)]
        d_out = cuda.to_device(out)
        kernel[math.ceil(p.shape[0] / SCREEN_THREADS), SCREEN_THREADS](*ins, d_out)
        cuda.synchronize()
        d_out.copy_to_host(out)
    return out
