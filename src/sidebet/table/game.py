"""A table that plays round after round: the shoe, its reshuffles and the players' chips.

The k-th shoe (k = 0, 1, ...) of a table seeded ``S`` is :func:`shuffled_order` with seed
``S + k``; an unseeded table shuffles with :class:`secrets.SystemRandom`.  Each shoe's
commitment is published (:attr:`Table.commitments`) before its first card; once the cut
card has come out the round in progress is completed and the next round starts a new
shoe.  Should a shoe run out in the middle of a round (a single deck, seven seats), the
round continues from the next shoe.

>>> from sidebet.config import TableConfig
>>> t = Table(TableConfig(decks=6), seats=2, seed=3, chips=1000_00)
>>> r = t.new_round()
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
>>> from sidebet.table.policy import play_out
>>> play_out(r)
>>> t.finish(r); t.chips[1] == 1000_00 + r.ledger.player_net(1)
True
"""

from __future__ import annotations

from sidebet.cards import Card
from sidebet.config import TableConfig
from sidebet.errors import SidebetError
from sidebet.money import Cents
from sidebet.table.dealing import DealingShoe, shuffled_order
from sidebet.table.records import Phase
from sidebet.table.state import MAX_SEATS, RoundState

__all__ = ["Table", "shuffled_order"]


class Table:
    """The Game: configuration, seats, the dealing shoe and each seat's chips."""

    def __init__(
        self,
        config: TableConfig,
        seats: int = 1,
        *,
        seed: int | None = None,
        chips: Cents | None = None,
        unit: Cents = 100,
    ) -> None:
        config.verify()
        if not 1 <= seats <= MAX_SEATS:
            raise SidebetError(f"a Blackjack table has 1 to {MAX_SEATS} seats, not {seats}")
        self.config = config
        self.seats = seats
        self.seed = seed
        self.unit = unit
        self.chips: dict[int, Cents] | None = (
            None if chips is None else dict.fromkeys(range(1, seats + 1), chips)
        )
        self.shoe_number = -1
        self.commitments: list[str] = []
        self.revealed: list[tuple[tuple[int, ...], bytes, str]] = []
        """``(order, salt, commitment)`` of every finished shoe, for audit."""
        self.shoe = self._new_shoe()
        self.rounds_played = 0

    def _new_shoe(self) -> DealingShoe:
        if self.shoe_number >= 0:
            old = self.shoe
            self.revealed.append((old.order, old.reveal_salt(), old.commitment))
        self.shoe_number += 1
        seed = None if self.seed is None else self.seed + self.shoe_number
        shoe = DealingShoe.shuffled(self.config.decks, seed, self.config.rules.penetration)
        self.commitments.append(shoe.commitment)
        return shoe

    def draw(self) -> Card:
        """The next card, from a new shoe if this one is empty."""
        if self.shoe.remaining == 0:
            self.shoe = self._new_shoe()
        return self.shoe.deal()

    def new_round(self) -> RoundState:
        """Start a round (after a reshuffle if the cut card came out)."""
        if self.shoe.needs_shuffle:
            self.shoe = self._new_shoe()
        return RoundState(self.config, self.seats, self.draw, unit=self.unit, chips=self.chips)

    def finish(self, state: RoundState) -> None:
        """Book a finished round's results into the seats' chips."""
        if state.phase is not Phase.DONE:
            raise SidebetError("the round is not finished")
        if self.chips is not None:
            for seat in self.chips:
                self.chips[seat] += state.ledger.player_net(seat)
        self.rounds_played += 1
