"""Compiled walks of the side wagers' exact EV: along a shoe, and at a fixed depth; and the
perfect player's return on sampled shoes for many paytables at once (:func:`screen`).

The EV state and its card-by-card update are :mod:`sidebet.sim.exact_ev` (the simulator's
round kernel keeps the same state for a counter betting by EV); :mod:`sidebet.vuln.side_ev`
builds the constant arrays from the wagers' outcome tables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sidebet.native.jit import kernel, step
from sidebet.sim.exact_ev import (
    NCAT,
    NCLS,
    NSTATE,
    ev_remove,
    ev_reset,
    evaluate,
    straight_neighbours,
)
from sidebet.sim.shuffle import shoe_state, shuffle

__all__ = ["NCAT", "NCLS", "evs_along", "fixed_depth", "screen", "screen_row",
           "straight_neighbours", "walk"]


@kernel
def walk(st: Any, cats: Any, counts: Any, cards: Any, points: Any, weights: Any, cls: Any,
         ma: Any, mb: Any, lucky: Any, nb: Any, out: Any) -> None:  # pragma: no cover
    """Remove ``cards`` one by one from ``counts`` (incrementally, in the EV state ``st``,
    ``cats`` its category buffer); after the first ``points[p]`` cards write every
    wager's expected return into ``out[p]``.  Makes no array: it is also a CUDA device
    function (:mod:`sidebet.vuln.side_ev_device`)."""
    ev_reset(st, counts, cls, ma, mb, lucky, nb)
    done = 0
    for p in range(points.shape[0]):
        while done < points[p]:
            ev_remove(st, np.int64(cards[done]), cls, ma, mb, lucky, nb)
            done += 1
        evaluate(st, weights, cats, out[p])


@kernel
def evs_along(counts: Any, cards: Any, points: Any, weights: Any, cls: Any, ma: Any,
              mb: Any, lucky: Any, nb: Any, out: Any) -> None:  # pragma: no cover
    """:func:`walk` with its own state."""
    walk(np.zeros(NSTATE, np.int64), np.zeros(NCAT, np.int64), counts, cards, points,
         weights, cls, ma, mb, lucky, nb, out)


@kernel
def fixed_depth(key0: Any, key1: Any, base: Any, cards_left: int, sample0: int,
                samples: int, weights: Any, target: int, cls: Any, ma: Any, mb: Any,
                lucky: Any, nb: Any, out: Any) -> None:  # pragma: no cover - compiled
    """Samples ``sample0 ..``: shoe ``i`` shuffled by its own stream (as the simulator's
    shoes), its first ``n − cards_left`` cards removed; accumulates into ``out`` the
    number of samples with a positive edge, the sum and sum of squares of the positive
    edges, and the sum and sum of squares of every edge (wager ``target``)."""
    n = base.shape[0]
    buf = base.copy()
    counts = np.zeros(52, np.int64)
    st = np.zeros(NSTATE, np.int64)
    cats = np.zeros(NCAT, np.int64)
    evs = np.zeros(weights.shape[0], np.float64)
    gone = n - cards_left
    for i in range(sample0, sample0 + samples):
        shuffle(buf, base, gone, shoe_state(i, key0, key1))
        for k in range(52):
            counts[k] = 0
        for p in range(gone, n):
            counts[np.int64(buf[p])] += 1
        ev_reset(st, counts, cls, ma, mb, lucky, nb)
        evaluate(st, weights, cats, evs)
        e = evs[target]
        if e > 0:
            out[0] += 1
            out[1] += e
            out[2] += e * e
        out[3] += e
        out[4] += e * e


@step
def screen_row(c: int, pays: Any, counts: Any, totals: Any, out: Any) -> None:
    # pragma: no cover - compiled
    """Paytable ``c`` (``pays[c]``: each winning outcome's odds to 1) on every sampled
    shoe ``s`` (``counts[s]``: each winning outcome's combinations, ``totals[s]`` all
    of them): its exact return there is ``num / totals[s]`` with the integer ``num =
    Σ (pays + 1) · counts − totals`` (exact); the perfect player bets when it is
    positive.  ``out[c]``: the sum of the positive returns and of their squares, added
    in sample order.  Makes no array: it is also a CUDA device function
    (:func:`sidebet.vuln.side_ev_device.screen_many`, one paytable a thread)."""
    s1 = 0.0
    s2 = 0.0
    for s in range(counts.shape[0]):
        num = -totals[s]
        for o in range(pays.shape[1]):
            num += (pays[c, o] + 1) * counts[s, o]
        if num > 0:
            x = num / totals[s]
            s1 += x
            s2 += x * x
    out[c, 0] = s1
    out[c, 1] = s2


@kernel
def screen(pays: Any, counts: Any, totals: Any, out: Any) -> None:  # pragma: no cover
    """:func:`screen_row` for every paytable (row of ``pays``)."""
    for c in range(pays.shape[0]):
        screen_row(c, pays, counts, totals, out)
