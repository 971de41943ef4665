"""Running a simulation: what is simulated, its exact values, and the result.

**What is simulated** is a deterministic function of the spec, the seed and the number of
rounds: the table plays shoe 0, 1, 2, ... (each shuffled by its own stream, see
:mod:`sidebet.sim.kernels`) and the result is that of its first ``rounds`` rounds.

**How it is run** (chunks, threads, workers, Ray, Ctrl-C) is :mod:`sidebet.sim.schedule`,
whose names this module also gives (:func:`run_chunks` and the rest).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sidebet.core.errors import SidebetError
from sidebet.exact.par import par_sheet
from sidebet.native.diskcache import cached_arrays
from sidebet.sim.chunk import run_chunk
from sidebet.sim.results import SimResult
from sidebet.sim.schedule import (
    BACKENDS,
    CHUNK_SHOES,
    ChunkTask,
    Progress,
    Run,
    Tallying,
    ThreadBackend,
    chunk_size,
    estimated_rounds_per_shoe,
    fresh_seed,
    run_chunks,
    simulate_chunks,
    taper_shoes,
)
from sidebet.sim.shape import run_shape
from sidebet.sim.spec import SimSpec

__all__ = [
    "BACKENDS",
    "CHUNK_SHOES",
    "DEVICES",
    "GPU_CHUNK_SHOES",
    "Run",
    "Tallying",
    "ThreadBackend",
    "chunk_size",
    "chunk_task",
    "estimated_rounds_per_shoe",
    "exact_values",
    "fresh_seed",
    "run_chunks",
    "simulate",
    "taper_shoes",
]


DEVICES = ("cpu", "gpu", "auto")
"""Where a simulation's rounds are played: the CPU, a CUDA device, or a device when
there is one."""

GPU_CHUNK_SHOES = 1 << 19
"""Shoes per chunk on a device (one a thread): enough threads to fill a large GPU."""


def on_gpu(device: str) -> bool:
    """Whether ``device`` (:data:`DEVICES`) means a CUDA device here: ``gpu`` without
    one raises one line; ``auto`` then means the CPU."""
    if device not in DEVICES:
        raise SidebetError(f"unknown device {device!r} (devices: {', '.join(DEVICES)})")
    if device == "cpu":
        return False
    from sidebet.sim import device as gpu  # numba.cuda: only when a device is asked for

    if device == "auto" and not gpu.gpu_available():
        return False
    gpu.require_device()
    return True


def chunk_task(device: str) -> ChunkTask:
    """The chunk function of ``device`` (:func:`on_gpu`): the CPU kernel's
    :func:`sidebet.sim.chunk.run_chunk` or :func:`sidebet.sim.device.run_chunk_gpu`, the
    same counters."""
    if not on_gpu(device):
        return run_chunk
    from sidebet.sim.device import run_chunk_gpu

    return run_chunk_gpu


def exact_values(spec: SimSpec) -> dict[str, float]:
    """Exact expected returns to compare with: each side wager's PAR value (full shoe)
    and, when the simulation plays the exact strategy, the Blackjack wager's."""
    out = {
        wid: float(par_sheet(wid, spec.decks, paytable).expected_return)
        for wid, paytable in spec.sides
    }
    if not spec.side_only:
        value = _exact_blackjack(spec)
        if value is not None:
            out["blackjack"] = value
    return out


def _exact_blackjack(spec: SimSpec) -> float | None:
    """The exact analyser's player expectation of the base game for a full shoe, when the
    simulation plays its strategy (``strategy="exact"``)."""
    if spec.strategy != "exact":
        return None

    def build() -> dict[str, Any]:
        from sidebet.exact.blackjack.house_edge import (
            house_edge,  # the analyser: only if not cached
        )

        return {"player_ev": np.array(float(house_edge(spec.decks, spec.rules, "td").player_ev))}

    got = cached_arrays("house-edge-td", f"{spec.rules!r} decks={spec.decks}", build)
    return float(got["player_ev"])


def simulate(
    spec: SimSpec,
    rounds: int,
    seed: int | None = None,
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    chunk_shoes: int | None = None,
    progress: Progress | None = None,
    with_exact: bool = True,
    threads: int = 1,
    device: str = "cpu",
) -> SimResult:
    """Simulate ``rounds`` rounds of ``spec`` with ``seed`` (``None``: a fresh seed,
    reported in the result).  ``backend`` ``"local"`` runs in this process
    (``workers=1``, on ``threads`` threads) or a process pool; ``"ray"`` on a Ray cluster
    (``address``: an existing cluster; default a local instance).  ``chunk_shoes``
    ``None``: :data:`CHUNK_SHOES`, fewer when threads share a short run
    (:func:`chunk_size`).  The exact values are computed while the first chunks play
    on threads.  ``device``: where the rounds are played (:func:`chunk_task`; on a
    device, :data:`GPU_CHUNK_SHOES` shoes a chunk unless ``chunk_shoes`` says, one
    thread of this process).  Ctrl-C returns what was done."""
    spec.verify()
    if rounds < 1:
        raise SidebetError("simulate at least 1 round")
    if chunk_shoes is not None and chunk_shoes < 1:
        raise SidebetError("a chunk holds at least 1 shoe")
    if threads < 1:
        raise SidebetError("threads must be at least 1")
    if backend not in BACKENDS:
        raise SidebetError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if workers < 1:
        raise SidebetError("workers must be at least 1")
    seed = fresh_seed() if seed is None else seed
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    task = chunk_task(device)
    per_shoe = estimated_rounds_per_shoe(spec)
    if task is not run_chunk:
        threads = 1
        if chunk_shoes is None:
            chunk_shoes = max(1, min(GPU_CHUNK_SHOES, math.ceil(rounds / per_shoe)))
    exact: dict[str, float] = {}

    def other_work() -> None:  # while the first chunks play, on threads
        if with_exact:
            exact.update(exact_values(spec))

    return simulate_chunks(task, spec, run_shape(spec), rounds, seed,
                           rounds_per_shoe=per_shoe, workers=workers, backend=backend,
                           address=address, chunk_shoes=chunk_shoes, progress=progress,
                           threads=threads, meanwhile=other_work, exact=exact,
                           gpu=task is not run_chunk)
