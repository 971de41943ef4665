"""Running a simulation: seeds, chunks, workers, progress and Ctrl-C.

**What is simulated** is a deterministic function of the spec, the seed and the number of
rounds: the table plays shoe 0, 1, 2, ... (each shuffled by its own stream, see
:mod:`sidebet.sim.kernels`) and the result is that of its first ``rounds`` rounds.

**How it is run**: the shoes are cut into chunks of ``chunk_shoes`` whole shoes; chunk
``c`` plays shoes ``c·chunk_shoes ..`` and stops early only at the round limit.  Chunks run
in this process, in a pool of worker processes (``workers``) or on a Ray cluster, and are
added up *in chunk order*; once the rounds are reached the chunk that crossed the limit is
replayed with the exact remainder and later chunks are dropped.  Counters are exact
integers, so neither the chunk size nor the number of workers nor the backend changes
anything.

Ctrl-C stops the run: chunks already added are kept and the result says ``interrupted``.
"""

from __future__ import annotations

import math
import os
import signal
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Protocol

import numpy as np

from sidebet.diskcache import cached_arrays
from sidebet.errors import SidebetError
from sidebet.par import par_sheet
from sidebet.sim.chunk import ChunkResult, run_chunk, seed_key
from sidebet.sim.results import SimResult, Tally
from sidebet.sim.spec import KernelInputs, SimSpec, preload

__all__ = ["BACKENDS", "CHUNK_SHOES", "Backend", "exact_values", "fresh_seed", "simulate"]

CHUNK_SHOES = 8192
"""Default shoes per chunk (about 0.05–0.5 s of work on one core)."""

BACKENDS = ("local", "ray")

Progress = Callable[[int], None]
"""Called with the rounds done so far."""


def fresh_seed() -> int:
    """A random seed (from the operating system), to be reported with the results."""
    return int(np.random.SeedSequence().entropy) % (1 << 63)  # type: ignore[arg-type]


def estimated_rounds_per_shoe(spec: SimSpec) -> float:
    """A rough number of rounds per shoe (to plan how many chunks to start)."""
    per_seat = 2.0 if spec.side_only else 2.75
    dealer = 2.0 if spec.side_only else 2.9
    return max(1.0, spec.cut / (spec.seats * per_seat + dealer))


