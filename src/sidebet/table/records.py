"""Frozen records of a round: every action and every automatic step of the dealer.

A round's records in order are its hand history (:mod:`sidebet.table.history`): the
player decisions among them (:data:`DECISIONS`), applied to the same cards, replay the
round to the identical final state.

>>> r = Record(Step.HIT, seat=1, hand=0, cards=parse_cards("7h"))
>>> Record.from_json(r.to_json()) == r
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from sidebet.core.cards import Card, format_cards, parse_cards
from sidebet.core.money import Cents, format_money, parse_money

__all__ = ["DECISIONS", "Phase", "Record", "Step"]


class Phase(Enum):
    """Where a round stands (§ 633a.6, § 633a.7, § 633c.11(d)–(e))."""

    BETTING = "betting"
    PRESS = "press"
    INSURANCE = "insurance"
    PLAY = "play"
    DONE = "done"


class Step(Enum):
    """What a record records: a decision of a player or the table, or a dealer step."""

    # decisions (replayed)
    BET = "bet"
    CLOSE_BETS = "no-more-bets"
    PRESS = "press"
    INSURANCE = "insurance"
    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    # dealer steps (derived)
    DEAL = "deal"
    SIDE_WAGER = "side-wager"
    PEEK = "card-reader"
    DEAL_TO_HAND = "deal-to-hand"
    DEALER_PLAY = "dealer-play"
    SETTLE = "settle"


DECISIONS: frozenset[Step] = frozenset(
    {
        Step.BET,
        Step.CLOSE_BETS,
        Step.PRESS,
        Step.INSURANCE,
        Step.HIT,
        Step.STAND,
        Step.DOUBLE,
        Step.SPLIT,
        Step.SURRENDER,
    }
)
"""The steps a player (or the dealer's call of "no more bets") decides."""


@dataclass(frozen=True, slots=True)
class Record:
    """One step of a round.

    ``seat`` is 1..7 (``None`` for the dealer or the whole table), ``hand`` the index of
    the seat's hand, ``wager`` a wager identifier, ``amount`` cents, ``cards`` the cards
    the step dealt (or showed), ``outcome`` a result identifier, ``citation`` the
    subsection governing the step, ``note`` free text for people.
    """

    step: Step
    seat: int | None = None
    hand: int | None = None
    wager: str | None = None
    amount: Cents | None = None
    cards: tuple[Card, ...] = ()
    outcome: str | None = None
    citation: str = ""
    note: str = ""

    @property
    def is_decision(self) -> bool:
        """Whether a player (or the dealer's call) decided this step."""
        return self.step in DECISIONS

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (money as decimal strings, cards as text); empty fields left out."""
        out: dict[str, Any] = {"step": self.step.value}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.hand is not None:
            out["hand"] = self.hand
        if self.wager is not None:
            out["wager"] = self.wager
        if self.amount is not None:
            out["amount"] = format_money(self.amount)
        if self.cards:
            out["cards"] = " ".join(c.code for c in self.cards)
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.citation:
            out["citation"] = self.citation
        if self.note:
            out["note"] = self.note
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Record:
        """Inverse of :meth:`to_json`."""
        return Record(
            step=Step(data["step"]),
            seat=data.get("seat"),
            hand=data.get("hand"),
            wager=data.get("wager"),
            amount=parse_money(data["amount"]) if "amount" in data else None,
            cards=parse_cards(data.get("cards", "")),
            outcome=data.get("outcome"),
            citation=data.get("citation", ""),
            note=data.get("note", ""),
        )

    def describe(self) -> str:
        """One line for people."""
        who = "dealer" if self.seat is None else f"seat {self.seat}"
        if self.hand is not None and self.seat is not None:
            who += f" hand {self.hand + 1}"
        parts = [who, self.step.value]
        if self.wager:
            parts.append(self.wager)
        if self.amount is not None:
            parts.append(format_money(self.amount))
        if self.cards:
            parts.append(format_cards(self.cards))
        if self.outcome:
            parts.append(f"-> {self.outcome}")
        text = " ".join(parts)
        if self.note:
            text += f" ({self.note})"
        if self.citation:
            text += f" [{self.citation}]"
        return text
