"""The steps of a round, as plain compiled functions of scalars and arrays.

:func:`sidebet.sim.kernels.play_chunk` deals and books its side wagers with these: the
deal of a card (:func:`draw`, the shoe shuffled as it is reached by :func:`refill`), the
count (:func:`count`), a round's deal (:func:`deal_round`), the side wagers' all-seat nets
(:func:`settle_sides`) and a side-wager-only round's books (:func:`book_sides_only`).
Each takes the arrays it reads or writes one by one (never a record), makes none, and
returns scalars; compiled without reference counting and forced inline
(:func:`sidebet.native.jit.step`), a step adds neither a call nor reference counting to
the kernel's hot loop.  No Python object is used inside, so the same functions can be
compiled as device functions elsewhere.  (:func:`refill`, on the rare path, is a plain
kernel.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sidebet.core.cards import triple_index
from sidebet.native.jit import inline, kernel, step
from sidebet.regulation.base_game import payout as settlement
from sidebet.regulation.base_game.codes import DOUBLE, SPLIT, STAND, SURRENDER
from sidebet.sim.layout import (
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
    ST_SPLITS,
    ST_SURRENDERS,
    ST_TOTAL_NET,
    ST_TOTAL_NET2,
    ST_WINS,
    UNIT,
)
from sidebet.sim.shuffle import AHEAD, GROUP, shuffle_from

__all__ = [
    "BY_COUNT",
    "MAX_HANDS",
    "NCTX",
    "NDEALER",
    "NHAND",
    "NHIT",
    "NKEY",
    "NSEAT",
    "add",
    "book_counter",
    "book_dealer",
    "book_sides_only",
    "book_table",
    "close_chunk",
    "count",
    "deal_card",
    "deal_round",
    "dealer_start",
    "dealer_state",
    "draw",
    "field",
    "first_places",
    "hand_key",
    "hand_rules",
    "open_seats",
    "play_dealer",
    "play_hands",
    "play_seat",
    "play_strategy",
    "refill",
    "settle_round",
    "settle_seat",
    "settle_sides",
    "take_card",
]

_triple = inline(triple_index)

@inline
def first_places(n: int, cut: int, seats: int, full: bool) -> int:
    # pragma: no cover - compiled
    """The places of an ``n``-card shoe shuffled when it starts: those a round starting
    before the cut card (``cut`` cards dealt) can deal, and :data:`AHEAD` more for
    complete rounds (``full``), rounded up to a multiple of :data:`GROUP` (later places
    are shuffled as they are reached, :func:`refill`)."""
    positions = cut - 1 + 2 * seats + 2 + (AHEAD if full else 0)
    if positions > n:  # (no min(): numba.cuda cannot compile it in a device function)
        positions = n
    return positions + (-positions % GROUP)


@kernel
def refill(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int, fresh: bool,
           state: Any) -> tuple[int, int, int, bool, bool, Any]:
    # pragma: no cover - compiled
    """The next card (place ``pos``) is not shuffled yet: shuffle :data:`AHEAD` more
    places; or the shoe ran out mid-round: seeded mode continues with a fresh full shoe
    from the same stream (the next round then starts the next shoe), orders mode with
    the next row, which stays in use.  Returns ``(pos, lim, shoe, fresh, stopped,
    state)`` (``fresh``: the round has run out of its shoe, now or before).  A seeded
    shoe is thus dealt exactly as if fully shuffled when it started, and a shoe that runs
    out continues from the generator state a full shuffle leaves."""
    n = buf.shape[0]
    stopped = False
    if pos >= n:
        pos = 0
        if orders.shape[0] == 0:
            for i in range(n):
                buf[i] = base[i]
            lim = 0
            fresh = True
        else:
            shoe += 1
            if shoe >= orders.shape[0]:
                return pos, lim, shoe, False, True, state
            for i in range(n):
                buf[i] = orders[shoe, i]
            return pos, n, shoe, False, False, state
    hi = lim + AHEAD if lim + AHEAD < n else n
    state = shuffle_from(buf, lim, hi, state)
    return pos, hi, shoe, fresh, stopped, state


@step
def draw(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int, fresh: bool,
         stop: bool, state: Any) -> tuple[Any, int, int, int, bool, bool, Any]:
    # pragma: no cover - compiled
    """Deal the card at place ``pos``, shuffled first if it is not yet (:func:`refill`).
    Returns the card and the shoe's new ``(pos, lim, shoe, fresh, stop, state)``."""
    if pos >= lim:
        pos, lim, shoe, fresh, stop, state = refill(buf, base, orders, shoe, pos, lim,
                                                    fresh, state)
    return np.int64(buf[np.uint64(pos)]), pos + 1, lim, shoe, fresh, stop, state


