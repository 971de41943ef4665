"""The exact composition-dependent engine behind :mod:`sidebet.exact.blackjack`.

One :func:`analyse` call takes the ten rank-class counts of a shoe *before* the deal and
the house rules, and returns, for every upcard and every player hand composition, the
exact values of standing, hitting and doubling, and for every pair the exact value of
splitting (fixed post-split strategy, resplits up to the table's maximum), all as
``E[net outcome · 1{no dealer Blackjack}]`` per unit of initial wager.  See
``docs/blackjack.md`` for the method.

>>> a = analyse((4,) * 9 + (16,), HouseRules())
>>> round(a.ev_of("T T", 5, "stand"), 4)
0.6974
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from sidebet.exact.blackjack import dispatch as kern
from sidebet.exact.blackjack._tables import CompTable, comp_table
from sidebet.exact.blackjack.dealer_rows import (
    base_tables,
    extra_pairs,
    fill_dealer,
    max_split_hands,
)
from sidebet.exact.blackjack.split_cross import Finals, Leaf, cross_terms, split_finals
from sidebet.native.threads import idle_cores, run_parts
from sidebet.regulation.base_game.codes import ACTION_NAMES as ACTIONS
from sidebet.regulation.base_game.codes import CLASS_NAMES, class_of_text
from sidebet.regulation.house_rules import HouseRules

__all__ = [
    "ACTIONS",
    "CLASS_NAMES",
    "Analysis",
    "SplitMoments",
    "analyse",
    "base_tables",
    "class_of_text",
    "empty_values",
    "extra_pairs",
    "max_split_hands",
    "no_bj_prob",
    "split_moments",
    "split_second",
    "split_values",
    "two_card_hands",
]

FArr = npt.NDArray[np.float64]
IArr = npt.NDArray[np.int64]
I8Arr = npt.NDArray[np.int8]

def no_bj_prob(r: IArr | tuple[int, ...], up: int) -> float:
    """P(the dealer has no Blackjack) given unseen rank-class counts ``r`` (upcard removed).

    >>> no_bj_prob((4,) * 9 + (16,), 0)
    0.6923076923076923
    """
    arr = np.asarray(r, dtype=np.int64)
    return float(kern.no_bj(arr, int(arr.sum()), up))


@dataclass(frozen=True, slots=True, eq=False)
class Analysis:
    """All exact values for one shoe (before the deal) and one set of house rules.

    Arrays are indexed ``[hand row, upcard class]``; a hand row is a composition of the
    table (:func:`sidebet.exact.blackjack._tables.comp_table`).  Values are unnormalised:
    ``E[outcome · 1{no dealer Blackjack}]``.
    """

    shoe: tuple[float, ...]
    """Rank-class counts before the deal: whole cards, or real (a tilted shoe)."""
    rules: HouseRules
    table: CompTable
    stand: FArr
    stand2: FArr
    hit: FArr
    hit2: FArr
    dbl: FArr
    dbl2: FArr
    split: FArr
    """``split[p, u]``: value of splitting a pair of class ``p`` (nan where impossible)."""
    split_own: FArr
    """The split hands' own squares ``E[Σ X_i²]``; the second moment of the split adds the
    cross terms between hands (:func:`split_second`, exact, computed when asked)."""
    split_hands: FArr
    """Expected number of hands after splitting."""
    hs_dec: I8Arr
    """Hit (1) or stand (0) for each hand row: the play after a hit and of split hands."""
    two_dec: I8Arr
    """Stand (0), hit (1) or double (2) for a split hand's first two cards."""
    initial: I8Arr | None = None
    """Fixed first decisions (index into :data:`ACTIONS`) per two-card row; ``None``: best."""

    def post_split_action(self, cards: tuple[int, ...] | str, up: int) -> str:
        """How a split hand holding ``cards`` is played: ``stand``, ``hit`` or ``double``."""
        counts = _counts(cards)
        i = self.table.index[counts]
        d = int(self.two_dec[i, up]) if sum(counts) == 2 else int(self.hs_dec[i, up])
        if d == 2:
            total, soft = _soft_total(np.asarray(counts))
            if not (self.rules.double_after_split and self.rules.double.allows(total, soft)):
                d = int(self.hs_dec[i, up])
        return ("stand", "hit", "double")[d]

    def row(self, cards: tuple[int, ...] | str) -> int:
        """Hand row of a composition given as counts or as text like ``"T 6"``."""
        counts = _counts(cards)
        return self.table.index[counts]

    def unseen(self, cards: tuple[int, ...] | str, up: int) -> FArr:
        """Unseen counts (hole card included) once ``cards`` and the upcard are dealt."""
        r = np.asarray(self.shoe, dtype=np.float64) - np.asarray(_counts(cards), dtype=np.float64)
        r[up] -= 1
        return r

    def no_bj(self, cards: tuple[int, ...] | str, up: int) -> float:
        """P(no dealer Blackjack | these player cards and the upcard): the kernel's
        :func:`sidebet.exact.blackjack._kernels.no_bj` in plain Python (called for every
        hand of the round's sums, where a kernel call costs more than the arithmetic)."""
        counts = _counts(cards)
        total = sum(self.shoe) - sum(counts) - 1
        if total <= 0 or up not in (0, 9):
            return 1.0
        hole = 9 - up  # the class that makes a Blackjack under this upcard
        return 1.0 - (self.shoe[hole] - counts[hole]) / total

    def values(self, cards: tuple[int, ...] | str, up: int) -> dict[str, float]:
        """Unnormalised values of the actions open to this hand (first two cards: all)."""
        counts = _counts(cards)
        i = self.table.index[counts]
        nb = self.no_bj(counts, up)
        out = {"stand": float(self.stand[i, up]), "hit": float(self.hit[i, up])}
        if sum(counts) == 2:
            hard = sum((c + 1) * k for c, k in enumerate(counts))
            soft = counts[0] > 0 and hard + 10 <= 21
            total = hard + 10 if soft else hard
            if self.rules.double.allows(total, soft):
                d = float(self.dbl[i, up])
                if not self.rules.peek and self.rules.dealer_blackjack_takes_doubles:
                    d -= 1.0 - nb
                out["double"] = d
            pair = [c for c in range(10) if counts[c] == 2]
            if pair and not np.isnan(self.split[pair[0], up]):
                out["split"] = float(self.split[pair[0], up])
            if self.rules.late_surrender:
                out["surrender"] = -0.5 * nb
        return out

    def ev_of(self, cards: tuple[int, ...] | str, up: int, action: str) -> float:
        """Expected net win per unit of initial wager of ``action``, as the player sees it:
        given no dealer Blackjack when the dealer peeked (upcard A or T), otherwise
        including the loss of the initial wager to a dealer Blackjack."""
        v = self.values(cards, up)[action]
        nb = self.no_bj(cards, up)
        if self.rules.peek:
            return v / nb if nb > 0 else 0.0
        return v - (1.0 - nb)

    def best(self, cards: tuple[int, ...] | str, up: int) -> tuple[str, float]:
        """The action taken (fixed, or of greatest value) and its value (unnormalised)."""
        vals = self.values(cards, up)
        if self.initial is not None:
            fixed = ACTIONS[int(self.initial[self.row(cards), up])]
            if fixed in vals:
                return fixed, vals[fixed]
        action = max(vals, key=lambda a: (vals[a], -ACTIONS.index(a)))
        return action, vals[action]


