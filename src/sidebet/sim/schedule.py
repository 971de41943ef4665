"""Running chunks of a simulation: how many shoes a chunk holds, where chunks play (this
process, its threads, worker processes or a Ray cluster), adding them up in chunk order,
progress and Ctrl-C.

The shoes are cut into chunks of ``chunk_shoes`` whole shoes; chunk ``c`` plays shoes
``c·chunk_shoes ..`` and stops early only at the round limit.  Chunks run in this
process, on its threads, in a pool of worker processes (``workers``) or on a Ray cluster,
and are added up *in chunk order*; once the rounds are reached the chunk that crossed the
limit is played again with the exact remainder and later chunks are dropped.  Counters are
exact integers, so neither the chunk size nor the number of workers nor the backend
changes anything.

Ctrl-C stops the run: chunks already added are kept and the result says ``interrupted``.

:func:`run_chunks` runs any chunk function of the shape ``task(spec, key, shoe0, nshoes,
max_rounds)`` (the simulator's :func:`sidebet.sim.chunk.run_chunk`, the counting
analysis's own chunks).  A chunk's streams are keyed by the seed's 128-bit key
(:func:`sidebet.sim.chunk.seed_key`).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sidebet.sim.chunk import seed_key
from sidebet.sim.counters import Tally

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from sidebet.sim.results import SimResult
    from sidebet.sim.shape import RunShape
    from sidebet.sim.spec import KernelInputs, SimSpec

__all__ = [
    "BACKENDS",
    "CHUNK_SHOES",
    "TAIL_SHOES",
    "TAPER",
    "THREAD_CHUNKS",
    "Backend",
    "ChunkTask",
    "ProcessBackend",
    "Progress",
    "Run",
    "Tallying",
    "ThreadBackend",
    "chunk_size",
    "estimated_rounds_per_shoe",
    "fresh_seed",
    "run_chunks",
    "simulate_chunks",
    "taper_shoes",
]

CHUNK_SHOES = 8192
"""Default shoes per chunk (what that costs: ``docs/simulator.md``, Speed)."""

BACKENDS = ("local", "ray")

Progress = Callable[[int], None]
"""Called with the rounds done so far."""

ChunkTask = Callable[[Any, tuple[int, int], int, int, int], Any]
"""``task(spec, key, shoe0, nshoes, max_rounds)``: plays one chunk and returns its
counters (a picklable, module-level function for worker processes and Ray;
:func:`sidebet.sim.chunk.run_chunk` for :func:`sidebet.sim.runner.simulate`)."""


THREAD_CHUNKS = 4
"""Chunks per thread that a short run on threads is cut into (:func:`chunk_size`)."""
MIN_CHUNK_SHOES = 64
"""Fewest shoes :func:`chunk_size` puts in a chunk."""


def chunk_size(rounds: int, rounds_per_shoe: float, threads: int) -> int:
    """Shoes per chunk: :data:`CHUNK_SHOES`, or, when ``threads`` share a run too short
    for that, enough for :data:`THREAD_CHUNKS` chunks a thread (the last chunks, played
    beyond the rounds needed and played again, then cost little).  The result does not
    depend on it.

    >>> chunk_size(10**9, 40.0, 2), chunk_size(10**6, 40.0, 2), chunk_size(10**6, 40.0, 1)
    (8192, 3125, 8192)
    """
    if threads <= 1:
        return CHUNK_SHOES
    shoes = math.ceil(rounds / (rounds_per_shoe * threads * THREAD_CHUNKS))
    return max(MIN_CHUNK_SHOES, min(CHUNK_SHOES, shoes))


class Table(Protocol):
    """What :func:`estimated_rounds_per_shoe` reads of a table: a
    :class:`sidebet.sim.spec.SimSpec` or the shape of its run
    (:class:`sidebet.sim.shape.RunShape`)."""

    @property
    def seats(self) -> int: ...

    @property
    def cut(self) -> int: ...

    @property
    def side_only(self) -> bool: ...


def estimated_rounds_per_shoe(table: Table) -> float:
    """A rough number of rounds per shoe (to plan how many chunks to start, and how
    large: :func:`chunk_size`).

    >>> from types import SimpleNamespace
    >>> estimated_rounds_per_shoe(SimpleNamespace(seats=7, cut=234, side_only=True))
    14.625
    """
    per_seat = 2.0 if table.side_only else 2.75
    dealer = 2.0 if table.side_only else 2.9
    return max(1.0, table.cut / (table.seats * per_seat + dealer))


class Tallying(Protocol):
    """What :func:`run_chunks` adds chunks to: ``rounds`` and ``chunks`` so far."""

    rounds: int
    chunks: int

    def add(self, chunk: Any) -> None:
        """Add one chunk (chunks come in chunk order)."""
        ...


def fresh_seed() -> int:
    """A random seed (from the operating system), to be reported with the results."""
    return int.from_bytes(os.urandom(8), "little") >> 1


class Backend(Protocol):
    """Runs chunks somewhere; results are fetched in submission order."""

    name: str
    workers: int

    def submit(self, spec: Any, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> Any:
        """Start a chunk; returns a handle."""
        ...

    def result(self, handle: Any) -> Any:
        """Wait for a chunk's result."""
        ...

    def cancel(self, handle: Any) -> None:
        """Drop a chunk that is no longer needed."""
        ...

    def close(self) -> None:
        """Release the workers."""
        ...


