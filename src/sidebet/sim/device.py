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

A card counter's shoes (:func:`play_counter_shoes`, ``advantage --device``) run as a
second kernel from the same steps and the counter's (:mod:`sidebet.sim.counting`,
:func:`sidebet.sim.steps.book_counter`): each thread's money sums are its own integers
until its shoe ends, the sums by bucket and by side count its block's (``add``); the host
completes them as the CPU kernel does.

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
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from sidebet.core.errors import SidebetError
from sidebet.native.jit import device_kernel, twin
from sidebet.sim import counting, steps
from sidebet.sim.chunk import chunk_result, kernel_records, run_chunk
from sidebet.sim.counters import ChunkResult, Tally
from sidebet.sim.counting import (
    bet_round,
    book_chunk,
    close_shoe,
    cut_place,
    insurance_bucket,
    scratch,
)
from sidebet.sim.exact_ev import NCAT, NSTATE, ev_remove, ev_reset, evaluate
from sidebet.sim.layout import (
    NACC,
    NSTAT,
    NTC,
    ST_ROUNDS,
    ST_SEAT_ROUNDS,
    ST_SHOES,
    CounterArrays,
    CounterOutputs,
    Outputs,
    PlayArrays,
)
from sidebet.sim.shuffle import shoe_state, shuffle_from
from sidebet.sim.spec import MAX_SEATS, SimSpec
from sidebet.sim.steps import (
    MAX_HANDS,
    NHAND,
    NSEAT,
    S_BJ,
    book_counter,
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

__all__ = [
    "THREADS",
    "CounterShoes",
    "chunk_parts",
    "counter_arguments",
    "device_name",
    "gpu_available",
    "kernel_outputs",
    "launch_arguments",
    "play_counter_shoes",
    "play_shoes",
    "require_device",
    "run_chunk_gpu",
]

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
NW = 4
"""A counter's side wagers (at least 1), bound per kernel as :data:`NCARDS`."""
NCOMP = 7
"""A counter's money components (``3 + NW``), bound per kernel as :data:`NCARDS`."""
NB = 31
"""A counter's index buckets (the side counts' too), bound per kernel as :data:`NCARDS`."""


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
        no_plays = cuda.local.array((1, 1), np.int8)  # (no counter: no play tables)
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
                        press_mode, press_tab, rules, decide2, hit_more, no_plays, d_go,
                        d_next, d_fin)
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


