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

from typing import Any

import numpy as np
from numba import njit

from sidebet._jit import kernel

_inline = njit(inline="always", cache=True, nogil=True)
"""Helpers inlined into the kernels at numba IR level (no call, no reference counting)."""

__all__ = [
    "ACTION_CODES",
    "NSTAT",
    "RULE_FIELDS",
    "STAT_NAMES",
    "full_chunk",
    "side_chunk",
]

# ----- action codes of the strategy arrays -------------------------------------------

STAND = 0
HIT = 1
DOUBLE = 2
SPLIT = 3
SURRENDER = 4
ACTIONS = ("S", "H", "D", "P", "R")
"""Kernel actions by code: stand, hit, double, split, surrender."""


def action_code(code: str) -> int:
    """A chart code as the kernels store it: ``first * 5 + otherwise``.

    ``H``, ``S``, ``P`` act alone; ``D``/``Dh``, ``Ds``, ``Rh``, ``Rs``, ``Rp`` name what
    to do when the first choice is not allowed (``D`` alone: otherwise hit).

    >>> action_code("Ds") == DOUBLE * 5 + STAND, action_code("P") == SPLIT * 6
    (True, True)
    """
    text = code.strip()
    if not text or text[0].upper() not in ACTIONS:
        raise ValueError(f"unknown chart code {code!r}")
    first = ACTIONS.index(text[0].upper())
    if len(text) == 1:
        second = HIT if first == DOUBLE else first
    elif len(text) == 2 and text[1].upper() in ACTIONS:
        second = ACTIONS.index(text[1].upper())
    else:
        raise ValueError(f"unknown chart code {code!r}")
    return first * 5 + second


ACTION_CODES = {c: action_code(c) for c in ("S", "H", "P", "D", "Dh", "Ds", "Rh", "Rs", "Rp")}
"""Chart codes to kernel action codes."""

RULE_FIELDS = (
    "h17",
    "bj_num",
    "bj_den",
    "double_rule",  # 0 any two cards, 1 hard 9-11, 2 hard 10-11
    "das",
    "max_hands",
    "rsa",
    "hsa",
    "late_surrender",
    "peek",
    "dbj_takes_doubles",
)
"""Order of the house-rule integers passed to :func:`full_chunk`."""

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

# Note on style: the kernels keep the shoe's state in local scalars and deal with two
# inline lines (``if pos >= n: ...`` and ``card = buf[pos]``).  Array-taking helpers are
# called only on rare paths (a new shoe): numba's IR inlining of array-taking helpers
# leaves reference-count calls in the hot loop and made the kernels ten times slower.


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


# ----- side wagers only ------------------------------------------------------------


@kernel
def side_chunk(
    seats: int,
    combo_tab: Any,
    buf: Any,
    base: Any,
    orders: Any,
    key0: Any,
    key1: Any,
    shoe0: int,
    nshoes: int,
    cut: int,
    positions: int,
    max_rounds: int,
    combo_counts: Any,
    combo_pay: Any,
    round2: Any,
    trace: Any,
    info: Any,
) -> int:  # pragma: no cover - compiled
    """Deal side-wager-only rounds (each seat two cards, upcard, hole card; nothing more).

    Counts each seat's side-wager combination (an index into the combined outcome table
    ``combo_tab[first * 2704 + second * 52 + upcard]``) in ``combo_counts``; ``trace``
    (``[rounds, seats]``, may have no rows) receives each seat's combination.  With
    several seats, ``round2[w]`` sums the square of each round's net of wager ``w`` over
    all seats (``combo_pay[combo, w]``, tenths), for confidence intervals that allow for
    the seats sharing the upcard.  Returns the rounds played.
    """
    rounds = 0
    n = buf.shape[0]
    last_shoe = shoe0 + nshoes - 1
    shoe = shoe0
    state, stop = start_shoe(buf, base, orders, shoe, positions, key0, key1)
    if stop:
        return 0
    pos = 0
    fresh = False
    shoes = 1
    firsts = np.empty(seats, np.int64)
    combos = np.empty(seats, np.int64)
    ntrace = trace.shape[0]
    nw = combo_pay.shape[1]
    while rounds < max_rounds:
        if pos >= cut or fresh:  # the cut card came out: the next shoe
            if shoe >= last_shoe:
                break
            shoe += 1
            state, stop = start_shoe(buf, base, orders, shoe, positions, key0, key1)
            if stop:
                break
            pos = 0
            fresh = False
            shoes += 1
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
            combos[s] = combo_tab[firsts[s] * 2704 + second * 52 + up]
        if pos >= n:
            shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
            pos = 0
        pos += 1
        if stop:
            break
        for s in range(seats):
            combo_counts[combos[s]] += 1
            if rounds < ntrace:
                trace[rounds, s] = combos[s]
        if seats > 1:
            whole = 0
            for w in range(nw):
                acc = 0
                for s in range(seats):
                    acc += combo_pay[combos[s], w]
                round2[w] += acc * acc
                whole += acc
            round2[nw + 2] += whole * whole
        rounds += 1
    info[0] = shoes
    return rounds


