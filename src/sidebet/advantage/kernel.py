"""The counter's rounds, compiled: the count, the bets, the index plays and every wager
settled, round after round.

One kernel, :func:`play_counted`, deals the simulator's shoes (the same seeded
SplitMix64 streams and lazy Fisher–Yates as :mod:`sidebet.sim.kernels`, through its
:func:`sidebet.sim.kernels.refill`) to ``seats`` seats, the counter's ``spots`` first.
Before each round it turns the running count into a *bucket* (the whole-number index,
clipped to the tables' range), which picks the Blackjack bet (``ramp``), the play
tables (``dec`` / ``hit``, one per distinct set of index plays: ``play_of``), insurance,
and each side wager's bet: never, flat, by its exact EV
(:mod:`sidebet.vuln.side_ev_kernel`) or by its own count and ramp.  Other seats play
basic strategy.  A wonging counter's spots are still dealt while it is out (the table's
other players' hands), for 0.

Hands are played by the hand rules of :mod:`sidebet.regulation.base_game` (compiled in
:mod:`sidebet.sim.kernels`) and the two-card decision tables of
:func:`sidebet.sim.kernels.decision_table`, and settled by the simulator's tables
(:func:`sidebet.sim.kernels.settle_tables`).  Money is in tenths of a table unit; every
hand is settled at one unit and scaled by the bet (exact: bets are whole units).

Speed (``benchmarks/bench_advantage.py``, ``docs/advantage.md``): every card is counted as
it is dealt, for every count at once (the tags packed in two words); the true count is
made whole without a division; nothing is allocated per round; the sums that follow
from others (the bets, the shoes' sums) are made once per chunk or shoe.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sidebet.native.jit import inline, kernel
from sidebet.regulation.base_game.codes import DOUBLE, SPLIT, STAND, SURRENDER

# the simulator's compiled hand rules and shoe (sidebet.sim.kernels), reused as they are
from sidebet.sim.kernels import (
    CTX_DEALER_KNOWN,
    CTX_ROOM,
    CTX_SPLIT_ACES,
    CTX_SPLIT_SEAT,
    NDEALER,
    _chip_fates,
    _chip_net,
    _dealer_draws,
    _dealer_needed,
    _dealer_start,
    _dealer_state,
    _hand_key,
    _hand_result,
    _triple,
    hand_rules,
    refill,
    settle_tables,
)
from sidebet.sim.shuffle import AHEAD, GROUP, shoe_state, shuffle_from
from sidebet.vuln.side_ev_kernel import NCAT, NSTATE, ev_remove, ev_reset, evaluate

__all__ = ["ACC_FIELDS", "NACC", "NTC", "dealer_tables", "play_counted", "ruin_trials"]

UNIT = 10
"""One table unit in tenths."""

ACC_FIELDS = ("rounds", "played", "shoes", "sr", "srr", "bet", "bet2", "insured")
"""Run sums: rounds observed, rounds bet, shoes, Σ rounds per shoe and its square, Σ
the counter's initial Blackjack action (units, all spots) and its square, insurance
bets."""
NACC = len(ACC_FIELDS)
NTC = 6
"""Per bucket: rounds, Σ x, Σ x² (x: the Blackjack net of the counter's spots at one unit
each, insurance included, tenths), rounds bet, Σ units bet, Σ money won (tenths)."""


@kernel
def dealer_tables(vals: Any, h17: bool) -> tuple[Any, Any, Any]:  # pragma: no cover
    """The dealer's hand as a state (:func:`sidebet.sim.kernels._dealer_state`): whether
    it draws, the state after each card kind, and its final total."""
    go = np.zeros(NDEALER, np.int64)
    nxt = np.zeros(NDEALER * 64, np.int64)
    fin = np.zeros(NDEALER, np.int64)
    for st in range(NDEALER):
        hard = st >> 1
        has_ace = (st & 1) == 1
        soft = has_ace and hard + 10 <= 21
        fin[st] = hard + 10 if soft else hard
        draws = hard < NDEALER // 2 - 10 and _dealer_draws(fin[st], soft, h17)
        go[st] = 1 if draws else 0
        for k in range(52):
            v = vals[k]
            nxt[st * 64 + k] = (_dealer_state(hard + (1 if v == 11 else v), has_ace or v == 11)
                                if draws else st)
    return go, nxt, fin


@kernel
def _close_shoe(acc: Any, comp: Any, mark: Any, in_shoe: int) -> None:
    # pragma: no cover - compiled
    """Add a shoe's sums over its ``in_shoe`` rounds: each its ``comp[j, 0]`` less
    ``mark[j]`` (the sum when the shoe started), which then moves on."""
    r = float(in_shoe)
    acc[3] += r
    acc[4] += r * r
    for j in range(comp.shape[0]):
        x = comp[j, 0] - mark[j]
        comp[j, 2] += x
        comp[j, 3] += x * x
        comp[j, 4] += x * r
        mark[j] = comp[j, 0]


@inline
def _whole(num: int, den: int, inv: float, rounding: int) -> int:  # pragma: no cover
    """``num / den`` (``den`` > 0) made whole exactly, ``inv`` being about ``1 / den``: 0
    towards zero, 1 down, 2 to the nearest (halves away from zero).  The product's floor
    is off by at most one (``|num|`` is far below 2**52) and is put right by the
    remainder, so no division is made."""
    q = math.floor(num * inv)
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


@kernel
def play_counted(buf: Any, base: Any, orders: Any, key0: Any, key1: Any, shoe0: int,
                 nshoes: int, cut: int, max_rounds: int, seats: int, spots: int,
                 rules: Any, vals: Any, combo_tab: Any, combo_pay: Any, dec: Any, hit: Any,
                 play_of: Any, basic_id: int, packed: Any, irc: int, main_mult: int,
                 side_mult: int, rounding: int, den: Any, inv: Any, ramp: Any, wong_in: int,
                 wong_out: int, ins_from: int, side_mode: Any, side_field: Any, side_sum: Any,
                 side_ramp: Any, side_need: Any, side_cap: Any, ev_weights: Any,
                 ev_cls: Any, ev_ma: Any, ev_mb: Any, ev_lucky: Any, ev_nb: Any,
                 acc: Any, tc_stats: Any, side_tc: Any, side_acc: Any, comp: Any,
                 trace: Any) -> int:  # pragma: no cover - compiled
    """Play at most ``max_rounds`` rounds of shoes ``shoe0 .. shoe0 + nshoes - 1``.

    The counts: ``packed[card]`` holds the card's tags, three signed 21-bit fields a
    word (two words: field 0 the count's tags, field ``side_field[w]`` side wager
    ``w``'s), so one addition a word counts a card for every count; every card dealt
    is counted as it is dealt.  The index: the running count (started at ``irc``) times
    ``main_mult`` over ``den[0, cards left]``, made whole exactly by ``rounding``
    (:func:`_whole`; ``inv`` holds the reciprocals); its bucket ``index + B`` (``B =
    (len(ramp) - 1) // 2``, clipped).  ``ramp[bucket]``: the Blackjack bet, units a
    spot; ``wong_in`` / ``wong_out`` (buckets, -1 none): a back-counter enters at
    ``wong_in`` or above and, once below ``wong_out``, waits for the next shoe;
    ``ins_from``: insurance from that bucket up.

    Side wager ``w``: ``side_mode`` 0 never, 1 flat ``side_ramp[w, 0]``, 2 that bet when
    its exact EV is positive, 3 ``side_ramp[w, side bucket]`` by the true count of its
    own tags centred on a deck (``(52 · sum - cards seen · side_sum[w]) · side_mult``
    over ``den[1, cards left]``); only with a Blackjack bet, at most ``side_cap[w, 0] *
    bet // side_cap[w, 1]`` (``side_cap[w, 1]`` 0: no cap), and ``side_need[w]`` (-1
    none) bet at least one unit with it.

    Outputs (added to): ``acc`` (:data:`ACC_FIELDS`), ``tc_stats[bucket]``
    (:data:`NTC`), ``side_tc[w, side bucket]`` (wagers bet by count): rounds, Σ y, Σ y²
    (y: the wager's net on the counter's spots at one unit each), ``side_acc[w]``: bets,
    Σ units, ``comp[j]`` (j: 0 all, 1 Blackjack with insurance, 2 insurance, 3.. each
    side wager): Σ v, Σ v², and over shoes Σ X, Σ X², Σ X·R (X: the shoe's sum, R its
    rounds), money in tenths; ``trace[r]`` (may have no rows): round ``r``'s whole net,
    tenths."""
    n = buf.shape[0]
    h17, bj_num, bj_den, max_hands, peek, dbj_doubles = hand_rules(rules)
    d_go, d_next, d_fin = dealer_tables(vals, h17)
    show_ix, k_net, _ = settle_tables(UNIT, bj_num, bj_den, dbj_doubles)
    read_net = np.zeros(2, np.int64)
    for nat in range(2):
        fb, _, _ = _chip_fates(_hand_result(nat == 1, False, True, 0), True, True, dbj_doubles)
        read_net[nat] = _chip_net(fb, UNIT, bj_num, bj_den)
    pk0 = np.empty(52, np.int64)
    pk1 = np.empty(52, np.int64)
    for k in range(52):
        pk0[k] = packed[k, 0]
        pk1[k] = packed[k, 1]
    nb = ramp.shape[0]
    half = (nb - 1) // 2
    nsb = side_ramp.shape[1]
    side_half = (nsb - 1) // 2
    nw = combo_pay.shape[1]
    ncomp = comp.shape[0]
    ntrace = trace.shape[0]
    use_ev = False
    for w in range(nw):
        use_ev = use_ev or side_mode[w] == 2
    st = np.zeros(NSTATE, np.int64)
    cats = np.zeros(NCAT, np.int64)
    evs = np.zeros(max(nw, 1), np.float64)
    full = np.full(52, n // 52, np.int64)
    # a side wager's largest bet beside the Blackjack bet of each bucket (no cap: none)
    side_top = np.zeros((max(nw, 1), nb), np.int64)
    for w in range(nw):
        for bb in range(nb):
            side_top[w, bb] = (ramp[bb] * side_cap[w, 0] // side_cap[w, 1]
                               if side_cap[w, 1] > 0 else 1 << 40)

    firsts = np.zeros(seats, np.int64)
    seconds = np.zeros(seats, np.int64)
    combos = np.zeros(seats, np.int64)
    h_tot = np.zeros((seats, 8), np.int64)
    h_dbl = np.zeros((seats, 8), np.bool_)
    h_sur = np.zeros((seats, 8), np.bool_)
    h_n = np.zeros(seats, np.int64)
    h_split = np.zeros(seats, np.bool_)
    sideu = np.zeros(max(nw, 1), np.int64)
    sideb = np.zeros(max(nw, 1), np.int64)
    fields = np.zeros(6, np.int64)
    # the by-index sums of whole numbers (tenths at one unit), kept as integers in the
    # chunk and added to the float outputs once
    stc = np.zeros((max(nw, 1), nsb, 3), np.int64)
    tcs = np.zeros((nb, 4), np.int64)  # and the rounds bet
    mark = np.zeros(max(ncomp, 1), np.float64)
    for j in range(ncomp):
        mark[j] = comp[j, 0]

    deal = 2 * seats + 2
    positions = min(n, cut - 1 + deal + AHEAD)
    positions += -positions % GROUP
    last = shoe0 + max(nshoes, 1) - 1
    shoe = shoe0 - 1
    state = np.uint64(0)
    lim = 0
    pos = 0
    fresh = True
    stop = False
    rounds = 0
    in_shoe = 0
    word0 = 0
    word1 = 0
    inplay = False
    gone = False
    while rounds < max_rounds:
        if pos >= cut or fresh:  # the next shoe
            if in_shoe > 0:
                _close_shoe(acc, comp, mark, in_shoe)
                in_shoe = 0
            if shoe >= last:
                break
            shoe += 1
            state = shoe_state(shoe, key0, key1)
            for i in range(n):
                buf[i] = base[i]
            state = shuffle_from(buf, 0, positions, state)
            lim = positions
            pos = 0
            fresh = False
            acc[2] += 1.0
            word0 = 0
            word1 = 0
            if use_ev:
                ev_reset(st, full, ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
            inplay = wong_in < 0
            gone = False
        # the counts so far (three signed 21-bit sums a word) and the index
        start = pos
        left = n - pos
        x = word0
        for f in range(3):
            low = (x << 43) >> 43
            fields[f] = low
            x = (x - low) >> 21
        x = word1
        for f in range(3, 6):
            low = (x << 43) >> 43
            fields[f] = low
            x = (x - low) >> 21
        idx = _whole((irc + fields[0]) * main_mult, den[0, left], inv[0, left], rounding)
        b = min(max(idx + half, 0), nb - 1)
        if wong_in >= 0 and not inplay and not gone and b >= wong_in:
            inplay = True
        if inplay and wong_out >= 0 and b < wong_out:
            inplay = False
            gone = True
        units = ramp[b] if inplay else 0
        tid = play_of[b]
        if use_ev:
            evaluate(st, ev_weights, cats, evs)
        for w in range(nw):
            mode = side_mode[w]
            u = 0
            sb = 0
            if mode == 1:
                u = side_ramp[w, 0]
            elif mode == 2:
                u = side_ramp[w, 0] if evs[w] > 0 else 0
            elif mode == 3:
                sidx = _whole((52 * fields[side_field[w]] - pos * side_sum[w]) * side_mult,
                                    den[1, left], inv[1, left], rounding)
                sb = min(max(sidx + side_half, 0), nsb - 1)
                u = side_ramp[w, sb]
            sideu[w] = min(u, side_top[w, b]) if units > 0 else 0
            sideb[w] = sb
        for w in range(nw):
            need = side_need[w]
            if need >= 0 and sideu[w] > 0:
                sideu[need] = max(sideu[need], 1)
        # the deal (§ 633a.7); every card dealt goes into the counts
        for s in range(seats):
            if pos >= lim:
                pos, lim, shoe, fresh, stop, state = refill(
                    buf, base, orders, shoe, pos, lim, fresh, state)
            c = np.int64(buf[pos])
            firsts[s] = c
            word0 += pk0[c]
            word1 += pk1[c]
            pos += 1
        if pos >= lim:
            pos, lim, shoe, fresh, stop, state = refill(
                buf, base, orders, shoe, pos, lim, fresh, state)
        up = np.int64(buf[pos])
        word0 += pk0[up]
        word1 += pk1[up]
        pos += 1
        for s in range(seats):
            if pos >= lim:
                pos, lim, shoe, fresh, stop, state = refill(
                    buf, base, orders, shoe, pos, lim, fresh, state)
            c = np.int64(buf[pos])
            seconds[s] = c
            word0 += pk0[c]
            word1 += pk1[c]
            pos += 1
            combos[s] = combo_tab[_triple(firsts[s], c, up)]
        if pos >= lim:
            pos, lim, shoe, fresh, stop, state = refill(
                buf, base, orders, shoe, pos, lim, fresh, state)
        hole = np.int64(buf[pos])
        word0 += pk0[hole]
        word1 += pk1[hole]
        pos += 1
        upv = vals[up]
        dealer_bj = upv + vals[hole] == 21
        read_bj = peek and dealer_bj
        known = CTX_DEALER_KNOWN if peek or upv < 10 else 0
        live = False
        if not read_bj:
            for s in range(seats):
                t = tid if s < spots else basic_id
                a0 = vals[firsts[s]]
                c1 = vals[seconds[s]]
                nh = 1
                waiting = 0
                split = False
                aces = False
                k = 0
                natural = a0 + c1 == 21
                while True:
                    ctx = known
                    if nh < max_hands:
                        ctx += CTX_ROOM
                    if split:
                        ctx += CTX_SPLIT_SEAT + (CTX_SPLIT_ACES if aces else 0)
                    act = dec[t, ctx, a0, c1, upv]
                    if act == SPLIT:
                        nh += 1
                        waiting += 1
                        split = True
                        aces = aces or a0 == 11
                        if pos >= lim:
                            pos, lim, shoe, fresh, stop, state = refill(
                                buf, base, orders, shoe, pos, lim, fresh, state)
                        c = np.int64(buf[pos])
                        word0 += pk0[c]
                        word1 += pk1[c]
                        c1 = vals[c]
                        pos += 1
                        continue
                    low = (1 if a0 == 11 else a0) + (1 if c1 == 11 else c1)
                    ace = a0 == 11 or c1 == 11
                    doubled = act == DOUBLE
                    gave_up = act == SURRENDER
                    while act != STAND and act != SURRENDER:
                        if pos >= lim:
                            pos, lim, shoe, fresh, stop, state = refill(
                                buf, base, orders, shoe, pos, lim, fresh, state)
                        c = np.int64(buf[pos])
                        word0 += pk0[c]
                        word1 += pk1[c]
                        v = vals[c]
                        pos += 1
                        low += 1 if v == 11 else v
                        ace = ace or v == 11
                        if doubled:
                            break
                        act = hit[t, upv * 64 + low * 2 + (1 if ace else 0)]
                    total = low + 10 if ace and low <= 11 else low
                    h_tot[s, k] = total
                    h_dbl[s, k] = doubled
                    h_sur[s, k] = gave_up
                    live = live or _dealer_needed(total, gave_up, natural and not split)
                    k += 1
                    if waiting == 0:
                        break
                    waiting -= 1
                    if pos >= lim:
                        pos, lim, shoe, fresh, stop, state = refill(
                            buf, base, orders, shoe, pos, lim, fresh, state)
                    c = np.int64(buf[pos])
                    word0 += pk0[c]
                    word1 += pk1[c]
                    c1 = vals[c]
                    pos += 1
                h_n[s] = k
                h_split[s] = split
        dst = _dealer_start(upv, vals[hole])
        if live and not dealer_bj:
            if pos + 3 <= lim:  # three draws without a branch (a final hand stays)
                for _ in range(3):
                    c = np.int64(buf[pos])
                    g = d_go[dst]
                    dst = d_next[dst * 64 + c]
                    word0 += g * pk0[c]
                    word1 += g * pk1[c]
                    pos += g
            while d_go[dst] != 0:
                if pos >= lim:
                    pos, lim, shoe, fresh, stop, state = refill(
                        buf, base, orders, shoe, pos, lim, fresh, state)
                c = np.int64(buf[pos])
                word0 += pk0[c]
                word1 += pk1[c]
                dst = d_next[dst * 64 + c]
                pos += 1
        dealer_total = d_fin[dst]
        if stop:
            break
        # settlement of the counter's spots, at one unit each
        x_bj = 0
        for s in range(spots):
            natural = vals[firsts[s]] + vals[seconds[s]] == 21
            if read_bj:
                x_bj += read_net[1 if natural else 0]
                continue
            nat = natural and not h_split[s]
            for k in range(h_n[s]):
                x_bj += k_net[_hand_key(nat, h_sur[s, k], dealer_bj,
                                        show_ix[h_tot[s, k], dealer_total], k == 0,
                                        h_dbl[s, k])]
        x_ins = 0
        if upv == 11 and b >= ins_from:
            x_ins = spots * (UNIT if dealer_bj else -(UNIT // 2))
            if units > 0:
                acc[7] += spots
                m = units * x_ins
                comp[2, 0] += m
                comp[2, 1] += m * m
        whole = units * (x_bj + x_ins)
        comp[1, 0] += whole
        comp[1, 1] += whole * whole
        for w in range(nw):
            y = 0
            for s in range(spots):
                y += combo_pay[combos[s], w]
            if side_mode[w] == 3:  # by its own count: the wager's EV by its index
                sb = sideb[w]
                stc[w, sb, 0] += 1
                stc[w, sb, 1] += y
                stc[w, sb, 2] += y * y
            u = sideu[w]
            if u > 0:
                money = y * u
                whole += money
                comp[3 + w, 0] += money
                comp[3 + w, 1] += money * money
                side_acc[w, 0] += 1.0
                side_acc[w, 1] += u
        comp[0, 0] += whole
        comp[0, 1] += whole * whole
        x = x_bj + x_ins
        tcs[b, 0] += 1
        tcs[b, 1] += x
        tcs[b, 2] += x * x
        if units > 0:
            tcs[b, 3] += 1
        tc_stats[b, 5] += whole
        if rounds < ntrace:
            trace[rounds] = whole
        rounds += 1
        in_shoe += 1
        if use_ev and not fresh:  # the exact EVs see the round's cards
            for i in range(start, pos):
                ev_remove(st, np.int64(buf[i]), ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
    acc[0] += rounds
    if in_shoe > 0:  # a shoe cut short by the round limit
        _close_shoe(acc, comp, mark, in_shoe)
    for w in range(nw):
        for sb in range(nsb):
            for j in range(3):
                side_tc[w, sb, j] += stc[w, sb, j]
    for bb in range(nb):  # the bets, from the rounds bet in each bucket
        for j in range(4):
            tc_stats[bb, j] += tcs[bb, j]
        played = float(tcs[bb, 3])
        tc_stats[bb, 4] += played * ramp[bb]
        a = float(ramp[bb] * spots)
        acc[1] += played
        acc[5] += played * a
        acc[6] += played * a * a
    return rounds


@kernel
def ruin_trials(nets: Any, bank: int, goal: int, trip: int, out: Any) -> None:
    # pragma: no cover - compiled
    """Ruin over the rounds' nets (tenths), in order.  Barrier trials: from a bank of
    ``bank`` until it is gone (``out[0]`` ruins) or has grown by ``goal`` (``out[1]``
    goals; ``goal`` 0: no goal, a trial ends only in ruin or unfinished); trip trials:
    blocks of ``trip`` rounds, ``out[2]`` blocks, ``out[3]`` ruined within the block."""
    money = bank
    for r in range(nets.shape[0]):
        money += nets[r]
        if money <= 0:
            out[0] += 1
            money = bank
        elif goal > 0 and money >= bank + goal:
            out[1] += 1
            money = bank
    if trip > 0:
        blocks = nets.shape[0] // trip
        for t in range(blocks):
            money = bank
            for r in range(t * trip, (t + 1) * trip):
                money += nets[r]
                if money <= 0:
                    out[3] += 1
                    break
            out[2] += 1
