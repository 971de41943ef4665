"""Index plays generated from the exact composition-dependent analyser.

**Method** (``docs/advantage.md``): for a balanced count, the shoe at true count ``t``
with ``d`` decks left is the full shoe's composition shrunk to ``d`` decks and tilted
along the tags: rank class ``r`` keeps ``d · q_r · (1 + β · tag_r)`` cards (``q_r`` the
cards of the class in one deck), ``β`` chosen so that the unseen cards' tags sum to
``−t · d`` (the running count seen is ``t · d``), rounded to whole cards.  On each such
shoe the analyser (:func:`sidebet.exact.blackjack.engine.analyse`, focused on the hand)
gives the exact EV of the index play and of its alternative (the basic strategy's hit or
stand, or the other of the two); the index is where their difference changes sign, by
linear interpolation between whole true counts of the rounded shoes, rounded to the
nearest whole number.  Insurance needs no analyser: its EV is ``3 p − 1`` with ``p`` the
share of ten-valued cards among those unseen once the ace is up.

>>> from sidebet.advantage.counts import named_system
>>> round(insurance_crossing(named_system("hi-lo"), 6), 1)
3.1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from sidebet.advantage.counts import CountSystem
from sidebet.advantage.indices import IndexPlay
from sidebet.core.errors import SidebetError
from sidebet.regulation.base_game.codes import HIT, STAND, parse_chart_code
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import StrategyArrays

__all__ = ["Generated", "alternative", "class_tags", "depleted_shoe", "generate",
           "generated_plays", "insurance_crossing", "play_gain"]

_Q = (4, 4, 4, 4, 4, 4, 4, 4, 4, 16)
"""Cards of each rank class (A, 2..9, T) in one deck."""
_ACTIONS = {0: "stand", 1: "hit", 2: "double", 3: "split", 4: "surrender"}


def class_tags(system: CountSystem) -> tuple[float, ...]:
    """The mean tag (published scale) of each rank class A, 2..9, T."""
    ranks = system.rank_tags()  # 2..A
    tens = sum(ranks[8:12]) / 4
    return (ranks[12], *ranks[0:8], tens)


def depleted_shoe(system: CountSystem, decks_left: float, tc: float) -> tuple[tuple[int, ...],
                                                                              float]:
    """The unseen rank-class counts at true count ``tc`` with ``decks_left`` decks left,
    and the true count of that rounded shoe."""
    if not system.balanced:
        raise SidebetError(f"{system.name}: generated indices need a balanced count (the index "
                           "of an unbalanced one is its running count)")
    tags = np.array(class_tags(system))
    q = np.array(_Q, np.float64)
    beta = -tc / float((q * tags * tags).sum())
    want = decks_left * q * (1.0 + beta * tags)
    if (want < 0.5).any():
        raise SidebetError(f"true count {tc:+g} cannot be reached with {decks_left:g} decks left")
    cards = np.floor(want).astype(np.int64)  # whole cards, the total kept (largest remainders)
    short = round(float(want.sum())) - int(cards.sum())
    cards[np.argsort(cards - want)[:short]] += 1
    shoe = tuple(int(x) for x in cards)
    left = sum(shoe)
    actual = -float(np.dot(shoe, tags)) / (left / 52)
    return shoe, actual


def insurance_crossing(system: CountSystem, decks: int, decks_left: float | None = None
                       ) -> float:
    """The true count at which insurance breaks even (``3 p − 1 = 0``), continuous shoes."""
    d = decks / 2 if decks_left is None else decks_left
    tags = np.array(class_tags(system))
    q = np.array(_Q, np.float64)

    def gain(t: float) -> float:
        n = d * q * (1.0 - t / float((q * tags * tags).sum()) * tags)
        return float(3.0 * n[9] / (n.sum() - 1.0) - 1.0)

    lo, hi = -20.0, 20.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gain(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


@dataclass(frozen=True, slots=True)
class Generated:
    """A generated index: the play, the alternative, where the play's EV overtakes it
    (``None``: not within the counts tried; ``below``: already at the lowest)."""

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
        return IndexPlay(self.play.kind, self.play.total, self.play.up, self.play.play,
                         self.index, self.play.below).text


def _hands(p: IndexPlay) -> list[tuple[tuple[int, ...], float]]:
    """The two-card hands (rank-class counts) of the play's hand and their weights in a
    full shoe: every pair of different cards 2..T making a hard total, ace and the rest
    for a soft total, the pair itself."""
    def counts(*values: int) -> tuple[int, ...]:
        out = [0] * 10
        for v in values:
            out[0 if v == 11 else v - 1] += 1
        return tuple(out)

    if p.kind == "pair":
        return [(counts(p.total, p.total), 1.0)]
    if p.kind == "soft":
        return [(counts(11, p.total - 11), 1.0)]
    found = [(counts(a, p.total - a), float(_Q[a - 1] * _Q[p.total - a - 1]))
             for a in range(2, 11) if a < p.total - a <= 10]
    if not found:
        raise SidebetError(f"{p.text}: no two different cards make hard {p.total}")
    return found


def _against(p: IndexPlay, hit_or_stand: int) -> str:
    first = parse_chart_code(p.play).first
    if p.below is not None:
        return _ACTIONS[int(parse_chart_code(p.below).first)]
    if first in (HIT, STAND):
        return "hit" if first == STAND else "stand"
    return _ACTIONS[hit_or_stand]


def generate(plays: Sequence[IndexPlay], system: CountSystem, rules: HouseRules, decks: int,
             decks_left: float | None = None, counts: range = range(-8, 9),
             basic: StrategyArrays | None = None) -> tuple[Generated, ...]:
    """The index of every play for ``system``, ``rules`` and ``decks`` (``decks_left``:
    default half the shoe); the alternative of a double, split or surrender is
    ``basic``'s hit or stand for the hand (default: stand from 17, else hit)."""
    d = decks / 2 if decks_left is None else decks_left
    shoes = [depleted_shoe(system, d, t) for t in counts]
    out: list[Generated] = []
    for p in plays:
        if p.kind == "insurance":
            out.append(Generated(p, "no insurance", insurance_crossing(system, decks, d)))
            continue
        other = alternative(p, basic)
        points = [(actual, play_gain(p, other, shoe, rules)) for shoe, actual in shoes]
        out.append(_crossing(p, other, points))
    return tuple(out)


