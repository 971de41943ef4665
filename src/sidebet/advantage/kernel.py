"""The risk of ruin over a counter's traced rounds, compiled.

The counter's rounds themselves are the simulator's round kernel
(:func:`sidebet.sim.kernels.play_chunk` with a :class:`sidebet.sim.layout.CounterArrays`,
its steps in :mod:`sidebet.sim.counting`), played by :mod:`sidebet.advantage.run`.
"""

from __future__ import annotations

from typing import Any

from sidebet.native.jit import kernel

__all__ = ["ruin_trials"]


@kernel
def ruin_trials(nets: Any, bank: int, goal: int, trip: int, out: Any) -> None:
    # pragma: no cover - compiled
    """Ruin over the rounds' nets (tenths), in order.  Barrier trials: from a bank of
    ``bank`` until it is gone (``out[0]`` ruins) or has grown by ``goal`` (``out[1]``
    goals; ``goal`` 0: no goal, a trial ends only in ruin or unfinished); trip trials:
    blocks of ``trip`` rounds, ``out[2]`` blocks, ``out[3]`` ruined within the block."""
    money = bank
    for r in range(nets.shape[0]):
        money += nets[r]
        if money <= 0:
            out[0] += 1
            money = bank
        elif goal > 0 and money >= bank + goal:
            out[1] += 1
            money = bank
    if trip > 0:
        blocks = nets.shape[0] // trip
        for t in range(blocks):
            money = bank
            for r in range(t * trip, (t + 1) * trip):
                money += nets[r]
                if money <= 0:
                    out[3] += 1
                    break
            out[2] += 1