def _counts(cards: tuple[int, ...] | str) -> tuple[int, ...]:
    if isinstance(cards, str):
        out = [0] * 10
        for part in cards.replace(",", " ").split():
            out[class_of_text(part)] += 1
        return tuple(out)
    return tuple(int(x) for x in cards)


def two_card_hands() -> Iterator[tuple[int, int]]:
    """Unordered two-card hands as class pairs ``(a, b)`` with ``a <= b``."""
    for a in range(10):
        for b in range(a, 10):
            yield a, b


def _pair_counts(a: int, b: int) -> tuple[int, ...]:
    out = [0] * 10
    out[a] += 1
    out[b] += 1
    return tuple(out)


def empty_values(k: int, unset: int = 0) -> list[FArr]:
    """Six ``[row, upcard]`` value arrays: ``k`` rows of zeros, or ``unset`` rows of any
    content (for a kernel that writes every row read)."""
    if unset:
        return [np.empty((unset, 10)) for _ in range(6)]
    return [np.zeros((k, 10)) for _ in range(6)]


def _soft_total(counts: IArr) -> tuple[int, bool]:
    hard = int(np.dot(counts, np.arange(1, 11)))
    soft = bool(counts[0] > 0 and hard + 10 <= 21)
    return (hard + 10 if soft else hard), soft


