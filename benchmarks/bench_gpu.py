"""Prepared GPU measurement (docs/simulator.md, A GPU path): one shoe per thread.

Where ``numba.cuda`` finds a device, a kernel in which each thread owns one shoe (its
SplitMix64 stream seeded as ``sim/shuffle.py`` seeds shoe ``i``, a Fisher–Yates shuffle of
the shoe in thread-local memory, then every card dealt to the cut card and counted by rank
through a table in constant memory) is timed against the same work on the CPU (the same
function compiled by numba's ``njit``), in one run, and the ratio is printed.  This is the
part of the full-round kernel that decides the plan's rate (shuffle, deal, table look-ups,
integer counters); the full-round port is the next step.  Where there is no GPU, or no
``numba.cuda``, one line says so and the benchmark stops (exit status 0).

Run: ``.venv/bin/python benchmarks/bench_gpu.py [--shoes N]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import numpy as np
from numba import njit

from bench_process import processor

try:  # a module global: numba's CUDA simulator swaps it for its own in the kernel's globals
    from numba import cuda
except ImportError:
    cuda = None

CARDS = 312
CUT = 234


def deal(seed: np.uint64, shoe: np.ndarray, ranks: np.ndarray, counts: np.ndarray) -> None:
    """Shuffle one shoe from its SplitMix64 seed (Fisher–Yates) and count the ranks dealt
    to the cut card: compiled for the CPU (``njit``) and for the GPU (a device function)."""
    state = np.uint64(seed)
    for i in range(CARDS):
        shoe[i] = i % 52
    for i in range(CARDS - 1, 0, -1):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        z = state
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        j = np.int64(z % np.uint64(i + 1))
        t = shoe[i]
        shoe[i] = shoe[j]
        shoe[j] = t
    for i in range(CUT):
        counts[ranks[shoe[i]]] += 1


_deal_cpu = njit(cache=True)(deal)


@njit(cache=True)
def _cpu(seeds: np.ndarray, ranks: np.ndarray, out: np.ndarray) -> None:
    shoe = np.empty(CARDS, dtype=np.uint8)
    for s in range(seeds.shape[0]):
        _deal_cpu(seeds[s], shoe, ranks, out[s])


def device_name(cuda: Any) -> str:
    """The current device's name: bytes or text, as the driver's bindings give it; under
    numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, where rates mean nothing) it says
    so."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1: the rates mean nothing)"
    name = getattr(cuda.current_context().device, "name", None)
    if isinstance(name, bytes):
        name = name.decode(errors="replace")
    return str(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=1 << 20, help="shoes to deal")
    opts = parser.parse_args()
    if cuda is None:
        print("GPU: skipped, numba.cuda is not installed (numba-cuda)")
        return
    try:
        available = cuda.is_available()
    except Exception as err:  # the driver's own words
        print(f"GPU: skipped, CUDA is not usable here ({err})")
        return
    if not available:
        print("GPU: skipped, no CUDA device or driver on this machine")
        return
    print(f"processor: {processor()}; GPU: {device_name(cuda)}; "
          f"load average {os.getloadavg()[0]:.2f}")
    ranks = (np.arange(52) % 13).astype(np.int64)

    deal_gpu = cuda.jit(device=True)(deal)

    @cuda.jit
    def gpu(seeds, out):  # type: ignore[no-untyped-def]
        s = cuda.grid(1)
        if s >= seeds.shape[0]:
            return
        table = cuda.const.array_like(ranks)
        shoe = cuda.local.array(CARDS, dtype=np.uint8)
        deal_gpu(seeds[s], shoe, table, out[s])

    n = opts.shoes
    seeds = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    cpu_out = np.zeros((n // 64, 13), dtype=np.int64)
    _cpu(seeds[:64], ranks, np.zeros((64, 13), dtype=np.int64))  # compile
    start = time.process_time()
    _cpu(seeds[: n // 64], ranks, cpu_out)
    cpu_rate = (n // 64) / (time.process_time() - start)
    d_seeds = cuda.to_device(seeds)
    d_out = cuda.to_device(np.zeros((n, 13), dtype=np.int64))
    threads = 128
    blocks = (n + threads - 1) // threads
    gpu[blocks, threads](d_seeds, d_out)  # compile
    cuda.synchronize()
    d_out = cuda.to_device(np.zeros((n, 13), dtype=np.int64))  # the counts start again
    start = time.perf_counter()
    gpu[blocks, threads](d_seeds, d_out)
    cuda.synchronize()
    gpu_rate = n / (time.perf_counter() - start)
    same = np.array_equal(d_out.copy_to_host()[: n // 64], cpu_out)
    print(f"shoes dealt: CPU {cpu_rate / 1e6:.3f} M/s (one core, CPU time), GPU "
          f"{gpu_rate / 1e6:.3f} M/s; ratio {gpu_rate / cpu_rate:.1f}x; "
          f"the same cards: {same}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
