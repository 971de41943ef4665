"""numba kernels of the exact analyser (see :mod:`sidebet.exact.blackjack.engine`).

All probabilities are *unnormalised* by the dealer's Blackjack: a value is
``E[outcome · 1{no dealer Blackjack}]`` with the hole card drawn after the player's cards
(exchangeability), so the dealer tables hold only non-Blackjack dealer hands.
:func:`dealer_probs` and :func:`play_values` take the shoe's rank-class counts as reals:
whole cards, or a shoe tilted to a count (:mod:`sidebet.advantage.generate`), every draw's
probability the same ratio ``n_r / N`` of the cards left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

from sidebet.native.jit import inline
from sidebet.regulation.base_game.payout import showdown

__all__ = ["dealer_probs", "no_bj", "play_values"]

F = TypeVar("F", bound=Callable[..., Any])

FArr = npt.NDArray[np.float64]
IArr = npt.NDArray[np.int64]
I8Arr = npt.NDArray[np.int8]


def _kernel(func: F) -> F:
    return cast(F, njit(cache=True, nogil=True)(func))


_showdown = inline(showdown)
"""The hand rules' showdown (:func:`sidebet.regulation.base_game.payout.showdown`), compiled."""
DEALER_BUST = 22
"""A dealer total over 21 (for :func:`showdown`)."""


@_kernel
def no_bj(r: IArr | FArr, total: float, up: int) -> float:
    """P(the hole card does not make a dealer Blackjack) for unseen counts ``r`` (whole
    or real: a class short of one card counts none)."""
    if total <= 0:
        return 1.0
    if up == 0:
        return float(1.0 - max(r[9], 0) / total)
    if up == 9:
        return float(1.0 - max(r[0], 0) / total)
    return 1.0


@_kernel
def _falling(m: IArr, f: FArr) -> None:
    """``f[c, k] = ff(m[c], k)``, the falling factorial, for ``k`` below 16."""
    for c in range(10):
        f[c, 0] = 1.0
        for k in range(1, 16):
            f[c, k] = f[c, k - 1] * max(m[c] - k + 1, 0)


@_kernel
def _size_weights(big_m: int, scale: float, w: FArr) -> None:
    """``w[k] = scale / ff(big_m, k)`` for ``k`` from 2 (0 where no ``k`` cards are left):
    a dealer hand of ``k`` cards, one order, given the upcard."""
    for k in range(16):
        w[k] = 0.0
    for k in range(2, 16):
        ff = 1.0
        for q in range(k):
            ff *= big_m - q
        if ff <= 0.0:
            break
        w[k] = scale / ff


LANES = 8
"""Rows of :func:`dealer_probs` walked together: one pass over the dealer's tree serves
``LANES`` rows, each node's product done for all of them at once (the processor's vector
instructions), each row's arithmetic unchanged."""