@dataclass(frozen=True, slots=True, eq=False)
class SplitMoments:
    """The moments of splitting one pair, per upcard (``nan`` where it cannot be split).

    ``R = X_1 + ... + X_N`` is the round's result, ``X_i`` the result of split hand ``i``;
    every moment is unnormalised by the dealer's Blackjack (``E[... · 1{no dealer BJ}]``).
    """

    ev: FArr
    """``E[R]``, exact."""
    own: FArr
    """``E[X_1² + ... + X_N²]``, the hands' own squares, exact."""
    cross: FArr
    """``E[Σ_{i≠j} X_i X_j]``, the cross terms between two hands of the split, exact
    (:mod:`sidebet.exact.blackjack.split_cross`)."""
    hands: FArr
    """``E[N]``, the expected number of hands (exact)."""

    @property
    def second(self) -> FArr:
        """``E[R²]`` = own squares + cross terms."""
        return self.own + self.cross


def _split_all(
    shoe: IArr | FArr,
    rules: HouseRules,
    table: CompTable,
    dealer: FArr,
    hs_dec: I8Arr,
    two_dec: I8Arr,
    pairs: range | list[int] = range(10),
) -> tuple[FArr, FArr, FArr]:
    """Split values, own squares and hands ``[p, u]`` for the fixed post-split strategy
    given by the decisions.  The pairs are dealt round among threads, one per idle core
    (the kernel releases the interpreter's lock); each pair is computed alone, so the
    values are the same however they were shared out."""
    split = np.full((10, 10), np.nan)
    own = np.full((10, 10), np.nan)
    nhands = np.full((10, 10), np.nan)

    def some(ps: list[int]) -> None:
        work = empty_values(0, table.comps.shape[0])  # one set of arrays for these pairs
        for p in ps:
            m = _split_pair(shoe, rules, table, dealer, hs_dec, two_dec, p, cross=False,
                            work=work)
            split[p] = m.ev
            own[p] = m.own
            nhands[p] = m.hands

    todo = list(pairs)
    n = max(1, min(idle_cores(), 4, len(todo)))
    run_parts(some, [todo[k::n] for k in range(n)])
    return split, own, nhands


def split_moments(a: Analysis, pair: int) -> SplitMoments:
    """The split moments of ``pair`` under a full analysis' decisions (not a focused one).

    One deck, 8,8 against a 6, split to 3 hands:

    >>> m = split_moments(analyse((4,) * 9 + (16,), HouseRules()), 7)
    >>> [round(float(x[5]), 4) for x in (m.ev, m.hands, m.own, m.cross)]
    [0.383, 2.0808, 3.4173, 2.2691]
    """
    if any(float(x) != int(x) for x in a.shoe):
        raise ValueError("split moments: the cross terms need a shoe of whole cards")
    table, dealer = base_tables(a.shoe, a.rules.dealer_hits_soft_17, extra_pairs(a.rules))
    shoe = np.asarray(a.shoe, dtype=np.float64)
    return _split_pair(shoe, a.rules, table, dealer, a.hs_dec, a.two_dec, pair, cross=True)


@cache
def split_second(a: Analysis) -> FArr:
    """``E[R²]`` of splitting each pair ``[p, u]`` under a full analysis' decisions, exact:
    the own squares and the cross terms (the costly part: every pair of final hands)."""
    out = np.full((10, 10), np.nan)
    for p in range(10):
        if not np.isnan(a.split[p]).all():
            out[p] = split_moments(a, p).second
    return out


