"""Corrections of a round, each approved: void it, record a misdeal, or correct its cards.

A correction names who asked, who approved (someone else: the server gives that role to a
supervisor) and why, and moves money only by ledger entries of the four kinds
(:class:`~sidebet.table.ledger.Move`), so that the round's ledger and its correction
together say exactly what each seat won or lost:

* **void** (and **misdeal**, a void whose reason is a misdealt round): every stake still on
  the layout is returned, then each seat's net on each wager is undone exactly, winnings
  taken back (``STAKE`` + ``COLLECT``) and losses refunded (``WIN``): the round then
  nets zero for every seat and for the house;
* **correct the cards**: the round's decisions are replayed on the cards as they truly were
  (:func:`correct_cards`); its old ledger is undone as for a void and the replayed
  round's ledger redone, so each seat ends with what the true cards give.  When a recorded
  decision no longer fits the true cards, the round cannot be redone: void it instead.

No section of the seed texts governs corrections: they are the house's procedure, and the
records say so (:data:`HOUSE_PROCEDURE`).

>>> from sidebet.table.ledger import Ledger, Move
>>> led = Ledger()
>>> led.add(1, "trilux", Move.STAKE, 5_00, "wager placed", "§ 633c.11")
>>> led.add(1, "trilux", Move.RETURN, 5_00, "Flush", "§ 633c.11(h)")
>>> led.add(1, "trilux", Move.WIN, 25_00, "Flush", "§ 633c.11(h)")
>>> v = void_round("T1-R7", led.entries, Approval("dealer 4", "supervisor 1", "wrong shoe"))
>>> [(e.move.value, e.amount) for e in v.entries], v.player_net(1), v.house_net()
([('stake', 2500), ('collect', 2500)], -2500, 2500)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sidebet.core.cards import Card
from sidebet.core.errors import RuleError, ShoeError, SidebetError
from sidebet.core.money import Cents
from sidebet.table.dealing import DealingShoe
from sidebet.table.ledger import Ledger, LedgerEntry, Move
from sidebet.table.state import RoundState

__all__ = ["HOUSE_PROCEDURE", "Approval", "CorrectionKind", "RoundCorrection",
           "correct_cards", "reversal", "void_round"]

HOUSE_PROCEDURE = "house procedure (no seed text)"
"""The citation of a correction."""


class CorrectionKind(Enum):
    """What a correction does to a round."""

    VOID = "void"
    MISDEAL = "misdeal"
    CARDS = "correct-cards"


@dataclass(frozen=True, slots=True)
class Approval:
    """Who asked for a correction, who approved it (not the same person) and why."""

    asked_by: str
    approved_by: str
    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise SidebetError("a correction states why")
        if not self.asked_by.strip() or not self.approved_by.strip():
            raise SidebetError("a correction names who asked and who approved")
        if self.asked_by.strip() == self.approved_by.strip():
            raise SidebetError("a correction is approved by someone other than who asked")


@dataclass(frozen=True, slots=True)
class RoundCorrection:
    """A correction of round ``game``: its kind, approval, and the ledger entries that
    undo the round's money (``entries``, then ``redone``: the corrected round's own)."""

    kind: CorrectionKind
    game: str
    approval: Approval
    entries: tuple[LedgerEntry, ...]
    redone: tuple[LedgerEntry, ...] = ()
    cards: tuple[Card, ...] = ()
    citation: str = HOUSE_PROCEDURE

    def _ledger(self) -> Ledger:
        led = Ledger()
        for e in (*self.entries, *self.redone):
            led.add(e.seat, e.wager, e.move, e.amount, e.reason, e.citation)
        return led

    def player_net(self, seat: int | None = None) -> Cents:
        """What the correction moves to ``seat`` (or all players)."""
        return self._ledger().player_net(seat)

    def house_net(self) -> Cents:
        """What the correction moves to the house."""
        return self._ledger().house_net()

    def to_json(self) -> dict[str, Any]:
        """As JSON data."""
        return {"kind": self.kind.value, "game": self.game,
                "asked_by": self.approval.asked_by, "approved_by": self.approval.approved_by,
                "reason": self.approval.reason, "citation": self.citation,
                "entries": [e.to_json() for e in self.entries],
                "redone": [e.to_json() for e in self.redone],
                "cards": " ".join(c.code for c in self.cards)}


def reversal(entries: Sequence[LedgerEntry], why: str) -> tuple[LedgerEntry, ...]:
    """The entries that undo ``entries`` exactly: open stakes returned, then each seat's
    net on each wager taken back (``STAKE`` + ``COLLECT``) or refunded (``WIN``)."""
    led = Ledger()
    for e in entries:
        led.add(e.seat, e.wager, e.move, e.amount, e.reason, e.citation)
    out = Ledger()
    keys = list(dict.fromkeys((e.seat, e.wager) for e in entries))
    for seat, wager in keys:
        out.add(seat, wager, Move.RETURN, led.on_layout(seat, wager), f"{why}: stake returned",
                HOUSE_PROCEDURE)
    for seat, wager in keys:
        net = led.player_net(seat, wager) + out.player_net(seat, wager)
        if net > 0:
            out.add(seat, wager, Move.STAKE, net, f"{why}: winnings taken back", HOUSE_PROCEDURE)
            out.add(seat, wager, Move.COLLECT, net, f"{why}: winnings taken back",
                    HOUSE_PROCEDURE)
        elif net < 0:
            out.add(seat, wager, Move.WIN, -net, f"{why}: loss refunded", HOUSE_PROCEDURE)
    return out.entries


def void_round(game: str, entries: Sequence[LedgerEntry], approval: Approval, *,
               misdeal: bool = False) -> RoundCorrection:
    """Void round ``game`` whose ledger so far is ``entries`` (finished or not)."""
    kind = CorrectionKind.MISDEAL if misdeal else CorrectionKind.VOID
    return RoundCorrection(kind, game, approval, reversal(entries, kind.value))


def correct_cards(game: str, state: RoundState, cards: Sequence[Card],
                  approval: Approval) -> tuple[RoundCorrection, RoundState]:
    """Replay ``state``'s decisions on the true ``cards`` (in dealing order) and the
    correction that turns its money into the replayed round's; refused (nothing changes)
    when a recorded decision no longer fits or the cards run short."""
    decks = state.config.decks
    for c in set(cards):
        if list(cards).count(c) > decks:
            raise SidebetError(f"{c} appears {list(cards).count(c)} times in a round dealt "
                               f"from {decks} deck{'s' if decks > 1 else ''} (interpretation 1)")
    redo = RoundState(state.config, state.seat_count, DealingShoe.stacked(cards).deal,
                      unit=state.unit, chips=state.starting_chips)
    try:
        for rec in state.records:
            if rec.is_decision:
                redo.apply(rec)
    except RuleError as exc:
        raise SidebetError(f"round {game}: a recorded decision does not fit the corrected "
                           f"cards ({exc}); void the round instead") from None
    except ShoeError:
        raise SidebetError(f"round {game}: the corrected round needs more than the "
                           f"{len(cards)} cards given") from None
    if len(redo.dealt) != len(cards):
        raise SidebetError(f"round {game}: the corrected round deals {len(redo.dealt)} cards, "
                           f"not the {len(cards)} given")
    fix = RoundCorrection(CorrectionKind.CARDS, game, approval,
                          reversal(state.ledger.entries, "cards corrected"),
                          redo.ledger.entries, tuple(cards))
    return fix, redo
