"""What a round is made of, for the modules that read it: hands, seats, and the round as they
see it.

:class:`Hand` and :class:`SeatState` are the round's parts; :class:`RoundView` is the
round (:class:`sidebet.table.state.RoundState`) as the checks, the booking, the actions,
the options, the answers and the view read it, so that none of them needs the state
machine itself.

>>> from sidebet.core.cards import parse_cards
>>> h = Hand(1, list(parse_cards("As Kd")), 10_00)
>>> h.is_natural, str(h.value), h.wager_total
(True, 'soft 21', 1000)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from sidebet.core.cards import Card, Rank
from sidebet.core.hands import HandValue, blackjack_value, is_blackjack
from sidebet.core.money import Cents, format_money
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.side_settlement import Settlement
from sidebet.regulation.submission import TableConfig
from sidebet.table.ledger import Ledger
from sidebet.table.records import Phase, Record

__all__ = ["BLACKJACK", "MAX_SEATS", "Hand", "RoundView", "SeatState"]

BLACKJACK = "blackjack"
"""The Blackjack wager's identifier (the side wagers have theirs in the registry)."""
MAX_SEATS = 7


@dataclass(slots=True)
class Hand:
    """One Blackjack hand of a seat (mutable while the round runs; read it, don't write it)."""

    seat: int
    cards: list[Card]
    bet: Cents
    press: Cents = 0
    double: Cents = 0
    original: bool = True
    split_aces: bool = False
    was_split: bool = False
    """The seat's initial hand after it was split (no longer a Blackjack or surrenderable)."""
    surrendered: bool = False
    done: bool = False
    result: str | None = None
    """After settlement: ``blackjack``, ``win``, ``push``, ``lose``, ``surrender``."""

    @property
    def value(self) -> HandValue:
        """The hand's blackjack total (§ 633a.3(e))."""
        return blackjack_value(self.cards)

    @property
    def is_natural(self) -> bool:
        """A Blackjack: the seat's unsplit initial two cards are an ace and a 10-value card."""
        return (
            self.original and not self.was_split and len(self.cards) == 2
            and is_blackjack(*self.cards)
        )

    @property
    def busted(self) -> bool:
        """Over 21."""
        return self.value.busted

    def split_off(self) -> Hand:
        """Split the pair: the second card leaves for a new hand whose wager matches this
        hand's initial wager plus its press (§ 633c.11(g))."""
        aces = self.cards[0].rank is Rank.ACE
        new = Hand(self.seat, [self.cards.pop()], self.bet + self.press, original=False,
                   split_aces=aces)
        self.split_aces = self.split_aces or aces
        self.was_split = True
        return new

    @property
    def wager_total(self) -> Cents:
        """All chips riding on the hand."""
        return self.bet + self.press + self.double

    def to_json(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "seat": self.seat,
            "cards": " ".join(c.code for c in self.cards),
            "bet": format_money(self.bet),
            "press": format_money(self.press),
            "double": format_money(self.double),
            "original": self.original,
            "split_aces": self.split_aces,
            "was_split": self.was_split,
            "surrendered": self.surrendered,
            "done": self.done,
            "result": self.result,
        }


@dataclass(slots=True)
class SeatState:
    """A seat's wagers, settled side wagers, and Press and insurance decisions (mutable
    while the round runs; read it, don't write it)."""

    bets: dict[str, Cents] = field(default_factory=dict)
    side: list[Settlement] = field(default_factory=list)
    press_offer: Cents = 0
    pressed: Cents | None = None
    insurance: Cents | None = None
    withdrawn: bool = False
    """Taken out of the round by the operator (:class:`~sidebet.table.records.Withdraw`)."""


class RoundView(Protocol):
    """A round as the checks, the booking and the actions read it (and, for the actions,
    apply a decision to it)."""

    @property
    def config(self) -> TableConfig:
        """The table's Rules Submission."""
        ...

    @property
    def rules(self) -> HouseRules:
        """Its house rules."""
        ...

    @property
    def unit(self) -> Cents:
        """The table unit of the Press."""
        ...

    @property
    def seat_count(self) -> int:
        """Seats at the table (1..7)."""
        ...

    @property
    def phase(self) -> Phase:
        """Where the round stands."""
        ...

    @property
    def seat_states(self) -> Mapping[int, SeatState]:
        """Every seat's state by seat number."""
        ...

    @property
    def hands(self) -> list[Hand]:
        """Every Blackjack hand, in the order they are played."""
        ...

    @property
    def dealer(self) -> list[Card]:
        """The dealer's cards (upcard first)."""
        ...

    @property
    def hole_hidden(self) -> bool:
        """Whether the hole card is still hidden from the players."""
        ...

    @property
    def records(self) -> list[Record]:
        """The round's records so far."""
        ...

    @property
    def ledger(self) -> Ledger:
        """The round's money moves."""
        ...

    @property
    def dealer_blackjack(self) -> bool | None:
        """Whether the dealer has a Blackjack (``None`` until known)."""
        ...

    @property
    def current_hand(self) -> Hand | None:
        """The hand to act (phase PLAY), else ``None``."""
        ...

    @property
    def current_index(self) -> int | None:
        """Index of :attr:`current_hand` among its seat's hands."""
        ...

    def chips(self, seat: int) -> Cents | None:
        """Chips the player at ``seat`` holds now (``None``: unlimited)."""
        ...

    def bets(self, seat: int) -> dict[str, Cents]:
        """The wagers placed at ``seat``."""
        ...

    def hands_of(self, seat: int) -> list[Hand]:
        """The seat's hands in order."""
        ...

    def side_settlements(self, seat: int | None = None) -> list[Settlement]:
        """Settled side wagers (of one seat or all)."""
        ...

    def press_offers(self) -> dict[int, Cents]:
        """Seats still to decide on the Press: seat -> the most they may press."""
        ...

    def insurance_offers(self) -> dict[int, Cents]:
        """Seats still to decide on insurance: seat -> the most they may insure."""
        ...

    def double_limit(self) -> Cents:
        """The largest Double Down wager of the current hand."""
        ...

    def split_cost(self) -> Cents:
        """What splitting the current hand costs."""
        ...

    def apply(self, record: Record) -> Record:
        """Check a decision and take it."""
        ...
