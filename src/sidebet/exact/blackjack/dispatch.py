"""The exact analyser's kernels, compiled ahead of time when they can be, else by numba's JIT.

:mod:`sidebet.exact.blackjack._kernels` (numba) is compiled ahead of time into sidebet's one
extension (:mod:`sidebet.native.extension`, built by ``python -m sidebet.warm``).  :func:`no_bj`,
:func:`dealer_probs`, :func:`play_values` and :func:`final_dist` take the same arguments
and give the same results as the kernels of that name; they call the extension when it is
there (the process never imports numba), else the JIT kernels (``SIDEBET_AOT=off``, or
no extension).  Every argument is checked first against :data:`KERNEL_TYPES`, the table
the compiled signatures are written from: a wrong dtype, number of dimensions, a
non-contiguous array or a read-only output raises a :class:`TypeError` or
:class:`ValueError` naming ``kernel.argument``, on both paths alike.

>>> no_bj(np.array((4,) * 9 + (16,)), 52, 0)
0.6923076923076923
>>> no_bj(np.array((4,) * 10, dtype=np.int32), 40, 0)
Traceback (most recent call last):
...
TypeError: no_bj.r: expected dtype int64, got int32
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.native.extension import call
from sidebet.native.signatures import ArgType

__all__ = ["KERNEL_TYPES", "dealer_probs", "dealer_up", "final_dist", "no_bj", "pair_keys",
           "pair_sum", "play_values", "split_finals"]

FArr = npt.NDArray[np.float64]
IArr = npt.NDArray[np.int64]
I8Arr = npt.NDArray[np.int8]

_I = ArgType("int64", 0)
_I1D, _I2D = ArgType("int64", 1), ArgType("int64", 2)
_F2W = ArgType("float64", 2, written=True)
_F1D = ArgType("float64", 1)

KERNEL_TYPES: dict[str, tuple[str, tuple[tuple[str, ArgType], ...]]] = {
    "no_bj": ("f8", (("r", _I1D), ("total", _I), ("up", _I))),
    "dealer_probs": ("void", (
        ("rows", _I1D), ("comps", _I2D), ("shoe", _F1D), ("parent", _I1D), ("factor", _I1D),
        ("r_card", _I1D), ("r_j", _I1D), ("r_n", _I1D), ("term_start", _I1D),
        ("term_node", _I1D), ("term_mult", _F1D), ("skip", _I1D), ("node_start", _I1D),
        ("node_slot", _I1D), ("node_mult", _F1D), ("prune", _I),
        ("out", ArgType("float64", 3, written=True)))),
    "play_values": ("void", (
        ("hrows", _I1D), ("crows", _I1D), ("hard", _I1D), ("comps", _I2D), ("child", _I2D),
        ("dealer", ArgType("float64", 3)), ("shoe", _F1D), ("ups", _I1D),
        ("dec", ArgType("int8", 2)), ("stand", _F2W), ("stand2", _F2W), ("hit", _F2W),
        ("hit2", _F2W), ("dbl", _F2W), ("dbl2", _F2W))),
    "final_dist": ("void", (
        ("hrows", _I1D), ("crows", _I1D), ("hard", _I1D), ("comps", _I2D), ("child", _I2D),
        ("shoe", _I1D), ("up", _I), ("dec", ArgType("int8", 1)), ("out", _F2W))),
    "split_finals": ("i8", (
        ("order", _I1D), ("comps", _I2D), ("child", _I2D), ("hard", _I1D),
        ("dec", ArgType("int8", 1)), ("weight", ArgType("float64", 1, written=True)),
        ("out_comp", ArgType("int64", 2, written=True)),
        ("out_end", ArgType("int64", 1, written=True)),
        ("out_w", ArgType("float64", 1, written=True)))),
    "dealer_up": ("void", (
        ("removed", _I2D), ("shoe", _I1D), ("up", _I), ("js", _I1D), ("nz_card", _I2D),
        ("nz_k", _I2D), ("nz_len", _I1D), ("mult", _I2D), ("size", _I1D), ("total", _I1D),
        ("out", _F2W))),
    "pair_keys": ("i8", (
        ("codes", _I1D), ("index", ArgType("int64", 2, written=True)),
        ("keys", ArgType("int64", 1, written=True)))),
    "pair_sum": ("f8", (
        ("at_a", _I1D), ("end_a", _I1D), ("w_a", _F1D), ("at_b", _I1D), ("end_b", _I1D),
        ("w_b", _F1D), ("index", _I2D), ("dealer", ArgType("float64", 2)),
        ("prob", _F1D), ("pays", ArgType("float64", 2)))),
}
"""Each kernel's return type (numba notation) and its parameters with their types, in
order; the compiled extension exports kernel ``k`` as ``bj_k``."""


def _jit(kernel: str) -> Callable[[], Callable[..., Any]]:
    def get() -> Callable[..., Any]:
        from sidebet.exact.blackjack import _kernels  # numba: only without the compiled extension

        fn: Callable[..., Any] = getattr(_kernels, kernel)
        return fn

    return get


def _run(kernel: str, values: tuple[Any, ...]) -> Any:
    """Check ``values`` against ``kernel``'s types, then call the compiled or JIT kernel."""
    return call(kernel, f"bj_{kernel}", KERNEL_TYPES[kernel][1], values, _jit(kernel))


