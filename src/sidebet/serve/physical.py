"""A dealer-assist table: a live table whose cards come from a physical shoe, entered one
at a time in dealing order by a dealer's screen or a card-reading shoe.

:class:`PhysicalTable` is a :class:`~sidebet.serve.live.LiveTable` whose shoes are the
engine's :class:`~sidebet.table.entered_shoe.EnteredShoe`: the engine refuses a card not
left in a shoe of that many decks or out of the dealing order, and deals the cards as they
were entered.  Nothing is shuffled or committed: the shoes' commitment is
:data:`~sidebet.table.entered_shoe.PHYSICAL` ("physical shoe: cards as entered").

Its own events (applied live and in replay, like every other):

* ``card``: a card entered at its position of the shoe in use (who entered it, and a
  reader's confidence);
* ``awaiting``: a decision the engine allows but whose cards are not all entered yet (the
  deal, a hit, the dealer's draws after the last stand): it is applied, as an ``action``
  event, in the transaction of the card that completes it;
* ``card-undo``: the dealer takes back the last card entered, not yet dealt (a mistyped
  entry);
* ``shoe-new``: the dealer starts a new shoe (between rounds);
* ``correction-asked`` and ``correction``: a correction a dealer asked for and a
  supervisor approved (:mod:`sidebet.table.corrections`): void the round, record a
  misdeal, or correct a card (waiting, or dealt in the round in progress, whose decisions
  are then replayed on the true cards); each with the ledger entries that undo or redo its
  money, which replay recomputes and compares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidebet.core.cards import Card
from sidebet.core.errors import RuleError, SidebetError, Violation
from sidebet.core.money import Cents
from sidebet.regulation.citations import DEAL
from sidebet.regulation.submission import TableConfig
from sidebet.serve.live import LiveTable, Performed, ShoeState, house_delta
from sidebet.table import Phase, Record, RoundState
from sidebet.table.corrections import (
    HOUSE_PROCEDURE,
    Approval,
    CorrectionKind,
    RoundCorrection,
    correct_cards,
    void_round,
)
from sidebet.table.entered_shoe import PHYSICAL, CardAwaited, EnteredShoe
from sidebet.table.ledger import LedgerEntry
from sidebet.table.records import record_from_json
from sidebet.table.shoe_sequence import ShoeSequence

__all__ = ["CORRECTION_KINDS", "PHYSICAL", "PhysicalTable", "is_physical"]

CORRECTION_KINDS = ("void", "misdeal", "card")
"""What a supervisor may approve: void a round, record a misdeal, correct a card."""


def is_physical(table_event: dict[str, Any]) -> bool:
    """Whether a table's ``table`` event (its creation) made a dealer-assist table."""
    return table_event.get("shoe") == "physical"


def _entries(data: list[dict[str, Any]]) -> tuple[LedgerEntry, ...]:
    return tuple(LedgerEntry.from_json(e) for e in data)


