"""Compile the device kernels (the round kernel of a few tables, a counter's, the side
wagers' exact EV and the design's screen) to PTX for an H100/H200 (compute capability 9.0) with numba-cuda's NVVM, where no GPU is:
the steps compile as CUDA device functions, not only on numba's CUDA simulator (which
runs them as Python).  Prints one line per kernel; run by ``tests/sim/test_device.py`` in
a subprocess."""

from __future__ import annotations

import warnings

import numba
import numba.cuda.dispatcher
import numpy as np
from numba import cuda

from sidebet.advantage.indices import parse_plays
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_cover, parse_ramp
from sidebet.advantage.tables import kernel_tables
from sidebet.native.jit import device_kernel
from sidebet.sim import device
from sidebet.sim.chunk import seed_key
from sidebet.sim.layout import NACC, NTC, CounterOutputs
from sidebet.sim.spec import SimSpec, default_sides, resolve_sides
from sidebet.vuln import side_ev_device
from sidebet.vuln.side_ev import ev_tables

CC = (9, 0)


class _Device:
    compute_capability = CC


def main() -> None:
    warnings.simplefilter("ignore")
    # a device function compiles for the current device's compute capability; there is
    # none here, so it is named
    numba.cuda.dispatcher.get_current_device = _Device  # type: ignore[attr-defined]
    sides = resolve_sides(list(default_sides(6)), 6)
    for name, spec in {"full rounds": SimSpec(decks=6, seats=7, sides=sides, press="all"),
                       "side wagers only": SimSpec(decks=2, seats=7, side_only=True,
                                                   sides=resolve_sides(["trilux"], 2))
                       }.items():
        constants, ins, outs, rounds = device.launch_arguments(spec, seed_key(0), 0, 1)
        kernel = device_kernel(device._shoes, **constants)
        sig = tuple(numba.typeof(a) for a in (*ins, *device.kernel_outputs(outs, rounds)))
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=CC)
        print(f"{name}: {'.entry' in ptx} {len(ptx)}", flush=True)
    # a counter: index plays, a ramp, wonging, side wagers by count, by EV and flat; spots
    # by count, cover, burn cards, a cut card spread, an ace side count
    sevens = tuple(-3 if 20 <= k < 24 else 0 for k in range(52))
    counter = AdvantageSpec(
        sides=sides, spots=2, others=1, ramp=parse_ramp("1-12"), wong_in=0, wong_out=-1,
        plays=parse_plays("i18"), spots_by=parse_ramp("1:2", 1, 2),
        cover=parse_cover("jump:2,parlay"), burn=3, cut_spread=26, ace_bet=2, ace_ins=-1,
        plans=(SidePlan("blazing7s", "count", 1, "7s", sevens, parse_ramp("2:1")),
               SidePlan("upcard-luck", "ev"), SidePlan("trilux", "flat")))
    t = kernel_tables(counter)
    nw, nb = len(t.wagers), t.buckets
    tally = CounterOutputs(np.zeros(NACC), np.zeros((nb, NTC)), np.zeros((nw, nb, 3)),
                           np.zeros((nw, 2)), np.zeros((3 + nw, 5)), np.zeros(10, np.int64))
    constants, ins, outs = device.counter_arguments(counter.sim(), seed_key(0), 0, 1, t.play,
                                                    t.counter, tally)
    kernel = device_kernel(device._counter_shoes, **constants)
    ptx, _ = cuda.compile_ptx(kernel.py_func, tuple(numba.typeof(a) for a in (*ins, *outs)),
                              cc=CC)
    print(f"counter: {'.entry' in ptx} {len(ptx)}", flush=True)
    # the side wagers' exact EV along shoes (vuln/side_ev_device.py)
    tables = ev_tables(sides)
    walks = device_kernel(side_ev_device._walks)
    arrays = (np.zeros((2, 52), np.int64), np.zeros((2, 312), np.int64),
              np.zeros(3, np.int64), tables.weights, *tables.args(),
              np.zeros((2, 3, len(sides)), np.float64))
    ptx, _ = cuda.compile_ptx(walks.py_func, tuple(numba.typeof(a) for a in arrays), cc=CC)
    print(f"side-wager EVs: {'.entry' in ptx} {len(ptx)}", flush=True)
    screens = device_kernel(side_ev_device._screens)
    arrays = (np.zeros((4, 6), np.int64), np.zeros((9, 6), np.int64), np.ones(9, np.int64),
              np.zeros((4, 2), np.float64))
    ptx, _ = cuda.compile_ptx(screens.py_func, tuple(numba.typeof(a) for a in arrays), cc=CC)
    print(f"design screen: {'.entry' in ptx} {len(ptx)}", flush=True)


if __name__ == "__main__":
    main()
