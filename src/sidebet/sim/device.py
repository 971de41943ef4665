"""The round kernel on a CUDA device: one shoe per thread, built from the same steps.

A chunk of whole shoes runs as one CUDA kernel in which thread ``t`` plays shoe
``shoe0 + t`` to its cut card: the same shoe stream (:func:`sidebet.sim.shuffle.shoe_state`,
:func:`sidebet.sim.shuffle.shuffle_from`, lazily as :func:`sidebet.sim.steps.refill` says)
and the same round (:func:`sidebet.sim.steps.deal_round`, :func:`~sidebet.sim.steps.play_hands`,
:func:`~sidebet.sim.steps.settle_round`, :func:`~sidebet.sim.steps.book_table`, ...) as
:func:`sidebet.sim.kernels.play_chunk`, compiled from the same Python source as CUDA device
functions (:func:`sidebet.native.jit.device`).  So a chunk's counters equal the CPU
kernel's for the same seed and shoes, to the tenth of a unit.

Counters are integers.  Each thread sums its shoe's round counters
(:data:`sidebet.sim.layout.STAT_NAMES`), all-seat squares and seat sums in its own local
arrays; the side wagers' combinations and the histogram's common slots are counted per
block in shared memory as each round is booked (rare slots go straight to the chunk's
histogram); a block adds its threads' sums in shared memory, and each block's sums are
added to the chunk's, all by atomic adds (the steps' ``add`` is an atomic add on the
device, :func:`sidebet.native.jit.twin`).  Integer sums do not depend
on the order of the additions.

A run's last chunk usually ends inside a shoe: :func:`run_chunk_gpu` then plays the whole
shoes before that round on the device and the rest of the shoe on the CPU.  Without a
device (``numba.cuda`` finds none), :func:`require_device` raises one line.  Under
``NUMBA_ENABLE_CUDASIM=1`` numba's CUDA simulator runs the kernel in Python (slowly: small
runs, for tests).  This module imports no pydantic, SQLAlchemy or FastAPI.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.errors import SidebetError
from sidebet.native.jit import device_kernel, twin
from sidebet.sim import steps
from sidebet.sim.chunk import chunk_result, kernel_records, run_chunk
from sidebet.sim.counters import ChunkResult, Tally
from sidebet.sim.layout import NSTAT, ST_ROUNDS, ST_SEAT_ROUNDS, ST_SHOES, Outputs
from sidebet.sim.shuffle import shoe_state, shuffle_from
from sidebet.sim.spec import MAX_SEATS, SimSpec
from sidebet.sim.steps import (
    MAX_HANDS,
    NHAND,
    NSEAT,
    book_sides_only,
    book_table,
    close_chunk,
    deal_round,
    first_places,
    play_hands,
    settle_round,
    settle_sides,
)

cuda: Any = None
with contextlib.suppress(ImportError):  # (numba without its CUDA target: no device)
    from numba import cuda
"""``numba.cuda`` (a module global: numba's CUDA simulator swaps it for its own in the
kernels' globals)."""

__all__ = ["THREADS", "device_name", "gpu_available", "kernel_outputs", "launch_arguments",
           "play_shoes", "require_device", "run_chunk_gpu"]

THREADS = 128
"""Threads (shoes) per block."""

NCARDS = 312
"""The shoe's cards: each deck count compiles its own kernel, whose shoe is a local
array of this size (:func:`sidebet.native.jit.device_kernel` binds it)."""
NCOMBOS = 3500
"""The side wagers' combinations, counted per block in shared memory first (bound per
kernel as :data:`NCARDS`)."""
NROUND2 = 8
"""The all-seat squares (side wagers and three more), bound per kernel as :data:`NCARDS`."""
NNEAR = 1024
"""Slots of the histogram (whole round nets within 51.2 units of zero) counted per block
in shared memory first."""
FULL = True
"""Complete rounds (else side wagers only): bound per kernel as :data:`NCARDS`."""


if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    # numba's simulator: its atomic add is a lock, and a device function that names
    # ``cuda`` has it swapped in its module's globals at every call, which races between
    # the simulated threads; so the lock is taken here
    _LOCK = threading.Lock()

    def _atomic_add(out: Any, i: Any, v: Any) -> None:
        """``steps.add`` on the simulator."""
        with _LOCK:
            out[i] += v

else:

    def _atomic_add(out: Any, i: Any, v: Any) -> None:  # pragma: no cover - device
        """``steps.add`` on a device."""
        cuda.atomic.add(out, i, v)


twin(steps.add, _atomic_add)


def _shoes(base: Any, orders: Any, key0: Any, key1: Any, shoe0: int, nshoes: int, cut: int,
           seats: int, bet: int, combo_tab: Any, combo_net: Any, combo_offer: Any,
           combo_pay: Any, press_mode: int, press_tab: Any, rules: Any, vals: Any,
           hist_off: int, decide2: Any, hit_more: Any, d_go: Any, d_next: Any, d_fin: Any,
           show_ix: Any, k_net: Any, k_counts: Any, pk: Any, combo_counts: Any, round2: Any,
           seat_stats: Any, stats: Any, hist: Any, trace: Any, shoe_rounds: Any
           ) -> None:  # pragma: no cover - device
    """Thread ``t`` plays shoe ``shoe0 + t`` (below ``shoe0 + nshoes``) to its cut card,
    as :func:`sidebet.sim.kernels.play_chunk` plays a seeded shoe, and books it; its
    rounds go to ``shoe_rounds[t]``."""
    # the block's sums: the round counters, the combinations (one is most rounds'), the
    # histogram's common slots (from ``near_lo``), the all-seat squares, the seats' sums
    block = cuda.shared.array(NSTAT, np.int64)
    block_combos = cuda.shared.array(NCOMBOS, np.int64)
    near = cuda.shared.array(NNEAR, np.int64)
    block_r2 = cuda.shared.array(NROUND2, np.int64)
    block_seats = cuda.shared.array((MAX_SEATS, 4), np.int64)
    near_lo = hist_off - NNEAR // 2
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    for k in range(tid, NSTAT, step):
        block[k] = 0
    for k in range(tid, NCOMBOS, step):
        block_combos[k] = 0
    for k in range(tid, NNEAR, step):
        near[k] = 0
    for k in range(tid, NROUND2, step):
        block_r2[k] = 0
    for k in range(tid, MAX_SEATS * 4, step):
        block_seats[k // 4, k % 4] = 0
    cuda.syncthreads()
    t = cuda.grid(1)
    if t < nshoes:
        buf = cuda.local.array(NCARDS, np.uint8)
        seat = cuda.local.array((MAX_SEATS, NSEAT), np.int64)
        hands = cuda.local.array((MAX_SEATS, MAX_HANDS, NHAND), np.int64)
        combos = cuda.local.array(MAX_SEATS, np.int64)
        cnt = cuda.local.array(NSTAT, np.int64)
        my_r2 = cuda.local.array(NROUND2, np.int64)
        my_seats = cuda.local.array((MAX_SEATS, 4), np.int64)
        for k in range(NSTAT):
            cnt[k] = 0
        for k in range(NROUND2):
            my_r2[k] = 0
        for s in range(MAX_SEATS):
            for f in range(4):
                my_seats[s, f] = 0
        for s in range(MAX_SEATS):
            for f in range(NSEAT):
                seat[s, f] = 0
        nw = combo_pay.shape[1]
        shoe = shoe0 + t
        state = shoe_state(shoe, key0, key1)
        n = buf.shape[0]
        for i in range(n):
            buf[i] = base[i]
        lim = first_places(n, cut, seats, FULL)
        state = shuffle_from(buf, 0, lim, state)
        pos = 0
        fresh = False
        stop = False
        rounds = 0
        while pos < cut and not fresh:
            up, hole, pos, lim, shoe, fresh, stop, state, _, _ = deal_round(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, seats, seat, combos,
                combo_tab, FULL, False, pk, 0, 0)
            if seats > 1:
                settle_sides(seats, nw, combos, combo_pay, my_r2, FULL)
            if FULL:
                read_bj, dealer_bj, dealer_drew, dealer_total, pos, lim, shoe, fresh, stop, \
                    state, _, _ = play_hands(
                        buf, base, orders, shoe, pos, lim, fresh, stop, state, False, pk, 0,
                        0, seats, up, hole, seat, hands, combos, vals, combo_offer,
                        press_mode, press_tab, rules, decide2, hit_more, d_go, d_next, d_fin)
                settle_round(seats, read_bj, dealer_bj, dealer_drew, dealer_total, bet,
                             rules, seat, hands, show_ix, k_net, k_counts, cnt)
                book_table(seats, rounds, combos, combo_net, block_combos, seat, cnt,
                           my_seats, hist, hist_off, near, near_lo, trace, my_r2, nw)
            else:
                book_sides_only(seats, combos, block_combos, trace, rounds)
            rounds += 1
        close_chunk(seats, cnt, my_seats)
        cnt[ST_ROUNDS] = rounds
        cnt[ST_SEAT_ROUNDS] = rounds * seats
        cnt[ST_SHOES] = 1
        shoe_rounds[t] = rounds
        for k in range(NSTAT):
            cuda.atomic.add(block, k, cnt[k])
        for k in range(NROUND2):
            cuda.atomic.add(block_r2, k, my_r2[k])
        for s in range(seats):
            for f in range(4):
                cuda.atomic.add(block_seats, (s, f), my_seats[s, f])
    cuda.syncthreads()
    for k in range(tid, NSTAT, step):
        cuda.atomic.add(stats, k, block[k])
    for k in range(tid, NROUND2, step):
        cuda.atomic.add(round2, k, block_r2[k])
    for k in range(tid, seats * 4, step):
        cuda.atomic.add(seat_stats, (k // 4, k % 4), block_seats[k // 4, k % 4])
    for k in range(tid, NCOMBOS, step):
        if block_combos[k] != 0:
            cuda.atomic.add(combo_counts, k, block_combos[k])
    for k in range(tid, NNEAR, step):
        if near[k] != 0:
            cuda.atomic.add(hist, near_lo + k, near[k])


def gpu_available() -> bool:
    """Whether ``numba.cuda`` finds a CUDA device (always under its simulator)."""
    if cuda is None:
        return False
    try:
        return bool(cuda.is_available())
    except Exception:  # a broken driver: no device
        return False


def require_device() -> None:
    """Raise one line unless a CUDA device is there."""
    if not gpu_available():
        raise SidebetError("--device gpu: no CUDA device was found (numba.cuda sees none; "
                           "use --device cpu or auto)")


def device_name() -> str:
    """The current CUDA device's name (numba's simulator says so)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    name = getattr(cuda.current_context().device, "name", "a CUDA device")
    if isinstance(name, bytes):
        name = name.decode(errors="replace")
    return str(name)


def _tables(spec: SimSpec, bet: int) -> tuple[Any, ...]:
    """The round's tables the CPU kernel builds per chunk, built here on the host by
    the same kernels: the dealer's, hit-or-stand, settlement (at a bet of ``bet``
    tenths)."""
    from sidebet.sim import kernels  # numba (CPU): the table builders

    inp = spec.inputs()
    h17, bj_num, bj_den, _, _, dbj_doubles = steps.hand_rules(inp.rules)
    d_go, d_next, d_fin = kernels.dealer_tables(inp.vals, bool(h17))
    if inp.strategy is not None:
        hit_more = kernels.hit_table(inp.strategy.hs_hard, inp.strategy.hs_soft, 1)
    else:
        hit_more = np.zeros(steps.NHIT, np.int8)
    show_ix, k_net, k_counts = kernels.settle_tables(bet, int(bj_num), int(bj_den),
                                                     bool(dbj_doubles))
    return hit_more, d_go, d_next, d_fin, show_ix, k_net, k_counts


def launch_arguments(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int
                     ) -> tuple[dict[str, Any], tuple[Any, ...], Outputs, Any]:
    """What the device kernel of ``spec``'s table takes for shoes ``shoe0 ..`` (at most
    ``nshoes``): its compile-time constants (:func:`sidebet.native.jit.device_kernel`),
    its inputs, the chunk's outputs (:class:`sidebet.sim.layout.Outputs`, fresh) and the
    array of each shoe's rounds."""
    src, tab, play, outs = kernel_records(spec, key, shoe0, nshoes)
    hit_more, d_go, d_next, d_fin, show_ix, k_net, k_counts = _tables(spec, int(tab.bet))
    decide2 = play.decide2 if play is not None else np.zeros((steps.NCTX, 12, 12, 12), np.int8)
    ins = (src.base, src.orders, src.key0, src.key1, shoe0, nshoes, src.cut, tab.seats,
           tab.bet, tab.combo_tab, tab.combo_net, tab.combo_offer, tab.combo_pay,
           tab.press_mode, tab.press_tab, tab.rules, tab.vals, tab.hist_off, decide2,
           hit_more, d_go, d_next, d_fin, show_ix, k_net, k_counts,
           np.zeros((52, 2), np.int64))
    constants = {"NCARDS": int(src.buf.shape[0]), "NCOMBOS": int(outs.combo_counts.shape[0]),
                 "NROUND2": int(outs.round2.shape[0]), "FULL": play is not None}
    return constants, ins, outs, np.zeros(max(nshoes, 1), np.int64)


def kernel_outputs(outs: Outputs, shoe_rounds: Any) -> tuple[Any, ...]:
    """The device kernel's output arguments, in its order."""
    return (outs.combo_counts, outs.round2, outs.seat_stats, outs.stats, outs.hist,
            outs.trace, shoe_rounds)


def play_shoes(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int
               ) -> tuple[ChunkResult, npt.NDArray[np.int64]]:
    """Play shoes ``shoe0 .. shoe0 + nshoes - 1`` of ``spec`` whole on the device: their
    counters and each shoe's rounds."""
    constants, ins, outs, shoe_rounds = launch_arguments(spec, key, shoe0, nshoes)
    outputs = kernel_outputs(outs, shoe_rounds)
    if nshoes > 0:
        kernel = device_kernel(_shoes, **constants)
        on_device = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in ins]
        out_device = [cuda.to_device(a) for a in outputs]
        blocks = math.ceil(nshoes / THREADS)
        kernel[blocks, THREADS](*on_device, *out_device)
        cuda.synchronize()
        for host, dev in zip(outputs, out_device, strict=True):
            dev.copy_to_host(host)
    outs.info[0] = nshoes
    rounds = int(shoe_rounds[:nshoes].sum())
    side_only = not constants["FULL"]
    return chunk_result(spec.inputs(), side_only, rounds, outs), shoe_rounds[:nshoes]


def run_chunk_gpu(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                  max_rounds: int) -> ChunkResult:
    """:func:`sidebet.sim.chunk.run_chunk` on the device (the same counters): whole shoes
    on the device; when ``max_rounds`` ends inside a shoe, that shoe's rounds on the
    CPU."""
    result, per_shoe = play_shoes(spec, key, shoe0, nshoes)
    if result.rounds <= max_rounds:
        return result
    whole = int(np.searchsorted(np.cumsum(per_shoe), max_rounds, side="right"))
    parts = []
    done = 0
    if whole:
        head, _ = play_shoes(spec, key, shoe0, whole)
        parts.append(head)
        done = head.rounds
    if done < max_rounds:
        parts.append(run_chunk(spec, key, shoe0 + whole, 1, max_rounds - done))
    return _merged(parts, spec.inputs().n_combos)


def _merged(parts: list[ChunkResult], n_combos: int) -> ChunkResult:
    """One chunk's counters from consecutive parts of it."""
    tally = Tally(n_combos)
    for part in parts:
        tally.add(part)
    combos = [(k, v) for k, v in enumerate(tally.combo_counts) if v]
    hist = sorted(tally.hist.items())
    return ChunkResult(rounds=tally.rounds, shoes=tally.shoes, stats=tuple(tally.stats),
                       combo_index=tuple(k for k, _ in combos),
                       combo_count=tuple(v for _, v in combos),
                       hist_index=tuple(k for k, _ in hist),
                       hist_count=tuple(v for _, v in hist),
                       round2=tuple(tally.round2),
                       seats=tuple(tuple(row) for row in tally.seats))