@_kernel
def dealer_probs(
    rows: IArr,
    comps: IArr,
    shoe: FArr,
    parent: IArr,
    factor: IArr,
    r_card: IArr,
    r_j: IArr,
    r_n: IArr,
    term_start: IArr,
    term_node: IArr,
    term_mult: FArr,
    skip: IArr,
    node_start: IArr,
    node_slot: IArr,
    node_mult: FArr,
    prune: int,
    out: FArr,
) -> None:
    """``out[i, u, t]``: P(dealer ends on 17+t without Blackjack | upcard u, shoe less row i).

    The dealer's final hands are a tree (:class:`sidebet.exact.blackjack._tables.DealerTrie`):
    each node's probability, drawn in one order, is its parent's times one ratio of counts,
    so a row costs one product per node and one product-sum per (final hand, upcard).  The
    rows a shoe can hold are walked :data:`LANES` at a time; every row's products and sums
    are the same, in the same order, as walked alone.

    With ``prune`` non-zero (a small shoe, where many hands cannot be dealt) the terms are added
    node by node (``node_start``, ``node_slot``, ``node_mult``: each slot's terms still in
    the order of their nodes, so the same sums), and a node that no lane can reach is
    skipped with its subtree (``skip[q]``: the node after it, the nodes being in
    depth-first order), whose terms would add zero.  Without pruning the terms are added
    slot by slot, each slot's sum in a register: faster when few nodes are dead.
    """
    n_nodes = parent.shape[0]
    n_f = r_card.shape[0]
    valid = np.empty(rows.shape[0], dtype=np.int64)
    n_valid = 0
    for idx in range(rows.shape[0]):
        i = rows[idx]
        ok = True
        big_m = 0.0
        for c in range(10):
            left = shoe[c] - comps[i, c]
            if left < 0:
                ok = False
            big_m += left
        if ok and big_m >= 2:
            valid[n_valid] = i
            n_valid += 1
    ratio = np.empty((n_f, LANES))
    inv = np.empty(16)
    prob = np.empty((n_nodes, LANES))
    m = np.empty((LANES, 10))
    total = np.empty(LANES)
    acc = np.empty(LANES)
    slot_acc = np.empty((50, LANES))  # slot 5 u + t: upcard u, total 17 + t
    for first in range(0, n_valid, LANES):
        used = min(LANES, n_valid - first)
        for k in range(LANES):
            i = valid[first + min(k, used - 1)]  # a spare lane repeats the last row
            big_m = 0.0
            for c in range(10):
                m[k, c] = shoe[c] - comps[i, c]
                big_m += m[k, c]
            total[k] = big_m
            for n in range(16):
                inv[n] = 1.0 / (big_m - n) if big_m - n > 0 else 0.0
            for f in range(n_f):
                left = m[k, r_card[f]] - r_j[f]
                ratio[f, k] = left * inv[r_n[f]] if left > 0 else 0.0
        for k in range(LANES):
            prob[0, k] = 1.0
        if prune != 0:
            for s in range(50):
                for k in range(LANES):
                    slot_acc[s, k] = 0.0
            q = 1
            while q < n_nodes:
                up = parent[q]
                f = factor[q]
                reach = 0.0
                for k in range(LANES):
                    pq = prob[up, k] * ratio[f, k]
                    prob[q, k] = pq
                    reach += pq
                if reach == 0.0:  # so is every node below it
                    q = skip[q]
                    continue
                for e in range(node_start[q], node_start[q + 1]):
                    s = node_slot[e]
                    w = node_mult[e]
                    for k in range(LANES):
                        slot_acc[s, k] += w * prob[q, k]
                q += 1
        else:
            for q in range(1, n_nodes):
                up = parent[q]
                f = factor[q]
                for k in range(LANES):
                    prob[q, k] = prob[up, k] * ratio[f, k]
            for slot in range(50):
                for k in range(LANES):
                    acc[k] = 0.0
                for e in range(term_start[slot], term_start[slot + 1]):
                    w = term_mult[e]
                    node = term_node[e]
                    for k in range(LANES):
                        acc[k] += w * prob[node, k]
                for k in range(LANES):
                    slot_acc[slot, k] = acc[k]
        for u in range(10):
            for t in range(5):
                for k in range(used):
                    if m[k, u] <= 0:
                        continue
                    out[valid[first + k], u, t] += slot_acc[5 * u + t, k] * (total[k] / m[k, u])


@_kernel
def play_values(
    hrows: IArr,
    crows: IArr,
    hard: IArr,
    comps: IArr,
    child: IArr,
    dealer: FArr,
    shoe: FArr,
    ups: IArr,
    dec: I8Arr,
    stand: FArr,
    stand2: FArr,
    hit: FArr,
    hit2: FArr,
    dbl: FArr,
    dbl2: FArr,
) -> None:
    """Stand, hit and double values (and second moments) of hand rows ``hrows``.

    ``crows[i]`` is the composition removed from ``shoe`` when holding hand ``hrows[i]``
    (the hand itself, or the hand plus removed pair cards).  ``hrows`` must be ordered by
    decreasing hard sum.  A hit card leads to a hand played by ``dec``: -1 the better of
    stand and hit, 0 stand, 1 hit.
    """
    r = np.empty(10)
    for ui in range(ups.shape[0]):
        u = ups[ui]
        for idx in range(hrows.shape[0]):
            h = hrows[idx]
            ci = crows[idx]
            ok = True
            big_r = 0.0
            for c in range(10):
                r[c] = shoe[c] - comps[ci, c]
                if c == u:
                    r[c] -= 1
                if r[c] < 0:
                    ok = False
                big_r += r[c]
            if not ok or big_r <= 0:
                stand[h, u] = 0.0
                stand2[h, u] = 0.0
                hit[h, u] = 0.0
                hit2[h, u] = 0.0
                dbl[h, u] = 0.0
                dbl2[h, u] = 0.0
                continue
            nb = no_bj(r, big_r, u)
            tot = hard[h]
            if comps[h, 0] > 0 and tot + 10 <= 21:
                tot += 10
            dsum = 0.0
            v = 0.0
            v2 = 0.0
            for t in range(5):  # a finished hand against the dealer's 17 + t
                d = dealer[ci, u, t]
                dsum += d
                w = _showdown(tot, 17 + t)
                if w != 0:
                    v += w * d
                    v2 += d
            bust = nb - dsum
            w = _showdown(tot, DEALER_BUST)
            stand[h, u] = v + w * bust
            stand2[h, u] = v2 + w * w * bust
            hv = 0.0
            hv2 = 0.0
            dv = 0.0
            dv2 = 0.0
            for c in range(10):
                if r[c] <= 0:
                    continue
                pc = r[c] / big_r
                h2 = child[h, c]
                if h2 < 0:
                    r[c] -= 1
                    nb2 = no_bj(r, big_r - 1, u)
                    r[c] += 1
                    hv -= pc * nb2
                    hv2 += pc * nb2
                    dv -= 2.0 * pc * nb2
                    dv2 += 4.0 * pc * nb2
                    continue
                s = stand[h2, u]
                s2 = stand2[h2, u]
                dv += 2.0 * pc * s
                dv2 += 4.0 * pc * s2
                dd = dec[h2, u]
                if dd == 0 or (dd < 0 and s >= hit[h2, u]):
                    hv += pc * s
                    hv2 += pc * s2
                else:
                    hv += pc * hit[h2, u]
                    hv2 += pc * hit2[h2, u]
            hit[h, u] = hv
            hit2[h, u] = hv2
            dbl[h, u] = dv
            dbl2[h, u] = dv2


