"""A card counter's steps in the round kernel: the index, the bets, the plays and its books.

:func:`sidebet.sim.kernels.play_chunk` plays every round the same way, with or without a
counter at the table.  Given a :class:`sidebet.sim.layout.CounterArrays` it counts every
card as it is dealt (the tags packed in two words: one addition a word counts a card for
every count, :func:`sidebet.sim.steps.field` reads one).  This module holds the
counter's steps, plain compiled functions of scalars and arrays (the books after a round
are :func:`sidebet.sim.steps.book_counter`, the strategy at each decision
:func:`sidebet.sim.steps.play_strategy`); the CUDA kernel of :mod:`sidebet.sim.device`
compiles and calls the same ones:

* :func:`whole` (the index made whole), :func:`ace_adjusted` (with an ace side count),
  :func:`wong` (wonging in and out) and :func:`cover` (the bet kept near the last one),
  inlined in every round; :func:`cut_place` (the shoe's cut card) once a shoe;
* :func:`bet_round` before every round: the index and its bucket, wonging, cover, the
  spots and the Blackjack bet (:func:`main_bet`), the side wagers' bets
  (:func:`side_bets`), the seats dealt and the strategy each plays;
* :func:`insurance_bucket` after the deal: the insurance index of the cards seen;
* :func:`scratch`, once a chunk: the counter's settings (:data:`NSET`) and working arrays;
  :func:`play_table` once a set-up: the play tables at each count;
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
from sidebet.sim.layout import UNIT
from sidebet.sim.shuffle import mix64, shoe_state
from sidebet.sim.steps import BY_COUNT, S_STRAT, clip, field

__all__ = ["NSET", "UNIT", "ace_adjusted", "bet_round", "book_chunk", "close_shoe", "cover",
           "cut_place", "index_bucket", "insurance_bucket", "main_bet", "play_table",
           "scratch", "side_bets", "whole", "wong"]

# the counter's settings, one int64 array (:func:`scratch`, from its
# :class:`sidebet.sim.layout.CounterArrays`): the fields of the same names
C_SPOTS = 0
C_BURN = 1
C_IRC = 2
C_MAIN_MULT = 3
C_SIDE_MULT = 4
C_ROUNDING = 5
C_WONG_IN = 6
C_WONG_OUT = 7
C_ACE_FIELD = 8
C_ACE_BET = 9
C_ACE_INS = 10
C_JUMP = 11
C_PARLAY = 12
C_CUT_SPREAD = 13
C_BASIC = 14
C_INS_FROM = 15
C_USE_EV = 16  # some side wager is bet by its exact EV
C_PLAY = 17  # the strategy of the counter's seats: BY_COUNT, or the one of every count
NSET = 18
"""Fields of the counter's settings (``C_*``)."""


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
def bucket_of(running: int, mult: int, den: int, inv: float, rounding: int, nb: int
              ) -> int:  # pragma: no cover - compiled
    """The bucket of the index ``running * mult / den`` (:func:`whole`, ``inv`` about
    ``1 / den``) among ``nb``, centred and clipped."""
    return clip(whole(running * mult, den, inv, rounding) + (nb - 1) // 2, nb - 1)


@step
def index_bucket(word0: int, word1: int, seen: int, left: int, weight: int, cset: Any,
                 den: Any, inv: Any, nb: int) -> int:  # pragma: no cover - compiled
    """The index's bucket (of ``nb``) with ``seen`` cards seen (counted in the packed sums)
    and ``left`` left: the running count over the decks left, or with an ace side count
    (``cset[C_ACE_FIELD]``) moved by ``weight`` per ace in excess (:func:`ace_adjusted`)."""
    running = cset[C_IRC] + field(word0, word1, 0)
    ace_field = cset[C_ACE_FIELD]
    if ace_field < 0:
        return bucket_of(running, cset[C_MAIN_MULT], den[0, left], inv[0, left],
                         cset[C_ROUNDING], nb)
    idx = ace_adjusted(running, field(word0, word1, ace_field), seen, weight,
                       cset[C_MAIN_MULT], den[0, left], inv[0, left], cset[C_ROUNDING])
    return clip(idx + (nb - 1) // 2, nb - 1)


@step
def main_bet(word0: int, word1: int, pos: int, left: int, cset: Any, den: Any, inv: Any,
             ramp: Any, spots_of: Any, inplay: bool, gone: bool, last: int, won: bool
             ) -> tuple[int, bool, bool, int, int]:  # pragma: no cover - compiled
    """Before a round with ``pos`` cards dealt (``cset[C_BURN]`` of them burned, unseen)
    and ``left`` left: the betting index's bucket (:func:`index_bucket`, an ace side
    count weighing ``cset[C_ACE_BET]``), wonging, the Blackjack bet (units a spot; 0 out
    of play; with cover, :func:`cover` after a bet of ``last``) and the spots played
    (``spots_of``).  Returns ``(bucket, inplay, gone, units, spots)``."""
    bucket = index_bucket(word0, word1, pos - cset[C_BURN], left, cset[C_ACE_BET], cset, den,
                          inv, ramp.shape[0])
    inplay, gone = wong(bucket, inplay, gone, cset[C_WONG_IN], cset[C_WONG_OUT])
    units = (cover(ramp[bucket], last, won, cset[C_JUMP], cset[C_PARLAY] != 0) if inplay
             else 0)
    return bucket, inplay, gone, units, spots_of[bucket]


@step
def insurance_bucket(upv: int, word0: int, word1: int, pk: Any, hole: int, pos: int, n: int,
                     cset: Any, den: Any, inv: Any, nb: int) -> int:
    # pragma: no cover - compiled
    """Insurance's index bucket when it is offered (an ace up, ``upv`` 11; else 0), after
    the deal of an ``n``-card shoe to place ``pos``: of the cards seen, the hole card
    ``hole`` unseen (:func:`index_bucket`, an ace side count weighing
    ``cset[C_ACE_INS]``)."""
    if upv != 11:
        return 0
    return index_bucket(word0 - pk[hole, 0], word1 - pk[hole, 1], pos - 1 - cset[C_BURN],
                        n - pos + 1, cset[C_ACE_INS], cset, den, inv, nb)


@step
def side_bets(word0: int, word1: int, pos: int, left: int, bucket: int, units: int,
              plain: int, cset: Any, den: Any, inv: Any, side_mode: Any, side_ramp: Any,
              side_field: Any, side_sum: Any, side_top: Any, side_cap: Any, side_need: Any,
              evs: Any, sideu: Any, sideb: Any) -> None:  # pragma: no cover - compiled
    """Each side wager's bet before a round (``pos`` cards dealt, ``cset[C_BURN]`` of them
    burned and unseen, ``left`` left) into ``sideu`` and its side bucket into ``sideb``:
    never, flat, by its exact EV (``evs``), or by its own count; only beside a Blackjack
    bet (``units``), capped by ``side_top`` (a cover bet, ``units`` other than the ramp's
    ``plain``, by its own cap ``side_cap``); a wager ``side_need`` names is then bet at
    least one unit."""
    nw = side_mode.shape[0]
    nsb = side_ramp.shape[1]
    seen = pos - cset[C_BURN]
    for w in range(nw):
        mode = side_mode[w]
        u = 0
        sb = 0
        if mode == 1:
            u = side_ramp[w, 0]
        elif mode == 2:
            u = side_ramp[w, 0] if evs[w] > 0 else 0
        elif mode == 3:
            sb = bucket_of(52 * field(word0, word1, side_field[w]) - seen * side_sum[w],
                           cset[C_SIDE_MULT], den[1, left], inv[1, left], cset[C_ROUNDING],
                           nsb)
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


@step
def bet_round(word0: int, word1: int, pos: int, n: int, seats: int, inplay: bool,
              gone: bool, last: int, won: bool, cset: Any, den: Any, inv: Any, ramp: Any,
              spots_of: Any, side_mode: Any, side_ramp: Any, side_field: Any, side_sum: Any,
              side_top: Any, side_cap: Any, side_need: Any, evs: Any, sideu: Any, sideb: Any,
              seat: Any) -> tuple[int, bool, bool, int, int, int]:
    # pragma: no cover - compiled
    """The counter's step before a round at a table of ``seats`` (``pos`` cards of an
    ``n``-card shoe dealt): its Blackjack bet and spots (:func:`main_bet`), the side
    wagers' bets (:func:`side_bets`, ``evs`` their exact EVs, which the kernel evaluates
    first when one is bet by them: :func:`sidebet.sim.exact_ev.evaluate`, compiled with
    reference counting, costs the whole loop a third of its speed when called from a
    step), and the strategy of each seat dealt (``seat[s, S_STRAT]``: the counter's spots
    by the count at each decision, :data:`sidebet.sim.steps.BY_COUNT`, or the one
    strategy of every count; the others basic strategy).  Returns ``(bucket, inplay, gone, units, spots, seats dealt)``."""
    left = n - pos
    bucket, inplay, gone, units, now = main_bet(word0, word1, pos, left, cset, den, inv,
                                                ramp, spots_of, inplay, gone, last, won)
    side_bets(word0, word1, pos, left, bucket, units, ramp[bucket], cset, den, inv,
              side_mode, side_ramp, side_field, side_sum, side_top, side_cap, side_need, evs,
              sideu, sideb)
    dealt = now + seats - cset[C_SPOTS]
    play = cset[C_PLAY]
    basic = cset[C_BASIC]
    for s in range(dealt):
        seat[s, S_STRAT] = play if s < now else basic
    return bucket, inplay, gone, units, now, dealt


@kernel
def scratch(c: Any, t: Any, nw: int, n: int
            ) -> tuple[Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any]:
    # pragma: no cover - compiled
    """The counter's settings (``C_*``, from ``c``) and working arrays for a chunk of
    ``n``-card shoes and ``nw`` side wagers: the packed tags (``[card, word]``), the
    settings, the exact-EV state and its buffers, a full shoe's card counts, each side
    wager's largest bet beside the Blackjack bet of each bucket (no cap: none), the
    round's side bets and side buckets, the chunk's integer sums by bucket, each
    component's sum at the shoe's start (of ``t``, the counter's outputs)."""
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
    cset = np.array((c.spots, c.burn, c.irc, c.main_mult, c.side_mult, c.rounding,
                     c.wong_in, c.wong_out, c.ace_field, c.ace_bet, c.ace_ins, c.jump,
                     1 if c.parlay else 0, c.cut_spread, c.basic_id, c.ins_from,
                     1 if use_ev else 0, BY_COUNT), np.int64)  # (in the order of C_*)
    one = c.play_at[0, 0]
    same = True
    for left in range(c.play_at.shape[0]):
        for f in range(c.play_at.shape[1]):
            same = same and c.play_at[left, f] == one
    if same:  # (no index play: no count to read at each decision)
        cset[C_PLAY] = one
    side_top = np.zeros((max(nw, 1), nb), np.int64)
    for w in range(nw):
        for bb in range(nb):
            side_top[w, bb] = (c.ramp[bb] * c.side_cap[w, 0] // c.side_cap[w, 1]
                               if c.side_cap[w, 1] > 0 else 1 << 40)
    return (pk, cset, np.zeros(NSTATE, np.int64), np.zeros(NCAT, np.int64),
            np.zeros(max(nw, 1), np.float64), np.full(52, n // 52, np.int64), side_top,
            np.zeros(max(nw, 1), np.int64), np.zeros(max(nw, 1), np.int64),
            # the by-index sums of whole numbers (tenths at one unit), kept as integers
            # in the chunk and added to the float outputs once (:func:`book_chunk`)
            np.zeros((max(nw, 1), c.side_ramp.shape[1], 3), np.int64),
            np.zeros((nb, 6), np.int64), mark)


@kernel
def play_table(play_of: Any, den: Any, inv: Any, irc: int, mult: int, rounding: int,
               reach: int) -> Any:  # pragma: no cover - compiled
    """``play_at[left, f + reach]``: the strategy ``play_of[bucket]`` of the index of the
    running count ``irc + f`` with ``left`` cards unseen (:func:`bucket_of` over
    ``den[0, left]``, ``inv`` its reciprocals), for every count ``f`` of the cards seen
    within ``±reach`` (what :func:`sidebet.sim.steps.play_strategy` looks up at each
    decision)."""
    nb = play_of.shape[0]
    out = np.zeros((den.shape[1], 2 * reach + 1), np.int8)
    for left in range(den.shape[1]):
        for f in range(-reach, reach + 1):
            out[left, f + reach] = play_of[bucket_of(irc + f, mult, den[0, left],
                                                     inv[0, left], rounding, nb)]
    return out


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
