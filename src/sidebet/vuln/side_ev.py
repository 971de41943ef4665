"""Exact EV of the side wagers for any shoe composition, at compiled speed.

:class:`EVTables` holds what :mod:`sidebet.vuln.side_ev_kernel` needs for a set of wagers and
paytables: each wager's weights over the kernel's categories, derived from the wager's
outcome table and paytable and *checked* on all 52³ card triples (every category maps
to one outcome), and Upcard Luck's class matrices, likewise checked.  Which categories
value a wager is its declared :attr:`~sidebet.regulation.wagers.Wager.ev_category`.  So the incremental
EV rests on the same one rule as the PAR sheets, and the tests compare it with
:func:`sidebet.exact.par.par_sheet` on depleted shoes.

>>> t = ev_tables((("trilux", "TLX-3"), ("blazing7s", "A")))
>>> [f"{x:.6f}" for x in t.expected_returns(np.full(52, 6))]
['-0.232521', '-0.081830']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS, Rank, Suit
from sidebet.core.errors import SidebetError
from sidebet.exact.outcomes import outcome_table
from sidebet.regulation.wagers import WAGERS, EVCategory, Wager, get_wager
from sidebet.vuln import side_ev_kernel as K

__all__ = ["EVTables", "ev_tables"]

_UPCARD_ROW = 11
"""The kernel's category of the upcard-class wager's weighted win count."""
_LUCKY = frozenset(range(2, 8))


def _poker_category(i: int, j: int, k: int) -> int:
    """The kernel's poker category of three card kinds (-1: none of them)."""
    cards = (ALL_CARDS[i], ALL_CARDS[j], ALL_CARDS[k])
    ranks = sorted(int(c.rank) for c in cards)
    flush = len({c.suit for c in cards}) == 1
    if ranks[0] == ranks[2]:
        return 2 if i == j == k else 1
    straight = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14])
    if straight:
        return 0 if flush else 3
    return 4 if flush else -1


def _blazing_category(i: int, j: int, k: int) -> int:
    cards = (ALL_CARDS[i], ALL_CARDS[j], ALL_CARDS[k])
    sevens = (cards[0].rank is Rank.SEVEN) + (cards[1].rank is Rank.SEVEN)
    if sevens == 0:
        return -1
    if sevens == 1:
        return 10
    if cards[2].rank is not Rank.SEVEN:
        return 9
    suits = {c.suit for c in cards}
    if suits == {Suit.DIAMONDS}:
        return 5
    if len(suits) == 1:
        return 6
    if len({s.color for s in suits}) == 1:
        return 7
    return 8


def upcard_class(k: int) -> int:
    """Upcard Luck's card class: 0 A♠, 1 other aces, 2..9 by rank, 10 J♠, 11 other tens."""
    card = ALL_CARDS[k]
    if card.rank is Rank.ACE:
        return 0 if card.suit is Suit.SPADES else 1
    if card.rank is Rank.JACK and card.suit is Suit.SPADES:
        return 10
    return min(int(card.rank), 11) if int(card.rank) < 10 else 11


@cache
def _categories() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    poker = np.empty((52, 52, 52), dtype=np.int64)
    blazing = np.empty((52, 52, 52), dtype=np.int64)
    for i in range(52):
        for j in range(52):
            for k in range(52):
                poker[i, j, k] = _poker_category(i, j, k)
                blazing[i, j, k] = _blazing_category(i, j, k)
    return poker, blazing


def _category_weights(wager_id: str, pays: npt.NDArray[np.int64], cat: npt.NDArray[np.int64]
                      ) -> npt.NDArray[np.int64]:
    """Weights (pays + 1) per category, checking the category decides the outcome."""
    table = outcome_table(wager_id).astype(np.int64)
    row = np.zeros(K.NCAT, dtype=np.int64)
    for c in np.unique(cat):
        got = np.unique(table[cat == c])
        if len(got) != 1:
            raise AssertionError(f"{wager_id}: category {c} holds outcomes {got}")
        weight = int(pays[got[0]]) + 1
        if c < 0:
            if weight != 0:
                raise AssertionError(f"{wager_id}: uncategorised triples win")
            continue
        row[c] = weight
    return row


