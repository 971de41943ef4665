"""The simulator's shuffle: one SplitMix64 stream per shoe, a batched Fisher–Yates.

Shoe ``k`` of a seeded run is shuffled by its own random stream: a SplitMix64 generator
whose state is ``mix64(key0 ^ mix64(key1 + k))``, where ``(key0, key1)`` come from
``numpy.random.SeedSequence(seed)``; so every shoe depends only on the seed and its
index.  The shuffle is a Fisher–Yates shuffle run from the front (place ``i`` swapped
with a uniform place in ``i .. n - 1``); bounded integers use Lemire's batched
multiply-and-reject method (exactly uniform; four places from each 64-bit word).
Shuffling ``0 .. a`` then ``a .. b`` is shuffling ``0 .. b``, so the kernels shuffle
lazily (:mod:`sidebet.sim.kernels`) and the counting kernels (:mod:`sidebet.vuln`) deal
the same shoes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sidebet.native.jit import inline, kernel

__all__ = ["AHEAD", "GROUP", "mix64", "pair_offsets", "shoe_state", "shuffle", "shuffle_from"]

_inline = inline

_GOLD = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LO32 = np.uint64(0xFFFFFFFF)
GROUP = 4
"""Places shuffled from one 64-bit random word (:func:`shuffle_from`)."""
AHEAD = 8
"""Places shuffled beyond the last one a round can start at, and per refill (a multiple
of :data:`GROUP`)."""


@_inline
def mix64(z: Any) -> Any:  # pragma: no cover - compiled
    """SplitMix64's finaliser (a bijection of 64-bit words)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@_inline
def shoe_state(shoe: int, key0: Any, key1: Any) -> Any:  # pragma: no cover - compiled
    """The initial random state of shoe number ``shoe``."""
    return mix64(key0 ^ mix64(key1 + np.uint64(shoe)))


@_inline
def pair_offsets(x: Any, k1: Any, k2: Any, bits: Any) -> tuple[Any, Any, bool]:
    # pragma: no cover - compiled
    """Two bounded integers from one ``bits``-bit random word ``x`` (Lemire's batched
    method: Brackett-Pryor and Lemire, "Batched ranged random integer generation",
    2024): ``j1`` uniform in ``0 .. k1 - 1`` and ``j2`` in ``0 .. k2 - 1``, independent,
    exactly, provided the draw is accepted (``ok``); a refused ``x`` (probability below
    ``k1 * k2 / 2**bits``) is replaced by a fresh word.  All arguments ``uint64``."""
    mask = (np.uint64(1) << bits) - np.uint64(1)
    m1 = x * k1
    j1 = m1 >> bits
    m2 = (m1 & mask) * k2
    j2 = m2 >> bits
    left = m2 & mask
    p = k1 * k2
    ok = True
    if left < p:
        ok = left >= ((mask + np.uint64(1)) - p) % p
    return j1, j2, ok


@kernel
def shuffle_from(buf: Any, lo: int, hi: int, state: Any) -> Any:  # pragma: no cover
    """Fisher–Yates places ``lo .. hi - 1`` of ``buf``: place ``i`` swapped with a
    uniform place in ``i .. n - 1``; returns the generator's new state.

    Places go in groups of :data:`GROUP` (``lo`` is a multiple of it, and so is the
    shoe's size, 52 cards a deck; ``hi`` is rounded up to the next multiple): each group
    takes one 64-bit SplitMix64 word, whose two 32-bit halves each give the offsets of
    two places (:func:`pair_offsets`, exact; a refused half is replaced by the upper
    half of a fresh word).  So shuffling ``0 .. a`` then ``a .. b`` is shuffling
    ``0 .. b`` and leaves the same state, for ``a`` a multiple of :data:`GROUP`."""
    n = buf.shape[0]
    i = lo
    while i < hi:
        state += _GOLD
        word = mix64(state)
        for half in range(2):
            x = (word >> _S32) if half == 0 else (word & _LO32)
            k1 = np.uint64(n - i)
            k2 = k1 - np.uint64(1)
            j1, j2, ok = pair_offsets(x, k1, k2, _S32)
            while not ok:
                state += _GOLD
                j1, j2, ok = pair_offsets(mix64(state) >> _S32, k1, k2, _S32)
            a = i + np.int64(j1)
            c = buf[a]
            buf[a] = buf[i]
            buf[i] = c
            b = i + 1 + np.int64(j2)
            c = buf[b]
            buf[b] = buf[i + 1]
            buf[i + 1] = c
            i += 2
    return state


@kernel
def shuffle(buf: Any, base: Any, positions: int, state: Any) -> Any:  # pragma: no cover
    """Reset ``buf`` to ``base`` and shuffle its first ``positions`` places
    (:func:`shuffle_from`); returns the generator's new state.  The first ``positions``
    cards are distributed exactly as in a full shuffle."""
    for i in range(buf.shape[0]):  # a loop, not a slice copy (docs/simulator.md, Speed)
        buf[i] = base[i]
    return shuffle_from(buf, 0, positions, state)
