"""The counter's walk through the simulator's real rounds (compiled).

The simulator's kernel (:func:`sidebet.sim.kernels.play_chunk`, complete rounds) plays
the rounds and marks where each starts (``Outputs.marks``: shoe number, cards dealt);
this kernel rebuilds each shoe from
its seed exactly as the simulator shuffled it, deals the marked cards into the exact-EV
state (:mod:`sidebet.sim.exact_ev`) and the counts, and before every round records
the wager's exact EV, every count's index and the counter's paid result.

Index kinds (:class:`sidebet.vuln.tags.IndexKind`): 0 true count (running count of the
centred tags per deck left), 2 most-minus-least suit seen per deck left, 3 chi-square of
the 13 ranks left, 4 sevens per deck left.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sidebet.native.jit import kernel
from sidebet.sim.exact_ev import A_N, MS, NCAT, NR, NSTATE, ev_remove, ev_reset, evaluate
from sidebet.sim.shuffle import shoe_state, shuffle

__all__ = ["ACC_FIELDS", "NACC", "left_before", "walk"]

ACC_FIELDS = (
    "shoes", "sr", "srr",
    "all_ev_x", "all_ev_xx", "all_ev_xr",
    "all_pay_x", "all_pay_xx", "all_pay_xr",
    "pp_ev_x", "pp_ev_xx", "pp_ev_xr",
    "pp_pay_x", "pp_pay_xx", "pp_pay_xr",
    "pp_bets",
)
"""Per-run sums: shoes; Σ rounds per shoe R and R²; then for every round / perfect play
(bet when the EV is positive), the EV and the paid result: per shoe sum X, Σ X, Σ X²,
Σ X·R (ratio estimators over independent shoes); the perfect-play bets."""
NACC = len(ACC_FIELDS)


@kernel
def _close_shoe(acc: Any, shoe_x: Any, r: float, shoe_ev: Any, sx: Any, sxx: Any,
                sxr: Any) -> None:  # pragma: no cover - compiled
    acc[0] += 1.0
    acc[1] += r
    acc[2] += r * r
    for j in range(4):
        x = shoe_x[j]
        acc[3 + 3 * j] += x
        acc[4 + 3 * j] += x * x
        acc[5 + 3 * j] += x * r
        shoe_x[j] = 0.0
    for c in range(shoe_ev.shape[0]):
        run = 0.0
        for b in range(shoe_ev.shape[1] - 1, -1, -1):
            run += shoe_ev[c, b]
            shoe_ev[c, b] = 0.0
            sx[c, b] += run
            sxx[c, b] += run * run
            sxr[c, b] += run * r


@kernel
def walk(marks: Any, pays: Any, key0: Any, key1: Any, base: Any, weights: Any,
         target: int, cls: Any, ma: Any, mb: Any, lucky: Any, nb: Any, kinds: Any,
         tags: Any, lo: Any, width: Any, bin_n: Any, bin_ev: Any, bin_pay: Any, sx: Any,
         sxx: Any, sxr: Any, acc: Any, depth: Any, orders: Any, evtrace: Any,
         xtrace: Any, given: Any) -> None:  # pragma: no cover - compiled
    """Walk the marked rounds.  ``pays[r]``: the counter's paid net of round ``r`` per
    unit.  Per count ``c`` and index bin ``b`` (``lo[c] + b·width[c]`` up): rounds,
    Σ EV and Σ paid; ``sx``/``sxx``/``sxr[c, t]`` the per-shoe sums of the EV of the
    rounds with bin ≥ ``t`` (bet at trigger ``t``): Σ X, Σ X², Σ X·R.  ``depth[d]`` by
    tenth of the shoe dealt: rounds, rounds with a positive EV, Σ and Σ² of the positive
    EVs, Σ EV.  ``orders`` (may have no rows): shoes given as card rows instead of the
    seeded shuffles (hand-made shoes for tests); ``evtrace[r]`` / ``xtrace[r, c]`` (may
    have no rows) receive round ``r``'s EV and indexes; ``given[r]`` (may have no rows):
    round ``r``'s EV, computed elsewhere (on a device), used instead of evaluating it."""
    n = base.shape[0]
    decks = n // 52
    buf = base.copy()
    full = np.full(52, decks, np.int64)
    st = np.zeros(NSTATE, np.int64)
    cats = np.zeros(NCAT, np.int64)
    evs = np.zeros(weights.shape[0], np.float64)
    ncount = kinds.shape[0]
    nbins = bin_n.shape[1]
    ndepth = depth.shape[0]
    rc = np.zeros(ncount, np.float64)
    shoe_ev = np.zeros((ncount, nbins), np.float64)
    shoe_x = np.zeros(4, np.float64)
    cur = -1
    dealt = 0
    rounds_in_shoe = 0.0
    for r in range(marks.shape[0]):
        shoe = marks[r, 0]
        pos = marks[r, 1]
        if shoe != cur:
            if cur >= 0:
                _close_shoe(acc, shoe_x, rounds_in_shoe, shoe_ev, sx, sxx, sxr)
            cur = shoe
            if orders.shape[0] > 0:
                for i in range(n):
                    buf[i] = orders[shoe, i]
            else:
                shuffle(buf, base, n, shoe_state(shoe, key0, key1))
            ev_reset(st, full, cls, ma, mb, lucky, nb)
            for c in range(ncount):
                rc[c] = 0.0
            dealt = 0
            rounds_in_shoe = 0.0
        while dealt < pos:
            k = np.int64(buf[dealt])
            ev_remove(st, k, cls, ma, mb, lucky, nb)
            for c in range(ncount):
                rc[c] += tags[c, k]
            dealt += 1
        if given.shape[0] > 0:
            e = given[r]
        else:
            evaluate(st, weights, cats, evs)
            e = evs[target]
        p = pays[r]
        if r < evtrace.shape[0]:
            evtrace[r] = e
        left = st[A_N]
        decks_left = left / 52.0
        for c in range(ncount):
            kind = kinds[c]
            if kind == 0:
                x = rc[c] / decks_left
            elif kind == 2:
                most = -1
                least = n
                for s in range(4):
                    seen = n // 4 - st[MS + s]
                    most = max(most, seen)
                    least = min(least, seen)
                x = (most - least) / decks_left
            elif kind == 3:
                mean = left / 13.0
                x = 0.0
                for q in range(13):
                    d = st[NR + q] - mean
                    x += d * d
                x /= mean
            else:
                x = st[NR + 5] / decks_left
            if r < xtrace.shape[0]:
                xtrace[r, c] = x
            b = math.floor((x - lo[c]) / width[c])
            if b < 0:
                b = 0
            elif b >= nbins:
                b = nbins - 1
            bin_n[c, b] += 1
            bin_ev[c, b] += e
            bin_pay[c, b] += p
            shoe_ev[c, b] += e
        rounds_in_shoe += 1.0
        shoe_x[0] += e
        shoe_x[1] += p
        if e > 0:
            shoe_x[2] += e
            shoe_x[3] += p
            acc[15] += 1.0
        d = pos * ndepth // n
        depth[d, 0] += 1.0
        depth[d, 4] += e
        if e > 0:
            depth[d, 1] += 1.0
            depth[d, 2] += e
            depth[d, 3] += e * e
    if cur >= 0:
        _close_shoe(acc, shoe_x, rounds_in_shoe, shoe_ev, sx, sxx, sxr)


@kernel
def left_before(marks: Any, key0: Any, key1: Any, base: Any, out: Any
                ) -> None:  # pragma: no cover - compiled
    """``out[r]``: the 52 cards' counts left in round ``r``'s shoe before it is dealt (the
    seeded shoe less its first ``marks[r, 1]`` cards), as :func:`walk` deals them."""
    n = base.shape[0]
    buf = base.copy()
    left = np.zeros(52, np.int64)
    cur = -1
    dealt = 0
    for r in range(marks.shape[0]):
        if marks[r, 0] != cur:
            cur = marks[r, 0]
            shuffle(buf, base, n, shoe_state(cur, key0, key1))
            for k in range(52):
                left[k] = n // 52
            dealt = 0
        while dealt < marks[r, 1]:
            left[buf[dealt]] -= 1
            dealt += 1
        for k in range(52):
            out[r, k] = left[k]