@step
def count(word0: int, word1: int, pk: Any, card: int) -> tuple[int, int]:
    # pragma: no cover - compiled
    """The counter's count: ``card`` added to the packed sums of every count
    (:func:`field`)."""
    return word0 + pk[card, 0], word1 + pk[card, 1]


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


BY_COUNT = -1
"""A seat's strategy (``seat[s, S_STRAT]``) when a counter plays it: the tables of the
count at each decision (:func:`play_strategy`)."""


@step
def play_strategy(strat: int, counting: bool, play_at: Any, seen: int, left: int) -> Any:
    # pragma: no cover - compiled
    """The strategy a seat playing ``strat`` uses at a decision: ``strat`` itself or, for a
    counter's seat (:data:`BY_COUNT`, ``counting``), the tables of its count at this
    moment, ``play_at[left, count + reach]`` (``reach``: half the row; ``left``: the
    cards unseen, the hole card among them; the count: field 0 of ``seen``, the first
    packed word less the hole card's tags)."""
    if counting and strat < 0:
        w = play_at.shape[1]
        col = clip(field(seen, 0, 0) + w // 2, w - 1)
        return np.int64(play_at[np.uint64(left), np.uint64(col)])
    return strat



@step
def deal_card(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int,
              fresh: bool, stop: bool, state: Any, counting: bool, pk: Any, word0: int,
              word1: int) -> tuple[Any, int, int, int, bool, bool, Any, int, int]:
    # pragma: no cover - compiled
    """:func:`draw` a card and, if ``counting``, :func:`count` it.  Returns the card, the
    shoe's new ``(pos, lim, shoe, fresh, stop, state)`` and the counts."""
    card, pos, lim, shoe, fresh, stop, state = draw(buf, base, orders, shoe, pos, lim,
                                                    fresh, stop, state)
    if counting:
        word0, word1 = count(word0, word1, pk, card)
    return card, pos, lim, shoe, fresh, stop, state, word0, word1


@step
def deal_round(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int,
               fresh: bool, stop: bool, state: Any, seats: int, seat: Any, combos: Any, combo_tab: Any, full: bool, counting: bool, pk: Any,
               word0: int, word1: int
               ) -> tuple[Any, Any, int, int, int, bool, bool, Any, int, int]:
    # pragma: no cover - compiled
    """A round's deal (§ 633a.7): a first card to each seat, the upcard, a second card to
    each seat, the hole card, each counted if ``counting``; each seat's cards in
    ``seat[s, S_FIRST]`` and (if ``full``: complete rounds) ``seat[s, S_SECOND]``, its
    side combination
    (``combo_tab`` at the :func:`sidebet.core.cards.triple_index` of its cards and the
    upcard) in ``combos``.
    Returns the upcard, the hole card, the shoe's state and the counts."""
    for s in range(seats):
        card, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
            buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
            word1)
        seat[s, S_FIRST] = card
    up, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
        buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
        word1)
    for s in range(seats):
        card, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
            buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
            word1)
        combos[s] = combo_tab[np.uint64(_triple(seat[s, S_FIRST], card, up))]
        if full:
            seat[s, S_SECOND] = card
    hole, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
        buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
        word1)
    return up, hole, pos, lim, shoe, fresh, stop, state, word0, word1


@step
def settle_sides(seats: int, nw: int, combos: Any, combo_pay: Any, round2: Any,
                 full: bool) -> None:  # pragma: no cover - compiled
    """The side wagers' all-seat nets of a round at several seats: each wager's square in
    ``round2[w]`` and, for side-wager-only rounds, their sum's in ``round2[nw + 2]``."""
    whole = 0
    for w in range(nw):
        acc = 0
        for s in range(seats):
            acc += combo_pay[combos[s], w]
        round2[w] += acc * acc
        whole += acc
    if not full:
        round2[nw + 2] += whole * whole