@cache
def _upcard_matrices(wager_id: str, pays_key: tuple[int, ...]
                     ) -> tuple[npt.NDArray[np.int64], ...]:
    pays = np.array(pays_key, dtype=np.int64)
    table = outcome_table(wager_id).astype(np.int64)
    weight = pays[table] + 1  # [i, j, k]: pays + 1 (0 for a loss)
    cls = np.array([upcard_class(k) for k in range(52)], dtype=np.int64)
    lucky_kind = np.array([int(c.rank) in _LUCKY for c in ALL_CARDS])
    w = np.zeros((K.NCLS, K.NCLS), dtype=np.int64)
    for i in range(52):
        for j in range(52):
            w[cls[i], cls[j]] = weight[i, j, np.flatnonzero(lucky_kind)[0]]
    expected = w[cls[:, None, None], cls[None, :, None]] * lucky_kind[None, None, :]
    if not np.array_equal(expected, weight):
        raise AssertionError(f"{wager_id}: the class matrices do not reproduce the outcome table")
    lucky = np.array([int(x in _LUCKY) for x in range(K.NCLS)], dtype=np.int64)
    mb = w * (lucky[:, None] + lucky[None, :])
    return cls, w, mb, lucky


@dataclass(frozen=True)
class EVTables:
    """Constant arrays of the EV kernel for ``sides`` (``(wager, paytable)`` pairs)."""

    sides: tuple[tuple[str, str], ...]
    weights: npt.NDArray[np.int64]
    cls: npt.NDArray[np.int64]
    ma: npt.NDArray[np.int64]
    mb: npt.NDArray[np.int64]
    lucky: npt.NDArray[np.int64]
    nb: npt.NDArray[np.int64]

    def args(self) -> tuple[Any, Any, Any, Any, Any]:
        """``(cls, ma, mb, lucky, nb)`` as the kernels take them."""
        return self.cls, self.ma, self.mb, self.lucky, self.nb

    def index(self, wager: str) -> int:
        """Position of ``wager`` in :attr:`sides`."""
        wid = get_wager(wager).id
        for n, (w, _) in enumerate(self.sides):
            if w == wid:
                return n
        raise SidebetError(f"{wager} is not among {[w for w, _ in self.sides]}")

    def expected_returns(self, counts: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Each wager's exact expected return for a 52-long count array (from scratch)."""
        c = np.ascontiguousarray(counts, dtype=np.int64)
        if c.shape != (52,) or (c < 0).any() or c.sum() < 3:
            raise SidebetError("a composition is 52 non-negative counts, at least 3 cards")
        out: npt.NDArray[np.float64] = self.along(c, np.zeros(0, np.int64),
                                                  np.zeros(1, np.int64))[0]
        return out

    def along(self, counts: npt.ArrayLike, cards: npt.ArrayLike, points: npt.ArrayLike
              ) -> npt.NDArray[np.float64]:
        """``[point, wager]``: the expected returns after removing the first ``points[p]``
        of ``cards`` from ``counts``, kept up to date card by card."""
        c = np.ascontiguousarray(counts, dtype=np.int64)
        seq = np.ascontiguousarray(cards, dtype=np.int64)
        pts = np.ascontiguousarray(points, dtype=np.int64)
        out = np.zeros((len(pts), len(self.sides)), dtype=np.float64)
        K.evs_along(c, seq, pts, self.weights, *self.args(), out)
        return out


def _pays(wager: Wager, paytable: str | None) -> tuple[int, ...]:
    """Odds to 1 of each outcome of ``wager`` under ``paytable`` (``-1``: a loss)."""
    table = wager.paytable(paytable)
    return tuple(table.pays(o) for o in wager.outcome_ids)


@cache
def ev_tables(sides: tuple[tuple[str, str], ...]) -> EVTables:
    """The EV kernel's tables for ``sides`` (built and checked once per process)."""
    poker, blazing = _categories()
    by_category = {EVCategory.POKER_HAND: poker, EVCategory.SEVENS: blazing}
    upcard = [(get_wager(wid), pt) for wid, pt in sides
              if get_wager(wid).ev_category is EVCategory.UPCARD_CLASS]
    if len(upcard) > 1:
        raise SidebetError("the EV kernel holds one upcard-class wager, not "
                           + ", ".join(w.id for w, _ in upcard))
    uw, upt = upcard[0] if upcard else (  # the kernel takes matrices in any case
        next(w for w in WAGERS.values() if w.ev_category is EVCategory.UPCARD_CLASS), None)
    cls, ma, mb, lucky = _upcard_matrices(uw.id, _pays(uw, upt))
    rows = []
    for wid, pt in sides:
        w = get_wager(wid)
        if w.ev_category is EVCategory.UPCARD_CLASS:
            row = np.zeros(K.NCAT, dtype=np.int64)
            row[_UPCARD_ROW] = 1
            rows.append(row)
        else:
            pays = np.array(_pays(w, pt), dtype=np.int64)
            rows.append(_category_weights(w.id, pays, by_category[w.ev_category]))
    weights = np.array(rows, dtype=np.int64).reshape(len(sides), K.NCAT)
    return EVTables(sides, weights, cls, ma, mb, lucky, K.straight_neighbours())
