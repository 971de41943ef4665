"""The cross terms of a split, exact: the joint result of two hands that share a shoe.

For a split into hands with results ``X_1 … X_N`` the round's second moment is
``E[Σ X_i²] + E[Σ_{i≠j} X_i X_j]`` (:class:`sidebet.exact.blackjack.engine.SplitMoments`).
The cross terms are summed here over the patterns of pair / non-pair second cards of
:func:`sidebet.exact.blackjack.engine.split_moments` like the hands' means, from one base
value per number ``a`` of extra pair cards gone: ``E[X_i X_j · 1{no dealer Blackjack}]``
for two hands that each hold a pair card and draw from the shoe less the upcard and
``a + 2`` pair cards, summed exactly over every pair of final hands (their cards drawn
from one shoe, the dealer's odds from the shoe less both hands).  See docs/blackjack.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sidebet.exact.blackjack import dispatch as kern
from sidebet.exact.blackjack._tables import DIGIT, CompTable, DealerArrays, dealer_arrays
from sidebet.regulation.base_game.payout import showdown

__all__ = ["Finals", "Leaf", "cross_terms", "split_finals"]

FArr = npt.NDArray[np.float64]
IArr = npt.NDArray[np.int64]
I8Arr = npt.NDArray[np.int8]


@dataclass(frozen=True, slots=True)
class Leaf:
    """One pattern of second cards: ``hands`` hands, ``done`` of them dealt a non-pair
    second card before the split had its most hands; ``prob`` per upcard."""

    hands: int
    done: int
    prob: FArr


@dataclass(frozen=True, slots=True)
class Finals:
    """Final hands of one split hand: base-64 codes of their compositions, ends
    (``7 m + s``, see :func:`sidebet.exact.blackjack._kernels.split_finals`) and the number
    of card orders reaching each."""

    code: IArr
    end: IArr
    weight: FArr


def _pays() -> FArr:
    """``pays[end, t]``: a hand's result against the dealer's 17 + t (t = 5: bust)."""
    out = np.zeros((14, 6))
    for e in range(14):
        mult, s = divmod(e, 7)
        total = 16 if s == 0 else 22 if s == 6 else 16 + s
        for t in range(6):
            out[e, t] = (mult + 1) * showdown(total, 22 if t == 5 else 17 + t)
    return out


PAYS = _pays()


def split_finals(
    table: CompTable, order: IArr, dec: I8Arr, starts: Sequence[int]
) -> Finals:
    """The final hands of a split hand started at the two-card rows ``starts``, played by
    ``dec`` (0 stand, 1 hit, 2 double per row)."""
    k = table.comps.shape[0]
    weight = np.zeros(k)
    weight[list(starts)] = 1.0
    cap = 10 * len(order) + 10
    comp = np.zeros((cap, 10), dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    w = np.zeros(cap)
    n = int(kern.split_finals(order, table.comps, table.child, table.hard, dec, weight,
                              comp, end, w))
    return Finals(code=comp[:n] @ DIGIT, end=end[:n], weight=w[:n])


def _decode(codes: IArr) -> IArr:
    return (codes[:, None] // DIGIT[None, :]) % 64


def _order_probs(rest: IArr, removed: IArr) -> FArr:
    """``Π_c ff(rest_c, removed_c) / ff(|rest|, |removed|)``: one order of drawing them."""
    top = int(removed.max(initial=0)) + 1
    ks = np.arange(top)
    per = np.cumprod(np.where(ks[None, :] > 0, np.maximum(rest[:, None] - ks[None, :] + 1, 0),
                              1).astype(np.float64), axis=1)  # ff(rest_c, k)
    sizes = removed.sum(axis=1)
    n = int(rest.sum())
    ns = np.arange(int(sizes.max(initial=0)) + 1)
    whole = np.cumprod(np.where(ns > 0, np.maximum(n - ns + 1, 1), 1).astype(np.float64))
    out = np.ones(removed.shape[0])
    for c in range(10):
        out *= per[c, removed[:, c]]
    result: FArr = out / whole[sizes]
    return result


def _merged(f: Finals, uniq: IArr) -> tuple[IArr, IArr, FArr]:
    """The final hands with equal composition and end merged, each as the number of its
    composition in ``uniq``."""
    at = np.searchsorted(uniq, f.code)
    both = at * 14 + f.end
    keys, inv = np.unique(both, return_inverse=True)
    w = np.bincount(inv.ravel(), weights=f.weight, minlength=len(keys)).astype(np.float64)
    return (keys // 14).astype(np.int64), (keys % 14).astype(np.int64), w


def cross_bases(
    shoe: IArr, d: DealerArrays, up: int, p: int, amax: int, nonpair: Finals, pair: Finals
) -> tuple[FArr, FArr, FArr]:
    """Unconditional sums over two hands' final hands, per ``a`` in ``0..amax``:
    ``E[X_i X_j · 1{no BJ} · 1{both second cards non-pair}]``, the same with one second
    card the pair card, and with both (the shoe less the upcard and ``a + 2`` pair cards)."""
    uniq = np.unique(np.concatenate([nonpair.code, pair.code]))
    lists = [_merged(nonpair, uniq), _merged(pair, uniq)]
    n = len(uniq)
    index = np.empty((n, n), dtype=np.int64)
    keys = np.empty(n * (n + 1) // 2, dtype=np.int64)
    keys = keys[: kern.pair_keys(uniq, index, keys)]
    js = np.flatnonzero(d.mult[:, up] > 0).astype(np.int64)
    rest = shoe.copy()
    rest[up] -= 1
    n_rest = int(rest.sum())
    out = np.zeros((3, amax + 1))
    # the cards of both hands and of the a extra pair cards, every a at once: a sum with
    # more pair cards is often another sum with fewer, so each is valued once
    shifts = [a * int(DIGIT[p]) for a in range(amax + 1)]
    every = np.unique(np.concatenate([keys + s for s in shifts]))
    removed = _decode(every)
    prob_all = _order_probs(rest, removed)
    dealer_all = np.empty((every.shape[0], 6))
    kern.dealer_up(removed, shoe, up, js, d.nz_card, d.nz_k, d.nz_len, d.mult, d.size,
                   d.total, dealer_all)
    for a, shift in enumerate(shifts):
        # P(the a + 2 pair cards come first, in one order)
        first = 1.0
        for q in range(a + 2):
            first *= max(int(rest[p]) - q, 0) / (n_rest - q)
        if first == 0.0:
            continue
        at = np.searchsorted(every, keys + shift)
        dealer = np.ascontiguousarray(dealer_all[at])
        prob = prob_all[at] / first
        for z, (x, y) in enumerate(((0, 0), (0, 1), (1, 1))):
            out[z, a] = kern.pair_sum(*lists[x], *lists[y], index, dealer, prob, PAYS)
    return out[0], out[1], out[2]


def _lift(base: list[FArr], p0: FArr, n0: FArr, own: int) -> Callable[[int, int], FArr]:
    """``V(a, b)``: a value with ``a`` extra pair cards and ``b`` random non-pair cards
    gone, from ``V(a, 0) = base[a]``; removing a random card leaves the expectation as it
    was, so ``V(a, b−1) = v V(a+1, b−1) + (1−v) V(a, b)`` (``own``: non-pair second cards
    the hands themselves hold)."""
    memo: dict[tuple[int, int], FArr] = {}
    zero = np.zeros_like(base[0])

    def value(a: int, b: int) -> FArr:
        if (a, b) in memo:
            return memo[(a, b)]
        if a >= len(base):
            return zero
        if b == 0:
            res = base[a]
        else:
            den = n0 - a - (b - 1) - own
            v = np.clip(np.divide(p0 - a, den, out=np.zeros(10), where=den > 0), 0.0, 1.0)
            num = value(a, b - 1) - v * value(a + 1, b - 1)
            res = np.divide(num, 1.0 - v, out=np.zeros(10), where=v < 1.0)
        memo[(a, b)] = res
        return res

    return value


def cross_terms(
    shoe: IArr, p: int, h17: bool, amax: int, leaves: list[Leaf], p0: FArr, n0: FArr,
    finals: Callable[[int], tuple[Finals, Finals] | None],
) -> FArr:
    """``E[Σ_{i≠j} X_i X_j · 1{no dealer Blackjack}]`` per upcard, exact."""
    d = dealer_arrays(h17)
    xx = [np.zeros(10) for _ in range(amax + 1)]
    nx = [np.zeros(10) for _ in range(amax + 1)]
    nn = [np.zeros(10) for _ in range(amax + 1)]
    for u in range(10):
        got = finals(u)
        if got is None:
            continue
        s_nn, s_np, s_pp = cross_bases(shoe, d, u, p, amax, *got)
        for a in range(amax + 1):
            v = _ratio(p0[u] - a, n0[u] - a)
            v2 = _ratio(p0[u] - a - 1, n0[u] - a - 1)
            xx[a][u] = s_nn[a] + 2.0 * s_np[a] + s_pp[a]
            nx[a][u] = _ratio(s_nn[a] + s_np[a], 1.0 - v)
            nn[a][u] = _ratio(s_nn[a], 1.0 - 2.0 * v + v * v2)
    j_xx = _lift(xx, p0, n0, 0)
    j_nx = _lift(nx, p0, n0, 1)
    j_nn = _lift(nn, p0, n0, 2)
    out = np.zeros(10)
    for leaf in leaves:
        n_n = leaf.done
        n_x = leaf.hands - leaf.done
        a = leaf.hands - 2
        term = np.zeros(10)
        if n_n >= 2:
            term = term + n_n * (n_n - 1) * j_nn(a, n_n - 2)
        if n_n and n_x:
            term = term + 2 * n_n * n_x * j_nx(a, n_n - 1)
        if n_x >= 2:
            term = term + n_x * (n_x - 1) * j_xx(a, n_n)
        out = out + leaf.prob * term
    return out


def _ratio(num: float, den: float) -> float:
    return float(num / den) if den > 0 else 0.0