@step
def book_sides_only(seats: int, combos: Any, combo_counts: Any, trace: Any,
                    rounds: int) -> None:  # pragma: no cover - compiled
    """Book a side-wager-only round: each seat's combination counted and, while
    ``trace`` has rows, traced."""
    for s in range(seats):
        add(combo_counts, np.uint64(combos[s]), 1)
        if rounds < trace.shape[0]:
            trace[rounds, s] = combos[s]


# ----- the rest of a complete round: the seats' hands, the dealer, settlement, books ---

# a seat's row of ``seat[s, :]``
S_HANDS = 0  # hands (1 + splits)
S_SPLIT = 1  # the seat has split
S_NATURAL = 2  # its first two cards are a Blackjack
S_PRESS = 3  # the chips pressed, tenths
S_BJ = 4  # its Blackjack net (wager, splits, doubles and press), tenths
S_BASE = 5  # the same without the pressed chips
S_PRESS_KEY = 6  # the net of the pressed chips on the initial hand
S_ACTION = 7  # its Blackjack chips put in action
S_FIRST = 8  # its first card
S_SECOND = 9  # its second card
S_STRAT = 10  # the strategy it plays (a counter's tables, else 0)
NSEAT = 11
"""Fields of a seat's row (``seat[s, :]``, int64)."""

# a hand's row of ``hands[s, i, :]``
H_SUM = 0  # total counting aces 1
H_ACE = 1  # holds an ace
H_N = 2  # cards
H_V0 = 3  # value of the first card
H_V1 = 4  # value of the second card
H_SA = 5  # a split ace
H_TOT = 6  # the final total (an ace 11 where it fits)
H_DBL = 7  # doubled
H_SUR = 8  # surrendered
NHAND = 9
"""Fields of a hand's row (``hands[s, i, :]``, int64)."""
MAX_HANDS = 4
"""Hands a seat can have (split to four)."""

CTX_SPLIT_SEAT = 8
CTX_SPLIT_ACES = 4
CTX_ROOM = 2
CTX_DEALER_KNOWN = 1
NCTX = 16
"""Contexts of a two-card decision (:func:`sidebet.sim.kernels.decision_table`): the seat
has split, the hand is a split ace, the seat may still split (fewer hands than the
limit), the dealer's Blackjack is ruled out."""

_hand_result = inline(settlement.hand_result)
_chip_fates = inline(settlement.chip_fates)
_chip_net = inline(settlement.chip_net)
_dealer_needed = inline(settlement.awaits_dealer)


@inline
def hand_key(natural: bool, surrendered: bool, dealer_bj: bool, shown: int, first: bool,
             doubled: bool) -> int:  # pragma: no cover - compiled
    """What a hand's settlement depends on, but its amounts, as one number below
    :data:`NKEY` (``shown``: the showdown plus one)."""
    return ((((((1 if natural else 0) * 2 + (1 if surrendered else 0)) * 2
               + (1 if dealer_bj else 0)) * 3 + shown) * 2 + (1 if first else 0)) * 2
            + (1 if doubled else 0))


NKEY = 96
"""Keys of a finished hand's settlement (:func:`hand_key`)."""


NHIT = 12 * 64
"""Entries of one strategy's hit-or-stand table of a hand of three or more cards."""

@inline
def hand_rules(rules: Any) -> tuple[bool, int, int, int, bool, bool]:
    # pragma: no cover - compiled
    """The rule ints a round's play and settlement read (:data:`RULE_FIELDS`): the dealer
    hits soft 17, Blackjack pays ``bj_num`` to ``bj_den``, at most ``max_hands`` hands
    from splits, the dealer peeks, a dealer Blackjack takes doubles and splits."""
    return (rules[0] != 0, rules[1], rules[2], rules[5], rules[9] != 0, rules[10] != 0)


NDEALER = 64
"""States of the dealer's hand in the kernel: a total counting aces 1 below 32, and
whether it holds an ace (the dealer draws only below 17, so totals stay below 27)."""


@inline
def dealer_state(hard: int, ace: bool) -> int:  # pragma: no cover - compiled
    """The state of a dealer's hand totalling ``hard`` (aces 1), with an ace or not."""
    return hard * 2 + (1 if ace else 0)


@inline
def dealer_start(upv: int, holev: int) -> int:  # pragma: no cover - compiled
    """The state of the dealer's two cards (values 2..11, an ace 11)."""
    return dealer_state((1 if upv == 11 else upv) + (1 if holev == 11 else holev),
                         (upv == 11) | (holev == 11))



