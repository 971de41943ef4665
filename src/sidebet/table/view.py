"""What a seat, or an observer, may see of a round right now.

Everything on the layout is public except the dealer's hole card: it is shown as
:data:`HIDDEN` until the engine turns it (a dealer Blackjack found by the card reader, the
dealer's turn, or the round settled), in the dealer's cards and in the deal's record
(§ 633a.7(a)-(f): the hole card is dealt last), and the dealer's Blackjack is shown only
once the hole card is.

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table.dealing import DealingShoe
>>> from sidebet.table.state import RoundState
>>> r = RoundState(TableConfig(), 1, DealingShoe.stacked("Qh Kh 7c 5d 9s").deal)
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
>>> v = r.view(None)
>>> v.dealer, v.records[2]["cards"], [o.step.value for o in r.view(1).options]
(('Kh', '??'), 'Qh Kh 7c ??', ['hit', 'stand', 'double', 'surrender'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sidebet.core.cards import parse_cards
from sidebet.core.hands import blackjack_value
from sidebet.core.money import Cents, format_money
from sidebet.table.model import RoundView
from sidebet.table.options import Option, options
from sidebet.table.records import Deal, Phase, Record, Step, record_from_json

__all__ = [
    "HIDDEN", "SeatView", "TableView", "public_json", "redact", "snapshot", "totals", "view",
]

HIDDEN = "??"
"""How an unrevealed card (the hole card) is shown."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """A seat as everyone sees it: its wagers, its hands, its settled side wagers and the
    chips its player holds (``None``: unlimited)."""

    seat: int
    bets: tuple[tuple[str, Cents], ...]
    hands: tuple[Mapping[str, Any], ...]
    side: tuple[Mapping[str, Any], ...]
    chips: Cents | None

    def to_json(self) -> dict[str, Any]:
        """As JSON data."""
        return {"seat": self.seat, "bets": {w: format_money(a) for w, a in self.bets},
                "hands": [dict(h) for h in self.hands], "side": [dict(s) for s in self.side],
                "chips": None if self.chips is None else format_money(self.chips)}


@dataclass(frozen=True, slots=True)
class TableView:
    """The round as ``viewer`` (a seat, or ``None`` for an observer) may see it now: the
    dealer's cards (the hole card :data:`HIDDEN` while it is), the dealer's Blackjack once
    publicly known, the hand to act (``(seat, hand index)``), the seats, the records (the
    hole card redacted) and the viewer's :class:`Option` s."""

    viewer: int | None
    phase: Phase
    dealer: tuple[str, ...]
    dealer_blackjack: bool | None
    current: tuple[int, int] | None
    seats: tuple[SeatView, ...]
    records: tuple[Mapping[str, Any], ...]
    options: tuple[Option, ...]

    def to_json(self) -> dict[str, Any]:
        """As JSON data (the options by step)."""
        return {
            "viewer": self.viewer,
            "phase": self.phase.value,
            "dealer": {"cards": " ".join(self.dealer), "blackjack": self.dealer_blackjack},
            "current": None if self.current is None else {"seat": self.current[0],
                                                          "hand": self.current[1]},
            "seats": [s.to_json() for s in self.seats],
            "records": [dict(r) for r in self.records],
            "options": [o.step.value for o in self.options],
        }


def totals(codes: str) -> dict[str, Any] | None:
    """The blackjack total (§ 633a.3(e)) of the cards shown (``codes``, the hidden hole card
    left out) for a player to read: ``total``, ``soft`` and ``busted``; ``None`` for none.

    >>> totals("As 6d"), totals("Kc 9h 5s")["busted"], totals("8s ??")["total"], totals("")
    ({'total': 17, 'soft': True, 'busted': False}, True, 8, None)
    """
    shown = [c for c in codes.split() if c != HIDDEN]
    if not shown:
        return None
    v = blackjack_value(parse_cards(shown))
    return {"total": v.total, "soft": v.soft, "busted": v.busted}


def public_json(record: Record, hole_hidden: bool) -> dict[str, Any]:
    """The record's JSON as players see it: the deal's hole card :data:`HIDDEN` while
    ``hole_hidden``."""
    data = record.to_json()
    if hole_hidden and isinstance(record, Deal):
        data["cards"] = " ".join([*(c.code for c in record.open_cards), HIDDEN])
    return data


def redact(records: list[dict[str, Any]], hide_hole: bool) -> list[dict[str, Any]]:
    """Records' JSON (as the engine wrote them) as players see them while ``hide_hole``:
    :func:`public_json` of each deal.

    >>> redact([{"step": "deal", "cards": "Qh Kh 7c 5d", "citation": "§ 633a.7(a)-(f)"}], True)
    [{'step': 'deal', 'cards': 'Qh Kh 7c ??', 'citation': '§ 633a.7(a)-(f)'}]
    """
    if not hide_hole:
        return records
    return [public_json(record_from_json(r), True) if r.get("step") == Step.DEAL.value else r
            for r in records]


def view(state: RoundView, viewer: int | None) -> TableView:
    """What ``viewer`` may see of ``state`` now."""
    hidden = state.hole_hidden
    dealer = [c.code for c in state.dealer]
    if hidden and len(dealer) == 2:
        dealer[1] = HIDDEN
    hand = state.current_hand
    index = state.current_index
    seats = tuple(
        SeatView(s, tuple(state.bets(s).items()),
                 tuple(h.to_json() for h in state.hands_of(s)),
                 tuple(x.to_json() for x in state.side_settlements(s)), state.chips(s))
        for s in range(1, state.seat_count + 1))
    return TableView(
        viewer=viewer,
        phase=state.phase,
        dealer=tuple(dealer),
        dealer_blackjack=None if hidden else state.dealer_blackjack,
        current=None if hand is None or index is None else (hand.seat, index),
        seats=seats,
        records=tuple(public_json(r, hidden) for r in state.records),
        options=() if viewer is None else options(state, viewer),
    )


def snapshot(state: RoundView) -> dict[str, Any]:
    """The whole state of a round as plain JSON data (for replay comparison and display)."""
    return {
        "phase": state.phase.value,
        "seats": state.seat_count,
        "dealer": " ".join(c.code for c in state.dealer),
        "dealer_blackjack": state.dealer_blackjack,
        "hands": [h.to_json() for h in state.hands],
        "bets": {str(s): {w: format_money(a) for w, a in st.bets.items()}
                 for s, st in state.seat_states.items()},
        "side": [s.to_json() for s in state.side_settlements()],
        "ledger": [e.to_json() for e in state.ledger],
        "records": [r.to_json() for r in state.records],
    }
