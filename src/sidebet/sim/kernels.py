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
from sidebet.regulation.base_game.codes import DOUBLE, HIT, SPLIT, STAND, SURRENDER
from sidebet.sim.counting import (
    UNIT,
    book_chunk,
    close_shoe,
    field,
    scratch,
    wong,
)
from sidebet.sim.counting import whole as made_whole
from sidebet.sim.exact_ev import ev_remove, ev_reset, evaluate

# the kernel's argument records and counters: one definition, numba-free
from sidebet.sim.layout import (
    NSTAT,
    RULE_FIELDS,
    ST_ACTION,
    ST_BASE_NET,
    ST_BASE_NET2,
    ST_BJ_NET,
    ST_BJ_NET2,
    ST_BUSTS,
    ST_DEALER_BJ,
    ST_DEALER_BUSTS,
    ST_DOUBLES,
    ST_HANDS,
    ST_LOSSES,
    ST_NATURALS,
    ST_PRESS_AMOUNT,
    ST_PRESS_NET,
    ST_PRESS_NET2,
    ST_PRESS_ROUNDS,
    ST_PUSHES,
    ST_ROUND_LOSSES,
    ST_ROUND_PUSHES,
    ST_ROUND_WINS,
    ST_ROUNDS,
    ST_SEAT_ROUNDS,
    ST_SHOES,
    ST_SPLITS,
    ST_SURRENDERS,
    ST_TOTAL_NET,
    ST_TOTAL_NET2,
    ST_WINS,
    STAT_NAMES,
    CounterArrays,
    CounterOutputs,
    Outputs,
    PlayArrays,
    RoundTables,
    ShoeStream,
)
from sidebet.sim.shuffle import AHEAD, GROUP, shoe_state, shuffle, shuffle_from
from sidebet.sim.steps import book_sides_only, deal_card, deal_round, refill, settle_sides

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

CTX_SPLIT_SEAT = 8
CTX_SPLIT_ACES = 4
CTX_ROOM = 2
CTX_DEALER_KNOWN = 1
NCTX = 16
"""Contexts of a two-card decision (:func:`decision_table`): the seat has split, the hand
is a split ace, the seat may still split (fewer hands than the limit), the dealer's
Blackjack is ruled out."""


NHIT = 12 * 64
"""Entries of one strategy's hit-or-stand table of a hand of three or more cards."""

NKEY = 96
"""Keys of a finished hand's settlement (:func:`_hand_key`)."""


@_inline
def _hand_key(natural: bool, surrendered: bool, dealer_bj: bool, shown: int, first: bool,
              doubled: bool) -> int:  # pragma: no cover - compiled
    """What a hand's settlement depends on, but its amounts, as one number below
    :data:`NKEY` (``shown``: the showdown plus one)."""
    return ((((((1 if natural else 0) * 2 + (1 if surrendered else 0)) * 2
               + (1 if dealer_bj else 0)) * 3 + shown) * 2 + (1 if first else 0)) * 2
            + (1 if doubled else 0))


@_inline
def hand_rules(rules: Any) -> tuple[bool, int, int, int, bool, bool]:
    # pragma: no cover - compiled
    """The rule ints a round's play and settlement read (:data:`RULE_FIELDS`): the dealer
    hits soft 17, Blackjack pays ``bj_num`` to ``bj_den``, at most ``max_hands`` hands
    from splits, the dealer peeks, a dealer Blackjack takes doubles and splits."""
    return (rules[0] != 0, rules[1], rules[2], rules[5], rules[9] != 0, rules[10] != 0)


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
                            key = _hand_key(nat, sur, dbj, shown, first, dbl)
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


NDEALER = 64
"""States of the dealer's hand in the kernel: a total counting aces 1 below 32, and
whether it holds an ace (the dealer draws only below 17, so totals stay below 27)."""


@_inline
def _dealer_state(hard: int, ace: bool) -> int:  # pragma: no cover - compiled
    """The state of a dealer's hand totalling ``hard`` (aces 1), with an ace or not."""
    return hard * 2 + (1 if ace else 0)