@step
def add(out: Any, i: Any, v: Any) -> None:  # pragma: no cover - compiled
    """``out[i] += v`` on a count that many shoes share: the combinations' and the
    histogram's (on a device: an atomic add, :func:`sidebet.native.jit.twin`; the other
    sums are each thread's own there)."""
    out[i] += v


@step
def take_card(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int,
              fresh: bool, stop: bool, state: Any, counting: bool, pk: Any, word0: int,
              word1: int, vals: Any, hsum: int, ace: bool
              ) -> tuple[int, int, bool, int, int, int, bool, bool, Any, int, int]:
    # pragma: no cover - compiled
    """:func:`deal_card` a card to a hand totalling ``hsum`` (aces 1), ``ace`` whether it
    holds one.  Returns the card's value (an ace 11), the hand's new total and ace, the
    shoe's new ``(pos, lim, shoe, fresh, stop, state)`` and the counts."""
    drawn, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
        buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0, word1)
    v = vals[drawn]
    return (v, hsum + (1 if v == 11 else v), ace | (v == 11), pos, lim, shoe, fresh, stop,
            state, word0, word1)


@step
def open_seats(seats: int, combos: Any, vals: Any,
               combo_offer: Any, press_mode: int, press_tab: Any, upv: int, seat: Any,
               hands: Any) -> None:  # pragma: no cover - compiled
    """Each seat's Press (interpretation 7: all of a winning TriLux Deluxe wager's
    winnings ``combo_offer`` or none, by ``press_mode`` 0 never, 1 always, 2 by
    ``press_tab``) and its first hand, of its two cards."""
    for s in range(seats):
        c = combos[s]
        v0 = vals[seat[s, S_FIRST]]
        v1 = vals[seat[s, S_SECOND]]
        offer = combo_offer[c]
        pressed = press_mode == 1 or (press_mode == 2 and press_tab[v0, v1, upv] != 0)
        seat[s, S_PRESS] = offer if pressed and offer > 0 else 0
        seat[s, S_HANDS] = 1
        seat[s, S_SPLIT] = 0
        seat[s, S_NATURAL] = 1 if v0 + v1 == 21 else 0
        hands[s, 0, H_SUM] = (1 if v0 == 11 else v0) + (1 if v1 == 11 else v1)
        hands[s, 0, H_ACE] = 1 if (v0 == 11) | (v1 == 11) else 0
        hands[s, 0, H_N] = 2
        hands[s, 0, H_V0] = v0
        hands[s, 0, H_V1] = v1
        hands[s, 0, H_SA] = 0


