"""Perfect play of TriLux Deluxe with its Press: bet exactly when the round's exact expected
result, the wager and its optimal Press together, is positive at the shoe as it stands
(§ 633c.11(e)-(g)).

The expected Press gain of a round at a shoe of 52 card kinds is

    G = Σ P(first card, upcard, second card) · pays · max(press value of the cell, 0)

over the three cards' orders on which TriLux Deluxe wins, each cell's press value from one
composition-dependent analysis of the shoe (:func:`sidebet.exact.blackjack.press.press_chart`
computes the same sum on a full shoe).  One seat: the counter's cards are the first dealt.
A full analysis per round costs about a tenth of a second, so the rounds valued are the
``budget`` with the highest TriLux Deluxe EV (where perfect play bets) and a seeded sample of
as many of the others, each weighted by the inverse of its rate: unbiased for perfect play's
result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS
from sidebet.regulation.base_game.codes import rank_class
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.wagers import PRESSABLE

__all__ = ["PERFECT_STAGE", "PerfectValues", "perfect_values", "press_gain"]

PERFECT_STAGE = "perfect play with the Press"
"""The stage :func:`perfect_values` reports (rounds valued)."""

FArr = npt.NDArray[np.float64]
IArr = npt.NDArray[np.int64]
CLASS_OF = np.array([rank_class(c) for c in ALL_CARDS], dtype=np.int64)


@cache
def _triples(paytable: str
             ) -> tuple[IArr, IArr, IArr, FArr, IArr, tuple[tuple[int, int, int], ...]]:
    """The winning (first, second, upcard) card-kind triples, their pays and cell index."""
    from sidebet.exact.blackjack.press import _winning_triples

    pays = {line.outcome: line.pays for line in PRESSABLE.paytable(paytable).lines}
    cls = [rank_class(c) for c in ALL_CARDS]
    cells: dict[tuple[int, int, int], int] = {}
    i_, j_, k_, p_, c_ = [], [], [], [], []
    for i, j, k, res in _winning_triples():
        cell = (min(cls[i], cls[j]), max(cls[i], cls[j]), cls[k])
        i_.append(i)
        j_.append(j)
        k_.append(k)
        p_.append(float(pays[res]))
        c_.append(cells.setdefault(cell, len(cells)))
    arr = [np.asarray(v, dtype=np.int64) for v in (i_, j_, k_)]
    return (arr[0], arr[1], arr[2], np.asarray(p_), np.asarray(c_, dtype=np.int64),
            tuple(cells))


def press_gain(kinds: IArr | tuple[int, ...], paytable: str, rules: HouseRules) -> float:
    """The expected Press gain per unit of TriLux Deluxe wager, pressing optimally, of a
    round dealt to one seat from ``kinds`` (the counts of the 52 card kinds).

    >>> from sidebet.exact.blackjack.press import press_chart
    >>> g = press_gain((6,) * 52, "TLX-3", HouseRules())
    >>> abs(g - press_chart(6).summary.optimal) < 1e-12
    True
    """
    from sidebet.exact.blackjack.engine import analyse
    from sidebet.exact.blackjack.press import _unit_value

    n = np.asarray(kinds, dtype=np.int64)
    big = float(n.sum())
    i, j, k, pays, cell, cells = _triples(paytable)
    p = (n[i] / big * (n[k] - (k == i)) / (big - 1)
         * np.maximum(n[j] - (j == i) - (j == k), 0) / (big - 2))
    classes = np.bincount(CLASS_OF, n, minlength=10).astype(np.int64)
    a = analyse.__wrapped__(tuple(int(v) for v in classes), rules)
    weight = np.bincount(cell, p * pays, minlength=len(cells))
    gain = 0.0
    for c in np.flatnonzero(weight > 0).tolist():
        lo, hi, up = cells[c]
        key = [0] * 10
        key[lo] += 1
        key[hi] += 1
        gain += float(weight[c]) * max(_unit_value(a, tuple(key), up)[0], 0.0)
    return gain


@dataclass(frozen=True)
class PerfectValues:
    """Perfect play's weighted value of every round (0 where it does not bet or the round
    was not valued), with the rounds valued and the sampling rate of the others."""

    value: FArr
    bets: FArr
    """Weighted bet indicator of every round."""
    evaluations: int
    sample_rate: float


def perfect_values(ev: FArr, kinds_of: Callable[[int], IArr], paytable: str,
                   rules: HouseRules, budget: int, seed: int,
                   progress: Callable[[str, int, int], None] | None = None) -> PerfectValues:
    """Value the ``budget`` rounds of highest TriLux Deluxe EV ``ev`` and a seeded sample of
    as many others; ``kinds_of(i)`` gives round ``i``'s 52 card-kind counts before its deal
    (asked in the rounds' order, one at a time).  The rounds are valued on the idle cores'
    threads (:func:`sidebet.native.threads.map_shared`), ``progress(PERFECT_STAGE, done,
    whole)`` told of each."""
    from sidebet.native.threads import map_shared

    total = ev.size
    budget = min(budget, total)
    order = np.argsort(-ev, kind="stable")
    top, rest = order[:budget], np.sort(order[budget:])
    rate = min(1.0, budget / rest.size) if rest.size else 1.0
    picked = rest[np.random.default_rng([seed, 0x70657266]).random(rest.size) < rate]
    value = np.zeros(total)
    bets = np.zeros(total)
    valued = [(r, w) for rounds, w in ((np.sort(top), 1.0), (picked, 1.0 / rate))
              for r in rounds.tolist()]
    kinds = [kinds_of(r) for r, _ in valued]
    def done(n: int) -> None:
        if progress is not None:
            progress(PERFECT_STAGE, n, len(valued))

    done(0)
    gains = map_shared(lambda k: press_gain(k, paytable, rules), kinds, done)
    for (r, w), g in zip(valued, gains, strict=True):
        v = float(ev[r]) + g
        if v > 0:
            value[r] = w * v
            bets[r] = w
    return PerfectValues(value, bets, len(valued), rate)
