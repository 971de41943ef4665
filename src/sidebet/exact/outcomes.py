"""Outcome tables: each wager's classifier evaluated once on every triple of card kinds.

``outcome_table(wager)[i, j, k]`` is the index (into :attr:`Wager.outcome_ids`) of the
outcome when the player's cards are kinds ``i`` and ``j`` and the upcard is kind ``k``.
The table is derived from the wager's plain-Python classifier (and kept in the disk cache) and is what the exact
analysis, the counting tools and the simulator kernels read, so they all share the one
rule.  It is symmetric in the player's two cards.

>>> from sidebet.core.cards import Card
>>> t = outcome_table("blazing7s")
>>> t.shape, get_wager("blazing7s").outcome_ids[t[Card.parse("7d").index, Card.parse("7d").index, Card.parse("7d").index]]
((52, 52, 52), 'three_sevens_diamonds')
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS
from sidebet.native.diskcache import cached_arrays
from sidebet.regulation.wagers import Wager, get_wager

__all__ = ["OutcomeTable", "outcome_table"]

OutcomeTable = npt.NDArray[np.uint8]


def outcome_table(wager: str | Wager) -> OutcomeTable:
    """The read-only 52×52×52 outcome-index table of ``wager`` (built once, then cached)."""
    w = get_wager(wager) if isinstance(wager, str) else wager
    return _build(w.id)


@cache
def _build(wager_id: str) -> OutcomeTable:
    """The table, from the disk cache (:mod:`sidebet.native.diskcache`) when there, else the
    wager's classifier run in Python on each of the 140,608 triples."""
    got = cached_arrays("outcomes", wager_id, lambda: {"table": _classify_all(wager_id)})
    table = np.ascontiguousarray(got["table"], dtype=np.uint8)
    table.flags.writeable = False
    return table


def _classify_all(wager_id: str) -> OutcomeTable:
    wager = get_wager(wager_id)
    index = {outcome: n for n, outcome in enumerate(wager.outcome_ids)}
    lose = index["lose"]
    table = np.full((52, 52, 52), lose, dtype=np.uint8)
    classify = wager.classify
    for i, first in enumerate(ALL_CARDS):
        for j in range(i, 52):
            second = ALL_CARDS[j]
            row = table[i, j]
            for k, upcard in enumerate(ALL_CARDS):
                outcome = classify(first, second, upcard)
                if outcome is not None:
                    row[k] = index[outcome]
            table[j, i] = row
    return table
