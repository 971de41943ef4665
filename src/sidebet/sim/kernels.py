"""Compiled simulation kernels: shoes, side-wager rounds and complete Blackjack rounds.

Everything here is a module-level numba kernel (:func:`sidebet._jit.kernel`, cached on
disk).  The kernels know nothing of wagers or paytables: they receive plain arrays built
by :mod:`sidebet.sim.spec` and :mod:`sidebet.sim.strategy`.

**Shoes.**  A chunk plays whole shoes ``shoe0 .. shoe0 + nshoes - 1``.  Shoe ``k`` is
shuffled by its own random stream: a SplitMix64 generator whose state is
``mix64(key0 ^ mix64(key1 + k))``, where ``(key0, key1)`` come from
``numpy.random.SeedSequence(seed)``.  So every shoe depends only on the seed and its
index — not on the chunk size, the number of workers or the backend.  The shuffle is a
Fisher–Yates shuffle run from the front (position ``i`` swapped with a uniform position
in ``i..n-1``) when the shoe starts; side-wager-only rounds stop it at the last place a
round can reach, which leaves the cards dealt exactly as in a full shuffle.  Bounded
integers use Lemire's multiply-and-reject method (exactly uniform).

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

from typing import Any, NamedTuple

import numpy as np

from sidebet._jit import inline, kernel
from sidebet.cards import triple_index
from sidebet.handrules import legality, settlement
from sidebet.handrules.codes import DOUBLE, HIT, SPLIT, STAND, SURRENDER

_inline = inline

__all__ = [
    "NSTAT",
    "RULE_FIELDS",
    "STAT_NAMES",
    "Outputs",
    "PlayArrays",
    "RoundTables",
    "ShoeStream",
    "play_chunk",
]

# ----- the hand rules, compiled -----------------------------------------------------

_triple = _inline(triple_index)
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

# ----- the structured arguments of the kernels ----------------------------------------


class ShoeStream(NamedTuple):
    """Where the cards come from: the shoe buffer ``buf`` (reset from ``base`` and
    shuffled by shoe number from the key ``(key0, key1)``) or, in orders mode, the rows
    of ``orders``; shoes ``shoe0 .. shoe0 + nshoes - 1``; a round starts while fewer than
    ``cut`` cards are dealt; a new shoe shuffles its first ``positions`` places."""

    buf: Any
    base: Any
    orders: Any
    key0: Any
    key1: Any
    shoe0: int
    nshoes: int
    cut: int
    positions: int


class RoundTables(NamedTuple):
    """The table and its side wagers as arrays (money in tenths): ``seats``, the
    Blackjack wager ``bet``, the combination table ``combo_tab`` (indexed by
    :func:`sidebet.cards.triple_index`), each combination's side net ``combo_net``, its
    TriLux Deluxe winnings offered for pressing ``combo_offer`` and net per wager
    ``combo_pay``; the Press (``press_mode`` 0 never, 1 all, 2 where
    ``press_tab[value1, value2, upcard value]``); the house rules per
    :data:`RULE_FIELDS`; card values ``vals``; the histogram offset ``hist_off``."""

    seats: int
    bet: int
    combo_tab: Any
    combo_net: Any
    combo_offer: Any
    combo_pay: Any
    press_mode: int
    press_tab: Any
    rules: Any
    vals: Any
    hist_off: int


class PlayArrays(NamedTuple):
    """The strategy (packed chart codes, :attr:`sidebet.handrules.codes.ChartCode.packed`, indexed ``[total or card value, upcard
    value]``): see :mod:`sidebet.sim.strategy`."""

    hard2: Any
    soft2: Any
    pair: Any
    nosplit: Any
    hs_hard: Any
    hs_soft: Any


class Outputs(NamedTuple):
    """What :func:`play_chunk` counts: ``combo_counts``, ``round2``, ``seat_stats``,
    ``stats`` (:data:`STAT_NAMES`), ``hist``, ``trace``, ``info`` (``info[0]``:
    shoes started) and ``marks`` (``[rounds, 2]``, may have no rows: where each round
    starts, the shoe's number and the cards already dealt from it; the counting analysis
    rebuilds each round's composition from these)."""

    combo_counts: Any
    round2: Any
    seat_stats: Any
    stats: Any
    hist: Any
    trace: Any
    info: Any
    marks: Any


RULE_FIELDS = (
    "h17",
    "bj_num",
    "bj_den",
    "double_rule",  # legality.DOUBLE_*: 0 any two cards, 1 hard 9-11, 2 hard 10-11
    "das",
    "max_hands",
    "rsa",
    "hsa",
    "late_surrender",
    "peek",
    "dbj_takes_doubles",
)
"""Order of the house-rule integers passed to :func:`play_chunk`."""

STAT_NAMES = (
    "rounds",
    "seat_rounds",
    "shoes",
    "bj_net",
    "bj_net2",
    "base_net",
    "base_net2",
    "press_rounds",
    "press_amount",
    "press_net",
    "press_net2",
    "total_net",
    "total_net2",
    "action",
    "hands",
    "naturals",
    "wins",
    "pushes",
    "losses",
    "surrenders",
    "doubles",
    "splits",
    "busts",
    "dealer_blackjacks",
    "dealer_busts",
    "round_wins",
    "round_pushes",
    "round_losses",
)
"""Names of the integer counters a chunk returns (money in tenths of a unit)."""

NSTAT = len(STAT_NAMES)
_I = {name: i for i, name in enumerate(STAT_NAMES)}
ST_ROUNDS = _I["rounds"]
ST_SEAT_ROUNDS = _I["seat_rounds"]
ST_SHOES = _I["shoes"]
ST_BJ_NET = _I["bj_net"]
ST_BJ_NET2 = _I["bj_net2"]
ST_BASE_NET = _I["base_net"]
ST_BASE_NET2 = _I["base_net2"]
ST_PRESS_ROUNDS = _I["press_rounds"]
ST_PRESS_AMOUNT = _I["press_amount"]
ST_PRESS_NET = _I["press_net"]
ST_PRESS_NET2 = _I["press_net2"]
ST_TOTAL_NET = _I["total_net"]
ST_TOTAL_NET2 = _I["total_net2"]
ST_ACTION = _I["action"]
ST_HANDS = _I["hands"]
ST_NATURALS = _I["naturals"]
ST_WINS = _I["wins"]
ST_PUSHES = _I["pushes"]
ST_LOSSES = _I["losses"]
ST_SURRENDERS = _I["surrenders"]
ST_DOUBLES = _I["doubles"]
ST_SPLITS = _I["splits"]
ST_BUSTS = _I["busts"]
ST_DEALER_BJ = _I["dealer_blackjacks"]
ST_DEALER_BUSTS = _I["dealer_busts"]
ST_ROUND_WINS = _I["round_wins"]
ST_ROUND_PUSHES = _I["round_pushes"]
ST_ROUND_LOSSES = _I["round_losses"]

_GOLD = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LO32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(0x100000000)

@_inline
def mix64(z: Any) -> Any:  # pragma: no cover - compiled
    """SplitMix64's finaliser (a bijection of 64-bit words)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@_inline
def shoe_state(shoe: int, key0: Any, key1: Any) -> Any:  # pragma: no cover - compiled
    """The initial random state of shoe number ``shoe``."""
    return mix64(key0 ^ mix64(key1 + np.uint64(shoe)))


@kernel
def shuffle(buf: Any, base: Any, positions: int, state: Any) -> Any:  # pragma: no cover
    """Reset ``buf`` to ``base`` and Fisher–Yates shuffle its first ``positions`` places
    (position ``i`` swapped with a uniform place in ``i..n-1``, Lemire's exact bounded
    integers from SplitMix64); returns the generator's new state.  The first ``positions``
    cards are distributed exactly as in a full shuffle."""
    n = buf.shape[0]
    for i in range(n):
        buf[i] = base[i]
    for i in range(positions):
        k = np.uint64(n - i)
        state += _GOLD
        m = (mix64(state) >> _S32) * k
        low = m & _LO32
        if low < k:
            t = (_TWO32 - k) % k
            while low < t:
                state += _GOLD
                m = (mix64(state) >> _S32) * k
                low = m & _LO32
        j = i + np.int64(m >> _S32)
        c = buf[j]
        buf[j] = buf[i]
        buf[i] = c
    return state


@kernel
def start_shoe(buf: Any, base: Any, orders: Any, shoe: int, positions: int, key0: Any,
               key1: Any) -> tuple[Any, bool]:  # pragma: no cover - compiled
    """Load shoe number ``shoe`` into ``buf``: a seeded shuffle, or (orders mode, when
    ``orders`` has rows) row ``shoe``.  Returns the generator state and whether the given
    orders ran out."""
    state = shoe_state(shoe, key0, key1)
    if orders.shape[0] == 0:
        return shuffle(buf, base, positions, state), False
    if shoe >= orders.shape[0]:
        return state, True
    for i in range(buf.shape[0]):
        buf[i] = orders[shoe, i]
    return state, False


@kernel
def run_out(buf: Any, base: Any, orders: Any, shoe: int, state: Any
            ) -> tuple[int, bool, bool, Any]:  # pragma: no cover - compiled
    """The shoe ran out mid-round: seeded mode reshuffles a full shoe from the same stream
    (the next round then starts the next shoe); orders mode moves to the next row, which
    stays in use.  Returns ``(shoe, fresh, stopped, state)``."""
    if orders.shape[0] == 0:
        return shoe, True, False, shuffle(buf, base, buf.shape[0], state)
    shoe += 1
    if shoe >= orders.shape[0]:
        return shoe, False, True, state
    for i in range(buf.shape[0]):
        buf[i] = orders[shoe, i]
    return shoe, False, False, state



# ----- complete Blackjack rounds -----------------------------------------------------


# Note on style: the deal and the shoe advance are written once, in ``play_chunk``;
# numba compiles it once with ``play`` None (its dead-branch pruning drops the Blackjack
# code) and once with strategy arrays.  Helpers called in the loop take and return
# scalars only (the hand rules): a helper that takes arrays, whether inlined by numba,
# forced inline by LLVM or called, adds reference counting to the hot loop (measured:
# five to ten times slower).  Array-taking helpers run only on rare paths (a new shoe).


@kernel
def play_chunk(src: ShoeStream, tab: RoundTables, play: PlayArrays | None, out: Outputs,
               max_rounds: int) -> int:  # pragma: no cover - compiled
    """Deal rounds from the shoe stream ``src`` and tally them in ``out``; returns the
    rounds played.

    Every round starts with the deal (§ 633a.7: a first card to each seat, the upcard, a
    second card to each seat, the hole card) and its side wagers: each seat's
    combination is ``tab.combo_tab`` at the :func:`sidebet.cards.triple_index` of its two
    cards and the upcard, counted in ``out.combo_counts``; ``out.marks`` (may have no
    rows) receives where each round starts: its shoe's number and the cards already dealt.

    With ``play`` ``None`` the round ends there (side wagers only; numba compiles this
    case apart, without the Blackjack code): ``out.trace`` (``[rounds, seats]``, may have
    no rows) receives each seat's combination.

    Otherwise the round goes on: the Press, the card reader, each seat's hands by the
    strategy arrays, the dealer, and settlement; what each hand may do and how it
    settles are the hand rules of :mod:`sidebet.handrules`, compiled here.  ``tab.bet``
    is the Blackjack wager in tenths (see :class:`RoundTables`).  The strategy
    (:class:`PlayArrays`, codes ``first * 5 + fallback``, indexed ``[total or card value,
    upcard value]``): ``hard2``/``soft2`` for two-card hands, ``pair`` for a pair that
    may be split and ``nosplit`` for one that may not, ``hs_hard``/``hs_soft`` (stand 0,
    hit 1) for hands of three or more cards and as the last fallback.  Counters go to
    ``out.stats`` (:data:`STAT_NAMES`) and ``out.hist`` (each seat's round net, all
    wagers, in tenths, offset ``tab.hist_off``); ``out.trace`` (``[rounds, seats, 3]``)
    receives per round and seat the side combination, the Blackjack net (wager, splits,
    doubles and press) and the net of the pressed chips on the initial hand;
    ``out.seat_stats[seat]`` sums each seat's Blackjack net, its square, its whole net
    and its square.

    With several seats ``out.round2`` sums the square of each round's all-seat net per
    side wager (``combo_pay``), then (complete rounds) of the Blackjack net, the net
    without the press and the whole net.
    """
    buf = src.buf
    base = src.base
    orders = src.orders
    n = buf.shape[0]
    cut = src.cut
    positions = src.positions
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
        hard2 = play.hard2
        soft2 = play.soft2
        pair = play.pair
        nosplit = play.nosplit
        hs_hard = play.hs_hard
        hs_soft = play.hs_soft
    combo_counts = out.combo_counts
    round2 = out.round2
    seat_stats = out.seat_stats
    stats = out.stats
    hist = out.hist
    trace = out.trace
    marks = out.marks
    rules = tab.rules
    h17 = rules[0] != 0
    bj_num = rules[1]
    bj_den = rules[2]
    dbl_rule = rules[3]
    das = rules[4] != 0
    max_hands = rules[5]
    rsa = rules[6] != 0
    hsa = rules[7] != 0
    ls = rules[8] != 0
    peek = rules[9] != 0
    dbj_doubles = rules[10] != 0

    firsts = np.empty(seats, np.int64)
    seconds = np.empty(seats, np.int64)
    combos = np.empty(seats, np.int64)
    presses = np.zeros(seats, np.int64)
    # hands of every seat: [seat, hand]
    h_sum = np.zeros((seats, 4), np.int64)  # aces counted 1
    h_ace = np.zeros((seats, 4), np.bool_)
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
    cnt = np.zeros(NSTAT, np.int64)
    nhist = hist.shape[0]
    ntrace = trace.shape[0]
    nmarks = marks.shape[0]
    nw = combo_pay.shape[1]

    last_shoe = src.shoe0 + max(src.nshoes, 1) - 1
    shoe = src.shoe0 - 1  # the first round starts shoe ``shoe0``
    state = np.uint64(0)
    pos = 0
    fresh = True
    stop = False
    shoes = 0
    rounds = 0
    while rounds < max_rounds:
        if pos >= cut or fresh:  # the cut card came out (or the shoe ran out): next shoe
            if shoe >= last_shoe:
                break
            shoe += 1
            state, stop = start_shoe(buf, base, orders, shoe, positions, key0, key1)
            if stop:
                break
            pos = 0
            fresh = False
            shoes += 1
        if rounds < nmarks:  # where the round starts (the counting analysis)
            marks[rounds, 0] = shoe
            marks[rounds, 1] = pos
        # the deal: a first card to each seat, the upcard, a second card to each seat,
        # the hole card (a shoe that runs out continues as ``run_out`` says)
        for s in range(seats):
            if pos >= n:
                shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
                pos = 0
            firsts[s] = np.int64(buf[pos])
            pos += 1
        if pos >= n:
            shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
            pos = 0
        up = np.int64(buf[pos])
        pos += 1
        for s in range(seats):
            if pos >= n:
                shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
                pos = 0
            second = np.int64(buf[pos])
            pos += 1
            combos[s] = combo_tab[_triple(firsts[s], second, up)]
            if play is not None:
                seconds[s] = second
        if pos >= n:
            shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
            pos = 0
        if play is not None:
            hole = np.int64(buf[pos])
        pos += 1
        if stop:  # the given orders ran out: the round does not count
            break
        if seats > 1:  # the side wagers' all-seat net
            whole = 0
            for w in range(nw):
                acc = 0
                for s in range(seats):
                    acc += combo_pay[combos[s], w]
                round2[w] += acc * acc
                whole += acc
            if play is None:
                round2[nw + 2] += whole * whole
        if play is None:  # side wagers only: the round ends here
            for s in range(seats):
                combo_counts[combos[s]] += 1
                if rounds < ntrace:
                    trace[rounds, s] = combos[s]
            rounds += 1
            continue
        upv = vals[up]
        holev = vals[hole]
        dealer_bj = (upv == 11 and holev == 10) or (upv == 10 and holev == 11)
        # the Press, then the players' hands
        for s in range(seats):
            c = combos[s]
            v0 = vals[firsts[s]]
            v1 = vals[seconds[s]]
            offer = combo_offer[c]
            pressed = press_mode == 1 or (press_mode == 2 and press_tab[v0, v1, upv] != 0)
            p = offer if offer > 0 and pressed else 0
            presses[s] = p
            nh[s] = 1
            split_seat[s] = False
            natural[s] = v0 + v1 == 21
            h_sum[s, 0] = (1 if v0 == 11 else v0) + (1 if v1 == 11 else v1)
            h_ace[s, 0] = v0 == 11 or v1 == 11
            h_n[s, 0] = 2
            h_v0[s, 0] = v0
            h_v1[s, 0] = v1
            h_dbl[s, 0] = False
            h_sur[s, 0] = False
            h_sa[s, 0] = False
        ten_or_ace = upv >= 10
        dealer_total = 0
        dealer_drew = False
        if peek and ten_or_ace and dealer_bj:
            pass  # the card reader finds the dealer's Blackjack: no one plays
        else:
            dealer_known = peek or not ten_or_ace
            for s in range(seats):
                i = 0
                while i < nh[s]:
                    if h_n[s, i] == 1:  # a split hand's second card comes on its turn
                        if pos >= n:
                            shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
                            pos = 0
                        v = vals[np.int64(buf[pos])]
                        pos += 1
                        h_sum[s, i] += 1 if v == 11 else v
                        h_ace[s, i] = h_ace[s, i] or v == 11
                        h_v1[s, i] = v
                        h_n[s, i] = 2
                    while True:
                        hsum = h_sum[s, i]
                        is_soft = h_ace[s, i] and hsum + 10 <= 21
                        tot = hsum + 10 if is_soft else hsum
                        ncards = h_n[s, i]
                        sa = h_sa[s, i]
                        can_hit = _hit_refusal(sa, hsa) == LEGAL
                        can_split = _split_refusal(ncards, h_v0[s, i], h_v1[s, i], nh[s],
                                                   max_hands, sa, rsa) == LEGAL
                        if not _has_decision(tot, h_dbl[s, i], h_sur[s, i], can_hit,
                                             can_split):
                            break
                        if ncards == 2:
                            can_double = _double_refusal(ncards, split_seat[s], sa, tot,
                                                         is_soft, das, hsa, dbl_rule) == LEGAL
                            can_surr = _surrender_refusal(ls, ncards, split_seat[s],
                                                          dealer_known) == LEGAL
                            fallback = hs_soft[tot, upv] if is_soft else hs_hard[tot, upv]
                            if h_v0[s, i] == h_v1[s, i]:
                                alt = nosplit[h_v0[s, i], upv]
                                code = pair[h_v0[s, i], upv] if can_split else alt
                            else:
                                code = soft2[tot, upv] if is_soft else hard2[tot, upv]
                                alt = code
                            act = _choose(code, alt, fallback, can_double, can_split,
                                          can_surr)
                        else:
                            act = hs_soft[tot, upv] if is_soft else hs_hard[tot, upv]
                        if act == HIT and not can_hit:
                            act = STAND
                        if act == SPLIT:
                            # split: the second card starts a new hand after this one
                            nhs = nh[s]
                            for j in range(nhs, i + 1, -1):
                                h_sum[s, j] = h_sum[s, j - 1]
                                h_ace[s, j] = h_ace[s, j - 1]
                                h_n[s, j] = h_n[s, j - 1]
                                h_v0[s, j] = h_v0[s, j - 1]
                                h_v1[s, j] = h_v1[s, j - 1]
                                h_dbl[s, j] = h_dbl[s, j - 1]
                                h_sur[s, j] = h_sur[s, j - 1]
                                h_sa[s, j] = h_sa[s, j - 1]
                            pv = h_v0[s, i]
                            aces = pv == 11
                            low_v = 1 if aces else pv
                            h_sum[s, i + 1] = low_v
                            h_ace[s, i + 1] = aces
                            h_n[s, i + 1] = 1
                            h_v0[s, i + 1] = pv
                            h_v1[s, i + 1] = 0
                            h_dbl[s, i + 1] = False
                            h_sur[s, i + 1] = False
                            h_sa[s, i + 1] = aces
                            nh[s] = nhs + 1
                            split_seat[s] = True
                            h_sa[s, i] = h_sa[s, i] or aces
                            if pos >= n:
                                shoe, fresh, stop, state = run_out(buf, base, orders, shoe,
                                                                   state)
                                pos = 0
                            v = vals[np.int64(buf[pos])]
                            pos += 1
                            h_sum[s, i] = low_v + (1 if v == 11 else v)
                            h_ace[s, i] = aces or v == 11
                            h_v1[s, i] = v
                            continue
                        if act == STAND:
                            break
                        if act == SURRENDER:
                            h_sur[s, i] = True
                            break
                        if pos >= n:
                            shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
                            pos = 0
                        v = vals[np.int64(buf[pos])]
                        pos += 1
                        h_sum[s, i] += 1 if v == 11 else v
                        h_ace[s, i] = h_ace[s, i] or v == 11
                        h_n[s, i] += 1
                        if act == DOUBLE:
                            h_dbl[s, i] = True
                            break
                    i += 1
            # the dealer
            live = False
            for s in range(seats):
                nat = natural[s] and not split_seat[s]
                for i in range(nh[s]):
                    hs = h_sum[s, i]
                    tot = hs + 10 if h_ace[s, i] and hs + 10 <= 21 else hs
                    if _dealer_needed(tot, h_sur[s, i], nat):
                        live = True
            d_sum = (1 if upv == 11 else upv) + (1 if holev == 11 else holev)
            d_ace = upv == 11 or holev == 11
            if live and not dealer_bj:
                dealer_drew = True
                while True:
                    d_soft = d_ace and d_sum + 10 <= 21
                    dt = d_sum + 10 if d_soft else d_sum
                    if not _dealer_draws(dt, d_soft, h17):
                        break
                    if pos >= n:
                        shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
                        pos = 0
                    v = vals[np.int64(buf[pos])]
                    pos += 1
                    d_sum += 1 if v == 11 else v
                    d_ace = d_ace or v == 11
            dealer_total = d_sum + 10 if d_ace and d_sum + 10 <= 21 else d_sum
        if stop:
            break
        # settlement: the hand rules' fates of each hand's bet, press and double
        for s in range(seats):
            p = presses[s]
            if peek and ten_or_ace and dealer_bj:
                res = _hand_result(natural[s], False, True, 0)
                fb, fp, _ = _chip_fates(res, True, True, dbj_doubles)
                net = _chip_net(fb, bet, bj_num, bj_den) + _chip_net(fp, p, bj_num, bj_den)
                r_bj[s] = net
                r_base[s] = net
                r_press_key[s] = 0
                r_action[s] = bet
                cnt[ST_HANDS] += 1
                if natural[s]:
                    cnt[ST_NATURALS] += 1
                    cnt[ST_PUSHES] += 1
                else:
                    cnt[ST_LOSSES] += 1
                continue
            nat = natural[s] and not split_seat[s]
            net = 0
            base_net = 0
            action = 0
            for i in range(nh[s]):
                hs = h_sum[s, i]
                tot = hs + 10 if h_ace[s, i] and hs + 10 <= 21 else hs
                first = i == 0
                hbet = bet if first else bet + p
                hpress = p if first else 0
                dbl = h_dbl[s, i]
                sur = h_sur[s, i]
                hdbl = hbet + hpress if dbl else 0
                res = _hand_result(nat, sur, dealer_bj, _showdown(tot, dealer_total))
                fb, fp, fd = _chip_fates(res, first, dealer_bj, dbj_doubles)
                hn = (_chip_net(fb, hbet, bj_num, bj_den) + _chip_net(fp, hpress, bj_num, bj_den)
                      + _chip_net(fd, hdbl, bj_num, bj_den))
                net += hn
                action += hbet + hpress + hdbl
                if p > 0:
                    base_net += (_chip_net(fb, bet, bj_num, bj_den)
                                 + _chip_net(fd, bet if dbl else 0, bj_num, bj_den))
                    if first:
                        r_press_key[s] = _chip_net(fp, p, bj_num, bj_den)
                cnt[ST_HANDS] += 1
                if dbl:
                    cnt[ST_DOUBLES] += 1
                if sur:
                    cnt[ST_SURRENDERS] += 1
                elif nat and not dealer_bj:
                    cnt[ST_NATURALS] += 1
                    cnt[ST_WINS] += 1
                elif hn > 0:
                    cnt[ST_WINS] += 1
                elif hn == 0:
                    cnt[ST_PUSHES] += 1
                else:
                    cnt[ST_LOSSES] += 1
                if tot > 21:
                    cnt[ST_BUSTS] += 1
            if p == 0:
                base_net = net
                r_press_key[s] = 0
            cnt[ST_SPLITS] += nh[s] - 1
            r_bj[s] = net
            r_base[s] = base_net
            r_action[s] = action
        if dealer_bj:
            cnt[ST_DEALER_BJ] += 1
        if dealer_drew and dealer_total > 21:
            cnt[ST_DEALER_BUSTS] += 1
        for s in range(seats):
            c = combos[s]
            combo_counts[c] += 1
            bj = r_bj[s]
            total = bj + combo_net[c]
            cnt[ST_BJ_NET] += bj
            cnt[ST_BJ_NET2] += bj * bj
            b = r_base[s]
            cnt[ST_BASE_NET] += b
            cnt[ST_BASE_NET2] += b * b
            cnt[ST_ACTION] += r_action[s]
            p = presses[s]
            if p > 0:
                pn = bj - b
                cnt[ST_PRESS_ROUNDS] += 1
                cnt[ST_PRESS_AMOUNT] += p
                cnt[ST_PRESS_NET] += pn
                cnt[ST_PRESS_NET2] += pn * pn
            cnt[ST_TOTAL_NET] += total
            cnt[ST_TOTAL_NET2] += total * total
            seat_stats[s, 0] += bj
            seat_stats[s, 1] += bj * bj
            seat_stats[s, 2] += total
            seat_stats[s, 3] += total * total
            if bj > 0:
                cnt[ST_ROUND_WINS] += 1
            elif bj == 0:
                cnt[ST_ROUND_PUSHES] += 1
            else:
                cnt[ST_ROUND_LOSSES] += 1
            k = total + hist_off
            if k < 0:
                k = 0
            elif k >= nhist:
                k = nhist - 1
            hist[k] += 1
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
        rounds += 1
    cnt[ST_ROUNDS] = rounds
    cnt[ST_SEAT_ROUNDS] = rounds * seats
    cnt[ST_SHOES] = shoes
    out.info[0] = shoes
    for k in range(NSTAT):
        stats[k] += cnt[k]
    return rounds
