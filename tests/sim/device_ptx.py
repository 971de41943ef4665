"""Compile the device kernels (the round kernel of a few tables, the side wagers' exact EV)
to PTX for an H100/H200 (compute capability 9.0) with numba-cuda's NVVM, where no GPU is:
the steps compile as CUDA device functions, not only on numba's CUDA simulator (which
runs them as Python).  Prints one line per kernel; run by ``tests/sim/test_device.py`` in
a subprocess."""

from __future__ import annotations

import warnings

import numba
import numba.cuda.dispatcher
import numpy as np
from numba import cuda

from sidebet.native.jit import device_kernel
from sidebet.sim import device
from sidebet.sim.chunk import seed_key
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
    # the side wagers' exact EV along shoes (vuln/side_ev_device.py)
    tables = ev_tables(sides)
    walks = device_kernel(side_ev_device._walks)
    arrays = (np.zeros((2, 52), np.int64), np.zeros((2, 312), np.int64),
              np.zeros(3, np.int64), tables.weights, *tables.args(),
              np.zeros((2, 3, len(sides)), np.float64))
    ptx, _ = cuda.compile_ptx(walks.py_func, tuple(numba.typeof(a) for a in arrays), cc=CC)
    print(f"side-wager EVs: {'.entry' in ptx} {len(ptx)}", flush=True)


if __name__ == "__main__":
    main()
