"""Compiled simulation kernels: shoes, side-wager rounds and complete Blackjack rounds.

Everything here is a module-level numba kernel (:func:`sidebet.native.jit.kernel`, cached on
disk).  The kernels know nothing of wagers or paytables: they receive plain arrays built
by :mod:`sidebet.sim.spec` and :mod:`sidebet.sim.strategy_tables`.

**Shoes.**  A chunk plays whole shoes ``shoe0 .. shoe0 + nshoes - 1``.  Shoe ``k`` is
shuffled by its own random stream: a SplitMix64 generator whose state is
``mix64(key0 ^ mix64(key1 + k))``, where ``(key0, key1)`` come from
``numpy.random.SeedSequence(seed)``.  So every shoe depends only on the seed and its
index — not on the chunk size, the number of workers or the backend.  The shuffle is a
Fisher–Yates shuffle run from the front (position ``i`` swapped with a uniform position
in ``i..n-1``) when the shoe starts; side-wager-only rounds stop it at the last place a
round can reach, which leaves the cards dealt exactly as in a full shuffle.  Bounded
integers use Lemire's batched multiply-and-reject method (exactly uniform; two places
from each 32-bit half of a 64-bit word, so four places a word).  Complete rounds
shuffle lazily: the places a round starting before the cut card can reach and a few
more when the shoe starts, later places only if a round reaches them (:func:`refill`) —
the same stream of draws, so the same cards, as a full shuffle.

A round starts only while the cut card has not come out (fewer than ``cut`` cards
dealt); otherwise the next shoe is started.  Should a shoe run out in the middle of a
round (few decks, many seats, deep penetration), the round continues from a freshly
shuffled full shoe drawn from the same stream, and the next round starts the next shoe.

In *orders mode* (for the differential tests against the table engine) the shoes are
given as rows of card indices and dealt as they are; a shoe that runs out mid-round
continues with the next row, which then stays in use, exactly like
:class:`sidebet.table.game.Table`.

**Money** is counted in integer tenths of a table unit (bets are whole units), so
3:2, 6:5 and the half of a surrender are exact and every sum is an exact integer: results
do not depend on the order in which chunks are added up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sidebet.native.jit import inline, kernel
from sidebet.regulation.base_game import legality
from sidebet.regulation.base_game import payout as settlement
from sidebet.regulation.base_game.codes import HIT, STAND
from sidebet.sim.counting import (
    C_BURN,
    C_CUT_SPREAD,
    C_INS_FROM,
    C_PARLAY,
    C_USE_EV,
    bet_round,
    book_chunk,
    close_shoe,
    cut_place,
    insurance_bucket,
    scratch,
)
from sidebet.sim.exact_ev import ev_remove, ev_reset, evaluate

# the kernel's argument records and counters: one definition, numba-free
from sidebet.sim.layout import (
    NSTAT,
    RULE_FIELDS,
    ST_ROUNDS,
    ST_SEAT_ROUNDS,
    ST_SHOES,
    STAT_NAMES,
    CounterArrays,
    CounterOutputs,
    Outputs,
    PlayArrays,
    RoundTables,
    ShoeStream,
)
from sidebet.sim.shuffle import shoe_state, shuffle, shuffle_from
from sidebet.sim.steps import (
    CTX_DEALER_KNOWN,
    CTX_ROOM,
    CTX_SPLIT_ACES,
    CTX_SPLIT_SEAT,
    MAX_HANDS,
    NCTX,
    NDEALER,
    NHAND,
    NHIT,
    NKEY,
    NSEAT,
    S_BJ,
    book_counter,
    book_sides_only,
    book_table,
    close_chunk,
    deal_round,
    dealer_state,
    first_places,
    hand_key,
    hand_rules,
    play_hands,
    settle_round,
    settle_sides,
)

_inline = inline

__all__ = [
    "NCTX",
    "NSTAT",
    "RULE_FIELDS",
    "STAT_NAMES",
    "CounterArrays",
    "CounterOutputs",
    "Outputs",
    "PlayArrays",
    "RoundTables",
    "ShoeStream",
    "play_chunk",
]

# ----- the hand rules, compiled -----------------------------------------------------

_showdown = _inline(settlement.showdown)
_hand_result = _inline(settlement.hand_result)
_chip_fates = _inline(settlement.chip_fates)
_chip_net = _inline(settlement.chip_net)
_hit_refusal = _inline(legality.hit_refusal)
_double_refusal = _inline(legality.double_refusal)
_split_refusal = _inline(legality.split_refusal)
_surrender_refusal = _inline(legality.surrender_refusal)
_has_decision = _inline(legality.has_decision)
_choose = _inline(legality.choose)
_dealer_draws = _inline(legality.dealer_draws)
_dealer_needed = _inline(settlement.awaits_dealer)
LEGAL = legality.LEGAL


@kernel
def start_shoe(buf: Any, base: Any, orders: Any, shoe: int, positions: int, key0: Any,
               key1: Any) -> tuple[Any, int, bool]:  # pragma: no cover - compiled
    """Load shoe number ``shoe`` into ``buf``: seeded, its first ``positions`` places
    shuffled (:func:`shuffle`; later places as they are reached, :func:`refill`) or, in
    orders mode, row ``shoe``.  Returns the generator state, the places ready and whether
    the given orders ran out."""
    state = shoe_state(shoe, key0, key1)
    if orders.shape[0] == 0:
        return shuffle(buf, base, positions, state), positions, False
    if shoe >= orders.shape[0]:
        return state, 0, True
    for i in range(buf.shape[0]):
        buf[i] = orders[shoe, i]
    return state, buf.shape[0], False


# ----- complete Blackjack rounds -----------------------------------------------------

@kernel
def settle_tables(bet: int, bj_num: int, bj_den: int, dbj_doubles: bool
                  ) -> tuple[Any, Any, Any]:  # pragma: no cover - compiled
    """A finished hand's settlement without a press at a bet of ``bet`` tenths, from the
    hand rules: ``show_ix[total, dealer's total]`` (the showdown plus one), and by the
    hand's :func:`_hand_key` its net in tenths (bet and double chips, ``k_net``) and the
    counts it adds to (``k_counts``: Blackjack paid, won, pushed, lost)."""
    show_ix = np.zeros((32, 32), np.int64)
    for tot in range(32):
        for dtot in range(32):
            show_ix[tot, dtot] = _showdown(tot, dtot) + 1
    k_net = np.zeros(NKEY, np.int64)
    k_counts = np.zeros((NKEY, 4), np.int64)
    for nat in (False, True):
        for sur in (False, True):
            for dbj in (False, True):
                for shown in range(3):
                    for first in (False, True):
                        for dbl in (False, True):
                            key = hand_key(nat, sur, dbj, shown, first, dbl)
                            res = _hand_result(nat, sur, dbj, shown - 1)
                            fb, _, fd = _chip_fates(res, first, dbj, dbj_doubles)
                            hn = (_chip_net(fb, bet, bj_num, bj_den)
                                  + _chip_net(fd, bet if dbl else 0, bj_num, bj_den))
                            k_net[key] = hn
                            won_bj = nat and not dbj and not sur
                            k_counts[key, 0] = 1 if won_bj else 0
                            k_counts[key, 1] = 1 if not sur and (won_bj or hn > 0) else 0
                            k_counts[key, 2] = 1 if not sur and not won_bj and hn == 0 else 0
                            k_counts[key, 3] = 1 if not sur and not won_bj and hn < 0 else 0
    return show_ix, k_net, k_counts


@kernel
def dealer_tables(vals: Any, h17: bool) -> tuple[Any, Any, Any]:
    # pragma: no cover - compiled
    """The dealer's hand as a state (:func:`_dealer_state`): whether the dealer draws
    (``d_go``), the state after drawing each card (``d_next[state * 64 + card]``; a hand
    that stands stays) and its final total (``d_fin``), from the hand rules'
    :func:`sidebet.regulation.base_game.legality.dealer_draws` (``h17``: it hits soft
    17)."""
    d_go = np.zeros(NDEALER, np.int64)
    d_next = np.zeros(NDEALER * 64, np.uint8)
    d_fin = np.zeros(NDEALER, np.int64)
    for dst in range(NDEALER):
        d_sum = dst >> 1
        d_soft = (dst & 1) != 0 and d_sum + 10 <= 21
        d_fin[dst] = d_sum + 10 if d_soft else d_sum
        go = d_sum < NDEALER // 2 - 10 and _dealer_draws(d_fin[dst], d_soft, h17)
        d_go[dst] = 1 if go else 0
        for card in range(52):
            v = vals[card]
            d_next[dst * 64 + card] = (dealer_state(d_sum + (1 if v == 11 else v),
                                                     (dst & 1) != 0 or v == 11) if go else dst)
    return d_go, d_next, d_fin


@kernel
def hit_table(hs_hard: Any, hs_soft: Any, ntab: int) -> Any:  # pragma: no cover - compiled
    """A hand of three or more cards: ``hit_more[upcard value * 64 + total * 2 + ace]``,
    the strategy's hit or stand by its total (soft or hard), below 21 (aces counted 1);
    strategy ``t``'s (of ``ntab``) at ``t * NHIT``."""
    hit_more = np.zeros(ntab * NHIT, np.int8)
    rows = hs_hard.shape[0] // ntab
    for t in range(ntab):
        for upv in range(2, 12):
            for hsum in range(2, 31):
                for ace in (False, True):
                    if ace and hsum + 10 <= 21:
                        act = (hs_soft[t * rows + hsum + 10, upv] if hsum + 10 < 21
                               else STAND)
                    else:
                        act = hs_hard[t * rows + hsum, upv] if hsum < 21 else STAND
                    hit_more[t * NHIT + upv * 64 + hsum * 2 + (1 if ace else 0)] = act
    return hit_more


@kernel
def decision_table(hard2: Any, soft2: Any, pair: Any, nosplit: Any, hs_hard: Any,
                   hs_soft: Any, rules: Any) -> Any:  # pragma: no cover - compiled
    """``table[context, value1, value2, upcard value]``: the action of a two-card hand
    (``context``: ``CTX_*`` bits) under the hand rules of :mod:`sidebet.regulation.base_game` and
    the strategy arrays (see :class:`PlayArrays`): a chart code resolved against what may
    be done (:func:`sidebet.regulation.base_game.legality.choose`), a hit that is not allowed
    stands, a hand without a decision (21, a split ace that may neither draw nor split)
    stands.  This is the one place the kernels decide a two-card hand."""
    dbl_rule = rules[3]
    das = rules[4] != 0
    max_hands = rules[5]
    rsa = rules[6] != 0
    hsa = rules[7] != 0
    ls = rules[8] != 0
    out = np.zeros((NCTX, 12, 12, 12), np.int8)
    for ctx in range(NCTX):
        split_seat = (ctx & CTX_SPLIT_SEAT) != 0
        sa = (ctx & CTX_SPLIT_ACES) != 0
        hands = max_hands - 1 if (ctx & CTX_ROOM) != 0 else max_hands
        dealer_known = (ctx & CTX_DEALER_KNOWN) != 0
        for v0 in range(2, 12):
            for v1 in range(2, 12):
                hsum = (1 if v0 == 11 else v0) + (1 if v1 == 11 else v1)
                is_soft = (v0 == 11 or v1 == 11) and hsum + 10 <= 21
                tot = hsum + 10 if is_soft else hsum
                can_hit = _hit_refusal(sa, hsa) == LEGAL
                can_split = _split_refusal(2, v0, v1, hands, max_hands, sa, rsa) == LEGAL
                can_double = _double_refusal(2, split_seat, sa, tot, is_soft, das, hsa,
                                             dbl_rule) == LEGAL
                can_surr = _surrender_refusal(ls, 2, split_seat, dealer_known) == LEGAL
                decides = _has_decision(tot, False, False, can_hit, can_split)
                for upv in range(2, 12):
                    act = STAND
                    if decides:
                        fallback = hs_soft[tot, upv] if is_soft else hs_hard[tot, upv]
                        if v0 == v1:
                            alt = nosplit[v0, upv]
                            code = pair[v0, upv] if can_split else alt
                        else:
                            code = soft2[tot, upv] if is_soft else hard2[tot, upv]
                            alt = code
                        act = _choose(code, alt, fallback, can_double, can_split, can_surr)
                        if act == HIT and not can_hit:
                            act = STAND
                    out[ctx, v0, v1, upv] = act
    return out


# Note on style: the round is written once, in ``play_chunk``; numba compiles it once with
# ``play`` None (its dead-branch pruning drops the Blackjack code) and once with strategy
# arrays.  Every part of a round is a step (:mod:`sidebet.sim.steps`): functions of
# scalars and single arrays compiled without reference counting and forced inline, so
# they add neither a call nor reference counting to the loop, and compiled again as CUDA
# device functions by :mod:`sidebet.sim.device`.  A helper compiled with reference
# counting that takes arrays, whether inlined by numba, forced inline by LLVM or called,
# adds reference counting to the hot loop (docs/simulator.md, Speed); so does a step call
# with more than 30 arguments (Python passes them as one tuple).


@kernel
def play_chunk(src: ShoeStream, tab: RoundTables, play: PlayArrays | None, out: Outputs,
               max_rounds: int, counter: CounterArrays | None,
               tally: CounterOutputs | None) -> int:  # pragma: no cover - compiled
    """Deal rounds from the shoe stream ``src`` and tally them in ``out``; returns the
    rounds played.

    Every round starts with the deal (§ 633a.7: a first card to each seat, the upcard, a
    second card to each seat, the hole card) and its side wagers: each seat's
    combination is ``tab.combo_tab`` at the :func:`sidebet.core.cards.triple_index` of its two
    cards and the upcard, counted in ``out.combo_counts``; ``out.marks`` (may have no rows) receives where each
    round starts: its shoe's number and the cards already dealt.  A seeded shoe is
    shuffled lazily: at its start the places a round starting before the cut card can
    deal (and :data:`AHEAD` more for complete rounds), later places as they are reached
    (:func:`refill`), so the cards are exactly those of a shoe shuffled in full.

    With ``play`` ``None`` the round ends there (side wagers only; numba compiles this
    case apart, without the Blackjack code): ``out.trace`` (``[rounds, seats]``, may have
    no rows) receives each seat's combination.

    Otherwise the round goes on: the Press, the card reader, each seat's hands by the
    strategy (:class:`PlayArrays`: a two-card hand by :func:`decision_table`, a longer
    one by hit-or-stand), the dealer, and settlement; what each hand may do and how it
    settles are the hand rules of :mod:`sidebet.regulation.base_game`, compiled here.  ``tab.bet``
    is the Blackjack wager in tenths (see :class:`RoundTables`).  Counters go to
    ``out.stats`` (:data:`STAT_NAMES`) and ``out.hist`` (each seat's round net, all
    wagers, in tenths, offset ``tab.hist_off``); ``out.trace`` (``[rounds, seats, 3]``)
    receives per round and seat the side combination, the Blackjack net (wager, splits,
    doubles and press) and the net of the pressed chips on the initial hand;
    ``out.seat_stats[seat]`` sums each seat's Blackjack net, its square, its whole net
    and its square.

    With several seats ``out.round2`` sums the square of each round's all-seat net per
    side wager (``combo_pay``), then (complete rounds) of the Blackjack net, the net
    without the press and the whole net.

    With a ``counter`` (:class:`CounterArrays`; complete rounds, ``tally`` its outputs,
    both ``None`` otherwise, when numba compiles the kernel without them) every card
    dealt is counted, and the counter's steps (:mod:`sidebet.sim.counting`) bet before
    each round and book after it; ``play`` then holds several strategies, ``NCTX`` rows
    of ``decide2`` and ``hs_hard.shape[0] // tables`` rows of the hit-or-stand tables
    each: the counter's seats (the first ``counter.spots_of[bucket]``, as many as its count
    says; the other seats follow them, so a spot not played is not dealt) play at each
    decision the one of its count at that moment (``counter.play_at``), the other seats
    ``counter.basic_id``.  The round itself is the same; its money goes to
    the counter's books (``tally``) instead of the table's (``out`` then keeps the
    rounds, shoes and hand counts: hands, naturals, wins, ..., the dealer's busts).
    """
    buf = src.buf
    base = src.base
    orders = src.orders
    n = buf.shape[0]
    cut = src.cut
    key0 = src.key0
    key1 = src.key1
    seats = tab.seats
    bet = tab.bet
    combo_tab = tab.combo_tab
    combo_net = tab.combo_net
    combo_offer = tab.combo_offer
    combo_pay = tab.combo_pay
    press_mode = tab.press_mode
    press_tab = tab.press_tab
    vals = tab.vals
    hist_off = tab.hist_off
    if play is not None:
        decide2 = play.decide2
        hs_hard = play.hs_hard
        hs_soft = play.hs_soft
    combo_counts = out.combo_counts
    round2 = out.round2
    seat_stats = out.seat_stats
    stats = out.stats
    hist = out.hist
    trace = out.trace
    marks = out.marks
    h17, bj_num, bj_den, _, _, dbj_doubles = hand_rules(tab.rules)

    combos = np.empty(seats, np.int64)
    seat = np.zeros((seats, NSEAT), np.int64)  # each seat's press, hands and nets
    hands = np.zeros((seats, MAX_HANDS, NHAND), np.int64)  # each seat's hands
    near = np.zeros(0, np.int64)  # (no histogram window: see book_table)
    nmarks = marks.shape[0]
    nw = combo_pay.shape[1]
    # a new shoe shuffles the places a round starting before the cut card can deal (and
    # AHEAD more for complete rounds); later places are shuffled as they are reached
    positions = first_places(n, cut, seats, play is not None)
    cnt = np.zeros(NSTAT, np.int64)  # the counters (STAT_NAMES)

    # the dealer's hand as a state (its total counting aces 1, twice, plus one if it
    # holds an ace): whether the dealer draws (``d_go``), the state after drawing each
    # card (``d_next``; a hand that stands stays) and its final total (``d_fin``), all
    # from the hand rules' :func:`sidebet.regulation.base_game.legality.dealer_draws`
    g_go, g_next, g_fin = dealer_tables(vals, h17)
    d_go = np.zeros(NDEALER, np.int64)  # (copied, as the settlement's tables below)
    d_next = np.zeros(NDEALER * 64, np.uint8)  # [state * 64 + card]
    d_fin = np.zeros(NDEALER, np.int64)
    for i in range(NDEALER):
        d_go[i] = g_go[i]
        d_fin[i] = g_fin[i]
    for i in range(NDEALER * 64):
        d_next[i] = g_next[i]
    # a finished hand's settlement without a press, by its key (:func:`_hand_key`): the
    # hand rules' tables (:func:`settle_tables`), copied into arrays made here, whose
    # shapes LLVM then knows (used as returned, they cost this loop 2-3%, measured)
    s_ix, s_net, s_counts = settle_tables(bet, bj_num, bj_den, dbj_doubles)
    show_ix = np.zeros((32, 32), np.int64)  # [total, dealer's total]: showdown + 1
    k_net = np.zeros(NKEY, np.int64)
    k_counts = np.zeros((NKEY, 4), np.int64)
    for i in range(32):
        for j in range(32):
            show_ix[i, j] = s_ix[i, j]
    for i in range(NKEY):
        k_net[i] = s_net[i]
        for j in range(4):
            k_counts[i, j] = s_counts[i, j]
    # a hand of three or more cards: ``hit_more[upcard value * 64 + total * 2 + ace]``,
    # the strategy's hit or stand by its total (soft or hard), below 21 (aces counted 1)
    # (strategy ``t``'s at ``t * NHIT``)
    ntab = 1  # (without a counter, a constant: the simulator's table has a known size)
    if counter is not None:
        ntab = decide2.shape[0] // NCTX
    hit_more = np.zeros(ntab * NHIT, np.int8)
    if play is not None:
        g_more = hit_table(hs_hard, hs_soft, ntab)
        for i in range(ntab * NHIT):
            hit_more[i] = g_more[i]
    # the counter (pruned by numba without one): its settings, working arrays and state
    word0 = 0  # the counts' packed sums
    word1 = 0
    in_shoe = 0
    inplay = False
    gone = False
    bucket = 0
    units = 0
    last = 0  # the counter's last bet in this shoe (0: none yet) and whether it won
    won = False
    start = 0
    burn = 0
    ibucket = 0  # the insurance index's bucket, after the deal
    spread = 0
    now = 0  # the counter's spots this round
    dealt = seats  # the seats dealt this round
    pk = np.zeros((52, 2), np.int64)  # (the tags: none without a counter)
    play_at = np.zeros((1, 1), np.int8)  # (the counter's play tables: none without one)
    if counter is not None:  # (arrays taken out of the records once: see counting)
        (pk, cset, ev_st, ev_cats, evs, full, side_top, sideu, sideb, stc, tcs,
         mark) = scratch(counter, tally, nw, n)
        use_ev = cset[C_USE_EV] != 0
        burn = cset[C_BURN]
        spread = cset[C_CUT_SPREAD]
        if spread > 0:  # (the cut card can fall later: as many more places shuffled first)
            positions = first_places(n, cut + spread, seats, play is not None)
        parlay = cset[C_PARLAY] != 0
        ins_from = cset[C_INS_FROM]
        spots_of = counter.spots_of
        ramp = counter.ramp
        play_at = counter.play_at
        den = counter.den
        inv = counter.inv
        wong_in = counter.wong_in
        side_mode = counter.side_mode
        side_field = counter.side_field
        side_sum = counter.side_sum
        side_ramp = counter.side_ramp
        side_need = counter.side_need
        side_cap = counter.side_cap
        ev_weights = counter.ev.weights
        ev_cls = counter.ev.cls
        ev_ma = counter.ev.ma
        ev_mb = counter.ev.mb
        ev_lucky = counter.ev.lucky
        ev_nb = counter.ev.nb
        assert tally is not None  # (it comes with the counter)
        comp = tally.comp
        c_acc = tally.acc
        c_tc = tally.tc_stats
        c_side = tally.side_acc
        c_trace = tally.trace
    last_shoe = src.shoe0 + max(src.nshoes, 1) - 1
    seeded = orders.shape[0] == 0
    shoe = src.shoe0 - 1  # the first round starts shoe ``shoe0``
    state = np.uint64(0)
    lim = 0  # places shuffled (or given)
    pos = 0
    fresh = True
    stop = False
    shoes = 0
    rounds = 0
    shoe_cut = cut  # this shoe's cut card (a counter's table may move it, shoe by shoe)
    while rounds < max_rounds:
        if pos >= shoe_cut or fresh:  # the cut card came out (or the shoe ran out): next shoe
            if counter is not None:  # noqa: SIM102 (numba prunes only a plain `is None`)
                if in_shoe > 0:
                    close_shoe(c_acc, comp, mark, in_shoe)
                    in_shoe = 0
            if shoe >= last_shoe:
                break
            shoe += 1
            state = shoe_state(shoe, key0, key1)
            if seeded:  # (start_shoe's work, here: calls that take arrays cost per shoe)
                for i in range(n):
                    buf[i] = base[i]
                state = shuffle_from(buf, 0, positions, state)
                lim = positions
            else:
                state, lim, stop = start_shoe(buf, base, orders, shoe, positions, key0, key1)
                if stop:
                    break
            pos = 0
            fresh = False
            shoes += 1
            if counter is not None:
                pos = burn  # (burned after the shuffle, unseen by the counter)
                shoe_cut = cut_place(cut, spread, shoe, key0, key1)
                word0 = 0
                word1 = 0
                gone = False
                last = 0
                inplay = wong_in < 0  # (a back-counter waits for its count)
                if use_ev:
                    ev_reset(ev_st, full, ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
        if rounds < nmarks:  # where the round starts (the counting analysis)
            marks[rounds, 0] = shoe
            marks[rounds, 1] = pos
        if counter is not None:  # the counter's bets, by the counts so far
            start = pos
            if use_ev:  # (a kernel's call: see bet_round)
                evaluate(ev_st, ev_weights, ev_cats, evs)
            bucket, inplay, gone, units, now, dealt = bet_round(
                word0, word1, pos, n, seats, inplay, gone, last, won, cset, den, inv, ramp,
                spots_of, side_mode, side_ramp, side_field, side_sum, side_top, side_cap,
                side_need, evs, sideu, sideb, seat)
        # the deal: a first card to each seat, the upcard, a second card to each seat,
        # the hole card (beyond ``lim`` as ``refill`` says); indices cast to unsigned
        # where they are never negative, so numba adds no negative-index wraparound
        up, hole, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_round(
            buf, base, orders, shoe, pos, lim, fresh, stop, state, dealt, seat, combos, combo_tab, play is not None, counter is not None, pk, word0, word1)
        if stop:  # the given orders ran out: the round does not count
            break
        if seats > 1 and counter is None:  # the side wagers' all-seat net (table's books)
            settle_sides(seats, nw, combos, combo_pay, round2, play is not None)
        if play is None:  # side wagers only: the round ends here
            book_sides_only(seats, combos, combo_counts, trace, rounds)
            rounds += 1
            continue
        if counter is not None:  # insurance, offered now: by the cards seen
            ibucket = insurance_bucket(vals[up], word0, word1, pk, hole, pos, n, cset, den,
                                       inv, ramp.shape[0])
        read_bj, dealer_bj, dealer_drew, dealer_total, pos, lim, shoe, fresh, stop, state, \
            word0, word1 = play_hands(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, counter is not None,
                pk, word0, word1, dealt, up, hole, seat, hands, combos, vals, combo_offer,
                press_mode, press_tab, tab.rules, decide2, hit_more, play_at, d_go, d_next,
                d_fin)
        if stop:
            break
        settle_round(dealt, read_bj, dealer_bj, dealer_drew, dealer_total, bet, tab.rules,
                     seat, hands, show_ix, k_net, k_counts, cnt)
        if counter is None:  # the table's books: every seat's nets, the histogram
            book_table(seats, rounds, combos, combo_net, combo_counts, seat, cnt,
                       seat_stats, hist, hist_off, near, 0, trace, round2, nw)
        else:  # the counter's books: its spots at one unit, its bets
            book_counter(now, vals[up], dealer_bj, bucket, ibucket, ins_from, units, seat, comp,
                         c_acc,
                         combo_pay, combos, side_mode, sideb, stc, sideu, c_side, tcs, c_tc,
                         rounds, c_trace)
            in_shoe += 1
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
    if counter is not None:
        if in_shoe > 0:  # a shoe cut short by the round limit
            close_shoe(c_acc, comp, mark, in_shoe)
        book_chunk(counter, tally, rounds, shoes, stc, tcs)
    close_chunk(seats, cnt, seat_stats)
    cnt[ST_ROUNDS] = rounds
    cnt[ST_SEAT_ROUNDS] = rounds * seats
    cnt[ST_SHOES] = shoes
    out.info[0] = shoes
    for k in range(NSTAT):
        stats[k] += cnt[k]
    return rounds
