"""A seed's 128-bit key: numpy's ``SeedSequence(seed).generate_state(2, uint64)`` in plain
Python, so that a simulation need not import ``numpy.random``.

The algorithm is numpy's (``numpy/random/bit_generator.pyx``, itself after Melissa
O'Neill's seed_seq): the seed's 32-bit words hashed into a pool of four, mixed, and four
words drawn from the pool.  ``tests/sim/test_sim.py`` checks it against numpy's own on
thousands of seeds.

>>> [hex(w) for w in seed_words(1)]
['0x672d8ee56d6791ff', '0x8ae19ca14eb1072c']
"""

from __future__ import annotations

__all__ = ["SEEDS", "seed_words"]

SEEDS = range(2**64)
"""The seeds a command takes (``seed in SEEDS``): 0 to 2**64 - 1."""

_MASK = 0xFFFFFFFF
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_L = 0xCA01F9DD
_MIX_R = 0x4973F715
_SHIFT = 16
_POOL = 4


def seed_words(seed: int) -> tuple[int, int]:
    """The two 64-bit words of ``numpy.random.SeedSequence(seed).generate_state(2,
    numpy.uint64)`` for a seed of at least 0."""
    if seed < 0:
        raise ValueError("a seed is at least 0")
    entropy = [seed & _MASK]
    rest = seed >> 32
    while rest:
        entropy.append(rest & _MASK)
        rest >>= 32
    mult = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal mult
        value ^= mult
        mult = (mult * _MULT_A) & _MASK
        value = (value * mult) & _MASK
        return value ^ (value >> _SHIFT)

    def mix(x: int, y: int) -> int:
        out = (_MIX_L * x - _MIX_R * y) & _MASK
        return out ^ (out >> _SHIFT)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for word in entropy[_POOL:]:
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(word))
    mult = _INIT_B
    drawn = []
    for i in range(4):
        value = pool[i % _POOL] ^ mult
        mult = (mult * _MULT_B) & _MASK
        value = (value * mult) & _MASK
        drawn.append(value ^ (value >> _SHIFT))
    return drawn[0] | drawn[1] << 32, drawn[2] | drawn[3] << 32