_PR_SET_PDEATHSIG = 1
WATCHDOG_SECONDS = 0.5
"""How often a worker checks that the process that started it is still alive."""


def _worker_init(parent: int, spec: SimSpec | None, inputs: KernelInputs | None) -> None:
    """In each worker process: Ctrl-C is the parent's to handle, the worker dies with its
    parent (:func:`_die_with_parent`), and the read-only kernel arrays of ``spec`` come from
    the parent, once, instead of being built again (which would also mean the strategy
    analysis when the disk cache is off)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    if spec is not None and inputs is not None:
        from sidebet.sim.spec import preload  # the simulator's arrays: numpy

        preload(spec, inputs)


def _die_with_parent(parent: int) -> None:
    """Exit when the parent dies, however it dies (SIGTERM, SIGHUP, kill -9): the kernel
    sends SIGKILL (Linux ``PR_SET_PDEATHSIG``), and a watchdog thread exits when the parent
    is gone."""
    if sys.platform.startswith("linux"):
        import ctypes  # only in a worker process

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before we got here
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="sidebet-parent-watchdog").start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_SECONDS)
    os._exit(1)


def _sim_spec(spec: Any) -> SimSpec | None:
    """The simulator's spec inside a chunk task's ``spec`` (itself, or its ``sim``)."""
    from sidebet.sim.spec import SimSpec  # only for a pool of processes

    if isinstance(spec, SimSpec):
        return spec
    inner = getattr(spec, "sim", None)
    return inner if isinstance(inner, SimSpec) else None


def _warm(spec: Any, task: ChunkTask) -> None:
    task(spec, (0, 0), 0, 1, 1)


class _PoolBackend:
    """Chunks on a ``concurrent.futures`` pool (``_pool``), fetched in submission order."""

    name = "local"
    workers: int
    _task: ChunkTask
    _pool: Executor

    def submit(self, spec: Any, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> Future[Any]:
        return self._pool.submit(self._task, spec, key, shoe0, nshoes, max_rounds)

    def result(self, handle: Future[Any]) -> Any:
        return handle.result()

    def cancel(self, handle: Future[Any]) -> None:
        handle.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class ProcessBackend(_PoolBackend):
    """Worker processes on this machine (``concurrent.futures.ProcessPoolExecutor``)."""

    def __init__(self, workers: int, spec: Any, task: ChunkTask) -> None:
        from concurrent.futures import ProcessPoolExecutor  # only for a pool of processes

        self.workers = workers
        self._task = task
        sim = _sim_spec(spec)
        self._pool = ProcessPoolExecutor(
            max_workers=workers, initializer=_worker_init,
            initargs=(os.getpid(), sim, sim.inputs() if sim is not None else None))
        for f in [self._pool.submit(_warm, spec, task) for _ in range(workers)]:
            f.result()


class ThreadBackend(_PoolBackend):
    """Threads of this process: the kernels release the interpreter's lock while they play,
    so the threads play side by side, with no process to start and nothing to copy."""

    def __init__(self, threads: int, task: ChunkTask) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.workers = threads
        self._task = task
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sidebet-sim")


def _in_order(
    backend: Backend,
    spec: Any,
    key: tuple[int, int],
    rounds: int,
    chunk_shoes: int,
    tally: Tallying,
    progress: Progress | None,
    rounds_per_shoe: float,
    slack: float = 1.5,
    taper: bool = False,
    meanwhile: Callable[[], None] | None = None,
) -> None:
    """Run chunks on ``backend`` and add them to ``tally`` in chunk order, exactly
    ``rounds`` rounds in all, starting chunks for up to ``slack`` times the rounds still
    needed (more keeps remote workers busy; fewer wastes less beyond the last round).

    Chunks hold ``chunk_shoes`` shoes; with ``taper``, fewer towards the end
    (:func:`taper_shoes`), so that the chunk that crosses the last round, played beyond
    it and then played again up to it, is a small one.  A chunk is whole shoes from its
    first, so its size changes nothing in the result.  ``meanwhile()`` is called once the first
    chunks are started, while they play."""
    per_shoe = rounds_per_shoe
    depth = 2 * backend.workers
    pending: deque[tuple[int, int, Any]] = deque()
    next_shoe = 0
    try:
        while tally.rounds < rounds:
            # keep the workers busy, without starting chunks far beyond the rounds needed
            ahead = sum(n for _, n, _ in pending)
            # while the caller's other work keeps this thread (``meanwhile``), more
            # chunks are queued, so that the workers do not wait for it to come back
            while len(pending) < (depth if meanwhile is None else FILL * depth):
                left = (rounds - tally.rounds) / per_shoe - ahead  # shoes not yet started
                size = taper_shoes(left, chunk_shoes, backend.workers) if taper else chunk_shoes
                if pending and (ahead + 0.5 * size) * per_shoe >= slack * (rounds - tally.rounds):
                    break
                handle = backend.submit(spec, key, next_shoe, size, rounds)
                pending.append((next_shoe, size, handle))
                next_shoe += size
                ahead += size
            if meanwhile is not None:
                meanwhile()
                meanwhile = None
            shoe0, size, handle = pending.popleft()
            res = backend.result(handle)
            if res.rounds and tally.chunks == 0:
                per_shoe = max(res.rounds / max(getattr(res, "shoes", 0) or size, 1), 1.0)
            if tally.rounds + res.rounds > rounds:
                res = backend.result(
                    backend.submit(spec, key, shoe0, size, rounds - tally.rounds)
                )
            tally.add(res)
            if progress is not None:
                progress(tally.rounds)
    finally:
        for _, _, handle in pending:
            backend.cancel(handle)


FILL = 4
"""While ``meanwhile()`` runs, :func:`_in_order` queues up to ``FILL`` times as many chunks
as it otherwise keeps started (two a worker)."""
TAPER = 2
"""A tapering run's chunk holds at most the shoes not yet started over ``TAPER`` times the
threads (:func:`taper_shoes`)."""
TAIL_SHOES = 16
"""Fewest shoes in a tapering run's chunk (about 650 rounds of one seat)."""


