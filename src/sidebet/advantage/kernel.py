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

Hands are played and settled by the hand rules of :mod:`sidebet.regulation.base_game`
(compiled here) and the two-card decision tables of
:func:`sidebet.sim.kernels.decision_table`.  Money is in tenths of a table unit; every
hand is settled at one unit and scaled by the bet (exact: bets are whole units).
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
    _hand_result,
    _showdown,
    _triple,
    refill,
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
def _close_shoe(acc: Any, comp: Any, shoe_x: Any, in_shoe: int) -> None:
    # pragma: no cover - compiled
    """Add a shoe's sums (``shoe_x``, over ``in_shoe`` rounds) and clear them."""
    r = float(in_shoe)
    acc[3] += r
    acc[4] += r * r
    for j in range(comp.shape[0]):
        x = shoe_x[j]
        comp[j, 2] += x
        comp[j, 3] += x * x
        comp[j, 4] += x * r
        shoe_x[j] = 0.0


@inline
def _whole(x: float, rounding: int) -> int:  # pragma: no cover - compiled
    """``x`` made whole: 0 towards zero, 1 down, 2 to the nearest (halves away from 0)."""
    if rounding == 0:
        return int(x)
    if rounding == 1:
        return math.floor(x)
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


@inline
def _decks(left: int, res: int) -> float:  # pragma: no cover - compiled
    """The decks left as estimated at resolution ``res`` (0 exact, else steps per deck)."""
    exact = left / 52.0
    if res == 0:
        return max(exact, 1.0 / 52.0)
    return max(1.0, math.floor(exact * res + 0.5)) / res