def _tables(spec: SimSpec, bet: int, play: PlayArrays | None) -> tuple[Any, ...]:
    """The round's tables the CPU kernel builds per chunk, built here on the host by
    the same kernels: the dealer's, hit-or-stand (each of ``play``'s strategies),
    settlement (at a bet of ``bet`` tenths)."""
    from sidebet.sim import kernels  # numba (CPU): the table builders

    inp = spec.inputs()
    h17, bj_num, bj_den, _, _, dbj_doubles = steps.hand_rules(inp.rules)
    d_go, d_next, d_fin = kernels.dealer_tables(inp.vals, bool(h17))
    if play is not None:
        hit_more = kernels.hit_table(play.hs_hard, play.hs_soft,
                                     play.decide2.shape[0] // steps.NCTX)
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
    hit_more, d_go, d_next, d_fin, show_ix, k_net, k_counts = _tables(spec, int(tab.bet), play)
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
    parts = chunk_parts(lambda k: play_shoes(spec, key, shoe0, k),
                        lambda k, r: run_chunk(spec, key, shoe0 + k, 1, r), nshoes, max_rounds)
    return parts[0] if len(parts) == 1 else _merged(parts, spec.inputs().n_combos)


class _Rounds(Protocol):
    @property
    def rounds(self) -> int: ...


P = TypeVar("P", bound=_Rounds)


def chunk_parts(on_device: Callable[[int], tuple[P, npt.NDArray[np.int64]]],
                on_cpu: Callable[[int, int], P], nshoes: int, max_rounds: int) -> list[P]:
    """A chunk of ``nshoes`` shoes that stops after ``max_rounds`` rounds, in parts:
    ``on_device(k)`` plays its first ``k`` shoes whole (and gives each one's rounds);
    when ``max_rounds`` ends inside a shoe, the shoes before it run on the device and
    ``on_cpu(k, r)`` plays the first ``r`` rounds of shoe ``k``."""
    got, per_shoe = on_device(nshoes)
    if got.rounds <= max_rounds:
        return [got]
    whole = int(np.searchsorted(np.cumsum(per_shoe), max_rounds, side="right"))
    parts = []
    done = 0
    if whole:
        head, _ = on_device(whole)
        parts.append(head)
        done = head.rounds
    if done < max_rounds:
        parts.append(on_cpu(whole, max_rounds - done))
    return parts


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


# ----- a card counter at the table ------------------------------------------------------

def _counter_shoes(base: Any, orders: Any, key0: Any, key1: Any, shoe0: int, nshoes: int,
                   cut: int, seats: int, bet: int, combo_tab: Any, combo_offer: Any,
                   combo_pay: Any, press_mode: int, press_tab: Any, rules: Any, vals: Any,
                   decide2: Any, hit_more: Any, d_go: Any, d_next: Any, d_fin: Any,
                   show_ix: Any, k_net: Any, k_counts: Any, pk: Any, cset: Any,
                   spots_of: Any, den: Any, inv: Any, ramp: Any, play_at: Any,
                   side_mode: Any, side_field: Any, side_sum: Any, side_ramp: Any,
                   side_need: Any, side_top: Any, side_cap: Any, full: Any, ev_weights: Any, ev_cls: Any, ev_ma: Any, ev_mb: Any, ev_lucky: Any,
                   ev_nb: Any, comp: Any, acc: Any, side_acc: Any, tcs: Any, tc_stats: Any,
                   stc: Any, trace: Any, shoe_rounds: Any) -> None:  # pragma: no cover
    """Thread ``t`` plays shoe ``shoe0 + t`` (below ``shoe0 + nshoes``) to its cut card
    with the counter (``cset`` its settings, :func:`sidebet.sim.counting.scratch`), as
    :func:`sidebet.sim.kernels.play_chunk` plays a seeded shoe with a
    :class:`sidebet.sim.layout.CounterArrays`: the same steps (the count, the bets,
    insurance, the round and its plays, the counter's books).  Its money sums are integers of its own, added per
    block and then to the chunk's; the sums by bucket are the block's from the start
    (the steps' ``add``).  Thread ``t`` writes its rounds' nets to ``trace[t]`` while
    ``t`` is below ``trace``'s rows; its rounds go to ``shoe_rounds[t]``."""
    b_comp = cuda.shared.array((NCOMP, 5), np.int64)
    b_acc = cuda.shared.array(NACC, np.int64)
    b_side = cuda.shared.array((NW, 2), np.int64)
    b_tcs = cuda.shared.array((NB, 6), np.int64)
    b_tc = cuda.shared.array((NB, NTC), np.int64)
    b_stc = cuda.shared.array((NW, NB, 3), np.int64)
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    for k in range(tid, NCOMP * 5, step):
        b_comp[k // 5, k % 5] = 0
    for k in range(tid, NACC, step):
        b_acc[k] = 0
    for k in range(tid, NW * 2, step):
        b_side[k // 2, k % 2] = 0
    for k in range(tid, NB * 6, step):
        b_tcs[k // 6, k % 6] = 0
    for k in range(tid, NB * NTC, step):
        b_tc[k // NTC, k % NTC] = 0
    for k in range(tid, NW * NB * 3, step):
        b_stc[k // (NB * 3), (k // 3) % NB, k % 3] = 0
    cuda.syncthreads()
    t = cuda.grid(1)
    if t < nshoes:
        buf = cuda.local.array(NCARDS, np.uint8)
        seat = cuda.local.array((MAX_SEATS, NSEAT), np.int64)
        hands = cuda.local.array((MAX_SEATS, MAX_HANDS, NHAND), np.int64)
        combos = cuda.local.array(MAX_SEATS, np.int64)
        cnt = cuda.local.array(NSTAT, np.int64)
        my_comp = cuda.local.array((NCOMP, 5), np.int64)
        my_acc = cuda.local.array(NACC, np.int64)
        my_side = cuda.local.array((NW, 2), np.int64)
        mark = cuda.local.array(NCOMP, np.int64)
        sideu = cuda.local.array(NW, np.int64)
        sideb = cuda.local.array(NW, np.int64)
        evs = cuda.local.array(NW, np.float64)
        ev_st = cuda.local.array(NSTATE, np.int64)
        ev_cats = cuda.local.array(NCAT, np.int64)
        for k in range(NSTAT):
            cnt[k] = 0
        for j in range(NCOMP):
            mark[j] = 0
            for f in range(5):
                my_comp[j, f] = 0
        for k in range(NACC):
            my_acc[k] = 0
        for w in range(NW):
            my_side[w, 0] = 0
            my_side[w, 1] = 0
            sideu[w] = 0
            sideb[w] = 0
            evs[w] = 0.0
        for s in range(MAX_SEATS):
            for f in range(NSEAT):
                seat[s, f] = 0
        nw = combo_pay.shape[1]
        n = buf.shape[0]
        burn = cset[counting.C_BURN]
        cut_spread = cset[counting.C_CUT_SPREAD]
        use_ev = cset[counting.C_USE_EV] != 0
        parlay = cset[counting.C_PARLAY] != 0
        row = t if t < trace.shape[0] else 0
        traced = trace.shape[0] > t
        shoe = shoe0 + t
        state = shoe_state(shoe, key0, key1)
        for i in range(n):
            buf[i] = base[i]
        # (with a cut card spread, the cut card can fall later: as many more places
        # shuffled first, as the CPU kernel does)
        lim = first_places(n, cut + cut_spread, seats, True)
        state = shuffle_from(buf, 0, lim, state)
        pos = burn  # (burned after the shuffle, unseen by the counter)
        shoe_cut = cut_place(cut, cut_spread, shoe, key0, key1)
        fresh = False
        stop = False
        rounds = 0
        word0 = 0
        word1 = 0
        gone = False
        last = 0  # the counter's last bet in this shoe (0: none yet) and whether it won
        won = False
        inplay = cset[counting.C_WONG_IN] < 0  # (a back-counter waits for its count)
        if use_ev:
            ev_reset(ev_st, full, ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
        while pos < shoe_cut and not fresh:
            start = pos
            if use_ev:  # (a kernel's call: see bet_round)
                evaluate(ev_st, ev_weights, ev_cats, evs)
            bucket, inplay, gone, units, now, dealt = bet_round(
                word0, word1, pos, n, seats, inplay, gone, last, won, cset, den, inv, ramp,
                spots_of, side_mode, side_ramp, side_field, side_sum, side_top, side_cap,
                side_need, evs, sideu, sideb, seat)
            up, hole, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_round(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, dealt, seat, combos,
                combo_tab, True, True, pk, word0, word1)
            ibucket = insurance_bucket(vals[up], word0, word1, pk, hole, pos, n, cset, den,
                                       inv, ramp.shape[0])
            read_bj, dealer_bj, dealer_drew, dealer_total, pos, lim, shoe, fresh, stop, \
                state, word0, word1 = play_hands(
                    buf, base, orders, shoe, pos, lim, fresh, stop, state, True, pk, word0,
                    word1, dealt, up, hole, seat, hands, combos, vals, combo_offer,
                    press_mode, press_tab, rules, decide2, hit_more, play_at, d_go, d_next,
                    d_fin)
            settle_round(dealt, read_bj, dealer_bj, dealer_drew, dealer_total, bet, rules,
                         seat, hands, show_ix, k_net, k_counts, cnt)
            book_counter(now, vals[up], dealer_bj, bucket, ibucket,
                         cset[counting.C_INS_FROM], units, seat, my_comp, my_acc, combo_pay,
                         combos, side_mode, sideb, b_stc, sideu, my_side, b_tcs, b_tc,
                         rounds if traced else trace.shape[1], trace[row])
            if parlay:  # (cover: whether the Blackjack bet won)
                net = 0
                for s in range(now):
                    net += seat[s, S_BJ]
                won = net > 0
            last = units
            if use_ev and not fresh:  # the exact EVs see the round's cards
                for i in range(start, pos):
                    ev_remove(ev_st, np.int64(buf[i]), ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
            rounds += 1
        close_shoe(my_acc, my_comp, mark, rounds)
        shoe_rounds[t] = rounds
        for j in range(NCOMP):
            for f in range(5):
                cuda.atomic.add(b_comp, (j, f), my_comp[j, f])
        for k in range(NACC):
            cuda.atomic.add(b_acc, k, my_acc[k])
        for w in range(nw):
            cuda.atomic.add(b_side, (w, 0), my_side[w, 0])
            cuda.atomic.add(b_side, (w, 1), my_side[w, 1])
    cuda.syncthreads()
    for k in range(tid, NCOMP * 5, step):
        cuda.atomic.add(comp, (k // 5, k % 5), b_comp[k // 5, k % 5])
    for k in range(tid, NACC, step):
        cuda.atomic.add(acc, k, b_acc[k])
    for k in range(tid, NW * 2, step):
        cuda.atomic.add(side_acc, (k // 2, k % 2), b_side[k // 2, k % 2])
    for k in range(tid, NB * 6, step):
        if b_tcs[k // 6, k % 6] != 0:
            cuda.atomic.add(tcs, (k // 6, k % 6), b_tcs[k // 6, k % 6])
    for k in range(tid, NB * NTC, step):
        if b_tc[k // NTC, k % NTC] != 0:
            cuda.atomic.add(tc_stats, (k // NTC, k % NTC), b_tc[k // NTC, k % NTC])
    for k in range(tid, NW * NB * 3, step):
        a, b, c = k // (NB * 3), (k // 3) % NB, k % 3
        if b_stc[a, b, c] != 0:
            cuda.atomic.add(stc, (a, b, c), b_stc[a, b, c])


class CounterShoes(NamedTuple):
    """Whole shoes played with a counter on the device: its sums as the CPU kernel
    leaves them (:class:`sidebet.sim.layout.CounterOutputs`, ``trace`` the first rounds'
    nets in order), the rounds and each shoe's rounds."""

    tally: CounterOutputs
    rounds: int
    per_shoe: npt.NDArray[np.int64]


def counter_arguments(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                      play: PlayArrays, counter: CounterArrays, tally: CounterOutputs
                      ) -> tuple[dict[str, Any], tuple[Any, ...], tuple[Any, ...]]:
    """What the counter's device kernel takes for shoes ``shoe0 ..`` (``nshoes``): its
    compile-time constants, its inputs and its outputs (fresh integer sums, the traced
    nets ``[shoe, round]`` for the first of ``tally.trace``'s rows, each shoe's
    rounds)."""
    src, tab, _, _ = kernel_records(spec, key, shoe0, nshoes)
    hit_more, d_go, d_next, d_fin, show_ix, k_net, k_counts = _tables(spec, int(tab.bet),
                                                                      play)
    nw = int(tab.combo_pay.shape[1])
    n = int(src.buf.shape[0])
    pk, cset, _, _, _, full, side_top, _, _, _, _, _ = scratch(counter, tally, nw, n)
    nb = max(int(counter.ramp.shape[0]), int(counter.side_ramp.shape[1]))
    rows = int(tally.trace.shape[0])
    # a round deals 2 a seat dealt (the counter's spots that round and the others) and 2
    # more, before a cut card as late as its spread allows
    fewest = int(counter.spots_of.min()) + spec.seats - counter.spots
    per_row = (spec.cut + counter.cut_spread) // (2 * fewest + 2) + 1
    outputs = (np.zeros(tally.comp.shape, np.int64), np.zeros(NACC, np.int64),
               np.zeros((max(nw, 1), 2), np.int64), np.zeros((nb, 6), np.int64),
               np.zeros((nb, NTC), np.int64), np.zeros((max(nw, 1), nb, 3), np.int64),
               np.zeros((max(min(nshoes, rows), 1), per_row if rows else 0), np.int64),
               np.zeros(max(nshoes, 1), np.int64))
    ev = counter.ev
    ins = (src.base, src.orders, src.key0, src.key1, shoe0, nshoes, src.cut, tab.seats,
           tab.bet, tab.combo_tab, tab.combo_offer, tab.combo_pay, tab.press_mode,
           tab.press_tab, tab.rules, tab.vals, play.decide2, hit_more, d_go, d_next, d_fin,
           show_ix, k_net, k_counts, pk, cset, counter.spots_of, counter.den, counter.inv,
           counter.ramp, counter.play_at, counter.side_mode, counter.side_field,
           counter.side_sum, counter.side_ramp, counter.side_need, side_top, counter.side_cap,
           full, ev.weights, ev.cls, ev.ma, ev.mb, ev.lucky, ev.nb)
    constants = {"NCARDS": n, "NW": max(nw, 1), "NCOMP": 3 + nw, "NB": nb}
    return constants, tuple(np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a
                            for a in ins), outputs


def play_counter_shoes(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                       play: PlayArrays, counter: CounterArrays, tally: CounterOutputs
                       ) -> CounterShoes:
    """Play shoes ``shoe0 .. shoe0 + nshoes - 1`` of ``spec`` whole on the device with
    ``counter`` (``play`` its strategies), adding to ``tally`` (fresh: float sums, as
    :func:`sidebet.sim.kernels.play_chunk` takes; its ``trace`` rows are filled with the
    first rounds' nets) exactly what the CPU kernel adds for those shoes."""
    constants, ins, outputs = counter_arguments(spec, key, shoe0, nshoes, play, counter,
                                                tally)
    comp, acc, side_acc, tcs, tc_stats, stc, trace, shoe_rounds = outputs
    if nshoes > 0:
        kernel = device_kernel(_counter_shoes, **constants)
        on_device = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in ins]
        out_device = [cuda.to_device(a) for a in outputs]
        kernel[math.ceil(nshoes / THREADS), THREADS](*on_device, *out_device)
        cuda.synchronize()
        for host, dev in zip(outputs, out_device, strict=True):
            dev.copy_to_host(host)
    nw = tally.side_acc.shape[0]
    nsb = counter.side_ramp.shape[1]
    rows = tally.trace.shape[0]
    per_shoe = shoe_rounds[:nshoes]
    rounds = int(per_shoe.sum())
    tally.comp[:] += comp
    tally.acc[:] += acc
    tally.side_acc[:] += side_acc[:nw]
    tally.tc_stats[:] += tc_stats
    if rows and nshoes:  # each traced shoe's rounds, in order
        traced = trace[:min(nshoes, rows)]
        got = traced[np.arange(traced.shape[1]) < per_shoe[:len(traced), None]][:rows]
        tally.trace[:len(got)] = got
    book_chunk(counter, tally, rounds, nshoes, np.ascontiguousarray(stc[:, :nsb]),
               np.ascontiguousarray(tcs[:counter.ramp.shape[0]]))
    return CounterShoes(tally, rounds, per_shoe)