class PhysicalTable(LiveTable):
    """A table dealt from physical shoes whose cards are entered from outside."""

    algorithm = PHYSICAL

    def __init__(self, table_id: int, name: str, config: TableConfig, *, seats: int,
                 unit: Cents, time_limit: int, default_action: str,
                 seed_of: Callable[[int], bytes | None]) -> None:
        super().__init__(table_id, name, config, seats=seats, unit=unit,
                         time_limit=time_limit, default_action=default_action,
                         seed_of=seed_of)
        self.entered: dict[int, EnteredShoe] = {}
        self._shoes = ShoeSequence(self._physical_shoe)
        self.awaiting: dict[str, Any] | None = None
        """The decision waiting for its cards: ``decision`` (JSON), ``seat``, ``actor``."""
        self.asked: dict[int, dict[str, Any]] = {}
        """Corrections asked for and not yet approved, by request number."""
        self.corrected: list[dict[str, Any]] = []
        """Every approved correction, in order."""
        self.voided: set[int] = set()
        """Rounds voided (a void or a misdeal)."""

    # ----- the shoe ---------------------------------------------------------------------

    def _physical_shoe(self, number: int) -> EnteredShoe:
        shoe = self.entered.get(number)
        if shoe is None:
            decks = self.config.decks
            shoe = self.entered[number] = EnteredShoe(decks)
            self.shoes[number] = ShoeState(number, PHYSICAL, decks, 52 * decks,
                                           revealed=True)
        return shoe

    @property
    def shoe(self) -> EnteredShoe:
        """The shoe cards are entered into now."""
        return self._physical_shoe(self._shoes.number)

    @property
    def waiting(self) -> list[Card]:
        """Cards entered and not yet dealt (what the dealer has drawn, not the players)."""
        shoe = self.shoe
        return [e.card for e in shoe.entered[shoe.position:]]

    def entered_as(self, card: str, position: int) -> bool:
        """Whether the shoe in use already holds ``card`` at ``position``."""
        shoe = self.shoe
        if not 0 <= position < len(shoe.entered):
            return False
        try:
            return shoe.entered[position].card == Card.parse(card)
        except SidebetError:
            return False

    def verify_card(self, card: str, position: int) -> Violation | None:
        """Why ``card`` cannot be entered at ``position`` (0 first) of the shoe in use."""
        return self.shoe.verify_enter(card, position)

    # ----- decisions waiting for their cards --------------------------------------------

    def _trial(self, decision: Record, cards: list[Card] | None = None) -> RoundState:
        """The round in progress replayed on its cards and the waiting ones (or ``cards``),
        then ``decision``: :class:`CardAwaited` when the cards run short."""
        state = self.state
        assert state is not None
        deck = list(state.dealt) + self.waiting if cards is None else list(cards)
        position = 0

        def draw() -> Card:
            nonlocal position
            if position >= len(deck):
                raise CardAwaited(f"card {self.shoe.position + 1 + len(self.waiting)} of the "
                                  "shoe has not been entered yet")
            position += 1
            return deck[position - 1]

        trial = RoundState(self.config, self.seats, draw, unit=self.unit,
                           chips=state.starting_chips)
        for rec in self.decisions:
            trial.apply(rec)
        trial.apply(decision)
        return trial

    def awaits_cards(self, decision: Record) -> bool:
        """Whether ``decision``, which the engine allows now, must wait for cards not
        entered yet; refused (:class:`RuleError`) while another decision waits."""
        if self.awaiting is not None:
            raise RuleError([Violation(DEAL, f"the table waits for the cards of seat "
                                             f"{self.awaiting['seat']}'s "
                                             f"{self.awaiting['decision']['step']} first")],
                            conflict=True)
        if not self.round_open or self.state is None:
            return False
        self.state.answer(decision).check()
        try:
            self._trial(decision)
        except CardAwaited:
            return True
        return False

    def ready(self) -> Record | None:
        """The waiting decision, once its cards are all entered (else ``None``)."""
        if self.awaiting is None or self.state is None:
            return None
        decision = record_from_json(self.awaiting["decision"])
        try:
            self._trial(decision)
        except CardAwaited:
            return None
        return decision

    def pending(self) -> bool:
        """Never: the dealer keeps the pace of a dealer-assist table (no time limit)."""
        return False

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """Nothing while a decision waits for its cards; else the engine's options."""
        return [] if self.awaiting is not None else super().legal(seat)

    # ----- events -----------------------------------------------------------------------

    def apply(self, kind: str, payload: dict[str, Any], at: str) -> None:
        """Apply one event, this table's own kinds included."""
        if kind == "card":
            self.last_at, self._view = at, None
            if int(payload["shoe"]) != self._shoes.number:
                raise SidebetError(f"table {self.id}: a card for shoe {payload['shoe']} while "
                                   f"shoe {self._shoes.number} is in use")
            self.shoe.enter(str(payload["card"]), int(payload["position"]),
                            source=str(payload["source"]), confidence=payload["confidence"])
            return
        if kind == "card-undo":
            self.last_at, self._view = at, None
            self.shoe.discard(int(payload["position"]))
            return
        if kind == "awaiting":
            self.last_at, self._view = at, None
            self.awaiting = {k: payload[k] for k in ("decision", "seat", "actor")}
            return
        if kind == "shoe-new":
            self.last_at, self._view = at, None
            if self.round_open:
                raise SidebetError(f"table {self.id}: a new shoe while a round is open")
            self._shoes.advance()
            if int(payload["shoe"]) != self._shoes.number:
                raise SidebetError(f"table {self.id}: shoe {payload['shoe']} is not next")
            return
        if kind == "correction-asked":
            self.last_at, self._view = at, None
            self.asked[int(payload["request"])] = dict(payload)
            return
        if kind == "correction":
            self.last_at, self._view = at, None
            fix = self.correct(int(payload["request"]), str(payload["approved_by"]))
            moved = [*fix.entries, *fix.redone]
            if not self.round_open:  # a void: its house money was written with it
                self.house_pending = 0
            if [e.to_json() for e in fix.entries] != payload["entries"] or \
                    [e.to_json() for e in fix.redone] != payload["redone"] or \
                    {str(a): d for a, d in sorted(self.moves(moved).items())} \
                    != payload["moves"] or house_delta(moved) != payload["house"]:
                raise SidebetError(f"table {self.id}: the correction of request "
                                   f"{payload['request']} does not reproduce its ledger entries")
            return
        if kind == "round-open":
            self.awaiting = None
        super().apply(kind, payload, at)

    def perform(self, decision: Record) -> Performed:
        """Apply a decision through the engine (its cards entered): none waits then."""
        done = super().perform(decision)
        self.awaiting = None
        return done

    # ----- corrections ------------------------------------------------------------------

    def ask(self, kind: str, reason: str, asked_by: str, *, position: int | None = None,
            card: str | None = None) -> dict[str, Any]:
        """Check a correction that can be asked for now: what it is about (a round or a
        card) as the ``correction-asked`` event's payload (its ``request`` number is the
        event's sequence number, set by the caller)."""
        if kind not in CORRECTION_KINDS:
            raise SidebetError(f"a correction is one of {', '.join(CORRECTION_KINDS)}")
        if not reason.strip():
            raise SidebetError("a correction states why")
        out: dict[str, Any] = {"kind": kind, "reason": reason.strip(), "asked_by": asked_by,
                               "round": self.round_no, "game": f"T{self.id}-R{self.round_no}"}
        if kind == "card":
            if position is None or card is None:
                raise SidebetError("a card correction names the position and the true card")
            Card.parse(card)
            self._card_target(position)
            out.update(position=position, card=Card.parse(card).code)
        else:
            self._round_target(misdeal=kind == "misdeal")
        return out

    def _round_target(self, *, misdeal: bool) -> RoundState:
        """The round a void or a misdeal corrects: the one in progress, or the last one
        played when no round has opened since."""
        state = self.state
        if state is None or self.round_no in self.voided:
            raise SidebetError("there is no round to void (none played since the last one "
                               "voided)")
        if misdeal and not self.round_open:
            raise SidebetError("a misdeal is recorded in the round in progress")
        return state

    def _card_target(self, position: int) -> str:
        """Where the card at ``position`` is: ``waiting`` (entered, not dealt) or ``dealt``
        (in the round in progress, dealt from this shoe alone)."""
        shoe = self.shoe
        if shoe.position <= position < len(shoe.entered):
            return "waiting"
        spans = self._shoes.spans
        if self.round_open and len(spans) == 1 and spans[0].shoe == self._shoes.number and \
                spans[0].start <= position < spans[0].start + spans[0].cards:
            return "dealt"
        raise SidebetError(f"card {position + 1} of the shoe is neither waiting nor dealt in "
                           "the round in progress: void the round instead")

    def correct(self, request: int, approved_by: str) -> RoundCorrection:
        """Carry out correction ``request``, approved by ``approved_by``: the round voided
        (its money undone), or the card replaced (a dealt one: the round's decisions
        replayed on the true cards, its money undone and redone)."""
        asked = self.asked.get(request)
        if asked is None:
            raise SidebetError(f"no correction request {request} awaits approval")
        approval = Approval(str(asked["asked_by"]), approved_by, str(asked["reason"]))
        game = str(asked["game"])
        if asked["round"] != self.round_no:
            raise SidebetError(f"request {request} was asked for round {asked['round']}, "
                               f"not the round {self.round_no} it would change")
        kind = str(asked["kind"])
        if kind == "card":
            fix = self._correct_card(game, int(asked["position"]), Card.parse(asked["card"]),
                                     approval)
        else:
            state = self._round_target(misdeal=kind == "misdeal")
            fix = void_round(game, state.ledger.entries, approval, misdeal=kind == "misdeal")
            self.voided.add(self.round_no)
            self.round_open = False
            self.awaiting = None
            self.done_betting = set()
            self.shoe.discard(self.shoe.position)  # cards drawn for the voided round
        del self.asked[request]
        # the house's part joins the round's (written to the table's house_net when the
        # round ends, or now by the caller when a void closed it)
        self.house_pending += house_delta([*fix.entries, *fix.redone])
        self.corrected.append({"request": request, **fix.to_json()})
        self._view = None
        return fix

    def _correct_card(self, game: str, position: int, card: Card,
                      approval: Approval) -> RoundCorrection:
        shoe = self.shoe
        where = self._card_target(position)
        if where == "waiting":
            shoe.correct(position, card, asked_by=approval.asked_by,
                         approved_by=approval.approved_by, reason=approval.reason)
            return RoundCorrection(CorrectionKind.CARDS, game, approval, (), cards=(card,),
                                   citation=HOUSE_PROCEDURE)
        state = self.state
        assert state is not None
        start = self._shoes.spans[0].start
        cards = list(state.dealt)
        cards[position - start] = card
        fix, redo = correct_cards(game, state, cards, approval)
        shoe.correct(position, card, asked_by=approval.asked_by,
                     approved_by=approval.approved_by, reason=approval.reason, dealt=True)
        shoe.position = start  # deal the round again, from the corrected shoe
        self._shoes.spans = []
        rebuilt = self.new_state()
        for rec in self.decisions:
            rebuilt.apply(rec)
        if rebuilt.ledger.entries != redo.ledger.entries:  # pragma: no cover - one engine
            raise SidebetError(f"round {game}: the corrected round does not replay")
        self.state = rebuilt
        if self.awaiting is not None and not rebuilt.answer(
                record_from_json(self.awaiting["decision"])).allowed:
            self.awaiting = None
        return fix

    @property
    def done(self) -> bool:
        """Whether the round in progress has been played to its end."""
        return self.round_open and self.state is not None and self.state.phase is Phase.DONE

    # ----- snapshots --------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The table between rounds, with the shoe in use's entered cards."""
        shoe = self.shoe  # made first: its shoe state is part of the snapshot
        data = super().snapshot()
        data["physical"] = {
            "entered": [[e.card.code, e.source, e.confidence] for e in shoe.entered],
            "position": shoe.position, "asked": {str(k): v for k, v in self.asked.items()},
            "voided": sorted(self.voided)}
        data["opened"] = False
        return data

    def restore(self, data: dict[str, Any]) -> None:
        """Take the state of a :meth:`snapshot`: the shoe in use re-entered card by card."""
        super().restore(data)
        phys = data["physical"]
        shoe = self.shoe
        for position, (code, source, confidence) in enumerate(phys["entered"]):
            shoe.enter(code, position, source=source, confidence=confidence)
        shoe.position = int(phys["position"])
        self.asked = {int(k): dict(v) for k, v in phys["asked"].items()}
        self.voided = {int(r) for r in phys["voided"]}

    # ----- views ------------------------------------------------------------------------

    def _make_view(self) -> dict[str, Any]:
        view = super()._make_view()
        shoe = self.shoe
        view["shoe"] = {"shoe": self._shoes.number, "commitment": PHYSICAL,
                        "decks": shoe.decks, "client_seeds": [], "sealed": True,
                        "dealt": shoe.position, "revealed": True, "algorithm": PHYSICAL,
                        "stacked": False}
        view["physical"] = {"entered": len(shoe.entered), "next_position": len(shoe.entered),
                            "awaiting": None if self.awaiting is None else {
                                "seat": self.awaiting["seat"],
                                "action": self.awaiting["decision"]["step"]}}
        return view
