"""One chunk of a simulation: whole shoes played by a kernel, returned as plain counters.

A chunk is ``(spec, key, shoe0, nshoes, max_rounds)``: it plays shoes ``shoe0`` onwards,
at most ``nshoes`` of them, and stops after ``max_rounds`` rounds.  Its result depends on
nothing else, so a chunk can run in this process, in a worker process or on a Ray node.

>>> spec = SimSpec(decks=6, seats=2, sides=(("blazing7s", "A"),))
>>> a = run_chunk(spec, seed_key(1), 0, 10, 1000)
>>> b = run_chunk(spec, seed_key(1), 0, 10, 1000)
>>> a.rounds == b.rounds and a.stats == b.stats
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sidebet.core.money import units_to_tenths
from sidebet.sim.compiled import play_chunk
from sidebet.sim.counters import ChunkResult
from sidebet.sim.layout import NSTAT, Outputs, PlayArrays, RoundTables, ShoeStream
from sidebet.sim.spec import KernelInputs, SimSpec

__all__ = [
    "SEEDS",
    "ChunkResult",
    "KernelRecords",
    "MarkedRun",
    "OrdersRun",
    "chunk_result",
    "kernel_records",
    "run_chunk",
    "run_marked",
    "run_orders",
    "seed_key",
]

_NO_ORDERS = np.zeros((0, 52), dtype=np.uint8)
_NO_MARKS = np.zeros((0, 2), dtype=np.int64)


SEEDS = range(2**64)
"""The seeds a command takes (``seed in SEEDS``): 0 to 2**64 - 1."""


def seed_key(seed: int) -> tuple[int, int]:
    """The 128-bit key of a seed (at least 0): the two 64-bit words of
    ``numpy.random.SeedSequence(seed).generate_state(2, numpy.uint64)``.

    >>> [hex(w) for w in seed_key(1)]
    ['0x672d8ee56d6791ff', '0x8ae19ca14eb1072c']
    """
    first, second = np.random.SeedSequence(seed).generate_state(2, np.uint64).tolist()
    return first, second


class KernelRecords(NamedTuple):
    """The kernel's argument records for a chunk of ``spec`` (:mod:`sidebet.sim.layout`):
    ``play`` ``None`` for side wagers only."""

    src: ShoeStream
    tables: RoundTables
    play: PlayArrays | None
    outs: Outputs


def kernel_records(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                   orders: npt.NDArray[np.uint8] = _NO_ORDERS, trace_rows: int = 0,
                   marks: npt.NDArray[np.int64] = _NO_MARKS) -> KernelRecords:
    """The records that play shoes ``shoe0 ..`` (at most ``nshoes``) of ``spec`` from the
    seed's ``key`` (or the rows of ``orders``), with fresh outputs: ``trace_rows`` rows of
    trace, ``marks`` (may have no rows) for where each round starts."""
    inp = spec.inputs()
    seats = spec.seats
    src = ShoeStream(inp.base.copy(), inp.base, orders, np.uint64(key[0]), np.uint64(key[1]),
                     shoe0, nshoes, spec.cut)
    tables = RoundTables(
        seats, units_to_tenths(spec.bet), inp.combo_tab, inp.combo_net, inp.combo_offer,
        inp.combo_pay, inp.press_mode, inp.press_tab, inp.rules, inp.vals, inp.hist_off,
    )
    play = None
    if spec.side_only:
        hist = np.zeros(1, dtype=np.int64)
        trace = np.zeros((trace_rows, seats), dtype=np.int64)
    else:
        assert inp.strategy is not None and inp.decide2 is not None
        play = PlayArrays(inp.decide2, inp.strategy.hs_hard, inp.strategy.hs_soft)
        hist = np.zeros(inp.hist_len, dtype=np.int64)
        trace = np.zeros((trace_rows, seats, 3), dtype=np.int64)
    outs = Outputs(np.zeros(inp.n_combos, dtype=np.int64),
                   np.zeros(len(inp.wagers) + 3, dtype=np.int64),
                   np.zeros((seats, 4), dtype=np.int64), np.zeros(NSTAT, dtype=np.int64), hist,
                   trace, np.zeros(1, dtype=np.int64), marks)
    return KernelRecords(src, tables, play, outs)


def chunk_result(inp: KernelInputs, side_only: bool, rounds: int, outs: Outputs
                 ) -> ChunkResult:
    """The counters of a chunk that played ``rounds`` rounds into ``outs`` (its kernel
    records' outputs, on the CPU or a device)."""
    combo_counts, round2, seat_stats, stats, hist, _, info, _ = outs
    if side_only:
        nets = inp.combo_net
        order = np.argsort(nets, kind="stable")
        hist_index = np.zeros(0, dtype=np.int64)
        hist_count = np.zeros(0, dtype=np.int64)
        if rounds:
            uniq, inv = np.unique(nets[order], return_inverse=True)
            counts = np.zeros(len(uniq), dtype=np.int64)
            np.add.at(counts, inv, combo_counts[order])
            keep = counts > 0
            hist_index = uniq[keep] + inp.hist_off
            hist_count = counts[keep]
    else:
        # nonzero of a boolean array is several times faster than of int64 (this scan was
        # most of a small chunk's cost)
        hist_index = np.flatnonzero(hist != 0).astype(np.int64)
        hist_count = hist[hist_index]
    combo_index = np.flatnonzero(combo_counts != 0)
    return ChunkResult(
        rounds=int(rounds),
        shoes=int(info[0]) if rounds else 0,
        stats=tuple(stats.tolist()),
        combo_index=tuple(combo_index.tolist()),
        combo_count=tuple(combo_counts[combo_index].tolist()),
        hist_index=tuple(hist_index.tolist()),
        hist_count=tuple(hist_count.tolist()),
        round2=tuple(round2.tolist()),
        seats=tuple(tuple(row) for row in seat_stats.tolist()),
    )


def _play(
    spec: SimSpec,
    key: tuple[int, int],
    shoe0: int,
    nshoes: int,
    max_rounds: int,
    orders: npt.NDArray[np.uint8],
    trace_rows: int,
    marks: npt.NDArray[np.int64] = _NO_MARKS,
) -> tuple[ChunkResult, npt.NDArray[np.int64]]:
    inp = spec.inputs()
    src, tables, play, outs = kernel_records(spec, key, shoe0, nshoes, orders, trace_rows, marks)
    trace = outs.trace
    rounds = play_chunk(src, tables, play, outs, max_rounds)
    result = chunk_result(inp, play is None, rounds, outs)
    return result, trace[:rounds]


def run_chunk(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
              max_rounds: int) -> ChunkResult:
    """Play shoes ``shoe0 .. shoe0 + nshoes - 1`` (seeded streams), at most ``max_rounds``."""
    result, _ = _play(spec, key, shoe0, nshoes, max_rounds, _NO_ORDERS, 0)
    return result


@dataclass(frozen=True)
class OrdersRun:
    """Rounds played from given shoes, with each round's trace.

    ``trace`` is ``[round, seat]`` (side-only: the side-wager combination) or
    ``[round, seat, 3]``: combination, Blackjack net (tenths) and the net of the pressed
    chips on the initial hand (tenths).
    """

    result: ChunkResult
    trace: npt.NDArray[np.int64]


def run_orders(spec: SimSpec, orders: npt.NDArray[np.integer], max_rounds: int) -> OrdersRun:
    """Play rounds from the given shoes (rows of card indices in dealing order, used one
    after the other as :class:`sidebet.table.game.Table` does), with a per-round trace."""
    rows = np.ascontiguousarray(orders, dtype=np.uint8)
    if rows.ndim != 2 or rows.shape[1] != 52 * spec.decks or rows.shape[0] == 0:
        raise ValueError(f"orders must be [shoes, {52 * spec.decks}] card indices")
    result, trace = _play(spec, (0, 0), 0, rows.shape[0], max_rounds, rows, max_rounds)
    return OrdersRun(result, trace)


@dataclass(frozen=True)
class MarkedRun:
    """Complete rounds with, per round, each seat's trace (as :class:`OrdersRun`) and
    where the round started: ``marks[round] = (shoe number, cards already dealt from it)``."""

    result: ChunkResult
    trace: npt.NDArray[np.int64]
    marks: npt.NDArray[np.int64]


def run_marked(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> MarkedRun:
    """:func:`run_chunk`, keeping each round's trace and start (the counting analysis
    rebuilds every shoe from its seed and walks it with these)."""
    # a round deals at least two cards to each seat and two to the dealer
    rows = min(max_rounds, nshoes * (spec.cut // (2 * spec.seats + 2) + 1))
    marks = np.zeros((rows, 2), dtype=np.int64)
    result, trace = _play(spec, key, shoe0, nshoes, max_rounds, _NO_ORDERS, rows, marks)
    return MarkedRun(result, trace, marks[: result.rounds])
