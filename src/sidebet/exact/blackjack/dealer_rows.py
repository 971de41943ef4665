"""The dealer's outcomes for every row of a composition table, computed over threads.

A whole-shoe analysis first needs, for every player composition the table holds, the
dealer's final totals given each upcard (:func:`base_tables`): the largest part of a cold
analysis.  The rows are dealt round among threads, one per idle core (the kernel releases the
interpreter's lock).  Each row is computed alone, by the same arithmetic, so the table is the same
however it was shared out.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from sidebet.exact.blackjack import dispatch as kern
from sidebet.exact.blackjack._tables import CompTable, comp_table, dealer_trie
from sidebet.native.threads import idle_cores, run_parts
from sidebet.regulation.base_game.legality import split_hands_limit
from sidebet.regulation.house_rules import HouseRules

__all__ = ["PRUNE_AT", "ROWS_PER_THREAD", "base_tables", "dealer_outcomes", "extra_pairs",
           "fill_dealer", "full_shoe", "max_split_hands", "prune_dealer"]

FArr = npt.NDArray[np.float64]
IArr = npt.NDArray[np.int64]

ROWS_PER_THREAD = 2000
"""Fewest rows of a dealer table worth a thread of their own."""


def full_shoe(decks: int) -> tuple[int, ...]:
    """The rank-class counts ``(A, 2, ..., 9, T)`` of ``decks`` full decks."""
    return (4 * decks,) * 9 + (16 * decks,)


def max_split_hands(rules: HouseRules, pair: int) -> int:
    """Most hands a pair of class ``pair`` may become
    (:func:`sidebet.regulation.base_game.legality.split_hands_limit`: aces 2 unless aces resplit)."""
    return split_hands_limit(rules.max_split_hands, rules.resplit_aces, pair == 0)


def extra_pairs(rules: HouseRules) -> int:
    """Most pair cards beyond the first two that split analysis removes."""
    big_h = max(max_split_hands(rules, p) for p in range(10))
    return max(1, 2 * (big_h - 2) + 1)


def dealer_outcomes(table: CompTable, rows: IArr, shoe: IArr | FArr, h17: bool) -> FArr:
    """``out[row, u, t]`` for the requested rows (others zero)."""
    out = np.zeros((table.comps.shape[0], 10, 5))
    fill_dealer(table, rows, shoe, h17, out)
    return out


def _threads(rows: int) -> int:
    """Threads for a dealer table of ``rows`` rows: one per idle core (at most four), none
    idle for want of rows."""
    return max(1, min(idle_cores(), 4, rows // ROWS_PER_THREAD))


def fill_dealer(table: CompTable, rows: IArr, shoe: IArr | FArr, h17: bool, out: FArr,
                up: int | None = None) -> None:
    """Fill ``out`` for ``rows``, the rows dealt round among threads: each row is computed
    alone, so ``out`` is the same whatever the number of threads.  With ``up``, only that
    upcard's outcomes (the others left as they were), the same as with every upcard."""
    d = dealer_trie(h17, up)
    shoe = np.ascontiguousarray(shoe, dtype=np.float64)  # whole or real counts
    n = _threads(len(rows))
    prune = int(prune_dealer(shoe))
    run_parts(lambda part: kern.dealer_probs(part, table.comps, shoe, d.parent, d.factor,
                                             d.r_card, d.r_j, d.r_n, d.term_start,
                                             d.term_node, d.term_mult, d.skip, d.node_start,
                                             d.node_slot, d.node_mult, prune, out),
              [np.ascontiguousarray(rows[k::n]) for k in range(n)])


BASE_TABLES_KEPT = 32
"""Dealer tables :func:`base_tables` keeps (about 7 MB each): an analysis of every round a
counter might value must not keep them all."""

PRUNE_AT = 4
"""A shoe holding at most this many cards of some class has many dealer hands no row can
be dealt: :func:`prune_dealer`."""


def prune_dealer(shoe: IArr | FArr) -> bool:
    """Whether the dealer table of ``shoe`` skips the hands its rows cannot be dealt
    (:func:`sidebet.exact.blackjack._kernels.dealer_probs`, ``prune``): when some class
    has at most :data:`PRUNE_AT` cards, as in one deck, where about half the tree is
    unreachable in a lane group.  Elsewhere (two decks and more) the plain walk is the
    faster.  Either way the table is the same, bit for bit.

    >>> prune_dealer(np.array(full_shoe(1))), prune_dealer(np.array(full_shoe(2)))
    (True, False)
    """
    return bool(shoe.size) and int(shoe.min()) <= PRUNE_AT


@lru_cache(maxsize=BASE_TABLES_KEPT)
def base_tables(
    shoe: tuple[float, ...], h17: bool, max_extra: int
) -> tuple[CompTable, FArr]:
    """The composition table and its dealer outcomes for a shoe (the last
    :data:`BASE_TABLES_KEPT` kept; the counts whole or real)."""
    arr = np.asarray(shoe, dtype=np.float64)
    table = comp_table(max_extra)
    rows = np.arange(table.comps.shape[0], dtype=np.int64)
    return table, dealer_outcomes(table, rows, arr, h17)
