"""Running the counter: chunks of whole shoes, their sums, workers, progress and Ctrl-C.

A chunk is :func:`advantage_chunk` ``(spec, key, shoe0, nshoes, max_rounds)``, played by
the simulator's round kernel (:func:`sidebet.sim.kernels.play_chunk`) on its seeded shoes
with the counter's records (:mod:`sidebet.advantage.tables`); the chunks
run and add up through :func:`sidebet.sim.schedule.run_chunks` (in chunk order, so a seed
gives the same result whatever the workers).  The first ``trace_rounds`` rounds' nets are
kept, in order, for the simulated risk of ruin.

>>> from sidebet.advantage.spec import AdvantageSpec
>>> t = run_advantage(AdvantageSpec(), 2000, seed=1)
>>> t.rounds, int(t.acc[0])
(2000, 2000)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.advantage.spec import AdvantageSpec
from sidebet.advantage.tables import kernel_tables
from sidebet.core.errors import SidebetError
from sidebet.sim.chunk import SEEDS, kernel_records
from sidebet.sim.layout import NACC, NTC, CounterOutputs
from sidebet.sim.runner import CHUNK_SHOES, fresh_seed, run_chunks

__all__ = ["AdvantageChunk", "AdvantageTally", "advantage_chunk", "run_advantage"]

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class AdvantageChunk:
    """One chunk's sums (see :class:`sidebet.sim.layout.CounterOutputs`)."""

    rounds: int
    acc: F64
    tc_stats: F64
    side_tc: F64
    side_acc: F64
    comp: F64
    trace: npt.NDArray[np.int64]


def advantage_chunk(spec: AdvantageSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                    max_rounds: int, trace_rows: int | None = None) -> AdvantageChunk:
    """Play shoes ``shoe0 ..`` (at most ``nshoes``, at most ``max_rounds`` rounds); the
    nets of the first ``trace_rows`` rounds are kept (``None``: every round's).  A trace
    no one reads is not written: its fresh memory costs about 6% of the kernel's time."""
    t = kernel_tables(spec)
    nw = len(t.wagers)
    nb = t.buckets
    rows = min(max_rounds, nshoes * (spec.sim().cut // (2 * spec.seats + 2) + 1))
    if trace_rows is not None:
        rows = min(rows, trace_rows)
    tally = CounterOutputs(
        acc=np.zeros(NACC, np.float64), tc_stats=np.zeros((nb, NTC), np.float64),
        side_tc=np.zeros((nw, nb, 3), np.float64), side_acc=np.zeros((nw, 2), np.float64),
        comp=np.zeros((3 + nw, 5), np.float64), trace=np.zeros(rows, np.int64))
    src, tables, _, outs = kernel_records(spec.sim(), key, shoe0, nshoes)
    from sidebet.sim.kernels import play_chunk  # numba's JIT: the extension has no counter

    rounds = int(play_chunk(src, tables, t.play, outs, max_rounds, t.counter, tally))
    return AdvantageChunk(rounds, tally.acc, tally.tc_stats, tally.side_tc, tally.side_acc,
                          tally.comp, tally.trace[:rounds])


@dataclass
class AdvantageTally:
    """The chunks' sums, added in chunk order; the first ``trace_rounds`` rounds' nets."""

    trace_rounds: int = 0
    rounds: int = 0
    chunks: int = 0
    sums: dict[str, F64] = field(default_factory=dict)
    traces: list[npt.NDArray[np.int64]] = field(default_factory=list)
    traced: int = 0

    def add(self, chunk: AdvantageChunk) -> None:
        """Add one chunk."""
        self.rounds += chunk.rounds
        self.chunks += 1
        for name in ("acc", "tc_stats", "side_tc", "side_acc", "comp"):
            value: F64 = getattr(chunk, name)
            self.sums[name] = self.sums[name] + value if name in self.sums else value.copy()
        room = self.trace_rounds - self.traced
        if room > 0:
            part = chunk.trace[:room]
            self.traces.append(part)
            self.traced += len(part)

    @property
    def acc(self) -> F64:
        """:data:`sidebet.sim.layout.ACC_FIELDS` sums."""
        return self.sums["acc"]

    def trace(self) -> npt.NDArray[np.int64]:
        """The traced rounds' nets (tenths), in order."""
        if not self.traces:
            return np.zeros(0, np.int64)
        return np.concatenate(self.traces)


@dataclass(frozen=True)
class AdvantageRun:
    """A finished (or interrupted) run: the tally, the seed and how it ran."""

    spec: AdvantageSpec
    tally: AdvantageTally
    seed: int
    elapsed: float
    workers: int
    interrupted: bool
    extra: dict[str, Any] = field(default_factory=dict)


def run_advantage(spec: AdvantageSpec, rounds: int, seed: int | None = None, *,
                  trace_rounds: int = 0, workers: int = 1, backend: str = "local",
                  address: str | None = None, chunk_shoes: int = CHUNK_SHOES,
                  progress: Callable[[int], None] | None = None) -> AdvantageTally:
    """:func:`run` returning only the tally (the doctests' and tests' short form)."""
    return run(spec, rounds, seed, trace_rounds=trace_rounds, workers=workers, backend=backend,
               address=address, chunk_shoes=chunk_shoes, progress=progress).tally


def run(spec: AdvantageSpec, rounds: int, seed: int | None = None, *, trace_rounds: int = 0,
        workers: int = 1, backend: str = "local", address: str | None = None,
        chunk_shoes: int = CHUNK_SHOES, progress: Callable[[int], None] | None = None
        ) -> AdvantageRun:
    """Play ``rounds`` rounds of ``spec`` (Ctrl-C stops it: what was played stays)."""
    if rounds < 1:
        raise SidebetError("--rounds must be at least 1")
    spec.verify()
    seed = fresh_seed() if seed is None else seed
    if seed not in SEEDS:
        raise SidebetError(f"--seed must be 0 to 2**64 - 1, not {seed}")
    tally = AdvantageTally(trace_rounds)
    per_shoe = max(1.0, spec.sim().cut / (2.75 * spec.seats + 2.9))
    task = partial(advantage_chunk, trace_rows=trace_rounds)  # no chunk keeps more
    got = run_chunks(task, spec, seed, rounds, tally, workers=workers,
                     backend=backend, address=address, chunk_shoes=chunk_shoes,
                     progress=progress, rounds_per_shoe=per_shoe)
    return AdvantageRun(spec, tally, seed, got.elapsed, got.workers, got.interrupted)