def taper_shoes(left: float, chunk_shoes: int, threads: int) -> int:
    """Shoes in the next chunk of a run on ``threads`` threads with about ``left`` shoes
    still to start: ``chunk_shoes`` while that leaves every thread work, then shrinking
    with what is left, down to :data:`TAIL_SHOES`.

    >>> [taper_shoes(x, 3000, 2) for x in (24000, 8000, 1000, 10)]
    [3000, 2000, 250, 16]
    """
    return max(TAIL_SHOES, min(chunk_shoes, math.ceil(left / (TAPER * threads))))


def _sequential(spec: Any, key: tuple[int, int], rounds: int, chunk_shoes: int,
                tally: Tallying, progress: Progress | None, task: ChunkTask) -> None:
    chunk = 0
    while tally.rounds < rounds:
        res = task(spec, key, chunk * chunk_shoes, chunk_shoes, rounds - tally.rounds)
        tally.add(res)
        chunk += 1
        if progress is not None:
            progress(tally.rounds)


@dataclass(frozen=True, slots=True)
class Run:
    """How a :func:`run_chunks` run went: workers used, seconds, whether Ctrl-C stopped it."""

    workers: int
    elapsed: float
    interrupted: bool


def run_chunks(
    task: ChunkTask,
    spec: Any,
    seed: int,
    rounds: int,
    tally: Tallying,
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    chunk_shoes: int = CHUNK_SHOES,
    progress: Progress | None = None,
    rounds_per_shoe: float = 40.0,
    threads: int = 1,
    meanwhile: Callable[[], None] | None = None,
    gpu: bool = False,
) -> Run:
    """Play ``rounds`` rounds of ``spec`` as chunks of ``chunk_shoes`` shoes with
    ``task``, in this process (on ``threads`` threads when ``workers`` is 1), a process
    pool or on Ray, adding each chunk to ``tally`` in chunk order (so the result does not
    depend on the workers, the threads or the backend).
    Ctrl-C stops it; what was added stays.  ``rounds_per_shoe`` is a first guess, to
    plan how many chunks to start.  ``meanwhile()`` (other work of the caller) is called
    once: on threads, while the first chunks play; otherwise first.  ``gpu``: ``task``
    plays on a CUDA device, so each Ray task asks for one GPU."""
    key = seed_key(seed)
    used_workers = workers
    interrupted = False
    start = time.perf_counter()
    runner: Backend | None = None
    try:
        if meanwhile is not None and (backend != "local" or workers > 1 or threads <= 1):
            meanwhile()
            meanwhile = None
            start = time.perf_counter()
        if backend == "ray" or workers > 1:
            _warm(spec, task)  # compile (or load) the kernels here first: workers then load the cache
        if backend == "ray":
            from sidebet.sim.ray_backend import RayBackend

            runner = RayBackend(address=address, workers=workers if workers > 1 else None,
                                task=task, gpu=gpu)
            used_workers = runner.workers
            start = time.perf_counter()
            _in_order(runner, spec, key, rounds, chunk_shoes, tally, progress, rounds_per_shoe)
        elif workers > 1:
            runner = ProcessBackend(min(workers, os.cpu_count() or workers), spec, task)
            used_workers = runner.workers
            start = time.perf_counter()
            _in_order(runner, spec, key, rounds, chunk_shoes, tally, progress, rounds_per_shoe)
        elif threads > 1:
            runner = ThreadBackend(threads, task)
            _in_order(runner, spec, key, rounds, chunk_shoes, tally, progress, rounds_per_shoe,
                      slack=1.0, taper=True, meanwhile=meanwhile)
        else:
            _sequential(spec, key, rounds, chunk_shoes, tally, progress, task)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if runner is not None:
            runner.close()
    elapsed = time.perf_counter() - start
    return Run(used_workers, elapsed if not math.isnan(elapsed) else 0.0, interrupted)