@step
def play_seat(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int,
              fresh: bool, stop: bool, state: Any, counting: bool, pk: Any, word0: int,
              word1: int, s: int, upv: int, hidden: int, known: int, max_hands: int,
              decide2: Any, hit_more: Any, play_at: Any, vals: Any, seat: Any, hands: Any
              ) -> tuple[int, int, int, bool, bool, Any, int, int, bool]:
    # pragma: no cover - compiled
    """Play seat ``s``'s hands in order (§ 633a.8-.10): a two-card hand by ``decide2``
    (context ``known`` plus the seat's), a longer one by ``hit_more``, both of the
    seat's strategy ``seat[s, S_STRAT]`` (a counter's: of its count at each decision,
    :func:`play_strategy`, ``hidden`` the hole card's tags in the first packed word); a
    split hand's second card is dealt when its turn comes.
    Returns the shoe's state, the counts and whether some hand of the seat waits on the
    dealer's total."""
    live = False
    strat = seat[s, S_STRAT]
    n = buf.shape[0]
    i = 0
    while i < seat[s, S_HANDS]:
        hsum = hands[s, i, H_SUM]
        ace = hands[s, i, H_ACE] != 0
        ncards = hands[s, i, H_N]
        v0 = hands[s, i, H_V0]
        v1 = hands[s, i, H_V1]
        sa = hands[s, i, H_SA] != 0
        if ncards == 1:  # a split hand's second card comes on its turn
            v1, hsum, ace, pos, lim, shoe, fresh, stop, state, word0, word1 = take_card(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk,
                word0, word1, vals, hsum, ace)
            ncards = 2
        split_seat = seat[s, S_SPLIT] != 0
        ctx = known + (CTX_ROOM if seat[s, S_HANDS] < max_hands else 0)
        if split_seat:
            ctx += CTX_SPLIT_SEAT + (CTX_SPLIT_ACES if sa else 0)
        t = play_strategy(strat, counting, play_at, word0 - hidden, n - pos + 1)
        act = decide2[t * NCTX + ctx, v0, v1, upv]
        dbl = False
        sur = False
        while act != STAND:
            if act == SPLIT:
                # the second card starts a new hand after this one
                nhs = seat[s, S_HANDS]
                for j in range(nhs, i + 1, -1):
                    for f in range(NHAND):
                        hands[s, j, f] = hands[s, j - 1, f]
                aces = v0 == 11
                low_v = 1 if aces else v0
                hands[s, i + 1, H_SUM] = low_v
                hands[s, i + 1, H_ACE] = 1 if aces else 0
                hands[s, i + 1, H_N] = 1
                hands[s, i + 1, H_V0] = v0
                hands[s, i + 1, H_V1] = 0
                hands[s, i + 1, H_SA] = 1 if aces else 0
                seat[s, S_HANDS] = nhs + 1
                seat[s, S_SPLIT] = 1
                sa = sa or aces
                v1, hsum, ace, pos, lim, shoe, fresh, stop, state, word0, word1 = take_card(
                    buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk,
                    word0, word1, vals, low_v, aces)
                ctx = (known + (CTX_ROOM if nhs + 1 < max_hands else 0)
                       + CTX_SPLIT_SEAT + (CTX_SPLIT_ACES if sa else 0))
                t = play_strategy(strat, counting, play_at, word0 - hidden, n - pos + 1)
                act = decide2[t * NCTX + ctx, v0, v1, upv]
                continue
            if act == SURRENDER:
                sur = True
                break
            _, hsum, ace, pos, lim, shoe, fresh, stop, state, word0, word1 = take_card(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk,
                word0, word1, vals, hsum, ace)
            ncards += 1
            if act == DOUBLE:
                dbl = True
                break
            # three or more cards: hit or stand (one lookup)
            t = play_strategy(strat, counting, play_at, word0 - hidden, n - pos + 1)
            act = hit_more[t * NHIT + upv * 64 + hsum * 2 + (1 if ace else 0)]
        tot = hsum + 10 if ace & (hsum <= 11) else hsum
        hands[s, i, H_TOT] = tot
        hands[s, i, H_DBL] = 1 if dbl else 0
        hands[s, i, H_SUR] = 1 if sur else 0
        # (a natural is never split: ``natural`` is the unsplit seat's)
        live = live or _dealer_needed(tot, sur, seat[s, S_NATURAL] != 0
                                      and seat[s, S_SPLIT] == 0)
        i += 1
    return pos, lim, shoe, fresh, stop, state, word0, word1, live


@step
def play_dealer(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int,
                fresh: bool, stop: bool, state: Any, counting: bool, pk: Any, word0: int,
                word1: int, dst: int, d_go: Any, d_next: Any
                ) -> tuple[int, int, int, int, bool, bool, Any, int, int]:
    # pragma: no cover - compiled
    """The dealer draws from state ``dst`` (its total counting aces 1, twice, plus one
    if it holds an ace) while ``d_go`` says so, ``d_next[state * 64 + card]`` the state
    after a card.  Returns the final state, the shoe's state and the counts."""
    if pos + 3 <= lim:  # three draws without a branch (a final hand stays)
        q1 = np.int64(buf[pos])
        q2 = np.int64(buf[pos + 1])
        q3 = np.int64(buf[pos + 2])
        g1 = d_go[dst]
        dst = int(d_next[dst * 64 + q1])
        g2 = d_go[dst]
        dst = int(d_next[dst * 64 + q2])
        g3 = d_go[dst]
        dst = int(d_next[dst * 64 + q3])
        if counting:  # (a card not drawn counts 0 times)
            word0 += g1 * pk[q1, 0] + g2 * pk[q2, 0] + g3 * pk[q3, 0]
            word1 += g1 * pk[q1, 1] + g2 * pk[q2, 1] + g3 * pk[q3, 1]
        pos += g1 + g2 + g3
    while d_go[dst] != 0:  # (rarely more than three)
        if pos >= lim:
            pos, lim, shoe, fresh, stop, state = refill(
                buf, base, orders, shoe, pos, lim, fresh, state)
        drawn = np.int64(buf[pos])
        dst = int(d_next[dst * 64 + drawn])
        if counting:
            word0 += pk[drawn, 0]
            word1 += pk[drawn, 1]
        pos += 1
    return dst, pos, lim, shoe, fresh, stop, state, word0, word1


