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

import math
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
from sidebet.sim.runner import CHUNK_SHOES, GPU_CHUNK_SHOES, fresh_seed, on_gpu, run_chunks

__all__ = ["AdvantageChunk", "AdvantageTally", "advantage_chunk", "advantage_chunk_gpu",
           "run_advantage"]

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


def _fresh(spec: AdvantageSpec, nshoes: int, max_rounds: int, trace_rows: int | None
           ) -> CounterOutputs:
    """A chunk's counter outputs, zero, keeping the nets of at most ``trace_rows`` rounds
    (``None``: every round's)."""
    t = kernel_tables(spec)
    nw = len(t.wagers)
    nb = t.buckets
    rows = min(max_rounds, nshoes * (spec.sim().cut // (2 * spec.seats + 2) + 1))
    if trace_rows is not None:
        rows = min(rows, trace_rows)
    return CounterOutputs(
        acc=np.zeros(NACC, np.float64), tc_stats=np.zeros((nb, NTC), np.float64),
        side_tc=np.zeros((nw, nb, 3), np.float64), side_acc=np.zeros((nw, 2), np.float64),
        comp=np.zeros((3 + nw, 5), np.float64), trace=np.zeros(max(rows, 0), np.int64))


def _chunk(rounds: int, tally: CounterOutputs) -> AdvantageChunk:
    return AdvantageChunk(rounds, tally.acc, tally.tc_stats, tally.side_tc, tally.side_acc,
                          tally.comp, tally.trace[:rounds])


def advantage_chunk(spec: AdvantageSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                    max_rounds: int, trace_rows: int | None = None) -> AdvantageChunk:
    """Play shoes ``shoe0 ..`` (at most ``nshoes``, at most ``max_rounds`` rounds); the
    nets of the first ``trace_rows`` rounds are kept (``None``: every round's).  A trace
    no one reads is not written: its fresh memory costs about 6% of the kernel's time."""
    t = kernel_tables(spec)
    tally = _fresh(spec, nshoes, max_rounds, trace_rows)
    src, tables, _, outs = kernel_records(spec.sim(), key, shoe0, nshoes)
    from sidebet.sim.kernels import play_chunk  # numba's JIT: the extension has no counter

    rounds = int(play_chunk(src, tables, t.play, outs, max_rounds, t.counter, tally))
    return _chunk(rounds, tally)


def _device_shoes(spec: AdvantageSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                  trace_rows: int | None) -> tuple[AdvantageChunk, npt.NDArray[np.int64]]:
    from sidebet.sim.device import play_counter_shoes  # numba.cuda: only on a device

    t = kernel_tables(spec)
    tally = _fresh(spec, nshoes, 1 << 62, trace_rows)
    got = play_counter_shoes(spec.sim(), key, shoe0, nshoes, t.play, t.counter, tally)
    return _chunk(got.rounds, tally), got.per_shoe


def advantage_chunk_gpu(spec: AdvantageSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                        max_rounds: int, trace_rows: int | None = None) -> AdvantageChunk:
    """:func:`advantage_chunk` on a CUDA device (:func:`sidebet.sim.device.play_counter_shoes`,
    the same sums): whole shoes on the device; when ``max_rounds`` ends inside a shoe,
    that shoe's rounds on the CPU."""
    if trace_rows is not None and shoe0 >= trace_rows:  # (every shoe has a round)
        trace_rows = 0  # the run keeps the nets of rounds before this chunk's
    from sidebet.sim.device import chunk_parts

    rows = trace_rows
    parts = chunk_parts(lambda k: _device_shoes(spec, key, shoe0, k, rows),
                        lambda k, r: advantage_chunk(spec, key, shoe0 + k, 1, r, rows), nshoes,
                        max_rounds)
    if len(parts) == 1:
        return parts[0]
    keep = max_rounds if trace_rows is None else min(max_rounds, trace_rows)
    sums: dict[str, F64] = {}
    for name in ("acc", "tc_stats", "side_tc", "side_acc", "comp"):
        total: F64 = getattr(parts[0], name).copy()
        for part in parts[1:]:
            total += getattr(part, name)
        sums[name] = total
    return AdvantageChunk(sum(p.rounds for p in parts), sums["acc"], sums["tc_stats"],
                          sums["side_tc"], sums["side_acc"], sums["comp"],
                          np.concatenate([p.trace for p in parts])[:keep])


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
                  address: str | None = None, chunk_shoes: int | None = None,
                  progress: Callable[[int], None] | None = None, device: str = "cpu"
                  ) -> AdvantageTally:
    """:func:`run` returning only the tally (the doctests' and tests' short form)."""
    return run(spec, rounds, seed, trace_rounds=trace_rounds, workers=workers, backend=backend,
               address=address, chunk_shoes=chunk_shoes, progress=progress,
               device=device).tally


def run(spec: AdvantageSpec, rounds: int, seed: int | None = None, *, trace_rounds: int = 0,
        workers: int = 1, backend: str = "local", address: str | None = None,
        chunk_shoes: int | None = None, progress: Callable[[int], None] | None = None,
        device: str = "cpu") -> AdvantageRun:
    """Play ``rounds`` rounds of ``spec`` (Ctrl-C stops it: what was played stays).
    ``device``: where (:func:`sidebet.sim.runner.on_gpu`; on a CUDA device one shoe a
    thread, :data:`sidebet.sim.runner.GPU_CHUNK_SHOES` shoes a chunk unless
    ``chunk_shoes`` says; ``None``: :data:`sidebet.sim.runner.CHUNK_SHOES` on the CPU)."""
    if rounds < 1:
        raise SidebetError("--rounds must be at least 1")
    spec.verify()
    seed = fresh_seed() if seed is None else seed
    if seed not in SEEDS:
        raise SidebetError(f"--seed must be 0 to 2**64 - 1, not {seed}")
    gpu = on_gpu(device)
    tally = AdvantageTally(trace_rounds)
    per_shoe = max(1.0, spec.sim().cut / (2.75 * spec.seats + 2.9))
    chunk = advantage_chunk_gpu if gpu else advantage_chunk
    if chunk_shoes is None:
        chunk_shoes = (max(1, min(GPU_CHUNK_SHOES, math.ceil(rounds / per_shoe))) if gpu
                       else CHUNK_SHOES)
    task = partial(chunk, trace_rows=trace_rounds)  # no chunk keeps more
    got = run_chunks(task, spec, seed, rounds, tally, workers=workers,
                     backend=backend, address=address, chunk_shoes=chunk_shoes,
                     progress=progress, rounds_per_shoe=per_shoe, gpu=gpu)
    return AdvantageRun(spec, tally, seed, got.elapsed, got.workers, got.interrupted)