# ----- complete Blackjack rounds -----------------------------------------------------


@_inline
def _hand_net(
    bet: int,
    press: int,
    doubled: bool,
    surrendered: bool,
    natural: bool,
    first: bool,
    total: int,
    dealer_total: int,
    dealer_bj: bool,
    bj_num: int,
    bj_den: int,
    dbj_takes_doubles: bool,
) -> int:  # pragma: no cover - compiled
    """Net result (tenths) of one hand whose chips are ``bet``, ``press`` and, when
    doubled, a Double Down wager of ``bet + press`` (interpretation 7)."""
    dbl = bet + press if doubled else 0
    if surrendered:
        return -(bet - bet // 2) - (press - press // 2)
    if dealer_bj:
        if natural:
            return 0  # push; the press is void and returned
        out = -bet if first else 0  # § 633a.11(d): only the original wager is lost
        if dbj_takes_doubles:
            out -= dbl
        return out
    if natural:
        return bet * bj_num // bj_den + press
    if total > 21:
        return -(bet + press + dbl)
    if dealer_total > 21 or total > dealer_total:
        return bet + press + dbl
    if total == dealer_total:
        return 0
    return -(bet + press + dbl)


@_inline
def _allowed(action: int, can_double: bool, can_split: bool, can_surr: bool
             ) -> bool:  # pragma: no cover - compiled
    if action == DOUBLE:
        return can_double
    if action == SPLIT:
        return can_split
    if action == SURRENDER:
        return can_surr
    return True


@_inline
def _resolve(code: int, alt: int, hs: int, can_double: bool, can_split: bool,
             can_surr: bool) -> int:  # pragma: no cover - compiled
    """The action of a two-card code: its first choice if allowed, else its second; a
    split that is not allowed plays the pair's no-split code ``alt``; else ``hs``."""
    first = code // 5
    second = code % 5
    if _allowed(first, can_double, can_split, can_surr):
        return first
    if _allowed(second, can_double, can_split, can_surr):
        return second
    if second == SPLIT:
        first = alt // 5
        second = alt % 5
        if _allowed(first, can_double, False, False):
            return first
        if _allowed(second, can_double, False, False):
            return second
    return hs


@kernel
def full_chunk(
    seats: int,
    bet: int,
    combo_tab: Any,
    combo_net: Any,
    combo_offer: Any,
    press_mode: int,
    press_tab: Any,
    rules: Any,
    hard2: Any,
    soft2: Any,
    pair: Any,
    nosplit: Any,
    hs_hard: Any,
    hs_soft: Any,
    vals: Any,
    buf: Any,
    base: Any,
    orders: Any,
    key0: Any,
    key1: Any,
    shoe0: int,
    nshoes: int,
    cut: int,
    max_rounds: int,
    combo_counts: Any,
    combo_pay: Any,
    round2: Any,
    seat_stats: Any,
    stats: Any,
    hist: Any,
    hist_off: int,
    trace: Any,
    info: Any,
    marks: Any,
) -> int:  # pragma: no cover - compiled
    """Play complete rounds: the deal, every side wager, the Press, the card reader, each
    seat's hands by the strategy arrays, the dealer, and settlement.

    ``bet`` is the Blackjack wager in tenths; ``combo_net[c]`` / ``combo_offer[c]`` the
    side-wager net and the TriLux Deluxe winnings offered for pressing of combination
    ``c``; ``press_mode`` 0 never presses, 1 presses all, 2 presses all when
    ``press_tab[value1, value2, upcard value]``; ``rules`` per :data:`RULE_FIELDS`.
    The strategy (:func:`action_code` codes, indexed ``[total or card value, upcard
    value]``): ``hard2``/``soft2`` for two-card hands, ``pair`` for a pair that may be
    split and ``nosplit`` for one that may not, ``hs_hard``/``hs_soft`` (stand 0, hit 1)
    for hands of three or more cards and as the last fallback.  ``vals[card]`` are
    blackjack values (ace 11).
    Counters go to ``stats`` (:data:`STAT_NAMES`), ``combo_counts`` and ``hist`` (each
    seat's round net, all wagers, in tenths, offset ``hist_off``).  ``trace``
    (``[rounds, seats, 3]``, may have no rows) receives per round and seat the side
    combination, the Blackjack net (wager, splits, doubles and press) and the net of the
    pressed chips on the initial hand.  With several seats ``round2`` sums the square of
    each round's all-seat net per side wager (``combo_pay``), then of the Blackjack net,
    the net without the press and the whole net; ``seat_stats[seat]`` sums each seat's
    Blackjack net, its square, its whole net and its square.  ``marks`` (``[rounds, 2]``,
    may have no rows) receives where each round starts: the shoe's number and the cards
    already dealt from it (the counting analysis rebuilds the composition from these).
    Returns the rounds played.
    """
    nmarks = marks.shape[0]
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
    nw = combo_pay.shape[1]

    rounds = 0
    n = buf.shape[0]
    last_shoe = shoe0 + nshoes - 1
    shoe = shoe0
    state, stop = start_shoe(buf, base, orders, shoe, n, key0, key1)
    if stop:
        return 0
    pos = 0
    fresh = False
    shoes = 1
    while rounds < max_rounds:
        if pos >= cut or fresh:  # the cut card came out: the next shoe
            if shoe >= last_shoe:
                break
            shoe += 1
            state, stop = start_shoe(buf, base, orders, shoe, n, key0, key1)
            if stop:
                break
            pos = 0
            fresh = False
            shoes += 1
        if rounds < nmarks:
            marks[rounds, 0] = shoe
            marks[rounds, 1] = pos
        # the deal: a first card to each seat, the upcard, a second card, the hole card
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
            seconds[s] = np.int64(buf[pos])
            pos += 1
        if pos >= n:
            shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
            pos = 0
        hole = np.int64(buf[pos])
        pos += 1
        upv = vals[up]
        holev = vals[hole]
        dealer_bj = (upv == 11 and holev == 10) or (upv == 10 and holev == 11)
        # side wagers, then the Press
        for s in range(seats):
            c = combo_tab[firsts[s] * 2704 + seconds[s] * 52 + up]
            combos[s] = c
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
                        if tot >= 21 or h_dbl[s, i] or h_sur[s, i]:
                            break
                        two = h_n[s, i] == 2
                        sa_locked = h_sa[s, i] and not hsa
                        can_split = (
                            two
                            and h_v0[s, i] == h_v1[s, i]
                            and nh[s] < max_hands
                            and not (h_sa[s, i] and not rsa)
                        )
                        if sa_locked and not can_split:
                            break
                        can_hit = not sa_locked
                        can_double = two and (das or not split_seat[s]) and not sa_locked
                        if can_double and dbl_rule != 0:
                            low = 9 if dbl_rule == 1 else 10
                            can_double = (not is_soft) and low <= tot <= 11
                        can_surr = ls and two and not split_seat[s] and dealer_known
                        if two:
                            fallback = hs_soft[tot, upv] if is_soft else hs_hard[tot, upv]
                            if h_v0[s, i] == h_v1[s, i]:
                                alt = nosplit[h_v0[s, i], upv]
                                code = pair[h_v0[s, i], upv] if can_split else alt
                            else:
                                code = soft2[tot, upv] if is_soft else hard2[tot, upv]
                                alt = code
                            act = _resolve(code, alt, fallback, can_double, can_split,
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
                                shoe, fresh, stop, state = run_out(buf, base, orders, shoe, state)
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
                if natural[s] and not split_seat[s]:
                    continue
                for i in range(nh[s]):
                    hs = h_sum[s, i]
                    tot = hs + 10 if h_ace[s, i] and hs + 10 <= 21 else hs
                    if tot <= 21 and not h_sur[s, i]:
                        live = True
            d_sum = (1 if upv == 11 else upv) + (1 if holev == 11 else holev)
            d_ace = upv == 11 or holev == 11
            if live and not dealer_bj:
                dealer_drew = True
                while True:
                    d_soft = d_ace and d_sum + 10 <= 21
                    dt = d_sum + 10 if d_soft else d_sum
                    if dt > 17 or (dt == 17 and not (d_soft and h17)):
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
        # settlement
        for s in range(seats):
            p = presses[s]
            if peek and ten_or_ace and dealer_bj:
                net = 0 if natural[s] else -bet
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
                hn = _hand_net(hbet, hpress, dbl, sur, nat, first, tot, dealer_total,
                               dealer_bj, bj_num, bj_den, dbj_doubles)
                net += hn
                action += hbet + hpress + ((hbet + hpress) if dbl else 0)
                if p > 0:
                    base_net += _hand_net(bet, 0, dbl, sur, nat, first, tot, dealer_total,
                                          dealer_bj, bj_num, bj_den, dbj_doubles)
                    if first:
                        r_press_key[s] = _hand_net(0, p, False, sur, nat, first, tot,
                                                   dealer_total, dealer_bj, bj_num, bj_den,
                                                   dbj_doubles)
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
            for w in range(nw):
                acc = 0
                for s in range(seats):
                    acc += combo_pay[combos[s], w]
                round2[w] += acc * acc
            round2[nw] += sum_bj * sum_bj
            round2[nw + 1] += sum_base * sum_base
            round2[nw + 2] += sum_total * sum_total
        rounds += 1
    cnt[ST_ROUNDS] = rounds
    cnt[ST_SEAT_ROUNDS] = rounds * seats
    cnt[ST_SHOES] = shoes
    info[0] = shoes
    for k in range(NSTAT):
        stats[k] += cnt[k]
    return rounds