@step
def settle_seat(s: int, read_bj: bool, dealer_bj: bool, dealer_total: int, bet: int,
                bj_num: int, bj_den: int, dbj_doubles: bool, seat: Any, hands: Any,
                show_ix: Any, k_net: Any, k_counts: Any, cnt: Any) -> None:
    # pragma: no cover - compiled
    """Settle seat ``s``'s hands by the hand rules' fates of each hand's bet, press and
    double (§ 633a.11, § 633c.11(e)-(g)): its nets in ``seat[s]`` (``S_BJ`` ..
    ``S_ACTION``), its hands counted in ``cnt`` (:data:`sidebet.sim.layout.STAT_NAMES`)."""
    p = seat[s, S_PRESS]
    if read_bj:  # the card reader found the dealer's Blackjack: the first hand only
        res = _hand_result(seat[s, S_NATURAL] != 0, False, True, 0)
        fb, fp, _ = _chip_fates(res, True, True, dbj_doubles)
        net = _chip_net(fb, bet, bj_num, bj_den) + _chip_net(fp, p, bj_num, bj_den)
        seat[s, S_BJ] = net
        seat[s, S_BASE] = net
        seat[s, S_PRESS_KEY] = 0
        seat[s, S_ACTION] = bet
        cnt[ST_HANDS] += 1
        if seat[s, S_NATURAL] != 0:
            cnt[ST_NATURALS] += 1
            cnt[ST_PUSHES] += 1
        else:
            cnt[ST_LOSSES] += 1
        return
    nat = seat[s, S_NATURAL] != 0 and seat[s, S_SPLIT] == 0
    net = 0
    base_net = 0
    action = 0
    press_key = 0
    nh = seat[s, S_HANDS]
    for i in range(nh):
        tot = hands[s, i, H_TOT]
        first = i == 0
        dbl = hands[s, i, H_DBL] != 0
        sur = hands[s, i, H_SUR] != 0
        shown = show_ix[tot, dealer_total]
        key = hand_key(nat, sur, dealer_bj, shown, first, dbl)
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
        # (counted without branches: the outcomes are unpredictable; a press does not
        # change whether a hand is won, pushed or lost)
        cnt[ST_HANDS] += 1
        cnt[ST_DOUBLES] += 1 if dbl else 0
        cnt[ST_SURRENDERS] += 1 if sur else 0
        cnt[ST_NATURALS] += k_counts[key, 0]
        cnt[ST_WINS] += k_counts[key, 1]
        cnt[ST_PUSHES] += k_counts[key, 2]
        cnt[ST_LOSSES] += k_counts[key, 3]
        cnt[ST_BUSTS] += 1 if tot > 21 else 0
    if p == 0:
        base_net = net
    cnt[ST_SPLITS] += nh - 1
    seat[s, S_BJ] = net
    seat[s, S_BASE] = base_net
    seat[s, S_PRESS_KEY] = press_key
    seat[s, S_ACTION] = action


