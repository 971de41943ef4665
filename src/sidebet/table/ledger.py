"""Every chip movement of a round, with its reason and citation.

Four kinds of movement: a player puts a ``STAKE`` on the layout; the dealer ``RETURN``\\ s a
stake to the player or ``COLLECT``\\ s it for the house; the house pays ``WIN``\\ nings.
Every stake ends returned or collected, so, wager by wager,
``stakes == (returns + wins) + (collected - wins)``: what players put in equals what
they took back plus the house's net.

>>> ledger = Ledger()
>>> ledger.add(1, "blackjack", Move.STAKE, 10_00, "bet", "§ 633a.6(d)")
>>> ledger.add(1, "blackjack", Move.RETURN, 10_00, "won", "§ 633a.7(g)")
>>> ledger.add(1, "blackjack", Move.WIN, 10_00, "won", "§ 633a.7(g)")
>>> ledger.player_net(1), ledger.house_net(), ledger.open_stakes()
(1000, -1000, {})
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents, format_money, parse_money

__all__ = ["Ledger", "LedgerEntry", "Move"]


class Move(Enum):
    """Direction of a chip movement."""

    STAKE = "stake"
    """Player to layout."""
    RETURN = "return"
    """Layout back to the player."""
    COLLECT = "collect"
    """Layout to the house (a losing wager)."""
    WIN = "win"
    """House to the player (winnings)."""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One chip movement: seat, wager, direction, amount (cents, > 0), reason, citation."""

    seat: int
    wager: str
    move: Move
    amount: Cents
    reason: str
    citation: str

    @property
    def player_delta(self) -> Cents:
        """Change of the player's chips in hand."""
        if self.move is Move.STAKE:
            return -self.amount
        if self.move is Move.COLLECT:
            return 0
        return self.amount

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "seat": self.seat,
            "wager": self.wager,
            "move": self.move.value,
            "amount": format_money(self.amount),
            "reason": self.reason,
            "citation": self.citation,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> LedgerEntry:
        """Inverse of :meth:`to_json`."""
        return LedgerEntry(
            int(data["seat"]),
            str(data["wager"]),
            Move(data["move"]),
            parse_money(data["amount"]),
            str(data["reason"]),
            str(data["citation"]),
        )


class Ledger:
    """The ordered chip movements of one round (or many)."""

    def __init__(self) -> None:
        self._entries: list[LedgerEntry] = []

    def add(
        self, seat: int, wager: str, move: Move, amount: Cents, reason: str, citation: str
    ) -> None:
        """Record a movement; zero amounts are skipped, negative ones refused."""
        if amount < 0:
            raise SidebetError(f"a ledger amount cannot be negative ({amount})")
        if amount:
            self._entries.append(LedgerEntry(seat, wager, move, amount, reason, citation))

    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        """All entries in order."""
        return tuple(self._entries)

    def __iter__(self) -> Iterator[LedgerEntry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def total(self, move: Move, seat: int | None = None, wager: str | None = None) -> Cents:
        """Sum of one kind of movement, optionally for one seat and/or wager."""
        return sum(
            e.amount
            for e in self._entries
            if e.move is move
            and (seat is None or e.seat == seat)
            and (wager is None or e.wager == wager)
        )

    def player_net(self, seat: int | None = None, wager: str | None = None) -> Cents:
        """What the player(s) gained (returns + wins − stakes)."""
        return (
            self.total(Move.RETURN, seat, wager)
            + self.total(Move.WIN, seat, wager)
            - self.total(Move.STAKE, seat, wager)
        )

    def house_net(self, seat: int | None = None, wager: str | None = None) -> Cents:
        """What the house gained (collected − wins)."""
        return self.total(Move.COLLECT, seat, wager) - self.total(Move.WIN, seat, wager)

    def on_layout(self, seat: int, wager: str | None = None) -> Cents:
        """Chips of ``seat`` still on the layout (staked, neither returned nor collected)."""
        return (
            self.total(Move.STAKE, seat, wager)
            - self.total(Move.RETURN, seat, wager)
            - self.total(Move.COLLECT, seat, wager)
        )

    def open_stakes(self) -> dict[tuple[int, str], Cents]:
        """``(seat, wager) -> cents`` still on the layout (empty once a round is settled)."""
        out: dict[tuple[int, str], Cents] = defaultdict(int)
        for e in self._entries:
            if e.move is Move.STAKE:
                out[e.seat, e.wager] += e.amount
            elif e.move in (Move.RETURN, Move.COLLECT):
                out[e.seat, e.wager] -= e.amount
        return {k: v for k, v in out.items() if v}
