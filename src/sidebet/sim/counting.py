"""A card counter's steps in the round kernel: the index, the bets, and its books.

:func:`sidebet.sim.kernels.play_chunk` plays every round the same way, with or without a
counter at the table.  Given a :class:`sidebet.sim.layout.CounterArrays` it counts every
card as it is dealt (the tags packed in two words: one addition a word counts a card for
every count).  This module holds the counter's steps, plain compiled functions of
scalars and arrays (the books after a round are :func:`sidebet.sim.steps.book_counter`);
the CUDA kernel of :mod:`sidebet.sim.device` compiles the same ones:

* :func:`whole` (the index made whole), :func:`ace_adjusted` (with an ace side count),
  :func:`wong` (wonging in and out),
  :func:`cover` (the bet kept near the last one) and :func:`field` (one count read from
  the packed tags), inlined in every round; :func:`cut_place` (the shoe's cut card) once
  a shoe;
* :func:`main_bet` and :func:`side_bets` before every round: the index, its bucket,
  wonging, cover, the spots and the bets;
* :func:`scratch`, once a chunk: the counter's working arrays;
* :func:`close_shoe` at the end of a shoe and :func:`book_chunk` once a chunk.

Money is in tenths of a table unit; the counter's hands are settled at one unit
(``RoundTables.bet`` :data:`UNIT`) and scaled by the bet (exact: bets are whole units).
The true count is made whole without a division (:func:`whole`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sidebet.native.jit import inline, kernel, step
from sidebet.sim.exact_ev import NCAT, NSTATE
from sidebet.sim.shuffle import mix64, shoe_state

__all__ = ["UNIT", "ace_adjusted", "book_chunk", "close_shoe", "cover", "cut_place", "field",
           "main_bet", "scratch", "side_bets", "whole", "wong"]

UNIT = 10
"""One table unit in tenths: the counter's hands are settled at this bet."""


@inline
def whole(num: int, den: int, inv: float, rounding: int) -> int:  # pragma: no cover
    """``num / den`` (``den`` > 0) made whole exactly, ``inv`` being about ``1 / den``: 0
    towards zero, 1 down, 2 to the nearest (halves away from zero).  The product's floor
    is off by at most one (``|num|`` is far below 2**52) and is put right by the
    remainder, so no division is made."""
    q = int(math.floor(num * inv))  # noqa: RUF046 (numba.cuda: math.floor gives a float)
    r = num - q * den
    if r < 0:
        q -= 1
        r += den
    elif r >= den:
        q += 1
        r -= den
    if rounding == 1:
        return q
    if rounding == 0:
        return q + 1 if q < 0 and r != 0 else q
    twice = 2 * r
    return q + 1 if twice > den or (twice == den and num >= 0) else q


@inline
def ace_adjusted(running: int, aces: int, seen: int, weight: int, mult: int, den: int,
                 inv: float, rounding: int) -> int:  # pragma: no cover - compiled
    """An index with an ace side count: the running count ``running`` plus ``weight``
    per ace in excess among the unseen cards (``seen`` cards seen, ``aces`` of them aces;
    aces are a thirteenth of a shoe, so the excess is ``seen / 13 - aces``), times
    ``mult`` over ``den`` (:func:`whole`, ``inv`` about ``1 / den``)."""
    return whole((13 * running + weight * (seen - 13 * aces)) * mult, 13 * den, inv / 13.0,
                 rounding)


@inline
def wong(b: int, inplay: bool, gone: bool, wong_in: int, wong_out: int
         ) -> tuple[bool, bool]:  # pragma: no cover - compiled
    """A back-counter at bucket ``b``: it enters at ``wong_in`` or above (-1: it plays
    from the shoe's start) and, once below ``wong_out`` (-1: never), is gone until the
    next shoe.  Returns ``(inplay, gone)``."""
    if wong_in >= 0 and not inplay and not gone and b >= wong_in:
        inplay = True
    if inplay and wong_out >= 0 and b < wong_out:
        inplay = False
        gone = True
    return inplay, gone


@inline
def cover(units: int, last: int, won: bool, jump: int, parlay: bool) -> int:
    # pragma: no cover - compiled
    """The ramp's bet ``units`` as a covering counter places it after a bet of ``last``
    (0: none yet in this shoe, the ramp's bet): raised only after a won round
    (``parlay``), and at most ``jump`` times or at least a ``jump``-th of the last bet
    (``jump`` 0: any change)."""
    if last == 0:
        return units
    u = units
    if parlay and u > last and not won:
        u = last
    if jump > 0:
        if u > last * jump:
            u = last * jump
        low = (last + jump - 1) // jump
        if u < low:
            u = low
    return u


