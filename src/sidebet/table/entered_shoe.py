"""A physical shoe: its cards come from outside (a dealer's screen, a card-reading shoe),
one at a time and in dealing order, and the engine deals them as they were entered.

Nothing is shuffled here and nothing is committed: the cards are what the dealer or the
reader says, so a history records them as "physical shoe: cards as entered"
(:data:`PHYSICAL`).  What the engine can still check, it checks before a card is accepted:

* the card must be left in a shoe of that many decks (interpretation 1: a shoe holds 1
  to 8 standard 52-card decks, dealt without replacement);
* it must be the next card of the dealing order (§ 633a.7(a)-(f)): its position in the
  shoe (0 for the first card) is the number of cards entered before it.

A refusal is a :class:`~sidebet.core.errors.Violation` (``verify_enter``) and changes
nothing; ``can_enter`` asks, ``enter`` accepts the card and returns the frozen
:class:`EnteredCard`.  Cards entered but not yet dealt wait (:attr:`EnteredShoe.pending`);
``deal`` takes the next of them, or raises :class:`CardAwaited` when none waits, so a
caller enters the cards a step needs (the deal: two for each playing seat and two for the
dealer) before applying it.  The cut card comes out when the dealer says so
(:meth:`EnteredShoe.cut_card_out`) or at ``cut`` cards.  :meth:`EnteredShoe.correct`
replaces a card entered and not yet dealt (a misread), on a supervisor's approval.

>>> shoe = EnteredShoe(1)
>>> shoe.enter("As", 0).card.code, shoe.enter("Kd", 1).position, shoe.pending
('As', 1, 2)
>>> print(shoe.verify_enter("Qh", 5))
§ 633a.7(a)-(f): card 6 of the shoe is out of the dealing order: card 3 is next
>>> print(shoe.verify_enter("As", 2))
interpretation 1: A♠ is not left in a shoe of 1 deck (1 entered already)
>>> shoe.deal().code, shoe.position, shoe.remaining
('As', 1, 51)
"""

from __future__ import annotations

from dataclasses import dataclass

from sidebet.core.cards import Card
from sidebet.core.errors import CardError, RuleError, ShoeError, SidebetError, Violation
from sidebet.core.shoe import Shoe
from sidebet.regulation.citations import DEAL

__all__ = ["PHYSICAL", "CardAwaited", "CardCorrection", "EnteredCard", "EnteredShoe"]

PHYSICAL = "physical shoe: cards as entered"
"""The commitment field of a physical shoe: none is claimed."""
SHOE_RULE = "interpretation 1"
"""A shoe holds 1 to 8 standard 52-card decks, dealt without replacement."""


class CardAwaited(ShoeError):
    """The engine needs the next card and none has been entered yet."""


@dataclass(frozen=True, slots=True)
class EnteredCard:
    """A card accepted into the shoe: its position (0 first) and who entered it (a dealer's
    screen, a reader's id) with the reader's confidence when it has one (0..1)."""

    position: int
    card: Card
    source: str = ""
    confidence: float | None = None


@dataclass(frozen=True, slots=True)
class CardCorrection:
    """A card entered and not yet dealt, replaced: who asked, who approved, why."""

    position: int
    was: Card
    card: Card
    asked_by: str
    approved_by: str
    reason: str


def _card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else Card.parse(card)