def no_bj(r: IArr, total: int, up: int) -> float:
    """:func:`sidebet.exact.blackjack._kernels.no_bj`: P(the hole card does not make a dealer
    Blackjack) for unseen counts ``r``."""
    return float(_run("no_bj", (r, total, up)))


def dealer_probs(rows: IArr, comps: IArr, shoe: FArr, parent: IArr, factor: IArr,
                 r_card: IArr, r_j: IArr, r_n: IArr, term_start: IArr, term_node: IArr,
                 term_mult: FArr, skip: IArr, node_start: IArr, node_slot: IArr,
                 node_mult: FArr, prune: int, out: FArr) -> None:
    """:func:`sidebet.exact.blackjack._kernels.dealer_probs` (fills ``out``)."""
    _run("dealer_probs", (rows, comps, shoe, parent, factor, r_card, r_j, r_n, term_start,
                          term_node, term_mult, skip, node_start, node_slot, node_mult,
                          prune, out))


def play_values(hrows: IArr, crows: IArr, hard: IArr, comps: IArr, child: IArr,
                dealer: FArr, shoe: FArr, ups: IArr, dec: I8Arr, stand: FArr, stand2: FArr,
                hit: FArr, hit2: FArr, dbl: FArr, dbl2: FArr) -> None:
    """:func:`sidebet.exact.blackjack._kernels.play_values` (fills the six value arrays)."""
    _run("play_values", (hrows, crows, hard, comps, child, dealer, shoe, ups, dec, stand,
                         stand2, hit, hit2, dbl, dbl2))


def final_dist(hrows: IArr, crows: IArr, hard: IArr, comps: IArr, child: IArr, shoe: IArr,
               up: int, dec: I8Arr, out: FArr) -> None:
    """:func:`sidebet.exact.blackjack._kernels.final_dist` (fills ``out``)."""
    _run("final_dist", (hrows, crows, hard, comps, child, shoe, up, dec, out))


def split_finals(order: IArr, comps: IArr, child: IArr, hard: IArr, dec: I8Arr, weight: FArr,
                 out_comp: IArr, out_end: IArr, out_w: FArr) -> int:
    """:func:`sidebet.exact.blackjack._kernels.split_finals` (the final hands of a split
    hand; returns how many)."""
    return int(_run("split_finals", (order, comps, child, hard, dec, weight, out_comp,
                                     out_end, out_w)))


def dealer_up(removed: IArr, shoe: IArr, up: int, js: IArr, nz_card: IArr, nz_k: IArr,
              nz_len: IArr, mult: IArr, size: IArr, total: IArr, out: FArr) -> None:
    """:func:`sidebet.exact.blackjack._kernels.dealer_up` (fills ``out``)."""
    _run("dealer_up", (removed, shoe, up, js, nz_card, nz_k, nz_len, mult, size, total, out))


def pair_keys(codes: IArr, index: IArr, keys: IArr) -> int:
    """:func:`sidebet.exact.blackjack._kernels.pair_keys` (numbers the sums of two codes)."""
    return int(_run("pair_keys", (codes, index, keys)))


def pair_sum(at_a: IArr, end_a: IArr, w_a: FArr, at_b: IArr, end_b: IArr, w_b: FArr,
             index: IArr, dealer: FArr, prob: FArr, pays: FArr) -> float:
    """:func:`sidebet.exact.blackjack._kernels.pair_sum` (two hands' joint result)."""
    return float(_run("pair_sum", (at_a, end_a, w_a, at_b, end_b, w_b, index, dealer, prob,
                                   pays)))
