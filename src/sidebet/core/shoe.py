"""Shoe compositions: how many of each of the 52 card kinds are left.

A :class:`Shoe` is an immutable count vector.  A full shoe of ``n`` decks holds ``n``
copies of every card kind (interpretation 1: 1 to 8 decks); removing dealt cards gives a
depleted composition, and removing a card that is not left is an error.

>>> shoe = Shoe.standard(2)
>>> shoe.total, shoe.count(Card.parse("AS"))
(104, 2)
>>> shoe.remove("AS AS").count(Card.parse("A♠"))
0
>>> shoe.remove("AS AS AS")
Traceback (most recent call last):
...
sidebet.core.errors.ShoeError: A♠ cannot be dealt: a 2-deck shoe holds only 2 A♠
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sidebet.core.cards import ALL_CARDS, Card, Rank, parse_cards
from sidebet.core.errors import ShoeError

if TYPE_CHECKING:  # numpy: imported by array() only, so settling a wager does not load it
    import numpy as np
    import numpy.typing as npt

__all__ = ["MAX_DECKS", "MIN_DECKS", "Shoe"]

MIN_DECKS = 1
MAX_DECKS = 8


@dataclass(frozen=True, slots=True)
class Shoe:
    """Counts of the 52 card kinds (index order of :data:`sidebet.core.cards.ALL_CARDS`).

    ``decks`` is the number of decks the shoe started with (``None`` for a composition
    given directly by its counts).
    """

    counts: tuple[int, ...]
    decks: int | None = None

    def __post_init__(self) -> None:
        if len(self.counts) != 52:
            raise ShoeError(f"a shoe composition has 52 counts, not {len(self.counts)}")
        if any(c < 0 for c in self.counts):
            raise ShoeError("a shoe composition cannot hold a negative number of cards")
        if self.decks is not None and not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise ShoeError(
                f"a shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {self.decks} "
                "(interpretation 1)"
            )

    @staticmethod
    def standard(decks: int) -> Shoe:
        """A full shoe of ``decks`` standard 52-card decks (1 to 8)."""
        if isinstance(decks, bool) or not isinstance(decks, int) or not (
            MIN_DECKS <= decks <= MAX_DECKS
        ):
            raise ShoeError(
                f"a shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {decks} (interpretation 1)"
            )
        return Shoe((decks,) * 52, decks)

    @staticmethod
    def from_counts(counts: Sequence[int] | npt.NDArray[np.integer]) -> Shoe:
        """Any composition, given as 52 counts in card-index order."""
        return Shoe(tuple(int(c) for c in counts))

    @property
    def total(self) -> int:
        """Cards left in the shoe."""
        return sum(self.counts)

    def count(self, card: Card) -> int:
        """Copies of ``card`` left in the shoe."""
        return self.counts[card.index]

    def array(self) -> npt.NDArray[np.int64]:
        """The counts as a fresh numpy ``int64`` array of length 52."""
        import numpy as np

        return np.array(self.counts, dtype=np.int64)

    def rank_counts(self) -> dict[Rank, int]:
        """Cards left of each rank."""
        out = dict.fromkeys(Rank, 0)
        for card, n in zip(ALL_CARDS, self.counts, strict=True):
            out[card.rank] += n
        return out

    def check_dealable(self, cards: Iterable[Card] | str) -> None:
        """Raise :class:`ShoeError` unless all ``cards`` together can be dealt from this shoe."""
        self.remove(cards)

    def remove(self, cards: Iterable[Card] | str) -> Shoe:
        """The composition after dealing ``cards`` (cards or card text); an error names a card
        not left.

        >>> Shoe.standard(1).remove("7d 7s").total
        50
        """
        counts = list(self.counts)
        for card in parse_cards(cards) if isinstance(cards, str) else cards:
            if counts[card.index] == 0:
                raise ShoeError(f"{card} cannot be dealt: {self._describe_holding(card)}")
            counts[card.index] -= 1
        return Shoe(tuple(counts), self.decks)

    def _describe_holding(self, card: Card) -> str:
        if self.decks is not None and self.counts == (self.decks,) * 52:
            return f"a {self.decks}-deck shoe holds only {self.decks} {card}"
        return f"the shoe holds only {self.counts[card.index]} {card} at this point"

    def describe(self) -> str:
        """Short description: ``'6 decks'`` or ``'6 decks less 3 cards'`` or ``'120 cards'``.

        >>> Shoe.standard(6).describe(), Shoe.standard(1).remove("7d").describe()
        ('6 decks', '1 deck less 1 card')
        """
        if self.decks is None:
            return f"{self.total} cards"
        base = f"{self.decks} deck{'s' if self.decks != 1 else ''}"
        missing = self.decks * 52 - self.total
        if missing == 0:
            return base
        return f"{base} less {missing} card{'s' if missing != 1 else ''}"