class EnteredShoe:
    """A physical shoe of ``decks`` decks whose cards are entered in dealing order
    (the :class:`~sidebet.table.shoe_sequence.DealtShoe` a
    :class:`~sidebet.table.shoe_sequence.ShoeSequence` deals from)."""

    def __init__(self, decks: int, *, cut: int | None = None) -> None:
        Shoe.standard(decks)  # 1 to 8 decks (interpretation 1)
        if cut is not None and not 0 < cut <= 52 * decks:
            raise ShoeError(f"the cut card must be within the {52 * decks} cards, not at {cut}")
        self.decks = decks
        self.cut = cut
        self.commitment = PHYSICAL
        self.position = 0
        """Cards dealt (taken by the engine) so far."""
        self._entered: list[EnteredCard] = []
        self._left = [decks] * 52
        self._cut_out = False
        self.corrections: list[CardCorrection] = []

    @property
    def size(self) -> int:
        """Cards in a full shoe."""
        return 52 * self.decks

    @property
    def entered(self) -> tuple[EnteredCard, ...]:
        """Every card entered, in dealing order."""
        return tuple(self._entered)

    @property
    def pending(self) -> int:
        """Cards entered and not yet dealt."""
        return len(self._entered) - self.position

    @property
    def remaining(self) -> int:
        """Cards not yet dealt (in the physical shoe or entered and waiting)."""
        return self.size - self.position

    @property
    def needs_shuffle(self) -> bool:
        """Whether the cut card has come out."""
        return self._cut_out or (self.cut is not None and len(self._entered) >= self.cut)

    def cut_card_out(self) -> None:
        """The dealer reports the cut card: the round in progress is the shoe's last."""
        self._cut_out = True

    def verify_enter(self, card: Card | str, position: int) -> Violation | None:
        """Why ``card`` cannot be the shoe's card at ``position`` (0 first), or ``None``."""
        try:
            c = _card(card)
        except CardError as exc:
            return Violation(SHOE_RULE, str(exc))
        nxt = len(self._entered)
        if position != nxt:
            return Violation(DEAL, f"card {position + 1} of the shoe is out of the dealing "
                                   f"order: card {nxt + 1} is next")
        if nxt >= self.size:
            return Violation(SHOE_RULE, f"all {self.size} cards of the shoe were entered")
        if self._left[c.index] == 0:
            return Violation(SHOE_RULE, f"{c} is not left in a shoe of {self.decks} "
                                        f"deck{'s' if self.decks > 1 else ''} "
                                        f"({self.decks} entered already)")
        return None

    def can_enter(self, card: Card | str, position: int) -> bool:
        """Whether :meth:`enter` would accept the card."""
        return self.verify_enter(card, position) is None

    def enter(self, card: Card | str, position: int, *, source: str = "",
              confidence: float | None = None) -> EnteredCard:
        """Accept ``card`` as the shoe's card at ``position`` (refused: :class:`RuleError`,
        nothing changed)."""
        violation = self.verify_enter(card, position)
        if violation is not None:
            raise RuleError([violation], conflict=position != len(self._entered))
        if confidence is not None and not 0.0 <= confidence <= 1.0:
            raise SidebetError(f"a reading confidence is between 0 and 1, not {confidence}")
        c = _card(card)
        rec = EnteredCard(position, c, source, confidence)
        self._entered.append(rec)
        self._left[c.index] -= 1
        return rec

    def correct(self, position: int, card: Card | str, *, asked_by: str, approved_by: str,
                reason: str, dealt: bool = False) -> CardCorrection:
        """Replace the card entered at ``position`` (not yet dealt, or with ``dealt`` one
        already dealt, whose round the caller corrects) by ``card``, approved by someone
        other than who asked, for a stated reason."""
        if not reason.strip():
            raise SidebetError("a correction states why")
        if not asked_by.strip() or not approved_by.strip() or asked_by == approved_by:
            raise SidebetError("a correction is approved by someone other than who asked")
        if not (0 if dealt else self.position) <= position < len(self._entered):
            raise RuleError([Violation(DEAL, f"card {position + 1} is not waiting to be "
                                             "dealt: a dealt card is corrected by voiding "
                                             "or correcting its round")])
        c = _card(card)
        old = self._entered[position]
        if c != old.card and self._left[c.index] == 0:
            raise RuleError([Violation(SHOE_RULE, f"{c} is not left in a shoe of "
                                                  f"{self.decks} decks")])
        self._left[old.card.index] += 1
        self._left[c.index] -= 1
        self._entered[position] = EnteredCard(position, c, f"corrected by {approved_by}")
        fix = CardCorrection(position, old.card, c, asked_by, approved_by, reason.strip())
        self.corrections.append(fix)
        return fix

    def discard(self, start: int) -> list[Card]:
        """Take back the cards entered at ``start`` and after, none of them dealt yet (an
        undone entry; the cards waiting for a voided round): they go back to the shoe's
        count, in the order entered.  Refused (:class:`RuleError`) for a dealt card."""
        if not self.position <= start <= len(self._entered):
            raise RuleError([Violation(DEAL, f"card {start + 1} is not waiting to be dealt: "
                                             "only cards not yet dealt are taken back")])
        gone = [e.card for e in self._entered[start:]]
        for c in gone:
            self._left[c.index] += 1
        del self._entered[start:]
        return gone

    def deal(self) -> Card:
        """The next entered card (:class:`CardAwaited` when none waits)."""
        if self.position >= len(self._entered):
            raise CardAwaited(f"card {self.position + 1} of the shoe has not been entered yet")
        card = self._entered[self.position].card
        self.position += 1
        return card