def alternative(p: IndexPlay, basic: StrategyArrays | None) -> str:
    """What the play is weighed against: its ``below`` play, the other of hit and stand,
    or ``basic``'s hit or stand for the hand (default: stand from 17, else hit)."""
    total = 2 * p.total if p.kind == "pair" and p.total < 11 else p.total
    if basic is not None:
        soft = p.kind == "soft" or (p.kind == "pair" and p.total == 11)
        row = 12 if soft and p.kind == "pair" else total
        hs = int((basic.hs_soft if soft else basic.hs_hard)[row, p.up])
    else:
        hs = STAND if total >= 17 else HIT
    return _against(p, hs)


def play_gain(p: IndexPlay, other: str, shoe: tuple[int, ...], rules: HouseRules) -> float:
    """The exact EV of the play less that of ``other`` on ``shoe`` (rank-class counts
    before the deal), averaged over the hand's two-card compositions."""
    from sidebet.exact.blackjack.engine import analyse  # the analyser: only now

    action = _ACTIONS[int(parse_chart_code(p.play).first)]
    hands = _hands(p)
    up = 0 if p.up == 11 else p.up - 1
    gain = 0.0
    for hand, w in hands:
        a = analyse(shoe, rules, focus=hand)
        vals = a.values(hand, up)
        if action not in vals or other not in vals:
            raise SidebetError(f"{p.text}: {action} or {other} is not allowed by the rules")
        gain += w * (a.ev_of(hand, up, action) - a.ev_of(hand, up, other))
    return gain / sum(w for _, w in hands)


def _crossing(p: IndexPlay, other: str, points: list[tuple[float, float]]) -> Generated:
    if points[0][1] >= 0:
        return Generated(p, other, None, f"better than {other} at every count from "
                                         f"{points[0][0]:+.1f}")
    for (t0, g0), (t1, g1) in pairwise(points):
        if g0 < 0 <= g1:
            return Generated(p, other, t0 + (t1 - t0) * (-g0) / (g1 - g0))
    return Generated(p, other, None, f"not better than {other} up to {points[-1][0]:+.1f}")


def generated_plays(names: str, system: CountSystem, rules: HouseRules, decks: int,
                    basic: StrategyArrays | None = None) -> tuple[tuple[IndexPlay, ...],
                                                                  tuple[Generated, ...]]:
    """The plays of the lists ``names`` (e.g. ``i18+fab4``) with generated indices (plays
    with no index in range left out), and every generated row; kept in the disk cache."""
    from sidebet.advantage.indices import parse_plays
    from sidebet.native.diskcache import cached_arrays

    plays = parse_plays(names)

    def build() -> dict[str, np.ndarray[Any, Any]]:
        rows = generate(plays, system, rules, decks, basic=basic)
        return {"crossing": np.array([np.nan if g.crossing is None else g.crossing
                                      for g in rows], np.float64),
                "against": np.array([g.against for g in rows]),
                "note": np.array([g.note for g in rows])}

    key = f"{system.values} {system.scale} {rules!r} decks={decks} {names}"
    got = cached_arrays("generated-indices", key, build)
    rows = tuple(Generated(p, str(a), None if np.isnan(c) else float(c), str(n))
                 for p, c, a, n in zip(plays, got["crossing"], got["against"], got["note"],
                                       strict=True))
    kept = tuple(IndexPlay(g.play.kind, g.play.total, g.play.up, g.play.play, g.index,
                           g.play.below) for g in rows if g.index is not None)
    return kept, rows