def _split_plays(
    rules: HouseRules, hs_dec: I8Arr, two_dec: I8Arr, p: int, two_rows: IArr
) -> IArr:
    """How each two-card split hand ``(p, c)`` is played against upcard ``u``, ``[c, u]``:
    0 stand, 1 hit, 2 double (a double the rules forbid after a split falls back)."""
    if p == 0 and not rules.hit_split_aces:
        return np.zeros((10, 10), dtype=np.int64)
    play = two_dec[two_rows].astype(np.int64)
    for c in range(10):
        total, soft = _soft_total(np.asarray(_pair_counts(p, c)))
        if not (rules.double_after_split and rules.double.allows(total, soft)):
            play[c] = np.where(play[c] == 2, hs_dec[two_rows[c]], play[c])
    return play


def _split_pair(
    shoe: IArr | FArr,
    rules: HouseRules,
    table: CompTable,
    dealer: FArr,
    hs_dec: I8Arr,
    two_dec: I8Arr,
    p: int,
    *,
    cross: bool,
    work: list[FArr] | None = None,
) -> SplitMoments:
    """Mean, own squares and (if ``cross``) cross terms of splitting pair ``p`` against
    every upcard (``nan`` where not computed).  ``work``: six ``[row, upcard]`` arrays to
    write the split hands' values in (any content: the rows read are all written), kept
    from one pair to the next instead of new ones each time."""
    nan = np.full(10, np.nan)
    shoe = np.ascontiguousarray(shoe, dtype=np.float64)  # whole or real counts
    big_h = max_split_hands(rules, p)
    amax = 2 * (big_h - 2)
    p0 = np.array([shoe[p] - 2 - (u == p) for u in range(10)], dtype=np.float64)
    n0 = np.full(10, float(shoe.sum()) - 3.0)
    feasible = (p0 >= 0) & (np.array([shoe[u] - 2 * (u == p) for u in range(10)]) > 0)
    if not feasible.any():
        return SplitMoments(nan, nan, nan, nan)
    ups = np.arange(10, dtype=np.int64)
    k = table.comps.shape[0]
    two_rows = np.array([table.index[_pair_counts(p, c)] for c in range(10)], dtype=np.int64)
    play = _split_plays(rules, hs_dec, two_dec, p, two_rows)
    xs: list[FArr] = []
    ps: list[FArr] = []
    # play_values writes every row it is given, and a hand holding p only leads to hands
    # holding p: the rows read are all written, so the arrays need no zeroing
    st, st2, hi, hi2, db, db2 = work if work is not None else empty_values(0, k)
    for a in range(amax + 1):
        hrows, crows = table.split_rows[(p, a + 1)]
        kern.play_values(
            hrows, crows, table.hard, table.comps, table.child, dealer, shoe, ups,
            hs_dec, st, st2, hi, hi2, db, db2,
        )
        # value [c, u] of the two-card split hand (p, c) as it is played, and its square
        val = np.choose(play, [st[two_rows], hi[two_rows], db[two_rows]])
        val2 = np.choose(play, [st2[two_rows], hi2[two_rows], db2[two_rows]])
        # the unseen cards [u, c] with a extra pair cards gone
        r = shoe[None, :] - np.eye(10, dtype=np.int64)
        r[:, p] -= a + 2
        big_r = r.sum(axis=1)
        ok = (r.min(axis=1) >= 0) & (big_r > 0)
        w = np.where(ok[:, None], np.maximum(r, 0) / np.maximum(big_r, 1)[:, None], 0.0)
        # mean and second moment of a hand with a extra pair cards gone: x with any second
        # card, pv with the pair card as second card (played as a hand)
        x = np.stack([np.einsum("uc,cu->u", w, val), np.einsum("uc,cu->u", w, val2)])
        has_p = ok & (r[:, p] > 0)
        pv = np.stack([np.where(has_p, val[p], 0.0), np.where(has_p, val2[p], 0.0)])
        xs.append(x)
        ps.append(pv)
    moments, hands, leaves = _split_patterns(big_h, p0, n0, xs, ps)
    keep = np.where(feasible, 1.0, np.nan)
    if not cross:
        return SplitMoments(ev=moments[0] * keep, own=moments[1] * keep, cross=nan,
                            hands=hands * keep)
    order = table.split_rows[(p, 1)][0][::-1].copy()

    def finals(u: int) -> tuple[Finals, Finals] | None:
        if not feasible[u]:
            return None
        dec = (hs_dec[:, u] > 0).astype(np.int8)
        dec[two_rows] = play[:, u]
        others = [int(two_rows[c]) for c in range(10) if c != p]
        return (split_finals(table, order, dec, others),
                split_finals(table, order, dec, [int(two_rows[p])]))

    both = cross_terms(shoe.astype(np.int64), p, rules.dealer_hits_soft_17, amax, leaves, p0, n0, finals)
    return SplitMoments(
        ev=moments[0] * keep, own=moments[1] * keep, cross=both * keep, hands=hands * keep,
    )