@kernel
def play_counted(buf: Any, base: Any, orders: Any, key0: Any, key1: Any, shoe0: int,
                 nshoes: int, cut: int, max_rounds: int, seats: int, spots: int,
                 rules: Any, vals: Any, combo_tab: Any, combo_pay: Any, dec: Any, hit: Any,
                 play_of: Any, basic_id: int, tags: Any, scale: int, irc: int,
                 true_mode: bool, res: int, rounding: int, ramp: Any, wong_in: int,
                 wong_out: int, ins_from: int, side_mode: Any, side_tags: Any,
                 side_ramp: Any, side_need: Any, side_cap: Any, ev_weights: Any,
                 ev_cls: Any, ev_ma: Any, ev_mb: Any, ev_lucky: Any, ev_nb: Any,
                 acc: Any, tc_stats: Any, side_tc: Any, side_acc: Any, comp: Any,
                 trace: Any) -> int:  # pragma: no cover - compiled
    """Play at most ``max_rounds`` rounds of shoes ``shoe0 .. shoe0 + nshoes - 1``.

    The index: ``rc / scale`` per deck left (``true_mode``, decks at resolution ``res``)
    or the running count itself (started at ``irc``), made whole by ``rounding``; its
    bucket ``index + B`` (``B = (len(ramp) - 1) // 2``, clipped).  ``ramp[bucket]``: the
    Blackjack bet, units a spot; ``wong_in`` / ``wong_out`` (buckets, -1 none): a
    back-counter enters at ``wong_in`` or above and, once below ``wong_out``, waits for
    the next shoe; ``ins_from``: insurance from that bucket up.

    Side wager ``w``: ``side_mode`` 0 never, 1 flat ``side_ramp[w, 0]``, 2 that bet when
    its exact EV is positive, 3 ``side_ramp[w, side bucket]`` by its own true count
    (``side_tags[:, w]``, centred; card-major, one cache line a card); only with a Blackjack bet, at most ``side_cap[w, 0] *
    bet // side_cap[w, 1]`` (``side_cap[w, 1]`` 0: no cap), and ``side_need[w]`` (-1
    none) bet at least one unit with it.

    Outputs (added to): ``acc`` (:data:`ACC_FIELDS`), ``tc_stats[bucket]``
    (:data:`NTC`), ``side_tc[w, side bucket]`` (wagers bet by count): rounds, Σ y, Σ y²
    (y: the wager's net on the counter's spots at one unit each), ``side_acc[w]``: bets, Σ units, ``comp[j]``
    (j: 0 all, 1 Blackjack with insurance, 2 insurance, 3.. each side wager): Σ v, Σ v²,
    and over shoes Σ X, Σ X², Σ X·R (X: the shoe's sum, R its rounds), money in
    tenths; ``trace[r]`` (may have no rows): round ``r``'s whole net, tenths."""
    n = buf.shape[0]
    h17 = rules[0] != 0
    bj_num = rules[1]
    bj_den = rules[2]
    max_hands = rules[5]
    peek = rules[9] != 0
    dbj_doubles = rules[10] != 0
    d_go, d_next, d_fin = dealer_tables(vals, h17)
    nb = ramp.shape[0]
    half = (nb - 1) // 2
    nsb = side_ramp.shape[1]
    side_half = (nsb - 1) // 2
    nw = combo_pay.shape[1]
    ncomp = comp.shape[0]
    ntrace = trace.shape[0]
    use_ev = False
    counted = False
    for w in range(nw):
        use_ev = use_ev or side_mode[w] == 2
        counted = counted or side_mode[w] == 3
    st = np.zeros(NSTATE, np.int64)
    cats = np.zeros(NCAT, np.int64)
    evs = np.zeros(max(nw, 1), np.float64)
    full = np.full(52, n // 52, np.int64)

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
    src = np.zeros(max(nw, 1), np.float64)
    vals_now = np.zeros(max(ncomp, 1), np.float64)
    shoe_x = np.zeros(max(ncomp, 1), np.float64)

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
    rc = 0
    inplay = False
    gone = False
    while rounds < max_rounds:
        if pos >= cut or fresh:  # the next shoe
            if in_shoe > 0:
                _close_shoe(acc, comp, shoe_x, in_shoe)
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
            in_shoe = 0
            rc = irc
            for w in range(nw):
                src[w] = 0.0
            if use_ev:
                ev_reset(st, full, ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
            inplay = wong_in < 0
            gone = False
        start = pos
        # the index and the bets
        dl = _decks(n - pos, res)
        idx = _whole(rc / scale / dl if true_mode else rc / scale, rounding)
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
            sb = min(b, nsb - 1)
            if mode == 1:
                u = side_ramp[w, 0]
            elif mode == 2:
                u = side_ramp[w, 0] if evs[w] > 0 else 0
            elif mode == 3:
                sb = min(max(_whole(src[w] / dl, rounding) + side_half, 0), nsb - 1)
                u = side_ramp[w, sb]
            if units == 0:
                u = 0
            if side_cap[w, 1] > 0:
                u = min(u, units * side_cap[w, 0] // side_cap[w, 1])
            sideu[w] = u
            sideb[w] = sb
        for w in range(nw):
            need = side_need[w]
            if sideu[w] > 0 and need >= 0 and sideu[need] == 0:
                sideu[need] = 1
        # the deal (§ 633a.7)
        for s in range(seats):
            if pos >= lim:
                pos, lim, shoe, fresh, stop, state = refill(
                    buf, base, orders, shoe, pos, lim, fresh, state)
            firsts[s] = np.int64(buf[pos])
            pos += 1
        if pos >= lim:
            pos, lim, shoe, fresh, stop, state = refill(
                buf, base, orders, shoe, pos, lim, fresh, state)
        up = np.int64(buf[pos])
        pos += 1
        for s in range(seats):
            if pos >= lim:
                pos, lim, shoe, fresh, stop, state = refill(
                    buf, base, orders, shoe, pos, lim, fresh, state)
            seconds[s] = np.int64(buf[pos])
            pos += 1
            combos[s] = combo_tab[_triple(firsts[s], seconds[s], up)]
        if pos >= lim:
            pos, lim, shoe, fresh, stop, state = refill(
                buf, base, orders, shoe, pos, lim, fresh, state)
        hole = np.int64(buf[pos])
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
                        c1 = vals[np.int64(buf[pos])]
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
                        v = vals[np.int64(buf[pos])]
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
                    c1 = vals[np.int64(buf[pos])]
                    pos += 1
                h_n[s] = k
                h_split[s] = split
        dst = _dealer_start(upv, vals[hole])
        if live and not dealer_bj:
            while d_go[dst] != 0:
                if pos >= lim:
                    pos, lim, shoe, fresh, stop, state = refill(
                        buf, base, orders, shoe, pos, lim, fresh, state)
                dst = d_next[dst * 64 + np.int64(buf[pos])]
                pos += 1
        dealer_total = d_fin[dst]
        if stop:
            break
        # settlement of the counter's spots, at one unit each
        x_bj = 0
        for s in range(spots):
            natural = vals[firsts[s]] + vals[seconds[s]] == 21
            if read_bj:
                fb, _, _ = _chip_fates(_hand_result(natural, False, True, 0), True, True,
                                       dbj_doubles)
                x_bj += _chip_net(fb, UNIT, bj_num, bj_den)
                continue
            nat = natural and not h_split[s]
            for k in range(h_n[s]):
                shown = _showdown(h_tot[s, k], dealer_total)
                fb, _, fd = _chip_fates(_hand_result(nat, h_sur[s, k], dealer_bj, shown),
                                        k == 0, dealer_bj, dbj_doubles)
                x_bj += _chip_net(fb, UNIT, bj_num, bj_den)
                if h_dbl[s, k]:
                    x_bj += _chip_net(fd, UNIT, bj_num, bj_den)
        x_ins = 0
        if upv == 11 and b >= ins_from:
            x_ins = spots * (UNIT if dealer_bj else -(UNIT // 2))
            if units > 0:
                acc[7] += spots
        whole = units * (x_bj + x_ins)
        vals_now[1] = whole
        vals_now[2] = units * x_ins
        for w in range(nw):
            y = 0
            for s in range(spots):
                y += combo_pay[combos[s], w]
            money = y * sideu[w]
            whole += money
            vals_now[3 + w] = money
            if side_mode[w] == 3:  # by its own count: the wager's EV by its index
                sb = sideb[w]
                side_tc[w, sb, 0] += 1.0
                side_tc[w, sb, 1] += y
                side_tc[w, sb, 2] += y * y
            if sideu[w] > 0:
                side_acc[w, 0] += 1.0
                side_acc[w, 1] += sideu[w]
        vals_now[0] = whole
        for j in range(ncomp):
            v = vals_now[j]
            comp[j, 0] += v
            comp[j, 1] += v * v
            shoe_x[j] += v
        x = x_bj + x_ins
        tc_stats[b, 0] += 1.0
        tc_stats[b, 1] += x
        tc_stats[b, 2] += x * x
        if units > 0:
            tc_stats[b, 3] += 1.0
            tc_stats[b, 4] += units
            acc[1] += 1.0
            a = units * spots
            acc[5] += a
            acc[6] += a * a
        tc_stats[b, 5] += whole
        if rounds < ntrace:
            trace[rounds] = whole
        rounds += 1
        in_shoe += 1
        # the cards seen update the counts (a shoe that ran out is replaced anyway)
        if not fresh:
            for i in range(start, pos):
                kind = np.int64(buf[i])
                rc += tags[kind]
                if counted:
                    for w in range(nw):
                        src[w] += side_tags[kind, w]
                if use_ev:
                    ev_remove(st, kind, ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
    acc[0] += rounds
    if in_shoe > 0:  # a shoe cut short by the round limit
        _close_shoe(acc, comp, shoe_x, in_shoe)
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
