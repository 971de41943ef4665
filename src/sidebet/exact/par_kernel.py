"""The compiled counting kernel of :mod:`sidebet.exact.par` (its own module, so that importing
:mod:`sidebet.exact.par` does not import numba)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sidebet.native.jit import kernel

__all__ = ["count_kernel"]


@kernel
def count_kernel(
    counts: npt.NDArray[np.int64], table: npt.NDArray[np.uint8], n_outcomes: int
) -> npt.NDArray[np.int64]:  # pragma: no cover - compiled
    """How many ``(first, second, upcard)`` deals of the shoe ``counts`` (player's cards
    unordered) fall on each outcome of ``table``."""
    out = np.zeros(n_outcomes, dtype=np.int64)
    c = counts.copy()
    for i in range(52):
        ci = c[i]
        if ci == 0:
            continue
        c[i] -= 1
        for j in range(i, 52):
            cj = c[j]
            if cj == 0:
                continue
            pairs = ci * cj // 2 if i == j else ci * cj
            c[j] -= 1
            row = table[i, j]
            for k in range(52):
                ck = c[k]
                if ck:
                    out[row[k]] += pairs * ck
            c[j] += 1
        c[i] += 1
    return out
