"""Frozen records of a round: every decision and every automatic step of the dealer, one
type per kind of step.

A round's records in order are its hand history (:mod:`sidebet.table.history`): the
decisions among them (:data:`Decision`), applied to the same cards, replay the round to the
identical final state.  Each kind has only the fields it has (a :class:`Bet` a seat, a
wager and an amount; a :class:`Hit` a seat, a hand and the card drawn), and writes the
JSON form the histories and the server's log have always held (:meth:`Record.to_json`,
:func:`record_from_json`).

>>> r = Hit(seat=1, hand=0, cards=parse_cards("7h"), citation="§ 633a.7")
>>> r.to_json()
{'step': 'hit', 'seat': 1, 'hand': 0, 'cards': '7h', 'citation': '§ 633a.7'}
>>> record_from_json(r.to_json()) == r, r.describe()
(True, 'seat 1 hand 1 hit 7♥ [§ 633a.7]')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, fields
from enum import Enum
from functools import cache
from typing import Any, ClassVar

from sidebet.core.cards import Card, format_cards, parse_cards
from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents, format_money, parse_money

__all__ = [
    "DECISIONS",
    "KINDS",
    "Bet",
    "CloseBets",
    "Deal",
    "DealToHand",
    "DealerPlay",
    "DealerStep",
    "Decision",
    "Double",
    "Hit",
    "Insurance",
    "Peek",
    "Phase",
    "PlayDecision",
    "Press",
    "Record",
    "Settle",
    "SideWager",
    "Split",
    "Stand",
    "Step",
    "Surrender",
    "Withdraw",
    "play_decision",
    "record_from_json",
]


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
    WITHDRAW = "withdraw"
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
        Step.WITHDRAW,
    }
)
"""The steps a player (or the dealer's call of "no more bets") decides."""

_ORDER = ("seat", "hand", "wager", "amount", "cards", "outcome", "citation", "note")
"""The fields of every kind, in the order their JSON lists them."""


class Record:
    """One step of a round: the common base of its kinds (:data:`KINDS`), each a frozen,
    slotted dataclass with ``step`` its :class:`Step`.

    ``seat`` is 1..7, ``hand`` the index of the seat's hand, ``wager`` a wager identifier,
    ``amount`` cents, ``cards`` the cards the step dealt (or showed), ``outcome`` a result
    identifier, ``citation`` the subsection governing the step, ``note`` free text for
    people; a kind has only those of them it records.

    >>> record_from_json({"step": "bet", "seat": 1, "wager": "blackjack", "amount": "10.00"})
    Bet(seat=1, wager='blackjack', amount=1000, citation='')
    """

    __slots__ = ()
    step: ClassVar[Step]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # every kind is a dataclass

    @property
    def is_decision(self) -> bool:
        """Whether a player (or the dealer's call) decided this step."""
        return self.step in DECISIONS

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (money as decimal strings, cards as text); empty fields left out."""
        out: dict[str, Any] = {"step": self.step.value}
        for name in _fields_of(self.step):
            value = getattr(self, name)
            if value is None or (name in ("cards", "citation", "note") and not value):
                continue
            if name == "amount":
                value = format_money(value)
            elif name == "cards":
                value = " ".join(c.code for c in value)
            out[name] = value
        return out

    def describe(self) -> str:
        """One line for people."""
        seat: int | None = getattr(self, "seat", None)
        hand: int | None = getattr(self, "hand", None)
        who = "dealer" if seat is None else f"seat {seat}"
        if hand is not None and seat is not None:
            who += f" hand {hand + 1}"
        parts = [who, self.step.value]
        wager: str | None = getattr(self, "wager", None)
        amount: Cents | None = getattr(self, "amount", None)
        cards: tuple[Card, ...] = getattr(self, "cards", ())
        outcome: str | None = getattr(self, "outcome", None)
        note: str = getattr(self, "note", "")
        citation: str = getattr(self, "citation", "")
        if wager:
            parts.append(wager)
        if amount is not None:
            parts.append(format_money(amount))
        if cards:
            parts.append(format_cards(cards))
        if outcome:
            parts.append(f"-> {outcome}")
        text = " ".join(parts)
        if note:
            text += f" ({note})"
        if citation:
            text += f" [{citation}]"
        return text


# ----- decisions ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Bet(Record):
    """A wager placed at a seat (§ 633a.6(d) for the Blackjack wager; a side wager's
    section for it)."""

    step: ClassVar[Step] = Step.BET
    seat: int
    wager: str
    amount: Cents
    citation: str = ""


@dataclass(frozen=True, slots=True)
class CloseBets(Record):
    """The call of "no more bets" (§ 633c.11(c)), then the deal.  ``seat`` is who calls it
    at a server table (a seat with a Blackjack wager); ``None``: the dealer.  The engine's
    record names no seat."""

    step: ClassVar[Step] = Step.CLOSE_BETS
    seat: int | None = None
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Press(Record):
    """How much of a seat's TriLux Deluxe winnings it presses (§ 633c.11(e)); 0 collects."""

    step: ClassVar[Step] = Step.PRESS
    seat: int
    amount: Cents
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Insurance(Record):
    """The insurance a seat takes (interpretation 14); 0 declines."""

    step: ClassVar[Step] = Step.INSURANCE
    seat: int
    amount: Cents
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Hit(Record):
    """A card drawn to a seat's hand (§ 633a.7).  ``hand`` ``None`` (a request): the hand
    to act; the engine's record names the hand and the card."""

    step: ClassVar[Step] = Step.HIT
    seat: int
    hand: int | None = None
    cards: tuple[Card, ...] = ()
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Stand(Record):
    """A seat stands on its hand (§ 633a.7)."""

    step: ClassVar[Step] = Step.STAND
    seat: int
    hand: int | None = None
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Double(Record):
    """A Double Down wager and its one card (§ 633a.10).  ``amount`` ``None`` (a request):
    the whole wager including the press."""

    step: ClassVar[Step] = Step.DOUBLE
    seat: int
    hand: int | None = None
    amount: Cents | None = None
    cards: tuple[Card, ...] = ()
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Split(Record):
    """A pair split (§ 633a.11): ``amount`` the new hand's wager, ``cards`` the first hand's
    second card."""

    step: ClassVar[Step] = Step.SPLIT
    seat: int
    hand: int | None = None
    amount: Cents | None = None
    cards: tuple[Card, ...] = ()
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Surrender(Record):
    """A seat gives up its hand (interpretation 14)."""

    step: ClassVar[Step] = Step.SURRENDER
    seat: int
    hand: int | None = None
    citation: str = ""


@dataclass(frozen=True, slots=True)
class Withdraw(Record):
    """A seat taken out of the round by the operator's control of its player's account
    (``citation`` the control, ``note`` its reason): before "no more bets" its wagers are
    returned; after the deal its hands stand as they are, a Press offer is collected and
    insurance declined, and nothing more is decided for it."""

    step: ClassVar[Step] = Step.WITHDRAW
    seat: int
    citation: str = ""
    note: str = ""


# ----- dealer steps ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Deal(Record):
    """The deal (§ 633a.7(a)-(f)): ``cards`` in dealing order, a first card to each seat,
    the upcard, a second card to each seat, the hole card last."""

    step: ClassVar[Step] = Step.DEAL
    cards: tuple[Card, ...]
    citation: str = ""
    note: str = ""

    @property
    def hole(self) -> Card:
        """The dealer's hole card (dealt last)."""
        return self.cards[-1]

    @property
    def open_cards(self) -> tuple[Card, ...]:
        """Every card of the deal but the hole card."""
        return self.cards[:-1]


@dataclass(frozen=True, slots=True)
class SideWager(Record):
    """A side wager settled: ``amount`` its net, ``cards`` the player's two cards and the
    upcard, ``outcome`` its paytable outcome."""

    step: ClassVar[Step] = Step.SIDE_WAGER
    seat: int
    wager: str
    amount: Cents
    cards: tuple[Card, ...]
    outcome: str
    citation: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class Peek(Record):
    """The dealer's check for Blackjack: by the card reader, or the hole card turned after
    the players (``cards`` the hole card)."""

    step: ClassVar[Step] = Step.PEEK
    outcome: str
    cards: tuple[Card, ...] = ()
    citation: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class DealToHand(Record):
    """The second card of a split hand, dealt when its turn comes (§ 633a.11)."""

    step: ClassVar[Step] = Step.DEAL_TO_HAND
    seat: int
    hand: int
    cards: tuple[Card, ...]
    citation: str = ""


@dataclass(frozen=True, slots=True)
class DealerPlay(Record):
    """The dealer's hand as it ends (§ 633a.7): all its cards and its total."""

    step: ClassVar[Step] = Step.DEALER_PLAY
    cards: tuple[Card, ...]
    outcome: str
    citation: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class Settle(Record):
    """The round settled (§ 633a.7(g)): ``amount`` the house's net."""

    step: ClassVar[Step] = Step.SETTLE
    amount: Cents
    citation: str = ""
    note: str = ""


PlayDecision = Hit | Stand | Double | Split | Surrender
"""A decision on the hand to act."""
Decision = Bet | CloseBets | Press | Insurance | PlayDecision | Withdraw
"""A decision of a player (or the call of "no more bets", or the operator's withdrawal of
a seat): what replay applies."""
DealerStep = Deal | SideWager | Peek | DealToHand | DealerPlay | Settle
"""A step the engine takes by itself."""

KINDS: dict[Step, type[Record]] = {
    kind.step: kind
    for kind in (Bet, CloseBets, Press, Insurance, Hit, Stand, Double, Split, Surrender,
                 Withdraw, Deal, SideWager, Peek, DealToHand, DealerPlay, Settle)
}
"""The kind of record of every step."""


@cache
def _fields_of(step: Step) -> tuple[str, ...]:
    names = {f.name for f in fields(KINDS[step])}
    return tuple(n for n in _ORDER if n in names)


@cache
def _required(step: Step) -> frozenset[str]:
    return frozenset(f.name for f in fields(KINDS[step])
                     if f.default is MISSING and f.default_factory is MISSING)


def _build(step: Step, values: Mapping[str, Any]) -> Record:
    kind = KINDS[step]
    have = _fields_of(step)
    for name in values:
        if name not in have:
            raise SidebetError(f"a {step.value} record has no {name!r}")
    for name in _required(step):
        if name not in values:
            raise SidebetError(f"a {step.value} record names no {name}")
    return kind(**values)


_PLAY_KINDS: dict[Step, type[Hit | Stand | Double | Split | Surrender]] = {
    Step.HIT: Hit, Step.STAND: Stand, Step.DOUBLE: Double, Step.SPLIT: Split,
    Step.SURRENDER: Surrender,
}


def play_decision(step: Step, seat: int) -> PlayDecision:
    """The decision ``step`` on ``seat``'s hand to act, with its default amounts (a double
    of the whole wager); :class:`SidebetError` for a step that is not one (§ 633a.7).

    >>> play_decision(Step.STAND, 2)
    Stand(seat=2, hand=None, citation='')
    """
    kind = _PLAY_KINDS.get(step)
    if kind is None:
        raise SidebetError(f"{step.value} is not a decision on a hand")
    return kind(seat=seat)


def record_from_json(data: Mapping[str, Any]) -> Record:
    """The record of a :meth:`Record.to_json` dict (:class:`SidebetError` for a field its
    kind does not have, a missing one or one of the wrong type).

    >>> record_from_json({"step": "bet", "seat": 2, "wager": "trilux", "amount": "5.00"})
    Bet(seat=2, wager='trilux', amount=500, citation='')
    """
    try:
        step = Step(data["step"])
    except ValueError:
        raise SidebetError(f"no record step {str(data['step'])[:40]!r}") from None
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name == "step":
            continue
        if name not in _ORDER:
            raise SidebetError(f"a {step.value} record has no {name!r}")
        if name in ("seat", "hand"):
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise SidebetError(f"a {step.value} record's {name!r} has the wrong type")
        if name == "amount":
            value = parse_money(value)
        elif name == "cards":
            value = parse_cards(value)
        values[name] = value
    return _build(step, values)
