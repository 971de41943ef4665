"""How many threads a kernel's work may be shared among in this process.

The compiled kernels release the interpreter's lock while they run
(:mod:`sidebet.warm.extension`; numba's JIT kernels are ``nogil``), so threads of one
process run them side by side, one per core that other work is not keeping busy.

>>> 1 <= idle_cores() <= usable_cores()
True
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

R = TypeVar("R")

__all__ = ["idle_cores", "map_shared", "run_parts", "usable_cores"]

T = TypeVar("T")


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every system
        return max(1, os.cpu_count() or 1)


def idle_cores() -> int:
    """The cores of :func:`usable_cores` that other work is not keeping busy: less the
    machine's load (its one-minute average, this process counted as one), at least one.
    A thread more would wait for a core, and cost CPU time (threads share the caches)
    without shortening the wait; results never depend on it."""
    cores = usable_cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on every system
        return cores
    return max(1, min(cores, cores + 1 - int(load)))


def run_parts(work: Callable[[T], object], parts: Sequence[T]) -> None:
    """``work(part)`` for every part, each on a thread of its own (the first on the
    caller's), all finished on return; the first exception one raised is raised here.

    >>> done = []
    >>> run_parts(done.append, [1, 2, 3])
    >>> sorted(done)
    [1, 2, 3]
    """
    failed: list[BaseException] = []

    def run(part: T) -> None:
        try:
            work(part)
        except BaseException as exc:  # re-raised in the caller's thread
            failed.append(exc)

    others = [threading.Thread(target=run, args=(part,)) for part in parts[1:]]
    for thread in others:
        thread.start()
    if parts:
        run(parts[0])
    for thread in others:
        thread.join()
    if failed:
        raise failed[0]


def map_shared(work: Callable[[T], R], items: Sequence[T],
               done: Callable[[int], None] | None = None) -> list[R]:
    """``[work(item) for item in items]``, the items dealt round among :func:`idle_cores`
    threads (:func:`run_parts`); each item is computed alone, so the list is the same
    whatever the number of threads.  ``done(n)`` is called, one call at a time, as each
    item is finished (``n`` of them so far).

    >>> map_shared(lambda x: x * x, [1, 2, 3])
    [1, 4, 9]
    """
    out: list[R | None] = [None] * len(items)
    lock = threading.Lock()
    finished = [0]
    n = max(1, min(idle_cores(), len(items)))

    def part(k: int) -> None:
        for i in range(k, len(items), n):
            out[i] = work(items[i])
            if done is not None:
                with lock:
                    finished[0] += 1
                    done(finished[0])

    run_parts(part, list(range(n)))
    return out  # type: ignore[return-value]  # every slot filled