class Backend(Protocol):
    """Runs chunks somewhere; results are fetched in submission order."""

    name: str
    workers: int

    def submit(self, spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> Any:
        """Start a chunk; returns a handle."""
        ...

    def result(self, handle: Any) -> ChunkResult:
        """Wait for a chunk's result."""
        ...

    def cancel(self, handle: Any) -> None:
        """Drop a chunk that is no longer needed."""
        ...

    def close(self) -> None:
        """Release the workers."""
        ...


def _init_worker(spec: SimSpec, inputs: KernelInputs) -> None:
    """A worker process starts: Ctrl-C is the parent's business, and the read-only kernel
    arrays come from the parent, once, instead of being built again (which would also
    mean the strategy analysis when the disk cache is off)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    preload(spec, inputs)


def _warm(spec: SimSpec) -> int:
    return run_chunk(spec, (0, 0), 0, 1, 1).rounds


class ProcessBackend:
    """Worker processes on this machine (``concurrent.futures.ProcessPoolExecutor``)."""

    name = "local"

    def __init__(self, workers: int, spec: SimSpec) -> None:
        self.workers = workers
        self._pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                                         initargs=(spec, spec.inputs()))
        for f in [self._pool.submit(_warm, spec) for _ in range(workers)]:
            f.result()

    def submit(self, spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> Future[ChunkResult]:
        return self._pool.submit(run_chunk, spec, key, shoe0, nshoes, max_rounds)

    def result(self, handle: Future[ChunkResult]) -> ChunkResult:
        return handle.result()

    def cancel(self, handle: Future[ChunkResult]) -> None:
        handle.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _in_order(
    backend: Backend,
    spec: SimSpec,
    key: tuple[int, int],
    rounds: int,
    chunk_shoes: int,
    tally: Tally,
    progress: Progress | None,
) -> None:
    """Run chunks on ``backend`` and add them to ``tally`` in chunk order, exactly
    ``rounds`` rounds in all."""
    per_chunk = estimated_rounds_per_shoe(spec) * chunk_shoes
    depth = 2 * backend.workers
    pending: deque[tuple[int, Any]] = deque()
    next_chunk = 0
    try:
        while tally.rounds < rounds:
            # keep the workers busy, without starting chunks far beyond the rounds needed
            ahead = len(pending)
            while len(pending) < depth and (
                (ahead + 0.5) * per_chunk < 1.5 * (rounds - tally.rounds) or not pending
            ):
                handle = backend.submit(spec, key, next_chunk * chunk_shoes, chunk_shoes, rounds)
                pending.append((next_chunk, handle))
                next_chunk += 1
                ahead += 1
            chunk, handle = pending.popleft()
            res = backend.result(handle)
            if res.rounds and tally.chunks == 0:
                per_chunk = max(float(res.rounds), 1.0)
            if tally.rounds + res.rounds > rounds:
                res = backend.result(
                    backend.submit(spec, key, chunk * chunk_shoes, chunk_shoes,
                                   rounds - tally.rounds)
                )
            tally.add(res)
            if progress is not None:
                progress(tally.rounds)
    finally:
        for _, handle in pending:
            backend.cancel(handle)


def _sequential(spec: SimSpec, key: tuple[int, int], rounds: int, chunk_shoes: int,
                tally: Tally, progress: Progress | None) -> None:
    chunk = 0
    while tally.rounds < rounds:
        res = run_chunk(spec, key, chunk * chunk_shoes, chunk_shoes, rounds - tally.rounds)
        tally.add(res)
        chunk += 1
        if progress is not None:
            progress(tally.rounds)


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
        from sidebet.blackjack.house_edge import house_edge  # the analyser: only if not cached

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
    chunk_shoes: int = CHUNK_SHOES,
    progress: Progress | None = None,
    with_exact: bool = True,
) -> SimResult:
    """Simulate ``rounds`` rounds of ``spec`` with ``seed`` (``None``: a fresh seed,
    reported in the result).  ``backend`` ``"local"`` runs in this process
    (``workers=1``) or a process pool; ``"ray"`` on a Ray cluster (``address``: an
    existing cluster; default a local instance).  Ctrl-C returns what was done."""
    spec.verify()
    if rounds < 1:
        raise SidebetError("simulate at least 1 round")
    if chunk_shoes < 1:
        raise SidebetError("a chunk holds at least 1 shoe")
    if backend not in BACKENDS:
        raise SidebetError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if workers < 1:
        raise SidebetError("workers must be at least 1")
    seed = fresh_seed() if seed is None else seed
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    key = seed_key(seed)
    inputs = spec.inputs()
    tally = Tally(inputs.n_combos)
    exact: dict[str, float] = {}
    strategy = "side wagers only" if inputs.strategy is None else inputs.strategy.source
    used_workers = workers
    interrupted = False
    start = time.perf_counter()
    runner: Backend | None = None
    try:
        if with_exact:
            exact = exact_values(spec)
            start = time.perf_counter()
        if backend == "ray" or workers > 1:
            _warm(spec)  # compile (or load) the kernels here first: workers then load the cache
        if backend == "ray":
            from sidebet.sim.ray_backend import RayBackend

            runner = RayBackend(address=address, workers=workers if workers > 1 else None)
            used_workers = runner.workers
            start = time.perf_counter()
            _in_order(runner, spec, key, rounds, chunk_shoes, tally, progress)
        elif workers > 1:
            runner = ProcessBackend(min(workers, os.cpu_count() or workers), spec)
            used_workers = runner.workers
            start = time.perf_counter()
            _in_order(runner, spec, key, rounds, chunk_shoes, tally, progress)
        else:
            _sequential(spec, key, rounds, chunk_shoes, tally, progress)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if runner is not None:
            runner.close()
    elapsed = time.perf_counter() - start
    return SimResult(
        spec=spec,
        seed=seed,
        requested_rounds=rounds,
        tally=tally,
        elapsed=elapsed if not math.isnan(elapsed) else 0.0,
        interrupted=interrupted,
        backend=backend,
        workers=used_workers,
        chunk_shoes=chunk_shoes,
        strategy=strategy,
        exact=exact,
    )
