"""Shoes dealt one after another: the next shoe when one runs out, the cut card, and the
spans of shoes a round drew from.

A :class:`ShoeSequence` is given the shuffle as ``shoe_of(n)``, which makes shoe number
``n`` (0, 1, ...); it asks for a shoe only when it needs the shoe's first card (or when a
table asks for :attr:`ShoeSequence.current` to publish its commitment first).  Once the cut
card has come out, :meth:`ShoeSequence.begin_round` starts the next round from the next
shoe; should a shoe run out in the middle of a round, :meth:`ShoeSequence.draw` continues
from the next shoe.  :attr:`ShoeSequence.spans` says which shoe(s) the round's cards came
from, one :class:`ShoeSpan` per shoe.

>>> from sidebet.table.dealing import DealingShoe
>>> seq = ShoeSequence(lambda n: DealingShoe.stacked(["As Kd", "2c 3c 4c"][n]))
>>> seq.begin_round(); [seq.draw().code for _ in range(3)]
['As', 'Kd', '2c']
>>> [(s.shoe, s.start, s.cards) for s in seq.spans], seq.number, len(seq.finished)
([(0, 0, 2), (1, 0, 1)], 1, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from sidebet.core.cards import Card

__all__ = ["DealtShoe", "ShoeSequence", "ShoeSpan"]


@dataclass(frozen=True, slots=True)
class ShoeSpan:
    """A run of consecutive cards a round took from one shoe: the shoe's number (0, 1,
    ... within the table), its commitment, the position of the run's first card in that
    shoe's dealing order, and how many cards."""

    shoe: int
    commitment: str
    start: int
    cards: int

    def to_json(self) -> dict[str, object]:
        """As JSON data."""
        return {"shoe": self.shoe, "commitment": self.commitment, "start": self.start,
                "cards": self.cards}


class DealtShoe(Protocol):
    """A shoe as the sequence deals it (:class:`sidebet.table.dealing.DealingShoe`, or a
    server's fair shoe)."""

    @property
    def commitment(self) -> str:
        """The commitment published before its first card."""
        ...

    @property
    def position(self) -> int:
        """Cards dealt from it so far."""
        ...

    @property
    def remaining(self) -> int:
        """Cards left in it."""
        ...

    @property
    def needs_shuffle(self) -> bool:
        """Whether its cut card has come out."""
        ...

    def deal(self) -> Card:
        """Its next card."""
        ...


S = TypeVar("S", bound=DealtShoe)


class ShoeSequence(Generic[S]):
    """Shoe after shoe from ``shoe_of(n)``: the shoe in use (:attr:`number`), the shoes
    finished before it (:attr:`finished`, by number) and the spans of the round in
    progress (:attr:`spans`)."""

    def __init__(self, shoe_of: Callable[[int], S]) -> None:
        self._shoe_of = shoe_of
        self.number = 0
        """The number of the shoe in use."""
        self._current: S | None = None
        self.finished: list[S] = []
        """Every shoe before the one in use, by number."""
        self.spans: list[ShoeSpan] = []
        """The shoe(s) the round in progress drew from, in dealing order."""

    @property
    def opened(self) -> bool:
        """Whether the shoe in use has been made (asked for) yet."""
        return self._current is not None

    @property
    def current(self) -> S:
        """The shoe in use (made now if it was not yet)."""
        if self._current is None:
            self._current = self._shoe_of(self.number)
        return self._current

    def replace(self, shoe: S) -> None:
        """Deal from ``shoe`` as the shoe in use instead (a forged shoe, for the audit's
        tests)."""
        self._current = shoe

    def advance(self) -> None:
        """Finish the shoe in use; the next one is made when it is first needed."""
        if self._current is not None:
            self.finished.append(self._current)
        self._current = None
        self.number += 1

    def begin_round(self) -> None:
        """Start a round: from the next shoe if the cut card has come out of this one."""
        if self._current is not None and self._current.needs_shuffle:
            self.advance()
        self.spans = []

    def draw(self) -> Card:
        """The next card, from the next shoe if this one has run out (made before this one
        is finished, so that a shoe that cannot be made leaves the sequence as it was)."""
        shoe = self.current
        if shoe.remaining == 0:
            following = self._shoe_of(self.number + 1)
            self.advance()
            self._current = shoe = following
        start = shoe.position
        card = shoe.deal()
        last = self.spans[-1] if self.spans else None
        if last is not None and last.shoe == self.number:
            self.spans[-1] = ShoeSpan(last.shoe, last.commitment, last.start, last.cards + 1)
        else:
            self.spans.append(ShoeSpan(self.number, shoe.commitment, start, 1))
        return card
