"""Index plays generated from the exact composition-dependent analyser.

**Method** (``docs/advantage.md``).  The shoe before the deal at index ``x`` with ``d``
decks left is the full shoe's make-up shrunk to ``d`` decks and tilted along the tags,
in real (not whole) cards: rank class ``r`` keeps ``B_r (1 + β (tag_r − m))`` cards
(``B_r = d · q_r``, ``q_r`` its cards in a deck, ``m`` the mean tag), ``β`` chosen so that
the count read from the unseen cards (:func:`count_of`) is ``x``.  On each such shoe the
analyser (:func:`sidebet.exact.blackjack.engine.analyse`, which takes real counts) values
every hand against every upcard.  A hand's decision is taken at the count **at that
moment**: the count of the cards still unseen once the hand and the upcard are out.  A
hit-or-stand play weighs every composition of its total as the basic strategy reaches
it (two cards dealt, or more drawn to a hand the basic strategy hits), a double,
surrender or split play the two-card hands of its total.  The index is where the weighted
gain over the alternative changes sign, the compositions' gains and weights interpolated
to common counts at the decision, rounded to the nearest whole number.

A balanced count's index is the true count (the unseen cards' tags over their decks); an
unbalanced count's the running count at ``d`` decks left, whose **pivot**
(:func:`pivot`) is the running count at which the unseen cards lean by the same count
per deck at every depth.  **Risk-averse** indices compare certainty equivalents instead
of EVs: ``EV − f · E[X²] / 2`` with ``f`` the Kelly bettor's bet (the round's advantage at
the count before the deal over its second moment, none without an advantage).

>>> from sidebet.advantage.counts import named_system
>>> round(insurance_crossing(named_system("hi-lo"), 6), 1)
2.7
>>> ko = named_system("ko")
>>> pivot(ko, 6), round(count_of(ko, 6, tilted_shoe(ko, 6, 3.0, 7.0)), 9)
(4.0, 7.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.advantage.counts import CountSystem
from sidebet.advantage.indices import FAB_4, GENERATED_LISTS, ILLUSTRIOUS_18, IndexPlay
from sidebet.core.errors import SidebetError
from sidebet.regulation.base_game.codes import (
    DOUBLE,
    HIT,
    SPLIT,
    STAND,
    SURRENDER,
    parse_chart_code,
)
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import StrategyArrays

__all__ = ["Generated", "alternative", "class_tags", "count_of", "decision_hands", "full_set",
           "generate",
           "generated_plays", "insurance_crossing", "pivot", "play_gain", "tilted_shoe"]

FArr = npt.NDArray[np.float64]
Comp = tuple[int, ...]

_Q = (4, 4, 4, 4, 4, 4, 4, 4, 4, 16)
"""Cards of each rank class (A, 2..9, T) in one deck."""
_QA = np.array(_Q, np.float64)
_ACTIONS = {STAND: "stand", HIT: "hit", DOUBLE: "double", SPLIT: "split",
            SURRENDER: "surrender"}
_MOST = 20
"""The highest hard sum a drawn-to hand is followed to (:func:`_reached`)."""
_SPAN = range(-8, 9)
"""The counts tried, in true counts (an unbalanced count: the same lean per deck)."""


def class_tags(system: CountSystem) -> FArr:
    """The mean tag (published scale) of each rank class A, 2..9, T."""
    ranks = system.rank_tags()  # 2..A
    return np.array((ranks[12], *ranks[0:8], sum(ranks[8:12]) / 4))


def _shoe_tags(system: CountSystem, decks: int) -> float:
    """The index once every card is seen: the initial count plus the shoe's tag sum
    (published scale; 0 for a balanced count)."""
    return (system.imbalance * decks + system.initial_count(decks)) / system.scale


def count_of(system: CountSystem, decks: int, unseen: FArr) -> float:
    """The index the cards ``unseen`` (rank-class counts, real) leave: a balanced count's
    true count (the tags seen per deck unseen), an unbalanced count's running count (the
    initial count plus the tags seen)."""
    seen = _shoe_tags(system, decks) - float(unseen @ class_tags(system))
    return seen / (float(unseen.sum()) / 52) if system.balanced else seen


def pivot(system: CountSystem, decks: int) -> float | None:
    """An unbalanced count's pivot: the running count at which the unseen cards lean by
    the same count per deck (the count's imbalance) at every depth (``None``: balanced)."""
    if system.balanced:
        return None
    return _shoe_tags(system, decks)


def _index_at(system: CountSystem, decks: int, decks_left: float, lean: float) -> float:
    """The index of the shoe with ``decks_left`` decks left leaning like true count
    ``lean``: itself for a balanced count, the running count for an unbalanced one."""
    if system.balanced:
        return lean
    return float(pivot(system, decks) or 0.0) + (lean - system.imbalance / system.scale
                                                 ) * decks_left


def tilted_shoe(system: CountSystem, decks: int, decks_left: float, index: float) -> FArr:
    """The unseen rank-class counts (reals) with ``decks_left`` decks left at ``index``
    (true count, or an unbalanced count's running count): the full shoe's make-up tilted
    along the tags until :func:`count_of` reads ``index``."""
    tags = class_tags(system)
    base = decks_left * _QA
    dev = tags - float(base @ tags) / float(base.sum())
    want = _shoe_tags(system, decks) - (index * decks_left if system.balanced else index)
    beta = (want - float(base @ tags)) / float(base @ (dev * dev))
    shoe: FArr = base * (1.0 + beta * dev)
    if (shoe < 1.0).any():
        raise SidebetError(f"{system.name}: an index of {index:+g} cannot be reached with "
                           f"{decks_left:g} decks left")
    return shoe


def insurance_crossing(system: CountSystem, decks: int, decks_left: float | None = None
                       ) -> float:
    """The index at which insurance breaks even (``3 p − 1 = 0``, ``p`` the share of tens
    among the cards unseen once the ace is up), the index read at that moment."""
    d = decks / 2 if decks_left is None else decks_left
    ace = np.eye(10)[0]

    def gain(x: float) -> tuple[float, float]:
        unseen = tilted_shoe(system, decks, d, x) - ace
        return count_of(system, decks, unseen), float(3.0 * unseen[9] / unseen.sum() - 1.0)

    lo, hi = _index_at(system, decks, d, -6.0), _index_at(system, decks, d, 10.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gain(mid)[1] < 0 else (lo, mid)
    return gain((lo + hi) / 2)[0]


@dataclass(frozen=True, slots=True)
class Generated:
    """A generated index: the play, the alternative, where the play's EV (or certainty
    equivalent) overtakes it (``None``: not within the counts tried)."""

    play: IndexPlay
    against: str
    crossing: float | None
    note: str = ""

    @property
    def index(self) -> int | None:
        """The whole-number index."""
        return None if self.crossing is None else round(self.crossing)

    @property
    def text(self) -> str:
        """The play with the generated index, in the index-play text form."""
        if self.index is None:
            return f"{self.play.text} (no index: {self.note})"
        return self.indexed.text

    @property
    def indexed(self) -> IndexPlay:
        """The play at the generated index."""
        return IndexPlay(self.play.kind, self.play.total, self.play.up, self.play.play,
                         self.index or 0, self.play.below)


def _cls(value: int) -> int:
    return 0 if value == 11 else value - 1


def _comp(*values: int) -> Comp:
    out = [0] * 10
    for v in values:
        out[_cls(v)] += 1
    return tuple(out)


def _hard(c: Comp) -> int:
    """The hand's total counting aces 1."""
    return sum((k + 1) * n for k, n in enumerate(c))


def _total(c: Comp) -> tuple[int, bool]:
    hard = _hard(c)
    soft = c[0] > 0 and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


def _two_code(basic: StrategyArrays, c: Comp, up: int) -> int:
    """The basic strategy's code for the two-card hand ``c`` against ``up`` (2..11)."""
    pair = [k for k in range(10) if c[k] == 2]
    total, soft = _total(c)
    if pair:
        return int(basic.pair[11 if pair[0] == 0 else pair[0] + 1, up])
    return int((basic.soft2 if soft else basic.hard2)[total, up])


def _hits(basic: StrategyArrays, c: Comp, up: int) -> bool:
    """Whether the basic strategy draws to ``c`` (two cards: a hit, or a surrender's hit
    where surrender is not taken; a double or split ends the hit-or-stand path)."""
    total, soft = _total(c)
    if total >= 21:
        return False
    if sum(c) == 2:
        first, second = divmod(_two_code(basic, c, up), 5)
        return first == HIT or (first == SURRENDER and second == HIT)
    return int((basic.hs_soft if soft else basic.hs_hard)[total, up]) == HIT


def _reached(shoe: FArr, up: int, basic: StrategyArrays, most: int) -> dict[Comp, float]:
    """P(the player holds each composition at a decision | upcard ``up``, class), from
    ``shoe`` before the deal: two cards dealt, then a card drawn to every hand the basic
    strategy hits, up to hard sums of ``most``."""
    rest = shoe.copy()
    rest[up] -= 1
    n = float(rest.sum())
    level: dict[Comp, float] = {}
    for a in range(10):
        for b in range(a, 10):
            two = [0] * 10
            two[a] += 1
            two[b] += 1
            chance = rest[a] * (rest[b] - (a == b)) / (n * (n - 1)) * (1 if a == b else 2)
            if chance > 0:
                level[tuple(two)] = float(chance)
    out = dict(level)
    cards = 2
    upv = 11 if up == 0 else up + 1
    while level:
        nxt: dict[Comp, float] = {}
        for c, p in level.items():
            hard = _hard(c)
            if not _hits(basic, c, upv):
                continue
            for k in range(10):
                if hard + k + 1 > most or rest[k] - c[k] <= 0:
                    continue
                child = (*c[:k], c[k] + 1, *c[k + 1:])
                nxt[child] = nxt.get(child, 0.0) + p * float(rest[k] - c[k]) / (n - cards)
        out.update(nxt)
        level = nxt
        cards += 1
    return out


def _compositions(p: IndexPlay, basic: StrategyArrays, reach: dict[Comp, float]
                  ) -> dict[Comp, float]:
    """The compositions the play decides and their weights: every composition of a
    hit-or-stand play's total the basic strategy reaches (a pair it splits left out), the
    two-card hands of a double, surrender or split."""
    first = parse_chart_code(p.play).first
    if p.kind == "pair":
        c = _comp(p.total, p.total)
        return {c: reach.get(c, 0.0)}
    soft = p.kind == "soft"
    out: dict[Comp, float] = {}
    for c, w in reach.items():
        if _total(c) != (p.total, soft) or w <= 0:
            continue
        if sum(c) == 2 and max(c) == 2 and divmod(_two_code(basic, c, p.up), 5)[0] == SPLIT:
            continue
        if sum(c) > 2 and first not in (HIT, STAND):
            continue
        out[c] = w
    if not out:
        raise SidebetError(f"{p.text}: no hand the basic strategy plays makes it")
    return out


def decision_hands(p: IndexPlay, shoe: FArr, basic: StrategyArrays) -> dict[Comp, float]:
    """The compositions at which the play is decided, from ``shoe`` (rank-class counts
    before the deal), and the chance of each: :func:`_compositions` of :func:`_reached`."""
    return _compositions(p, basic, _reached(shoe, _cls(p.up), basic, _MOST))


def alternative(p: IndexPlay, basic: StrategyArrays | None) -> str:
    """What the play is weighed against: its ``below`` play, the other of hit and stand,
    or ``basic``'s hit or stand for the hand (default: stand from 17, else hit)."""
    first = parse_chart_code(p.play).first
    if p.below is not None:
        return _ACTIONS[parse_chart_code(p.below).first]
    if first in (HIT, STAND):
        return "hit" if first == STAND else "stand"
    total = 2 * p.total if p.kind == "pair" and p.total < 11 else p.total
    if basic is None:
        return "stand" if total >= 17 else "hit"
    soft = p.kind == "soft" or (p.kind == "pair" and p.total == 11)
    row = 12 if soft and p.kind == "pair" else total
    return _ACTIONS[int((basic.hs_soft if soft else basic.hs_hard)[row, p.up])]


def _hands(p: IndexPlay) -> list[tuple[Comp, float]]:
    """The two-card hands (rank-class counts) of the play's hand and their weights in a
    full shoe: every pair of different cards 2..T making a hard total, ace and the rest
    for a soft total, the pair itself."""
    if p.kind == "pair":
        return [(_comp(p.total, p.total), 1.0)]
    if p.kind == "soft":
        return [(_comp(11, p.total - 11), 1.0)]
    found = [(_comp(a, p.total - a), float(_Q[a - 1] * _Q[p.total - a - 1]))
             for a in range(2, 11) if a < p.total - a <= 10]
    if not found:
        raise SidebetError(f"{p.text}: no two different cards make hard {p.total}")
    return found


def play_gain(p: IndexPlay, other: str, shoe: tuple[int, ...], rules: HouseRules) -> float:
    """The exact EV of the play less that of ``other`` on ``shoe`` (rank-class counts
    before the deal), averaged over the hand's two-card compositions (the playing
    efficiency's gain off the top, :mod:`sidebet.advantage.efficiency`)."""
    from sidebet.exact.blackjack.engine import analyse  # the analyser: only now

    action = _ACTIONS[parse_chart_code(p.play).first]
    hands = _hands(p)
    up = _cls(p.up)
    gain = 0.0
    for hand, w in hands:
        a = analyse(shoe, rules, focus=hand)
        vals = a.values(hand, up)
        if action not in vals or other not in vals:
            raise SidebetError(f"{p.text}: {action} or {other} is not allowed by the rules")
        gain += w * (a.ev_of(hand, up, action) - a.ev_of(hand, up, other))
    return gain / sum(w for _, w in hands)


@dataclass(frozen=True, slots=True)
class _Shoe:
    """One shoe tried: its analysis, the Kelly bettor's bet (a fraction of the bank) and
    the split cross terms of the neutral shoe (for the risk-averse second moments)."""

    shoe: FArr
    analysis: Any
    kelly: float
    cross: FArr


def _second(s: _Shoe, c: Comp, up: int, action: str) -> float:
    """``E[X²]`` of ``action`` for hand ``c`` as the player sees it (given no dealer
    Blackjack when the dealer peeked)."""
    a = s.analysis
    nb = float(a.no_bj(c, up))
    if action == "surrender":
        v = 0.25 * nb
    elif action == "split":
        p = c.index(2)
        v = float(a.split_own[p, up] + s.cross[p, up])
    else:
        v = float({"stand": a.stand2, "hit": a.hit2, "double": a.dbl2}[action][a.row(c), up])
    if a.rules.peek:
        return v / nb if nb > 0 else 0.0
    return v + (1.0 - nb)


def _gain(s: _Shoe, c: Comp, up: int, action: str, other: str, averse: bool) -> float:
    a = s.analysis
    g = float(a.ev_of(c, up, action) - a.ev_of(c, up, other))
    if averse and s.kelly > 0:
        g -= s.kelly / 2 * (_second(s, c, up, action) - _second(s, c, up, other))
    return g


def _shoes(system: CountSystem, rules: HouseRules, decks: int, d: float,
           grid: Sequence[float], averse: bool, pairs: set[int]) -> list[_Shoe]:
    """The shoes tried and their analyses (the analyser only now: it is costly); the
    split cross terms of ``pairs`` when risk-averse."""
    from sidebet.exact.blackjack.engine import analyse, split_moments
    from sidebet.exact.blackjack.moments import mean_moments, round_moments

    cross = np.zeros((10, 10))
    var = 1.0
    if averse:
        neutral = tuple(float(x) for x in np.rint(d * _QA))
        a0 = analyse(neutral, rules)
        mean, second, _ = round_moments(a0)
        var = second - mean * mean
        for pair in sorted(pairs):
            cross[pair] = np.nan_to_num(split_moments(a0, pair).cross)
    out = []
    for x in grid:
        shoe = tilted_shoe(system, decks, d, x)
        a = analyse(tuple(float(v) for v in shoe), rules)
        kelly = max(mean_moments(a)[0], 0.0) / var if averse else 0.0
        out.append(_Shoe(shoe, a, kelly, cross))
    return out


def generate(plays: Sequence[IndexPlay], system: CountSystem, rules: HouseRules, decks: int,
             decks_left: float | None = None, counts: Sequence[float] = _SPAN,
             basic: StrategyArrays | None = None, averse: bool = False
             ) -> tuple[Generated, ...]:
    """The index of every play for ``system``, ``rules`` and ``decks`` (``decks_left``:
    default half the shoe), tried at ``counts`` (true counts; an unbalanced count at the
    running counts of the same lean); ``basic``: the strategy the plays depart from
    (default the table's); ``averse``: risk-averse indices."""
    if basic is None:
        from sidebet.sim.strategy_tables import strategy_arrays

        basic = strategy_arrays(rules, decks)
    d = decks / 2 if decks_left is None else decks_left
    grid = [_index_at(system, decks, d, float(t)) for t in counts]
    pairs = {_cls(p.total) for p in plays if p.kind == "pair"}
    shoes = _shoes(system, rules, decks, d, grid, averse, pairs) if any(
        p.kind != "insurance" for p in plays) else []
    reach: dict[tuple[int, int], dict[Comp, float]] = {}
    out: list[Generated] = []
    for p in plays:
        if p.kind == "insurance":
            out.append(Generated(p, "no insurance", insurance_crossing(system, decks, d)))
            continue
        other = alternative(p, basic)
        action = _ACTIONS[parse_chart_code(p.play).first]
        up = _cls(p.up)
        curves: list[tuple[FArr, FArr, FArr]] = []  # per composition: counts, weights, gains
        per: dict[Comp, list[tuple[float, float, float]]] = {}
        for i, s in enumerate(shoes):
            if (i, up) not in reach:
                reach[(i, up)] = _reached(s.shoe, up, basic, _MOST)
            for c, w in _compositions(p, basic, reach[(i, up)]).items():
                vals = s.analysis.values(c, up)
                if action not in vals or other not in vals:
                    continue
                unseen = s.shoe - np.asarray(c, np.float64)
                unseen[up] -= 1
                per.setdefault(c, []).append((count_of(system, decks, unseen), w,
                                              _gain(s, c, up, action, other, averse)))
        for rows in per.values():
            arr = np.array(rows)
            curves.append((arr[:, 0], arr[:, 1], arr[:, 2]))
        out.append(_crossing(p, other, grid, curves) if curves else Generated(
            p, other, None, f"{action} or {other} is not allowed by the rules"))
    return tuple(out)


def _crossing(p: IndexPlay, other: str, grid: Sequence[float],
              curves: list[tuple[FArr, FArr, FArr]]) -> Generated:
    """Where the weighted gain at the decision changes sign, over the grid's counts."""
    points: list[tuple[float, float]] = []
    for t in grid:
        w = sum(float(np.interp(t, x, wt)) for x, wt, _ in curves)
        g = sum(float(np.interp(t, x, wt * gn)) for x, wt, gn in curves)
        points.append((t, g / w if w > 0 else 0.0))
    if points[0][1] >= 0:
        return Generated(p, other, None, f"better than {other} at every count from "
                                         f"{points[0][0]:+.1f}")
    for (t0, g0), (t1, g1) in pairwise(points):
        if g0 < 0 <= g1:
            return Generated(p, other, t0 + (t1 - t0) * (-g0) / (g1 - g0))
    return Generated(p, other, None, f"not better than {other} up to {points[-1][0]:+.1f}")


def full_set(rules: HouseRules, basic: StrategyArrays) -> tuple[IndexPlay, ...]:
    """Every decision a count may change, against every upcard: stand against hit for hard
    totals 12 to 17 and soft 17 to 19, a double (against hit or stand) for hard 8 to 11
    and soft 13 to 20, a split of every pair, a surrender (where the rules allow it) of
    hard 14 to 17.  Where the basic strategy already makes the play, the alternative is
    played below the index."""
    out: list[IndexPlay] = []

    def letter(code: int) -> str:  # the basic strategy's hit or stand, as a chart code
        return "S" if code == STAND else "H"

    def add(kind: str, total: int, up: int, play: str, other: str, basic_code: int) -> None:
        below = other if parse_chart_code(play).first == basic_code // 5 else None
        out.append(IndexPlay(kind, total, up, play, 0, below))

    ups = range(2, 12)
    for up in ups:
        for t in range(12, 18):
            out.append(IndexPlay("hard", t, up, "S", 0, "H"))
        for t in (17, 18, 19):
            out.append(IndexPlay("soft", t, up, "S", 0, "H"))
    for up in ups:
        for t in range(8, 12):
            hs = letter(int(basic.hs_hard[t, up]))
            add("hard", t, up, "D" + hs.lower(), hs, int(basic.hard2[t, up]))
        for t in range(13, 21):
            hs = letter(int(basic.hs_soft[t, up]))
            add("soft", t, up, "D" + hs.lower(), hs, int(basic.soft2[t, up]))
        for v in range(2, 12):
            row = 12 if v == 11 else 2 * v
            hs = letter(int((basic.hs_soft if v == 11 else basic.hs_hard)[row, up]))
            add("pair", v, up, "P", hs, int(basic.pair[v, up]))
        if rules.late_surrender:
            for t in range(14, 18):
                hs = letter(int(basic.hs_hard[t, up]))
                add("hard", t, up, "R" + hs.lower(), hs, int(basic.hard2[t, up]))
    return tuple(out)


def _candidates(name: str, rules: HouseRules, basic: StrategyArrays) -> tuple[IndexPlay, ...]:
    if name == "full":
        return (ILLUSTRIOUS_18[0], *full_set(rules, basic))
    if name == "i18":
        return ILLUSTRIOUS_18
    if name == "fab4":
        return FAB_4
    raise SidebetError(f"generated indices: {name!r} is not a list ("
                       f"{', '.join(GENERATED_LISTS)}, each also NAME-ra, risk-averse)")


def generated_plays(names: str, system: CountSystem, rules: HouseRules, decks: int,
                    basic: StrategyArrays | None = None) -> tuple[tuple[IndexPlay, ...],
                                                                  tuple[Generated, ...]]:
    """The plays of the lists ``names`` (e.g. ``i18+fab4``, ``full-ra``) with generated
    indices (plays with no index in range left out), and every generated row; kept in
    the disk cache."""
    from sidebet.native.diskcache import cached_arrays
    from sidebet.sim.strategy_tables import strategy_arrays

    table = strategy_arrays(rules, decks) if basic is None else basic
    rows: list[Generated] = []
    for raw in names.split("+"):
        name = raw.strip().lower()
        averse = name.endswith("-ra")
        plays = _candidates(name.removesuffix("-ra"), rules, table)

        def build(plays: tuple[IndexPlay, ...] = plays, averse: bool = averse
                  ) -> dict[str, npt.NDArray[Any]]:
            got = generate(plays, system, rules, decks, basic=table, averse=averse)
            return {"crossing": np.array([np.nan if g.crossing is None else g.crossing
                                          for g in got], np.float64),
                    "against": np.array([g.against for g in got]),
                    "note": np.array([g.note for g in got])}

        key = f"{system.values} {system.scale} {system.irc} {rules!r} decks={decks} {name}"
        got = cached_arrays("generated-indices", key, build)
        rows.extend(Generated(p, str(a), None if np.isnan(c) else float(c), str(n))
                    for p, c, a, n in zip(plays, got["crossing"], got["against"],
                                          got["note"], strict=True))
    kept = tuple(g.indexed for g in rows if g.index is not None)
    return kept, tuple(rows)
