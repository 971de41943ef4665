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
from sidebet.sim.shuffle import AHEAD, shuffle_from

__all__ = [
    "book_sides_only",
    "count",
    "deal_card",
    "deal_round",
    "draw",
    "refill",
    "settle_sides",
]

_triple = inline(triple_index)

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
    hi = min(n, lim + AHEAD)
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
    (:func:`sidebet.sim.counting.field`)."""
    return word0 + pk[card, 0], word1 + pk[card, 1]



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
               fresh: bool, stop: bool, state: Any, seats: int, firsts: Any, seconds: Any,
               combos: Any, combo_tab: Any, full: bool, counting: bool, pk: Any,
               word0: int, word1: int
               ) -> tuple[Any, Any, int, int, int, bool, bool, Any, int, int]:
    # pragma: no cover - compiled
    """A round's deal (§ 633a.7): a first card to each seat, the upcard, a second card to
    each seat, the hole card, each counted if ``counting``; each seat's cards in
    ``firsts`` and (if ``full``: complete rounds) ``seconds``, its side combination
    (``combo_tab`` at the :func:`sidebet.core.cards.triple_index` of its cards and the
    upcard) in ``combos``.
    Returns the upcard, the hole card, the shoe's state and the counts."""
    for s in range(seats):
        card, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
            buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
            word1)
        firsts[s] = card
    up, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
        buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
        word1)
    for s in range(seats):
        card, pos, lim, shoe, fresh, stop, state, word0, word1 = deal_card(
            buf, base, orders, shoe, pos, lim, fresh, stop, state, counting, pk, word0,
            word1)
        combos[s] = combo_tab[np.uint64(_triple(firsts[s], card, up))]
        if full:
            seconds[s] = card
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
        combo_counts[np.uint64(combos[s])] += 1
        if rounds < trace.shape[0]:
            trace[rounds, s] = combos[s]