@_kernel
def final_dist(
    hrows: IArr,
    crows: IArr,
    hard: IArr,
    comps: IArr,
    child: IArr,
    shoe: IArr,
    up: int,
    dec: I8Arr,
    out: FArr,
) -> None:
    """Distribution of a hand's end: ``out[h, 7 m + s]`` with ``m`` 0 (single) or 1
    (doubled) and ``s`` 0 for 16 or less, 1..5 for 17..21, 6 for bust.

    ``dec[h]``: 0 stand, 1 hit, 2 double, 3 draw a second card to a split hand.
    """
    r = np.empty(10, dtype=np.int64)
    for idx in range(hrows.shape[0]):
        h = hrows[idx]
        ci = crows[idx]
        out[h, :] = 0.0
        big_r = 0
        ok = True
        for c in range(10):
            r[c] = shoe[c] - comps[ci, c]
            if c == up:
                r[c] -= 1
            if r[c] < 0:
                ok = False
            big_r += r[c]
        if not ok or big_r <= 0:
            continue
        d = dec[h]
        if d == 0:
            tot = hard[h]
            if comps[h, 0] > 0 and tot + 10 <= 21:
                tot += 10
            out[h, 0 if tot < 17 else tot - 16] = 1.0
            continue
        for c in range(10):
            if r[c] == 0:
                continue
            pc = r[c] / big_r
            h2 = child[h, c]
            if h2 < 0:
                out[h, (7 if d == 2 else 0) + 6] += pc
            elif d == 2:
                tot = hard[h2]
                if comps[h2, 0] > 0 and tot + 10 <= 21:
                    tot += 10
                out[h, 7 + (0 if tot < 17 else tot - 16)] += pc
            else:
                for q in range(14):
                    out[h, q] += pc * out[h2, q]


@_kernel
def split_finals(
    order: IArr,
    comps: IArr,
    child: IArr,
    hard: IArr,
    dec: I8Arr,
    weight: FArr,
    out_comp: IArr,
    out_end: IArr,
    out_w: FArr,
) -> int:
    """The final hands of one split hand and the number of card orders reaching each.

    ``order``: the hand rows holding the pair card, by increasing hard sum; ``dec[h]``: 0
    stand, 1 hit, 2 double; ``weight[h]``: the number of orders in which row ``h`` is
    reached as a start (the two-card hands), overwritten with the orders reaching it.
    Writes each final hand's composition, end ``7 m + s`` (``m`` 1 if doubled, ``s`` 0 for
    16 or less, 1..5 for 17..21, 6 for bust) and weight; returns how many.
    """
    n = 0
    for idx in range(order.shape[0]):
        h = order[idx]
        w = weight[h]
        if w == 0.0:
            continue
        d = dec[h]
        if d == 0:
            tot = hard[h]
            if comps[h, 0] > 0 and tot + 10 <= 21:
                tot += 10
            for c in range(10):
                out_comp[n, c] = comps[h, c]
            out_end[n] = 0 if tot < 17 else tot - 16
            out_w[n] = w
            n += 1
            continue
        for c in range(10):
            h2 = child[h, c]
            if h2 >= 0 and d == 1:
                weight[h2] += w
                continue
            for q in range(10):
                out_comp[n, q] = comps[h, q]
            out_comp[n, c] += 1
            if h2 < 0:
                out_end[n] = (7 if d == 2 else 0) + 6
            else:
                tot = hard[h2]
                if comps[h2, 0] > 0 and tot + 10 <= 21:
                    tot += 10
                out_end[n] = 7 + (0 if tot < 17 else tot - 16)
            out_w[n] = w
            n += 1
    return n