@step
def play_hands(buf: Any, base: Any, orders: Any, shoe: int, pos: int, lim: int,
               fresh: bool, stop: bool, state: Any, counting: bool, pk: Any, word0: int,
               word1: int, seats: int, up: int, hole: int, seat: Any, hands: Any,
               combos: Any, vals: Any, combo_offer: Any, press_mode: int, press_tab: Any,
               rules: Any, decide2: Any, hit_more: Any, play_at: Any, d_go: Any, d_next: Any,
               d_fin: Any
               ) -> tuple[bool, bool, bool, int, int, int, int, bool, bool, Any, int, int]:
    # pragma: no cover - compiled
    """A complete round after the deal, up to settlement: the Press
    (:func:`open_seats`), the card reader (§ 633a.11: a dealer Blackjack under an ace or
    ten ends the round when the dealer peeks), each seat's hands (:func:`play_seat`) and
    the dealer's (:func:`play_dealer`, only when some hand waits on it).  Returns
    whether the reader found the dealer's Blackjack, whether the dealer has one, whether
    the dealer drew, the dealer's total, the shoe's state and the counts."""
    _, _, _, max_hands, peek, _ = hand_rules(rules)
    upv = vals[up]
    holev = vals[hole]
    dealer_bj = upv + holev == 21  # (two cards make 21 only as an ace and a ten)
    open_seats(seats, combos, vals, combo_offer, press_mode, press_tab, upv, seat, hands)
    read_bj = peek and dealer_bj  # (a dealer Blackjack shows an ace or a ten)
    dealer_total = 0
    dealer_drew = False
    if not read_bj:  # (the card reader finds the dealer's Blackjack: no one plays)
        known = CTX_DEALER_KNOWN if peek or upv < 10 else 0
        hidden = pk[hole, 0] if counting else 0  # (the counter does not see the hole card)
        live = False  # whether some hand waits on the dealer's total
        for s in range(seats):
            pos, lim, shoe, fresh, stop, state, word0, word1, waits = play_seat(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
                word1, s, upv, hidden, known, max_hands, decide2, hit_more, play_at, vals,
                seat, hands)
            live = live or waits
        dst = dealer_start(upv, holev)
        if live and not dealer_bj:
            dealer_drew = True
            dst, pos, lim, shoe, fresh, stop, state, word0, word1 = play_dealer(
                buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
                word1, dst, d_go, d_next)
        dealer_total = d_fin[dst]
    return (read_bj, dealer_bj, dealer_drew, dealer_total, pos, lim, shoe, fresh, stop,
            state, word0, word1)


@step
def settle_round(seats: int, read_bj: bool, dealer_bj: bool, dealer_drew: bool,
                 dealer_total: int, bet: int, rules: Any, seat: Any, hands: Any,
                 show_ix: Any, k_net: Any, k_counts: Any, cnt: Any) -> None:
    # pragma: no cover - compiled
    """Settle every seat (:func:`settle_seat`, at a bet of ``bet`` tenths) and count the
    dealer's hand (:func:`book_dealer`)."""
    _, bj_num, bj_den, _, _, dbj_doubles = hand_rules(rules)
    for s in range(seats):
        settle_seat(s, read_bj, dealer_bj, dealer_total, bet, bj_num, bj_den, dbj_doubles,
                    seat, hands, show_ix, k_net, k_counts, cnt)
    book_dealer(cnt, dealer_bj, dealer_drew, dealer_total)


@step
def book_dealer(cnt: Any, dealer_bj: bool, dealer_drew: bool, dealer_total: int) -> None:
    # pragma: no cover - compiled
    """Count the dealer's Blackjack and bust."""
    if dealer_bj:
        cnt[ST_DEALER_BJ] += 1
    if dealer_drew and dealer_total > 21:
        cnt[ST_DEALER_BUSTS] += 1


@step
def book_table(seats: int, rounds: int, combos: Any, combo_net: Any, combo_counts: Any,
               seat: Any, cnt: Any, seat_stats: Any, hist: Any, hist_off: int, near: Any,
               near_lo: int, trace: Any, round2: Any, nw: int) -> None:
    # pragma: no cover - compiled
    """The table's books of a complete round: each seat's combination, nets and their
    squares (``cnt``), its whole net's histogram slot (``hist``, offset ``hist_off``),
    per seat (``seat_stats``, several seats) and traced while ``trace`` has rows; with
    several seats the squares of the all-seat nets (``round2[nw ..]``).  A slot from
    ``near_lo`` within ``near``'s size is counted in ``near`` (a device's block counts its
    common slots in shared memory first; the CPU passes none)."""
    nhist = hist.shape[0]
    for s in range(seats):
        c = combos[s]
        add(combo_counts, np.uint64(c), 1)
        bj = seat[s, S_BJ]
        total = bj + combo_net[c]
        cnt[ST_BJ_NET] += bj
        cnt[ST_BJ_NET2] += bj * bj
        b = seat[s, S_BASE]
        cnt[ST_BASE_NET] += b
        cnt[ST_BASE_NET2] += b * b
        cnt[ST_ACTION] += seat[s, S_ACTION]
        p = seat[s, S_PRESS]
        if p > 0:
            pn = bj - b
            cnt[ST_PRESS_ROUNDS] += 1
            cnt[ST_PRESS_AMOUNT] += p
            cnt[ST_PRESS_NET] += pn
            cnt[ST_PRESS_NET2] += pn * pn
        cnt[ST_TOTAL_NET] += total
        cnt[ST_TOTAL_NET2] += total * total
        if seats > 1:
            seat_stats[s, 0] += bj
            seat_stats[s, 1] += bj * bj
            seat_stats[s, 2] += total
            seat_stats[s, 3] += total * total
        cnt[ST_ROUND_WINS] += 1 if bj > 0 else 0
        cnt[ST_ROUND_PUSHES] += 1 if bj == 0 else 0
        cnt[ST_ROUND_LOSSES] += 1 if bj < 0 else 0
        slot = total + hist_off
        slot = 0 if slot < 0 else (nhist - 1 if slot > nhist - 1 else slot)
        if near_lo <= slot < near_lo + near.shape[0]:
            add(near, slot - near_lo, 1)
        else:
            add(hist, slot, 1)
        if rounds < trace.shape[0]:
            trace[rounds, s, 0] = c
            trace[rounds, s, 1] = bj
            trace[rounds, s, 2] = seat[s, S_PRESS_KEY]
    if seats > 1:
        sum_bj = 0
        sum_base = 0
        sum_total = 0
        for s in range(seats):
            sum_bj += seat[s, S_BJ]
            sum_base += seat[s, S_BASE]
            sum_total += seat[s, S_BJ] + combo_net[combos[s]]
        round2[nw] += sum_bj * sum_bj
        round2[nw + 1] += sum_base * sum_base
        round2[nw + 2] += sum_total * sum_total