def _split_patterns(
    big_h: int, p0: FArr, n0: FArr, xs: list[FArr], ps: list[FArr]
) -> tuple[FArr, FArr, list[Leaf]]:
    """Sum the split hands' values over the patterns of pair / non-pair second cards.

    ``xs[a]``, ``ps[a]``: per-hand quantities (any leading shape, upcards last) of a hand
    with ``a`` extra pair cards gone and any second card / the pair card as second card;
    the sums are linear in them, so one call sums the hands' means and own squares.
    ``X(a, b)``: a hand's value when ``a`` more pair cards and ``b`` random non-pair cards
    are gone; ``N(a, b)``: the same for a hand whose second card is not a pair card.
    """
    memo_x: dict[tuple[int, int], FArr] = {}
    memo_n: dict[tuple[int, int], FArr] = {}
    zero = np.zeros_like(xs[0])

    def ratio(num: FArr, den: FArr) -> FArr:
        return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)

    def xv(a: int, b: int) -> FArr:
        if (a, b) in memo_x:
            return memo_x[(a, b)]
        if a >= len(xs):
            return zero
        if b == 0:
            res = xs[a]
        else:
            v = np.clip(ratio(p0 - a, n0 - a - b + 1), 0.0, 1.0)
            res = ratio(xv(a, b - 1) - v * xv(a + 1, b - 1), 1.0 - v)
        memo_x[(a, b)] = res
        return res

    def nv(a: int, b: int) -> FArr:
        if (a, b) in memo_n:
            return memo_n[(a, b)]
        if a >= len(xs):
            return zero
        if b == 0:
            v0 = np.clip(ratio(p0 - a, n0 - a), 0.0, 1.0)
            res = ratio(xs[a] - v0 * ps[a], 1.0 - v0)
        else:
            v = np.clip(ratio(p0 - a, n0 - a - b), 0.0, 1.0)
            res = ratio(nv(a, b - 1) - v * nv(a + 1, b - 1), 1.0 - v)
        memo_n[(a, b)] = res
        return res

    total = zero.copy()
    n1 = np.zeros(10)
    leaves: list[Leaf] = []

    def walk(hands: int, done: int, i_p: int, j_n: int, prob: FArr) -> None:
        nonlocal total, n1
        if not prob.any():
            return
        if hands == big_h or done == hands:
            n_n = done
            n_x = hands - done
            contrib = zero
            if n_x:
                contrib = contrib + n_x * xv(hands - 2, done)
            if n_n:
                contrib = contrib + n_n * nv(hands - 2, done - 1)
            total = total + prob * contrib
            n1 = n1 + prob * hands
            leaves.append(Leaf(hands, done, prob))
            return
        pp = np.clip(ratio(p0 - i_p, n0 - i_p - j_n), 0.0, 1.0)
        walk(hands + 1, done, i_p + 1, j_n, prob * pp)
        walk(hands, done + 1, i_p, j_n + 1, prob * (1.0 - pp))

    walk(2, 0, 0, 0, np.ones(10))
    return total, n1, leaves