@_inline
def _dealer_start(upv: int, holev: int) -> int:  # pragma: no cover - compiled
    """The state of the dealer's two cards (values 2..11, an ace 11)."""
    return _dealer_state((1 if upv == 11 else upv) + (1 if holev == 11 else holev),
                         max(upv, holev) == 11)


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
# arrays.  The deal and the side wagers' books are steps (:mod:`sidebet.sim.steps`):
# functions of scalars and single arrays compiled without reference counting and forced
# inline, so they add neither a call nor reference counting to the loop.  A helper
# compiled with reference counting that takes arrays, whether inlined by numba, forced
# inline by LLVM or called, adds reference counting to the hot loop (docs/simulator.md,
# Speed); so does a step call with more than 30 arguments (Python passes them as one
# tuple).  The play of the hands, the dealer, settlement and the books are still written
# here: as steps they cost 6-11% of the full-round rate (measured).  Counters are locals,
# written out once per chunk.


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
    each: the counter's seats (the first ``counter.spots``) play the one its count picks,
    the other seats ``counter.basic_id``.  The round itself is the same; its money goes to
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
    h17, bj_num, bj_den, max_hands, peek, dbj_doubles = hand_rules(tab.rules)

    firsts = np.empty(seats, np.int64)
    seconds = np.empty(seats, np.int64)
    combos = np.empty(seats, np.int64)
    presses = np.zeros(seats, np.int64)
    # hands of every seat: [seat, hand]
    h_sum = np.zeros((seats, 4), np.int64)  # aces counted 1
    h_ace = np.zeros((seats, 4), np.bool_)
    h_tot = np.zeros((seats, 4), np.int64)  # the final total (an ace 11 where it fits)
    h_n = np.zeros((seats, 4), np.int64)
    h_v0 = np.zeros((seats, 4), np.int64)  # value of the first card
    h_v1 = np.zeros((seats, 4), np.int64)  # value of the second card
    h_dbl = np.zeros((seats, 4), np.bool_)
    h_sur = np.zeros((seats, 4), np.bool_)
    h_sa = np.zeros((seats, 4), np.bool_)
    nh = np.zeros(seats, np.int64)
    split_seat = np.zeros(seats, np.bool_)
    natural = np.zeros(seats, np.bool_)
    r_bj = np.zeros(seats, np.int64)
    r_base = np.zeros(seats, np.int64)
    r_press_key = np.zeros(seats, np.int64)
    r_action = np.zeros(seats, np.int64)
    nhist = hist.shape[0]
    ntrace = trace.shape[0]
    nmarks = marks.shape[0]
    nw = combo_pay.shape[1]
    # a new shoe shuffles the places a round starting before the cut card can deal (and
    # AHEAD more for complete rounds); later places are shuffled as they are reached
    deal = 2 * seats + 2
    positions = min(n, cut - 1 + deal + (0 if play is None else AHEAD))
    positions += -positions % GROUP  # (the shoe's size is a multiple of GROUP)
    # the counters (STAT_NAMES), as locals
    c_bj_net = 0
    c_bj_net2 = 0
    c_base_net = 0
    c_base_net2 = 0
    c_press_rounds = 0
    c_press_amount = 0
    c_press_net = 0
    c_press_net2 = 0
    c_total_net = 0
    c_total_net2 = 0
    c_action = 0
    c_hands = 0
    c_naturals = 0
    c_wins = 0
    c_pushes = 0
    c_losses = 0
    c_surrenders = 0
    c_doubles = 0
    c_splits = 0
    c_busts = 0
    c_dealer_bj = 0
    c_dealer_busts = 0
    c_round_wins = 0
    c_round_pushes = 0
    c_round_losses = 0

    # the dealer's hand as a state (its total counting aces 1, twice, plus one if it
    # holds an ace): whether the dealer draws (``d_go``), the state after drawing each
    # card (``d_next``; a hand that stands stays) and its final total (``d_fin``), all
    # from the hand rules' :func:`sidebet.regulation.base_game.legality.dealer_draws`
    d_go = np.zeros(NDEALER, np.int64)
    d_next = np.zeros(NDEALER * 64, np.uint8)  # [state * 64 + card]
    d_fin = np.zeros(NDEALER, np.int64)
    for dst in range(NDEALER):
        d_sum = dst >> 1
        d_soft = (dst & 1) != 0 and d_sum + 10 <= 21
        d_fin[dst] = d_sum + 10 if d_soft else d_sum
        go = d_sum < NDEALER // 2 - 10 and _dealer_draws(d_fin[dst], d_soft, h17)
        d_go[dst] = 1 if go else 0
        for card in range(52):
            v = vals[card]
            d_next[dst * 64 + card] = (_dealer_state(d_sum + (1 if v == 11 else v),
                                               (dst & 1) != 0 or v == 11) if go else dst)
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
    # the counter (pruned by numba without one): its working arrays and state; the play
    # strategy of its seats (``t_play``) and of the others' (``t_basic``)
    word0 = 0  # the counts' packed sums
    word1 = 0
    in_shoe = 0
    inplay = False
    gone = False
    bucket = 0
    units = 0
    start = 0
    spots = 0
    t_play = 0
    t_basic = 0
    pk = np.zeros((52, 2), np.int64)  # (the tags: none without a counter)
    if counter is not None:  # (arrays taken out of the records once: see counting)
        (pk, ev_st, ev_cats, evs, full, side_top, sideu, sideb, stc, tcs, mark,
         use_ev) = scratch(counter, tally, nw, n)
        spots = counter.spots
        t_basic = counter.basic_id
        ramp = counter.ramp
        play_of = counter.play_of
        den = counter.den
        inv = counter.inv
        irc = counter.irc
        main_mult = counter.main_mult
        side_mult = counter.side_mult
        rounding = counter.rounding
        wong_in = counter.wong_in
        wong_out = counter.wong_out
        ins_from = counter.ins_from
        side_mode = counter.side_mode
        side_field = counter.side_field
        side_sum = counter.side_sum
        side_ramp = counter.side_ramp
        side_need = counter.side_need
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
        nb = ramp.shape[0]
        nsb = side_ramp.shape[1]
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
    while rounds < max_rounds:
        if pos >= cut or fresh:  # the cut card came out (or the shoe ran out): next shoe
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
                word0 = 0
                word1 = 0
                gone = False
                inplay = wong_in < 0  # (a back-counter waits for its count)
                if use_ev:
                    ev_reset(ev_st, full, ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
        if rounds < nmarks:  # where the round starts (the counting analysis)
            marks[rounds, 0] = shoe
            marks[rounds, 1] = pos
        if counter is not None:  # the counter's bets, by the counts so far
            start = pos
            left = n - pos
            idx = made_whole((irc + field(word0, word1, 0)) * main_mult, den[0, left], inv[0, left],
                        rounding)
            bucket = min(max(idx + (nb - 1) // 2, 0), nb - 1)
            inplay, gone = wong(bucket, inplay, gone, wong_in, wong_out)
            units = ramp[bucket] if inplay else 0
            t_play = play_of[bucket]
            if use_ev:
                evaluate(ev_st, ev_weights, ev_cats, evs)
            for w in range(nw):  # each side wager's bet: never, flat, by EV, by count
                mode = side_mode[w]
                u = 0
                sb = 0
                if mode == 1:
                    u = side_ramp[w, 0]
                elif mode == 2:
                    u = side_ramp[w, 0] if evs[w] > 0 else 0
                elif mode == 3:
                    sidx = made_whole((52 * field(word0, word1, side_field[w]) - pos * side_sum[w])
                                 * side_mult, den[1, left], inv[1, left], rounding)
                    sb = min(max(sidx + (nsb - 1) // 2, 0), nsb - 1)
                    u = side_ramp[w, sb]
                sideu[w] = min(u, side_top[w, bucket]) if units > 0 else 0
                sideb[w] = sb
            for w in range(nw):
                need = side_need[w]
                if need >= 0 and sideu[w] > 0:
                    sideu[need] = max(sideu[need], 1)
        # the deal: a first card to each seat, the upcard, a second card to each seat,
        # the hole card (beyond ``lim`` as ``refill`` says); indices cast to unsigned
        # where they are never negative, so numba adds no negative-index wraparound
        up, hole, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_round(
            buf, base, orders, shoe, pos, lim, fresh, stop, state, seats, firsts, seconds,
            combos, combo_tab, play is not None, counter is not None, pk, word0, word1)
        if stop:  # the given orders ran out: the round does not count
            break
        if seats > 1 and counter is None:  # the side wagers' all-seat net (table's books)
            settle_sides(seats, nw, combos, combo_pay, round2, play is not None)
        if play is None:  # side wagers only: the round ends here
            book_sides_only(seats, combos, combo_counts, trace, rounds)
            rounds += 1
            continue
        upv = vals[up]
        holev = vals[hole]
        dealer_bj = upv + holev == 21  # (two cards make 21 only as an ace and a ten)
        # the Press, then the players' hands
        for s in range(seats):
            c = combos[s]
            v0 = vals[firsts[s]]
            v1 = vals[seconds[s]]
            offer = combo_offer[c]
            pressed = press_mode == 1 or (press_mode == 2 and press_tab[v0, v1, upv] != 0)
            presses[s] = offer if pressed and offer > 0 else 0
            nh[s] = 1
            split_seat[s] = False
            natural[s] = v0 + v1 == 21
            h_sum[s, 0] = (1 if v0 == 11 else v0) + (1 if v1 == 11 else v1)
            h_ace[s, 0] = max(v0, v1) == 11
            h_n[s, 0] = 2
            h_v0[s, 0] = v0
            h_v1[s, 0] = v1
            h_sa[s, 0] = False
        ten_or_ace = upv >= 10
        read_bj = peek and dealer_bj  # (a dealer Blackjack shows an ace or a ten)
        dealer_total = 0
        dealer_drew = False
        if not read_bj:  # (the card reader finds the dealer's Blackjack: no one plays)
            known = CTX_DEALER_KNOWN if peek or not ten_or_ace else 0
            live = False  # whether some hand waits on the dealer's total
            for s in range(seats):
                d_off = 0  # the seat's strategy: its tables' offsets
                h_off = 0
                if counter is not None:
                    strat = t_play if s < spots else t_basic
                    d_off = strat * NCTX
                    h_off = strat * NHIT
                i = 0
                while i < nh[s]:
                    hsum = h_sum[s, i]
                    ace = h_ace[s, i]
                    ncards = h_n[s, i]
                    v0 = h_v0[s, i]
                    v1 = h_v1[s, i]
                    sa = h_sa[s, i]
                    if ncards == 1:  # a split hand's second card comes on its turn
                        drawn, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
                            buf, base, orders, shoe, pos, lim, fresh, stop, state,
                            counter is not None, pk, word0, word1)
                        v1 = vals[drawn]
                        hsum += 1 if v1 == 11 else v1
                        ace = ace | (v1 == 11)
                        ncards = 2
                    ctx = known + (CTX_ROOM if nh[s] < max_hands else 0)
                    if split_seat[s]:
                        ctx += CTX_SPLIT_SEAT + (CTX_SPLIT_ACES if sa else 0)
                    act = decide2[d_off + ctx, v0, v1, upv]
                    dbl = False
                    sur = False
                    while act != STAND:
                        if act == SPLIT:
                            # the second card starts a new hand after this one
                            nhs = nh[s]
                            for j in range(nhs, i + 1, -1):
                                h_sum[s, j] = h_sum[s, j - 1]
                                h_ace[s, j] = h_ace[s, j - 1]
                                h_n[s, j] = h_n[s, j - 1]
                                h_v0[s, j] = h_v0[s, j - 1]
                                h_v1[s, j] = h_v1[s, j - 1]
                                h_sa[s, j] = h_sa[s, j - 1]
                            aces = v0 == 11
                            low_v = 1 if aces else v0
                            h_sum[s, i + 1] = low_v
                            h_ace[s, i + 1] = aces
                            h_n[s, i + 1] = 1
                            h_v0[s, i + 1] = v0
                            h_v1[s, i + 1] = 0
                            h_sa[s, i + 1] = aces
                            nh[s] = nhs + 1
                            split_seat[s] = True
                            sa = sa or aces
                            drawn, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
                                buf, base, orders, shoe, pos, lim, fresh, stop, state,
                                counter is not None, pk, word0, word1)
                            v1 = vals[drawn]
                            hsum = low_v + (1 if v1 == 11 else v1)
                            ace = aces | (v1 == 11)
                            ctx = (known + (CTX_ROOM if nh[s] < max_hands else 0)
                                   + CTX_SPLIT_SEAT + (CTX_SPLIT_ACES if sa else 0))
                            act = decide2[d_off + ctx, v0, v1, upv]
                            continue
                        if act == SURRENDER:
                            sur = True
                            break
                        drawn, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
                            buf, base, orders, shoe, pos, lim, fresh, stop, state,
                            counter is not None, pk, word0, word1)
                        v = vals[drawn]
                        hsum += 1 if v == 11 else v
                        ace = ace | (v == 11)
                        ncards += 1
                        if act == DOUBLE:
                            dbl = True
                            break
                        # three or more cards: hit or stand (one lookup)
                        act = hit_more[h_off + upv * 64 + hsum * 2 + (1 if ace else 0)]
                    tot = hsum + 10 if ace & (hsum <= 11) else hsum
                    h_tot[s, i] = tot
                    h_dbl[s, i] = dbl
                    h_sur[s, i] = sur
                    # (a natural is never split: ``natural`` is the unsplit seat's)
                    live = live or _dealer_needed(tot, sur, natural[s] and not split_seat[s])
                    i += 1
            # the dealer
            dst = _dealer_start(upv, holev)
            if live and not dealer_bj:
                dealer_drew = True
                if pos + 3 <= lim:  # three draws without a branch (a final hand stays)
                    g1 = d_go[dst]
                    dst = int(d_next[dst * 64 + buf[pos]])
                    g2 = d_go[dst]
                    dst = int(d_next[dst * 64 + buf[pos + 1]])
                    g3 = d_go[dst]
                    dst = int(d_next[dst * 64 + buf[pos + 2]])
                    if counter is not None:  # (a card not drawn counts 0 times)
                        q1 = np.int64(buf[pos])
                        q2 = np.int64(buf[pos + 1])
                        q3 = np.int64(buf[pos + 2])
                        word0 += g1 * pk[q1, 0] + g2 * pk[q2, 0] + g3 * pk[q3, 0]
                        word1 += g1 * pk[q1, 1] + g2 * pk[q2, 1] + g3 * pk[q3, 1]
                    pos += g1 + g2 + g3
                while d_go[dst] != 0:  # (rarely more than three)
                    if pos >= lim:
                        pos, lim, shoe, fresh, stop, state = refill(
                            buf, base, orders, shoe, pos, lim, fresh, state)
                    dst = int(d_next[dst * 64 + buf[pos]])
                    if counter is not None:
                        drawn = np.int64(buf[pos])
                        word0 += pk[drawn, 0]
                        word1 += pk[drawn, 1]
                    pos += 1
            dealer_total = d_fin[dst]
        if stop:
            break
        # settlement: the hand rules' fates of each hand's bet, press and double
        for s in range(seats):
            p = presses[s]
            if read_bj:
                res = _hand_result(natural[s], False, True, 0)
                fb, fp, _ = _chip_fates(res, True, True, dbj_doubles)
                net = _chip_net(fb, bet, bj_num, bj_den) + _chip_net(fp, p, bj_num, bj_den)
                r_bj[s] = net
                r_base[s] = net
                r_press_key[s] = 0
                r_action[s] = bet
                c_hands += 1
                if natural[s]:
                    c_naturals += 1
                    c_pushes += 1
                else:
                    c_losses += 1
                continue
            nat = natural[s] and not split_seat[s]
            net = 0
            base_net = 0
            action = 0
            press_key = 0
            for i in range(nh[s]):
                tot = h_tot[s, i]
                first = i == 0
                dbl = h_dbl[s, i]
                sur = h_sur[s, i]
                shown = show_ix[tot, dealer_total]
                key = _hand_key(nat, sur, dealer_bj, shown, first, dbl)
                hn = k_net[key]
                if p > 0:  # a press: the chips' fates with their amounts
                    hbet = bet if first else bet + p
                    hpress = p if first else 0
                    hdbl = hbet + hpress if dbl else 0
                    res = _hand_result(nat, sur, dealer_bj, shown - 1)
                    fb, fp, fd = _chip_fates(res, first, dealer_bj, dbj_doubles)
                    base_net += hn
                    hn = (_chip_net(fb, hbet, bj_num, bj_den)
                          + _chip_net(fp, hpress, bj_num, bj_den)
                          + _chip_net(fd, hdbl, bj_num, bj_den))
                    action += hbet + hpress + hdbl
                    if first:
                        press_key = _chip_net(fp, p, bj_num, bj_den)
                else:
                    action += 2 * bet if dbl else bet
                net += hn
                # (counted without branches: the outcomes are unpredictable; a press
                # does not change whether a hand is won, pushed or lost)
                c_hands += 1
                c_doubles += 1 if dbl else 0
                c_surrenders += 1 if sur else 0
                c_naturals += k_counts[key, 0]
                c_wins += k_counts[key, 1]
                c_pushes += k_counts[key, 2]
                c_losses += k_counts[key, 3]
                c_busts += 1 if tot > 21 else 0
            if p == 0:
                base_net = net
            c_splits += nh[s] - 1
            r_bj[s] = net
            r_base[s] = base_net
            r_press_key[s] = press_key
            r_action[s] = action
        if dealer_bj:
            c_dealer_bj += 1
        if dealer_drew and dealer_total > 21:
            c_dealer_busts += 1
        if counter is None:  # the table's books: every seat's nets, the histogram
            for s in range(seats):
                c = combos[s]
                combo_counts[c] += 1
                bj = r_bj[s]
                total = bj + combo_net[c]
                c_bj_net += bj
                c_bj_net2 += bj * bj
                b = r_base[s]
                c_base_net += b
                c_base_net2 += b * b
                c_action += r_action[s]
                p = presses[s]
                if p > 0:
                    pn = bj - b
                    c_press_rounds += 1
                    c_press_amount += p
                    c_press_net += pn
                    c_press_net2 += pn * pn
                c_total_net += total
                c_total_net2 += total * total
                if seats > 1:
                    seat_stats[s, 0] += bj
                    seat_stats[s, 1] += bj * bj
                    seat_stats[s, 2] += total
                    seat_stats[s, 3] += total * total
                c_round_wins += 1 if bj > 0 else 0
                c_round_pushes += 1 if bj == 0 else 0
                c_round_losses += 1 if bj < 0 else 0
                hist[min(max(total + hist_off, 0), nhist - 1)] += 1
                if rounds < ntrace:
                    trace[rounds, s, 0] = c
                    trace[rounds, s, 1] = bj
                    trace[rounds, s, 2] = r_press_key[s]
            if seats > 1:
                sum_bj = 0
                sum_base = 0
                sum_total = 0
                for s in range(seats):
                    sum_bj += r_bj[s]
                    sum_base += r_base[s]
                    sum_total += r_bj[s] + combo_net[combos[s]]
                round2[nw] += sum_bj * sum_bj
                round2[nw + 1] += sum_base * sum_base
                round2[nw + 2] += sum_total * sum_total
        else:  # the counter's books: its spots at one unit, its bets
            x_bj = 0
            for s in range(spots):
                x_bj += r_bj[s]
            x_ins = 0
            if upv == 11 and bucket >= ins_from:
                x_ins = spots * (UNIT if dealer_bj else -(UNIT // 2))
                if units > 0:
                    c_acc[7] += spots
                    m = units * x_ins
                    comp[2, 0] += m
                    comp[2, 1] += m * m
            money = units * (x_bj + x_ins)
            comp[1, 0] += money
            comp[1, 1] += money * money
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
                    ym = y * u
                    money += ym
                    comp[3 + w, 0] += ym
                    comp[3 + w, 1] += ym * ym
                    c_side[w, 0] += 1.0
                    c_side[w, 1] += u
            comp[0, 0] += money
            comp[0, 1] += money * money
            x = x_bj + x_ins
            tcs[bucket, 0] += 1
            tcs[bucket, 1] += x
            tcs[bucket, 2] += x * x
            if units > 0:
                tcs[bucket, 3] += 1
            c_tc[bucket, 5] += money
            if rounds < c_trace.shape[0]:
                c_trace[rounds] = money
            in_shoe += 1
            if use_ev and not fresh:  # the exact EVs see the round's cards
                for i in range(start, pos):
                    ev_remove(ev_st, np.int64(buf[i]), ev_cls, ev_ma, ev_mb, ev_lucky, ev_nb)
        rounds += 1
    if counter is not None:
        if in_shoe > 0:  # a shoe cut short by the round limit
            close_shoe(c_acc, comp, mark, in_shoe)
        book_chunk(counter, tally, rounds, shoes, stc, tcs)
    if seats == 1:  # one seat's sums are the totals
        seat_stats[0, 0] += c_bj_net
        seat_stats[0, 1] += c_bj_net2
        seat_stats[0, 2] += c_total_net
        seat_stats[0, 3] += c_total_net2
    cnt = np.zeros(NSTAT, np.int64)
    cnt[ST_ROUNDS] = rounds
    cnt[ST_SEAT_ROUNDS] = rounds * seats
    cnt[ST_SHOES] = shoes
    cnt[ST_BJ_NET] = c_bj_net
    cnt[ST_BJ_NET2] = c_bj_net2
    cnt[ST_BASE_NET] = c_base_net
    cnt[ST_BASE_NET2] = c_base_net2
    cnt[ST_PRESS_ROUNDS] = c_press_rounds
    cnt[ST_PRESS_AMOUNT] = c_press_amount
    cnt[ST_PRESS_NET] = c_press_net
    cnt[ST_PRESS_NET2] = c_press_net2
    cnt[ST_TOTAL_NET] = c_total_net
    cnt[ST_TOTAL_NET2] = c_total_net2
    cnt[ST_ACTION] = c_action
    cnt[ST_HANDS] = c_hands
    cnt[ST_NATURALS] = c_naturals
    cnt[ST_WINS] = c_wins
    cnt[ST_PUSHES] = c_pushes
    cnt[ST_LOSSES] = c_losses
    cnt[ST_SURRENDERS] = c_surrenders
    cnt[ST_DOUBLES] = c_doubles
    cnt[ST_SPLITS] = c_splits
    cnt[ST_BUSTS] = c_busts
    cnt[ST_DEALER_BJ] = c_dealer_bj
    cnt[ST_DEALER_BUSTS] = c_dealer_busts
    cnt[ST_ROUND_WINS] = c_round_wins
    cnt[ST_ROUND_PUSHES] = c_round_pushes
    cnt[ST_ROUND_LOSSES] = c_round_losses
    out.info[0] = shoes
    for k in range(NSTAT):
        stats[k] += cnt[k]
    return rounds
