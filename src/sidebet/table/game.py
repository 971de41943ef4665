"""A table that plays round after round: the shoe, its reshuffles and the players' chips.

The k-th shoe (k = 0, 1, ...) of a table seeded ``S`` is
:func:`sidebet.table.dealing.shuffled_order` with seed
``S + k``; an unseeded table shuffles with :class:`secrets.SystemRandom`.  Each shoe's
commitment is published (:attr:`Table.commitments`) before its first card; once the cut
card has come out the round in progress is completed and the next round starts a new
shoe.  Should a shoe run out in the middle of a round (a single deck, seven seats), the
round continues from the next shoe.

:attr:`Table.round_shoes` says which shoe(s) the latest round's cards came from: one
:class:`~sidebet.table.shoe_sequence.ShoeSpan` (shoe number, commitment, first position,
card count) per shoe, two when the round ran out of a shoe and continued from the next.
The continuation is :class:`~sidebet.table.shoe_sequence.ShoeSequence`'s.

>>> from sidebet.regulation.submission import TableConfig
>>> t = Table(TableConfig(decks=6), seats=2, seed=3, chips=1000_00)
>>> r = t.new_round()
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
>>> from sidebet.table.policy import play_out
>>> play_out(r)
>>> t.finish(r); t.chips[1] == 1000_00 + r.ledger.player_net(1)
True
"""

from __future__ import annotations

from sidebet.core.cards import Card
from sidebet.core.errors import SidebetError
from sidebet.core.money import CENTS_PER_UNIT, Cents
from sidebet.regulation.submission import TableConfig
from sidebet.table.dealing import DealingShoe
from sidebet.table.model import MAX_SEATS
from sidebet.table.records import Phase
from sidebet.table.shoe_sequence import ShoeSequence, ShoeSpan
from sidebet.table.state import RoundState

__all__ = ["Table"]


class Table:
    """The Game: configuration, seats, the dealing shoe and each seat's chips."""

    def __init__(
        self,
        config: TableConfig,
        seats: int = 1,
        *,
        seed: int | None = None,
        chips: Cents | None = None,
        unit: Cents = CENTS_PER_UNIT,
    ) -> None:
        config.verify()
        if not 1 <= seats <= MAX_SEATS:
            raise SidebetError(f"a Blackjack table has 1 to {MAX_SEATS} seats, not {seats}")
        self.config = config
        self.seats = seats
        self.seed = seed
        self.unit = unit
        self.starting_chips = chips
        self.chips: dict[int, Cents] | None = (
            None if chips is None else dict.fromkeys(range(1, seats + 1), chips)
        )
        self.commitments: list[str] = []
        """Every shoe's commitment, published before its first card (by shoe number)."""
        self._shoes = ShoeSequence(self._shuffle)
        _ = self._shoes.current  # shoe 1's commitment is published now
        self.rounds_played = 0

    def _shuffle(self, number: int) -> DealingShoe:
        seed = None if self.seed is None else self.seed + number
        shoe = DealingShoe.shuffled(self.config.decks, seed, self.config.rules.penetration)
        self.commitments.append(shoe.commitment)
        return shoe

    @property
    def shoe(self) -> DealingShoe:
        """The shoe in use."""
        return self._shoes.current

    @shoe.setter
    def shoe(self, shoe: DealingShoe) -> None:
        self._shoes.replace(shoe)

    @property
    def shoe_number(self) -> int:
        """The number of the shoe in use (from 0)."""
        return self._shoes.number

    @property
    def revealed(self) -> list[tuple[tuple[int, ...], bytes, str]]:
        """``(order, salt, commitment)`` of every finished shoe, for audit."""
        return [(s.order, s.reveal_salt(), s.commitment) for s in self._shoes.finished]

    @property
    def revealed_dealt(self) -> list[int]:
        """How many cards each finished shoe dealt (by shoe number), for audit."""
        return [s.position for s in self._shoes.finished]

    @property
    def round_shoes(self) -> list[ShoeSpan]:
        """The shoe(s) the latest round's cards came from, in dealing order (empty until
        its first card)."""
        return self._shoes.spans

    def draw(self) -> Card:
        """The next card, from a new shoe if this one is empty."""
        return self._shoes.draw()

    def new_round(self) -> RoundState:
        """Start a round (after a reshuffle if the cut card came out)."""
        self._shoes.begin_round()
        _ = self._shoes.current  # a new shoe's commitment is published before its first card
        return RoundState(self.config, self.seats, self.draw, unit=self.unit, chips=self.chips)
    def finish(self, state: RoundState) -> None:
        """Book a finished round's results into the seats' chips."""
        if state.phase is not Phase.DONE:
            raise SidebetError("the round is not finished")
        if self.chips is not None:
            for seat in self.chips:
                self.chips[seat] += state.ledger.player_net(seat)
        self.rounds_played += 1