@_kernel
def dealer_up(
    removed: IArr,
    shoe: IArr,
    up: int,
    js: IArr,
    nz_card: IArr,
    nz_k: IArr,
    nz_len: IArr,
    mult: IArr,
    size: IArr,
    total: IArr,
    out: FArr,
) -> None:
    """``out[i, t]``: P(dealer ends on 17+t, no Blackjack | upcard ``up``, the shoe less
    ``removed[i]``, upcard still in it) for ``t`` 0..4, and ``out[i, 5]`` the bust (no
    Blackjack); ``js`` lists the dealer hands that ``up`` can start (as
    :func:`dealer_probs`, one upcard)."""
    f = np.empty((10, 16))
    wk = np.empty(16)
    acc = np.empty((5, 16))
    m = np.empty(10, dtype=np.int64)
    for i in range(removed.shape[0]):
        big_m = 0
        ok = True
        for c in range(10):
            m[c] = shoe[c] - removed[i, c]
            if m[c] < 0:
                ok = False
            big_m += m[c]
        for t in range(6):
            out[i, t] = 0.0
        if not ok or big_m < 2 or m[up] <= 0:
            continue
        _falling(m, f)
        acc[:] = 0.0
        for jj in range(js.shape[0]):
            j = js[jj]
            prod = 1.0
            for q in range(nz_len[j]):
                prod *= f[nz_card[j, q], nz_k[j, q]]
            if prod != 0.0:
                acc[total[j], size[j]] += mult[j, up] * prod
        _size_weights(big_m, big_m / m[up], wk)
        dsum = 0.0
        for k in range(2, 16):
            if wk[k] == 0.0:
                break
            for t in range(5):
                out[i, t] += acc[t, k] * wk[k]
        for t in range(5):
            dsum += out[i, t]
        m[up] -= 1
        out[i, 5] = no_bj(m, big_m - 1, up) - dsum


@_kernel
def pair_keys(codes: IArr, index: IArr, keys: IArr) -> int:
    """Number the distinct sums ``codes[i] + codes[j]`` (the cards of two hands together):
    ``index[i, j]`` gets the number of the sum, ``keys`` the sums by number; returns how
    many (an open-addressing hash table of twice the pairs' size)."""
    n = codes.shape[0]
    bits = 4
    while (1 << bits) < n * (n + 1) + 16:
        bits += 1
    size = 1 << bits
    shift = np.uint64(64 - bits)
    golden = np.uint64(0x9E3779B97F4A7C15)
    slot_key = np.full(size, -1, dtype=np.int64)
    slot_id = np.empty(size, dtype=np.int64)
    count = 0
    for i in range(n):
        for j in range(i, n):
            key = codes[i] + codes[j]
            # Fibonacci hashing: the high bits of the product (the low bits of a code
            # are one card class)
            h = np.int64((np.uint64(key) * golden) >> shift)
            while slot_key[h] != -1 and slot_key[h] != key:
                h = (h + 1) & (size - 1)
            if slot_key[h] == -1:
                slot_key[h] = key
                slot_id[h] = count
                keys[count] = key
                count += 1
            index[i, j] = slot_id[h]
            index[j, i] = slot_id[h]
    return count


@_kernel
def pair_sum(
    at_a: IArr,
    end_a: IArr,
    w_a: FArr,
    at_b: IArr,
    end_b: IArr,
    w_b: FArr,
    index: IArr,
    dealer: FArr,
    prob: FArr,
    pays: FArr,
) -> float:
    """``Σ_i Σ_j w_a[i] w_b[j] prob[k] Σ_t dealer[k, t] pays[end_a[i], t] pays[end_b[j], t]``
    with ``k = index[at_a[i], at_b[j]]`` the number of the two hands' cards together
    (:func:`pair_keys`): the joint result of two hands that share a shoe, and the dealer's."""
    total = 0.0
    for i in range(at_a.shape[0]):
        ea = end_a[i]
        row = at_a[i]
        acc = 0.0
        for j in range(at_b.shape[0]):
            k = index[row, at_b[j]]
            q = prob[k]
            if q == 0.0:
                continue
            eb = end_b[j]
            s = 0.0
            for t in range(6):
                s += dealer[k, t] * pays[ea, t] * pays[eb, t]
            acc += w_b[j] * q * s
        total += w_a[i] * acc
    return total