@inline
def cut_place(cut: int, spread: int, shoe: int, key0: Any, key1: Any) -> Any:
    # pragma: no cover - compiled
    """Where shoe ``shoe``'s cut card goes: ``cut`` moved by a whole number of cards
    uniform in ``-spread .. spread``, drawn from the shoe's own word of a stream apart
    from its shuffle's (the keys swapped), so the cards dealt do not change."""
    if spread == 0:
        return cut
    x = mix64(shoe_state(shoe, key1, key0) ^ np.uint64(0x9E3779B97F4A7C15))
    return cut + np.int64((x >> np.uint64(11)) % np.uint64(2 * spread + 1)) - spread


@inline
def field(word0: int, word1: int, f: int) -> int:  # pragma: no cover - compiled
    """Count ``f`` (0..5) of the packed sums: three signed 21-bit fields a word, counts
    0-2 in ``word0``, 3-5 in ``word1``."""
    x = word0 if f < 3 else word1
    for _ in range(f % 3):
        low = (x << 43) >> 43
        x = (x - low) >> 21
    return (x << 43) >> 43


@inline
def clip(x: int, top: int) -> int:  # pragma: no cover - compiled
    """``x`` clipped to ``0 .. top`` (no ``min``/``max``: a CUDA device function cannot
    compile them)."""
    if x < 0:
        return 0
    if x > top:
        return top
    return x


