"""Shoe-independent tables of the exact analyser: player hand compositions and dealer hands.

Cards are the ten blackjack rank classes ``0..9`` = A, 2, ..., 9, T (value ``class + 1``,
the ace counting 1 in a hard sum).  A *composition* is a vector of ten counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from sidebet.native.diskcache import cached_arrays
from sidebet.regulation.base_game.legality import dealer_draws

__all__ = ["DIGIT", "CompTable", "DealerArrays", "DealerTable", "DealerTrie", "comp_table",
           "dealer_arrays", "dealer_table", "dealer_trie"]

VALUES = tuple(range(1, 11))
MAX_DEALER_K = 16
"""Upper bound on the number of cards (upcard included) in a dealer hand, plus one."""

IntArr = npt.NDArray[np.int64]
IArr = IntArr
FArr = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class DealerTable:
    """Every non-bust, non-Blackjack final dealer hand as a multiset that includes the upcard.

    ``mult[j, u]`` counts the orders in which the dealer, showing class ``u``, draws the
    other cards of multiset ``j`` (hole card first) and stops on ``total[j]`` (17..21).
    """

    cards: IntArr  # (M, 10)
    size: IntArr  # (M,)
    total: IntArr  # (M,) 0..4 for 17..21
    mult: IntArr  # (M, 10)


@cache
def dealer_table(hits_soft_17: bool) -> DealerTable:
    """The dealer hands under S17 (``False``) or H17 (``True``); computed once."""
    found: dict[tuple[int, ...], list[int]] = {}

    def draw(cards: list[int], hard: int, n: int, up: int) -> None:
        ace = cards[0] > 0
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        if total > 21:
            return
        soft = ace and hard + 10 <= 21
        if not dealer_draws(total, soft, hits_soft_17):
            if n == 2 and total == 21:
                return  # dealer Blackjack: handled separately
            row = found.setdefault(tuple(cards), [total] + [0] * 10)
            row[1 + up] += 1
            return
        for c in range(10):
            cards[c] += 1
            draw(cards, hard + VALUES[c], n + 1, up)
            cards[c] -= 1

    for up in range(10):
        start = [0] * 10
        start[up] = 1
        draw(start, VALUES[up], 1, up)
    keys = sorted(found)
    cards = np.array(keys, dtype=np.int64).reshape(len(keys), 10)
    rows = np.array([found[k] for k in keys], dtype=np.int64)
    return DealerTable(
        cards=cards,
        size=cards.sum(axis=1),
        total=rows[:, 0] - 17,
        mult=rows[:, 1:].copy(),
    )


@dataclass(frozen=True, slots=True, eq=False)
class CompTable:
    """Player hand compositions and the compositions that also hold removed pair cards.

    Rows ``0..n_hands-1`` are the hands (hard sum at most 21); further rows are a hand that
    holds the pair card ``p`` plus ``e`` more removed copies of ``p`` (split analysis).
    ``child[i, c]`` is the row of composition ``i`` plus one card ``c`` (``-1``: not kept,
    i.e. the hand busts).  ``order`` lists the hand rows by decreasing hard sum.
    """

    comps: IntArr  # (K, 10)
    hard: IntArr  # (K,)
    ncards: IntArr  # (K,)
    child: IntArr  # (K, 10)
    n_hands: int
    order: IntArr
    index: dict[tuple[int, ...], int]
    split_rows: dict[tuple[int, int], tuple[IntArr, IntArr]]
    """``(p, e)`` -> (hand rows, composition rows) of hands holding ``p``, by decreasing
    hard sum; composition = hand + ``e`` copies of ``p``."""


def _hands() -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def rec(i: int, cur: list[int], s: int) -> None:
        if i == 10:
            out.append(tuple(cur))
            return
        k = 0
        while s + k * VALUES[i] <= 21:
            cur.append(k)
            rec(i + 1, cur, s + k * VALUES[i])
            cur.pop()
            k += 1

    rec(0, [], 0)
    return out


DIGIT = 64 ** np.arange(10, dtype=np.int64)
"""A composition's counts as the digits of one integer in base 64 (every count is below
64: at most 21 cards of a kind plus the removed pair cards)."""


class _RowFinder:
    """The rows of compositions, looked up by their base-64 codes all at once."""

    def __init__(self, comps: IntArr) -> None:
        if comps.size and int(comps.max()) >= 64:
            raise ValueError("a composition holds 64 or more cards of one kind")
        self.codes: IntArr = comps @ DIGIT
        self._order = np.argsort(self.codes, kind="stable")
        self._sorted = self.codes[self._order]

    def rows(self, codes: IntArr) -> IntArr:
        """The row of each code (``-1``: no such composition)."""
        at = np.minimum(np.searchsorted(self._sorted, codes), len(self._sorted) - 1)
        found = self._sorted[at] == codes
        return np.where(found, self._order[at], -1).astype(np.int64)


def _comp_arrays(max_extra: int) -> dict[str, IntArr]:
    """The arrays of :func:`comp_table` (shoe-independent; kept in the disk cache)."""
    hands = _hands()
    hands.sort(key=lambda h: (sum(h), h))
    base = np.array(hands, dtype=np.int64).reshape(len(hands), 10)
    base_codes = base @ DIGIT
    # a hand holding p plus e more removed copies of p, in the order (p, hand, e); a
    # composition met before (a hand, or an earlier grown one) keeps its first row
    grown: list[IntArr] = [base_codes]
    for p in range(10):
        with_p = base_codes[base[:, p] > 0]
        steps = np.arange(1, max_extra + 1, dtype=np.int64) * DIGIT[p]
        grown.append((with_p[:, None] + steps[None, :]).ravel())
    codes = np.concatenate(grown)
    _, first = np.unique(codes, return_index=True)
    codes = codes[np.sort(first)]
    comps = (codes[:, None] // DIGIT[None, :]) % 64
    find = _RowFinder(comps)
    child = np.stack([find.rows(find.codes + DIGIT[c]) for c in range(10)], axis=1)
    hard = comps @ np.arange(1, 11, dtype=np.int64)
    n_hands = len(hands)
    order = np.argsort(-hard[:n_hands], kind="stable").astype(np.int64)
    # hand-row children must stay hand rows: a child beyond hard 21 busts
    busts = hard[:n_hands, None] + np.arange(1, 11, dtype=np.int64)[None, :] > 21
    child[:n_hands][busts] = -1
    # the split rows of every (p, e) in two arrays (an .npz member costs a file each)
    holding = [order[comps[order, p] > 0] for p in range(10)]
    grown_rows = [np.stack([find.rows(find.codes[w] + e * DIGIT[p])
                            for e in range(1, max_extra + 1)]) for p, w in enumerate(holding)]
    # kept small on disk (a third of the bytes to read and check): counts below 64 as
    # bytes, rows as 32-bit integers; comp_table widens them to int64
    return {"comps": comps.astype(np.uint8), "child": child.astype(np.int32),
            "order": order.astype(np.int32),
            "n_hands": np.array(n_hands, dtype=np.int64),
            "with_start": np.cumsum([0] + [len(w) for w in holding]).astype(np.int64),
            "with_rows": np.concatenate(holding).astype(np.int32),
            "grown_rows": np.concatenate(grown_rows, axis=1).astype(np.int32)}


class _Index(dict[tuple[int, ...], int]):
    """The rows of compositions by their counts: the hands' rows made at once, any other
    row (a hand with removed pair cards, seldom asked for) found when asked and kept."""

    def __init__(self, comps: IntArr, n_hands: int) -> None:
        super().__init__(zip(map(tuple, comps[:n_hands].tolist()), range(n_hands), strict=True))
        self._comps = comps
        self._finder: _RowFinder | None = None  # made when first asked (its sort is costly)

    def _find(self, key: object) -> int:
        if not isinstance(key, tuple) or len(key) != 10:
            return -1
        try:
            counts = [int(k) for k in key]
        except (TypeError, ValueError):
            return -1
        if min(counts) < 0 or max(counts) >= 64:
            return -1
        code = np.array([sum(k * 64**c for c, k in enumerate(counts))], dtype=np.int64)
        if self._finder is None:
            self._finder = _RowFinder(self._comps)
        return int(self._finder.rows(code)[0])

    def __missing__(self, key: tuple[int, ...]) -> int:
        row = self._find(key)
        if row < 0:
            raise KeyError(key)
        self[key] = row
        return row

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._find(key) >= 0

    def get(self, key: tuple[int, ...], default: int | None = None) -> int | None:  # type: ignore[override]
        try:
            return self[key]
        except KeyError:
            return default


@cache
def comp_table(max_extra: int) -> CompTable:
    """Compositions for splits that remove up to ``max_extra`` further pair cards (the
    arrays kept in sidebet's disk cache, :mod:`sidebet.native.diskcache`)."""
    arrays = cached_arrays("bj-comp-table", f"max_extra={max_extra}",
                           lambda: dict(_comp_arrays(max_extra)))
    comps = np.ascontiguousarray(arrays["comps"], dtype=np.int64)
    split_rows: dict[tuple[int, int], tuple[IntArr, IntArr]] = {}
    start = arrays["with_start"]
    for p in range(10):
        at = slice(int(start[p]), int(start[p + 1]))
        with_p = np.ascontiguousarray(arrays["with_rows"][at], dtype=np.int64)
        for e in range(1, max_extra + 1):
            split_rows[(p, e)] = (with_p, np.ascontiguousarray(arrays["grown_rows"][e - 1, at],
                                                               dtype=np.int64))
    return CompTable(
        comps=comps,
        hard=comps @ np.arange(1, 11, dtype=np.int64),
        ncards=comps.sum(axis=1),
        child=np.ascontiguousarray(arrays["child"], dtype=np.int64),
        n_hands=int(arrays["n_hands"]),
        order=arrays["order"].astype(np.int64),
        index=_Index(comps, int(arrays["n_hands"])),
        split_rows=split_rows,
    )


@dataclass(frozen=True, slots=True, eq=False)
class DealerTrie:
    """The dealer hands of :func:`dealer_table` as a tree of their cards drawn in class
    order (the order of drawing does not change a multiset's probability).

    Node ``q`` (after the root, node 0) adds one card to its ``parent``'s: a card of class
    ``r_card[f]`` with ``r_j[f]`` cards of that class and ``r_n[f]`` cards in all before
    it, ``f = factor[q]``; from a shoe of counts ``m`` (``M`` cards) it multiplies the
    parent's probability by ``(m[r_card] - r_j) / (M - r_n)``.  Entries ``term_start[s]``
    to ``term_start[s + 1]`` of ``term_node`` and ``term_mult`` give, for slot
    ``s = 5 u + t``, the nodes that are a final hand of total ``17 + t`` with upcard ``u``
    and the number of orders in which the dealer, showing ``u``, draws the rest of it, in
    the order of their nodes.  The same terms by node: entries ``node_start[q]`` to
    ``node_start[q + 1]`` of ``node_slot`` and ``node_mult``.  The nodes are in depth-first
    order: node ``q``'s subtree is nodes ``q`` to ``skip[q] - 1``.
    """

    parent: IntArr
    factor: IntArr
    r_card: IntArr
    r_j: IntArr
    r_n: IntArr
    term_start: IntArr
    term_node: IntArr
    term_mult: FArr
    skip: IntArr
    node_start: IntArr
    node_slot: IntArr
    node_mult: FArr


def _trie_arrays(h17: bool) -> dict[str, npt.NDArray[np.generic]]:
    dt = dealer_table(h17)
    node_of: dict[tuple[int, ...], int] = {(): 0}
    factor_of: dict[tuple[int, int, int], int] = {}
    parent = [0]
    factor = [0]
    terms: list[tuple[int, int, int]] = []
    for row, tot, mult in zip(dt.cards.tolist(), dt.total.tolist(), dt.mult.tolist(),
                              strict=True):
        seq: list[int] = []
        for c in range(10):
            seq += [c] * row[c]
        for n in range(1, len(seq) + 1):
            key = tuple(seq[:n])
            if key not in node_of:
                c = seq[n - 1]
                f = factor_of.setdefault((c, seq[:n - 1].count(c), n - 1), len(factor_of))
                node_of[key] = len(parent)
                parent.append(node_of[key[:-1]])
                factor.append(f)
        leaf = node_of[tuple(seq)]
        terms += [(5 * u + tot, leaf, mult[u]) for u in range(10) if mult[u]]
    terms.sort()
    skip = list(range(1, len(parent) + 1))  # depth-first: a subtree ends after its last node
    for q in range(len(parent) - 1, 0, -1):
        skip[parent[q]] = max(skip[parent[q]], skip[q])
    by_node = sorted(terms, key=lambda term: (term[1], term[0]))
    slots = np.array([t[0] for t in terms], dtype=np.int64)
    by = sorted(factor_of, key=factor_of.__getitem__)
    return {
        "parent": np.array(parent, dtype=np.int64),
        "factor": np.array(factor, dtype=np.int64),
        "r_card": np.array([f[0] for f in by], dtype=np.int64),
        "r_j": np.array([f[1] for f in by], dtype=np.int64),
        "r_n": np.array([f[2] for f in by], dtype=np.int64),
        "term_start": np.searchsorted(slots, np.arange(51)).astype(np.int64),
        "term_node": np.array([t[1] for t in terms], dtype=np.int64),
        "term_mult": np.array([t[2] for t in terms], dtype=np.float64),
        "skip": np.array(skip, dtype=np.int64),
        "node_start": np.searchsorted(np.array([t[1] for t in by_node], dtype=np.int64),
                                      np.arange(len(parent) + 1)).astype(np.int64),
        "node_slot": np.array([t[0] for t in by_node], dtype=np.int64),
        "node_mult": np.array([t[2] for t in by_node], dtype=np.float64),
    }


def _one_upcard(a: dict[str, npt.NDArray[np.generic]], up: int
                ) -> dict[str, npt.NDArray[np.generic]]:
    """The trie ``a`` cut to the terms of upcard ``up`` and the nodes above them, in their
    order: every node's product and every slot's sum the same, term by term, as in ``a``."""
    parent = np.asarray(a["parent"], dtype=np.int64)
    slots = np.asarray(a["node_slot"], dtype=np.int64)
    start = np.asarray(a["node_start"], dtype=np.int64)
    owner = np.repeat(np.arange(parent.size), start[1:] - start[:-1])
    mine = slots // 5 == up
    keep = np.zeros(parent.size, dtype=bool)
    keep[0] = True
    for q in np.unique(owner[mine]).tolist():
        while not keep[q]:
            keep[q] = True
            q = int(parent[q])
    old = np.flatnonzero(keep)
    new_of = np.full(parent.size, -1, dtype=np.int64)
    new_of[old] = np.arange(old.size)
    sub_parent = new_of[parent[old]]
    sub_parent[0] = 0
    skip = list(range(1, old.size + 1))
    for q in range(old.size - 1, 0, -1):
        skip[sub_parent[q]] = max(skip[sub_parent[q]], skip[q])
    term_start = np.asarray(a["term_start"], dtype=np.int64)
    t_slot = np.repeat(np.arange(50), term_start[1:] - term_start[:-1])
    t_mine = t_slot // 5 == up
    n_owner = new_of[owner[mine]]
    return {**a,
            "parent": sub_parent, "factor": np.asarray(a["factor"])[old],
            "term_start": np.searchsorted(t_slot[t_mine], np.arange(51)).astype(np.int64),
            "term_node": new_of[np.asarray(a["term_node"], dtype=np.int64)[t_mine]],
            "term_mult": np.asarray(a["term_mult"])[t_mine],
            "skip": np.array(skip, dtype=np.int64),
            "node_start": np.searchsorted(n_owner, np.arange(old.size + 1)).astype(np.int64),
            "node_slot": slots[mine], "node_mult": np.asarray(a["node_mult"])[mine]}


@cache
def dealer_trie(h17: bool, up: int | None = None) -> DealerTrie:
    """:class:`DealerTrie` of the dealer hands under S17 or H17 (kept in the disk cache);
    with ``up``, only the terms of that upcard and the nodes they need (the dealer's
    outcomes under ``up`` the same, bit for bit, at a fraction of the cost)."""
    a = cached_arrays("bj-dealer-trie", f"h17={h17}", lambda: _trie_arrays(h17))
    if up is not None:
        a = _one_upcard(a, up)
    def ints(k: str) -> IntArr:
        return np.ascontiguousarray(a[k], dtype=np.int64)

    def floats(k: str) -> FArr:
        return np.ascontiguousarray(a[k], dtype=np.float64)

    return DealerTrie(
        parent=ints("parent"), factor=ints("factor"), r_card=ints("r_card"), r_j=ints("r_j"),
        r_n=ints("r_n"), term_start=ints("term_start"), term_node=ints("term_node"),
        term_mult=floats("term_mult"), skip=ints("skip"), node_start=ints("node_start"),
        node_slot=ints("node_slot"), node_mult=floats("node_mult"))


@dataclass(frozen=True, slots=True)
class DealerArrays:
    """The dealer hands of :func:`dealer_table` as the kernels read them: each hand's
    non-zero counts (``nz_card``, ``nz_k``, ``nz_len``) and the upcards that start it."""

    nz_card: IArr
    nz_k: IArr
    nz_len: IArr
    ups: IArr
    ups_len: IArr
    mult: IArr
    size: IArr
    total: IArr


@cache
def dealer_arrays(h17: bool) -> DealerArrays:
    dt = dealer_table(h17)
    m = dt.cards.shape[0]
    nz_card = np.zeros((m, 10), dtype=np.int64)
    nz_k = np.zeros((m, 10), dtype=np.int64)
    nz_len = np.zeros(m, dtype=np.int64)
    ups = np.zeros((m, 10), dtype=np.int64)
    ups_len = np.zeros(m, dtype=np.int64)
    for j in range(m):
        q = 0
        for c in range(10):
            if dt.cards[j, c]:
                nz_card[j, q] = c
                nz_k[j, q] = dt.cards[j, c]
                q += 1
        nz_len[j] = q
        q = 0
        for u in range(10):
            if dt.mult[j, u]:
                ups[j, q] = u
                q += 1
        ups_len[j] = q
    return DealerArrays(nz_card, nz_k, nz_len, ups, ups_len, dt.mult, dt.size, dt.total)