def simulate_chunks(task: ChunkTask, spec: Any, shape: RunShape, rounds: int, seed: int, *,
                    rounds_per_shoe: float, workers: int = 1, backend: str = "local",
                    address: str | None = None, chunk_shoes: int | None = None,
                    progress: Progress | None = None, threads: int = 1,
                    meanwhile: Callable[[], None] | None = None,
                    exact: dict[str, float] | None = None, gpu: bool = False) -> SimResult:
    """Play ``rounds`` rounds of ``spec`` with ``seed`` by ``task`` (:func:`run_chunks`)
    and make their result, whose figures read ``shape``: one thread unless one local
    worker plays; ``chunk_shoes`` ``None``: :func:`chunk_size`'s.  ``exact``: the exact
    values the result reports (a dict that ``meanwhile`` may fill while the first chunks
    play); ``gpu``: ``task`` plays on a CUDA device (a Ray task then asks for one)."""
    if backend != "local" or workers > 1:
        threads = 1
    if chunk_shoes is None:
        chunk_shoes = chunk_size(rounds, rounds_per_shoe, threads)
    tally = Tally(shape.n_combos)
    run = run_chunks(task, spec, seed, rounds, tally, workers=workers, backend=backend,
                     address=address, chunk_shoes=chunk_shoes, progress=progress,
                     rounds_per_shoe=rounds_per_shoe, threads=threads, meanwhile=meanwhile,
                     gpu=gpu)
    from sidebet.sim.results import SimResult

    return SimResult(shape=shape, seed=seed, requested_rounds=rounds, tally=tally,
                     elapsed=run.elapsed, interrupted=run.interrupted, backend=backend,
                     workers=run.workers, chunk_shoes=chunk_shoes,
                     exact=exact if exact is not None else {})