@step
def main_bet(word0: int, word1: int, pos: int, burn: int, left: int, irc: int,
             main_mult: int, den: Any, inv: Any, rounding: int, inplay: bool, gone: bool,
             wong_in: int, wong_out: int, ramp: Any, play_of: Any, spots_of: Any,
             ace_field: int, ace_bet: int, ace_ins: int, last: int, won: bool, jump: int,
             parlay: bool) -> tuple[int, int, bool, bool, int, int, int]:
    # pragma: no cover - compiled
    """Before a round with ``pos`` cards dealt (``burn`` of them burned, unseen) and
    ``left`` left: the betting index's bucket (clipped; an ace side count in field
    ``ace_field`` moves it by ``ace_bet``, :func:`ace_adjusted`), the insurance index's
    bucket (``ace_ins``), wonging, the Blackjack bet (units a spot; 0 out of play; with
    cover, :func:`cover` after a bet of ``last``), the spots played (``spots_of``) and
    the play tables (``play_of``, by the count itself).  Returns ``(bucket, ibucket,
    inplay, gone, units, spots, tables)``."""
    nb = ramp.shape[0]
    running = irc + field(word0, word1, 0)
    idx = whole(running * main_mult, den[0, left], inv[0, left], rounding)
    bucket = clip(idx + (nb - 1) // 2, nb - 1)
    pbucket = bucket  # the play's index: the count itself
    ibucket = bucket
    if ace_field >= 0:  # an ace side count: the betting and insurance indices
        aces = field(word0, word1, ace_field)
        bidx = ace_adjusted(running, aces, pos - burn, ace_bet, main_mult, den[0, left],
                            inv[0, left], rounding)
        bucket = clip(bidx + (nb - 1) // 2, nb - 1)
        iidx = ace_adjusted(running, aces, pos - burn, ace_ins, main_mult, den[0, left],
                            inv[0, left], rounding)
        ibucket = clip(iidx + (nb - 1) // 2, nb - 1)
    inplay, gone = wong(bucket, inplay, gone, wong_in, wong_out)
    units = cover(ramp[bucket], last, won, jump, parlay) if inplay else 0
    return bucket, ibucket, inplay, gone, units, spots_of[bucket], play_of[pbucket]


@step
def side_bets(nw: int, word0: int, word1: int, pos: int, burn: int, left: int,
              bucket: int, units: int, plain: int, side_mode: Any, side_ramp: Any,
              evs: Any, side_field: Any, side_sum: Any, side_mult: int, den: Any, inv: Any,
              rounding: int, side_top: Any, side_cap: Any, side_need: Any, sideu: Any,
              sideb: Any) -> None:
    # pragma: no cover - compiled
    """Each side wager's bet before a round (``pos`` cards dealt, ``burn`` of them
    burned and unseen, ``left`` left) into ``sideu`` and its side bucket into ``sideb``:
    never, flat, by its exact EV (``evs``), or by its own count; only beside a Blackjack
    bet (``units``), capped by ``side_top`` (a cover bet, ``units`` other than the ramp's
    ``plain``, by its own cap ``side_cap``); a wager ``side_need`` names is then bet at
    least one unit."""
    nsb = side_ramp.shape[1]
    for w in range(nw):
        mode = side_mode[w]
        u = 0
        sb = 0
        if mode == 1:
            u = side_ramp[w, 0]
        elif mode == 2:
            u = side_ramp[w, 0] if evs[w] > 0 else 0
        elif mode == 3:
            sidx = whole((52 * field(word0, word1, side_field[w]) - (pos - burn) * side_sum[w])
                         * side_mult, den[1, left], inv[1, left], rounding)
            sb = clip(sidx + (nsb - 1) // 2, nsb - 1)
            u = side_ramp[w, sb]
        top = side_top[w, bucket]
        if units != plain and top < (1 << 40):  # a cover bet: its own cap
            top = units * side_cap[w, 0] // side_cap[w, 1]
        if units <= 0:
            u = 0
        elif u > top:
            u = top
        sideu[w] = u
        sideb[w] = sb
    for w in range(nw):
        need = side_need[w]
        if need >= 0 and sideu[w] > 0 and sideu[need] < 1:
            sideu[need] = 1


@kernel
def scratch(c: Any, t: Any, nw: int, n: int
            ) -> tuple[Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, bool]:
    # pragma: no cover - compiled
    """The counter's working arrays for a chunk of ``n``-card shoes and ``nw`` side
    wagers: the packed tags (``[card, word]``), the exact-EV state and its buffers, a full
    shoe's card counts, each side wager's largest bet beside the Blackjack bet of each
    bucket (no cap: none), the round's side bets and side buckets, the chunk's integer sums by bucket, each component's sum at the shoe's start (of
    ``t``, the counter's outputs) and whether any wager is bet by EV."""
    pk = np.empty((52, 2), np.int64)
    for k in range(52):
        pk[k, 0] = c.packed[k, 0]
        pk[k, 1] = c.packed[k, 1]
    ncomp = t.comp.shape[0]
    mark = np.zeros(max(ncomp, 1), np.float64)
    for j in range(ncomp):
        mark[j] = t.comp[j, 0]
    nb = c.ramp.shape[0]
    use_ev = False
    for w in range(nw):
        use_ev = use_ev or c.side_mode[w] == 2
    side_top = np.zeros((max(nw, 1), nb), np.int64)
    for w in range(nw):
        for bb in range(nb):
            side_top[w, bb] = (c.ramp[bb] * c.side_cap[w, 0] // c.side_cap[w, 1]
                               if c.side_cap[w, 1] > 0 else 1 << 40)
    return (pk, np.zeros(NSTATE, np.int64), np.zeros(NCAT, np.int64),
            np.zeros(max(nw, 1), np.float64), np.full(52, n // 52, np.int64), side_top,
            np.zeros(max(nw, 1), np.int64), np.zeros(max(nw, 1), np.int64),
            # the by-index sums of whole numbers (tenths at one unit), kept as integers
            # in the chunk and added to the float outputs once (:func:`book_chunk`)
            np.zeros((max(nw, 1), c.side_ramp.shape[1], 3), np.int64),
            np.zeros((nb, 6), np.int64), mark, use_ev)


@kernel
def close_shoe(acc: Any, comp: Any, mark: Any, in_shoe: int) -> None:
    # pragma: no cover - compiled
    """Add a shoe's sums over its ``in_shoe`` rounds to the counter's ``acc`` and ``comp``
    (:class:`sidebet.sim.layout.CounterOutputs`): each its ``comp[j, 0]`` less
    ``mark[j]`` (the sum when the shoe started), which then moves on.  (Integer or
    float sums: a device thread keeps its shoe's in integers.)"""
    r = in_shoe
    acc[3] += r
    acc[4] += r * r
    for j in range(comp.shape[0]):
        x = comp[j, 0] - mark[j]
        comp[j, 2] += x
        comp[j, 3] += x * x
        comp[j, 4] += x * r
        mark[j] = comp[j, 0]


@kernel
def book_chunk(c: Any, t: Any, rounds: int, shoes: int, stc: Any, tcs: Any) -> None:
    # pragma: no cover - compiled
    """The chunk's rounds and shoes, its integer sums by bucket, and the bets: rounds bet,
    the counter's Blackjack action (units, all spots) and its square."""
    t.acc[0] += rounds
    t.acc[2] += shoes
    for w in range(t.side_tc.shape[0]):
        for sb in range(t.side_tc.shape[1]):
            for j in range(3):
                t.side_tc[w, sb, j] += stc[w, sb, j]
    for bb in range(tcs.shape[0]):
        for j in range(5):
            t.tc_stats[bb, j] += tcs[bb, j]
        t.acc[1] += tcs[bb, 3]
        t.acc[5] += tcs[bb, 4]
        t.acc[6] += tcs[bb, 5]
