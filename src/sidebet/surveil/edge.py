"""The edge of each wager at the moment of a betting decision: the shoe's composition
after the cards seen so far; a side wager's exact, valued by :mod:`sidebet.vuln.side_ev`
(the same outcome tables and paytables as the PAR sheets; ``tests/surveil`` compares it
with :func:`sidebet.exact.par.par_sheet` on the depleted shoe), the Blackjack wager's
from its exact full-shoe EV and exact effects of removal
(:class:`sidebet.exact.blackjack.removal.BlackjackEdge`).

The cards a round drew are removed from their shoes after the round; a card that a shoe of
that many decks no longer holds, or a round whose cards do not continue its shoe where the
previous round left it, is refused (the log is then not the table's whole history).

>>> t = EdgeTracker(6, {"blazing7s": "A"})
>>> t.wagers, [f"{x:.6f}" for x in t.full_shoe]
(('blackjack', 'blazing7s'), ['-0.003379', '-0.081830'])
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import Card
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.removal import BlackjackEdge
from sidebet.regulation.house_rules import HouseRules
from sidebet.surveil.events import BLACKJACK, RoundSeen
from sidebet.vuln.side_ev import EVTables, ev_tables

__all__ = ["EdgeTracker"]

_KEPT_SHOES = 2
"""Shoes kept (the one in use and the one before, should a round straddle them)."""


class EdgeTracker:
    """The shoes of one table, card by card, and the wagers' expected returns (floats,
    per unit bet) for the next round: the Blackjack wager's (under ``rules``) then each
    side wager's, in :attr:`wagers` order."""

    def __init__(self, decks: int, sides: Mapping[str, str],
                 rules: HouseRules | None = None) -> None:
        Shoe.standard(decks)  # a deck count the Code allows (interpretation 1)
        self.decks = decks
        self.sides: tuple[str, ...] = tuple(sides)
        self.wagers: tuple[str, ...] = (BLACKJACK, *self.sides)
        self._tables: EVTables | None = (ev_tables(tuple((w, p) for w, p in sides.items()))
                                         if sides else None)
        self._blackjack = BlackjackEdge.of(rules or HouseRules(), decks)
        self._counts: dict[int, npt.NDArray[np.int64]] = {}
        self._seen: dict[int, int] = {}
        self.full_shoe: npt.NDArray[np.float64] = self.values(self._full())

    def values(self, counts: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """Every wager's expected return per unit for the 52 card counts left."""
        out = np.empty(len(self.wagers), dtype=np.float64)
        out[0] = self._blackjack.edge(counts)
        if self._tables is not None:
            out[1:] = self._tables.expected_returns(counts)
        return out

    def _full(self) -> npt.NDArray[np.int64]:
        return np.full(52, self.decks, dtype=np.int64)

    def _shoe(self, number: int) -> npt.NDArray[np.int64]:
        if number not in self._counts:
            if self._counts and number < max(self._counts):
                raise SidebetError(f"shoe {number} comes after shoe {max(self._counts)}")
            self._counts[number] = self._full()
            self._seen[number] = 0
            for old in [k for k in self._counts if k <= number - _KEPT_SHOES]:
                del self._counts[old], self._seen[old]
        return self._counts[number]

    def edges(self, rnd: RoundSeen) -> npt.NDArray[np.float64]:
        """Each wager's expected return for ``rnd``'s bets: its first shoe's composition
        where its first card is dealt (full when the round opens a shoe)."""
        return self.values(self.at_bets(rnd))

    def at_bets(self, rnd: RoundSeen) -> npt.NDArray[np.int64]:
        """The cards left in ``rnd``'s first shoe when its bets were made (a copy)."""
        if not rnd.spans:
            return self._full()
        first = rnd.spans[0]
        counts = self._shoe(first.shoe)
        if first.start != self._seen[first.shoe]:
            raise SidebetError(
                f"round {rnd.game}: its cards start at card {first.start + 1} of shoe "
                f"{first.shoe}, but {self._seen[first.shoe]} of its cards were seen before "
                f"(a round is missing from the history)")
        if counts.sum() < 3:
            return self._full()  # pragma: no cover - the round continues in a new shoe
        return counts.copy()

    def remove(self, rnd: RoundSeen) -> None:
        """Take ``rnd``'s cards out of their shoes (all or none)."""
        staged: list[tuple[int, npt.NDArray[np.int64]]] = []
        for span, cards in rnd.shoe_cards():
            counts = self._shoe(span.shoe).copy()
            if span.start != self._seen[span.shoe]:
                raise SidebetError(
                    f"round {rnd.game}: its cards start at card {span.start + 1} of shoe "
                    f"{span.shoe}, but {self._seen[span.shoe]} of its cards were seen before")
            for k in cards:
                if counts[k] == 0:
                    raise SidebetError(
                        f"round {rnd.game}: {Card.from_index(k).code} is not left in shoe "
                        f"{span.shoe} of {self.decks} decks (interpretation 1)")
                counts[k] -= 1
            staged.append((span.shoe, counts))
        for (number, counts), (span, _) in zip(staged, rnd.shoe_cards(), strict=True):
            self._counts[number] = counts
            self._seen[number] += span.cards

    def remaining(self, shoe: int) -> npt.NDArray[np.int64]:
        """The cards left in ``shoe`` (a copy; a full shoe if none of it was seen)."""
        return self._counts.get(shoe, self._full()).copy()