def optimal_decisions(stand: FArr, hit: FArr, dbl: FArr) -> tuple[I8Arr, I8Arr]:
    """Hit/stand decisions and two-card decisions (0 stand, 1 hit, 2 double) by value."""
    hs = (hit > stand).astype(np.int8)
    two = hs.copy()
    better = dbl > np.maximum(stand, hit)
    two[better] = 2
    return hs, two


def split_values(
    shoe: tuple[int, ...],
    rules: HouseRules,
    table: CompTable,
    dealer: FArr,
    hs_dec: I8Arr,
    two_dec: I8Arr,
) -> tuple[FArr, FArr, FArr]:
    """Split values, the hands' own squares and expected hands, ``[pair, upcard]``."""
    arr = np.asarray(shoe, dtype=np.float64)
    return _split_all(arr, rules, table, dealer, hs_dec, two_dec)


@cache
def _focus_rows(table: CompTable, base: tuple[int, ...]) -> tuple[IArr, IArr]:
    """The rows of ``table`` holding the composition ``base``, and in the table's order."""
    need = np.all(table.comps >= np.asarray(base, dtype=np.int64), axis=1)
    return np.flatnonzero(need).astype(np.int64), table.order[need[table.order]]


@cache
def analyse(
    shoe: tuple[float, ...], rules: HouseRules, focus: tuple[int, ...] | None = None,
    up: int | None = None,
) -> Analysis:
    """Exact values for a shoe of rank-class counts ``(A, 2, ..., 9, T)`` before the deal
    (whole cards; or real counts, a shoe tilted to a count, each draw the same ratio of
    the cards left).

    Composition-dependent zero-memory play: every hand is played by the decision that
    maximises its own value; split hands use the decisions of the same composition unsplit.
    With ``focus`` (a composition), only hands holding those cards are valued (fast); with
    ``focus`` and ``up``, only against that upcard (faster; the other upcards' values are
    meaningless), the same values against it.
    """
    arr = np.asarray(shoe, dtype=np.float64)
    if focus is None:
        table, dealer = base_tables(tuple(shoe), rules.dealer_hits_soft_17, extra_pairs(rules))
        order = table.order
        pairs: list[int] = list(range(10))
    else:
        table = comp_table(extra_pairs(rules))
        pairs = [c for c in range(10) if focus[c] == 2 and sum(focus) == 2]
        base = np.asarray(focus, dtype=np.int64).copy()
        if pairs:
            base[pairs[0]] = 1  # split hands hold one pair card: their decisions are needed
        rows, order = _focus_rows(table, tuple(int(v) for v in base))
        dealer = np.zeros((table.comps.shape[0], 10, 5))
        fill_dealer(table, rows, arr, rules.dealer_hits_soft_17, dealer, up)
    k = table.comps.shape[0]
    st, st2, hi, hi2, db, db2 = empty_values(k)
    dec = np.full((k, 10), -1, dtype=np.int8)
    ups = np.arange(10, dtype=np.int64) if focus is None or up is None else np.array(
        [up], dtype=np.int64)
    kern.play_values(
        order, order, table.hard, table.comps, table.child, dealer, arr, ups, dec,
        st, st2, hi, hi2, db, db2,
    )
    if focus is None:
        hs_dec, two_dec = optimal_decisions(st, hi, db)
    else:  # the other rows' values are zeros, whose decisions are zeros (stand)
        hs_dec = np.zeros((k, 10), dtype=np.int8)
        two_dec = np.zeros((k, 10), dtype=np.int8)
        hs_dec[rows], two_dec[rows] = optimal_decisions(st[rows], hi[rows], db[rows])
    split, own, nh = _split_all(arr, rules, table, dealer, hs_dec, two_dec, pairs)
    return Analysis(
        shoe=tuple(int(x) if float(x).is_integer() else float(x) for x in shoe), rules=rules, table=table, stand=st, stand2=st2,
        hit=hi, hit2=hi2, dbl=db, dbl2=db2, split=split, split_own=own, split_hands=nh,
        hs_dec=hs_dec, two_dec=two_dec,
    )