@step
def close_chunk(seats: int, cnt: Any, seat_stats: Any) -> None:
    # pragma: no cover - compiled
    """At a chunk's end: one seat's sums are its seat's (``seat_stats[0]``)."""
    if seats == 1:
        seat_stats[0, 0] += cnt[ST_BJ_NET]
        seat_stats[0, 1] += cnt[ST_BJ_NET2]
        seat_stats[0, 2] += cnt[ST_TOTAL_NET]
        seat_stats[0, 3] += cnt[ST_TOTAL_NET2]


@step
def book_counter(spots: int, upv: int, dealer_bj: bool, bucket: int, ibucket: int,
                 ins_from: int, units: int, seat: Any, comp: Any, acc: Any, combo_pay: Any,
                 combos: Any, side_mode: Any, sideb: Any, stc: Any, sideu: Any,
                 side_acc: Any, tcs: Any, tc_stats: Any, rounds: int, trace: Any) -> None:
    # pragma: no cover - compiled
    """The counter's books of a complete round (:class:`sidebet.sim.layout.CounterOutputs`):
    its ``spots``' Blackjack nets at one unit, insurance from ``ins_from`` (of the insurance
    index's bucket ``ibucket``), its bets (``units`` a spot, ``sideu`` per side wager), by
    bucket and by side count (those by :func:`add`: on a device, a block's sums)."""
    x_bj = 0
    for s in range(spots):
        x_bj += seat[s, S_BJ]
    x_ins = 0
    if upv == 11 and ibucket >= ins_from:
        x_ins = spots * (UNIT if dealer_bj else -(UNIT // 2))
        if units > 0:
            acc[7] += spots
            m = units * x_ins
            comp[2, 0] += m
            comp[2, 1] += m * m
    money = units * (x_bj + x_ins)
    comp[1, 0] += money
    comp[1, 1] += money * money
    for w in range(combo_pay.shape[1]):
        y = 0
        for s in range(spots):
            y += combo_pay[combos[s], w]
        if side_mode[w] == 3:  # by its own count: the wager's EV by its index
            sb = sideb[w]
            add(stc, (w, sb, 0), 1)
            add(stc, (w, sb, 1), y)
            add(stc, (w, sb, 2), y * y)
        u = sideu[w]
        if u > 0:
            ym = y * u
            money += ym
            comp[3 + w, 0] += ym
            comp[3 + w, 1] += ym * ym
            side_acc[w, 0] += 1.0
            side_acc[w, 1] += u
    comp[0, 0] += money
    comp[0, 1] += money * money
    x = x_bj + x_ins
    add(tcs, (bucket, 0), 1)
    add(tcs, (bucket, 1), x)
    add(tcs, (bucket, 2), x * x)
    if units > 0:
        add(tcs, (bucket, 3), 1)
        a = units * spots
        add(tcs, (bucket, 4), a)
        add(tcs, (bucket, 5), a * a)
    add(tc_stats, (bucket, 5), money)
    if rounds < trace.shape[0]:
        trace[rounds] = money
