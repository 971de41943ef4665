"""Whether a decision is allowed now, and why not: the one check behind ``apply``,
``can_x`` and ``verify_x``.

:func:`answer` tells two refusals apart.  A **conflict**: the decision is not open to that
seat now (:func:`sidebet.table.options.options` does not offer it: the wrong phase,
another seat's turn, no such decision now, every wager placed, the deal called by a seat
without a Blackjack wager).  Otherwise the decision is open and its amount or wager
breaks a rule of the decision itself (:mod:`sidebet.table.checks`).

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table.dealing import DealingShoe
>>> from sidebet.table.records import Bet, CloseBets, Hit
>>> from sidebet.table.state import RoundState
>>> r = RoundState(TableConfig(), 2, DealingShoe.stacked("8h 9c 6d 8s 9d 10c").deal)
>>> r.answer(Bet(1, "blackjack", 0))
Answer(allowed=False, violations=(Violation(rule='§ 633a.6(d)', message='the Blackjack wager must be a positive amount'),), conflict=False)
>>> _ = r.place_bet(1, "blackjack", 10_00)
>>> print(r.answer(CloseBets(seat=2)).violations[0])
§ 633a.6(d): seat 2 has no Blackjack wager; a seat with one calls the deal
>>> _ = r.close_bets()
>>> a = r.answer(Hit(seat=2)); a.conflict, str(a.violations[0])
(True, "§ 633a.7: it is seat 1's turn, not seat 2's")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from sidebet.core.errors import RuleError, SidebetError, Violation
from sidebet.regulation.citations import BETS, PLAY
from sidebet.table import checks
from sidebet.table.actions import play_action
from sidebet.table.model import BLACKJACK, RoundView
from sidebet.table.options import options
from sidebet.table.records import (
    Bet,
    CloseBets,
    Double,
    Hit,
    Insurance,
    PlayDecision,
    Press,
    Record,
    Split,
    Stand,
    Step,
    Surrender,
    Withdraw,
)

__all__ = [
    "Answer",
    "answer",
    "ask_bet",
    "ask_close_bets",
    "ask_insure",
    "ask_on_hand",
    "ask_press",
    "can",
    "conflict_violations",
    "decision",
    "hand_decision",
    "verify",
]


@dataclass(frozen=True, slots=True)
class Answer:
    """Whether a decision is allowed; if not, every rule it breaks and whether it is a
    conflict (not open to that seat now) rather than a broken rule of the decision."""

    allowed: bool
    violations: tuple[Violation, ...] = ()
    conflict: bool = False

    def __post_init__(self) -> None:
        if self.allowed == bool(self.violations) or (self.allowed and self.conflict):
            raise ValueError("an answer allows with no violations or refuses with some")

    @staticmethod
    def of(found: list[Violation], *, conflict: bool = False) -> Answer:
        """Allowed when nothing is found; else refused for what was found."""
        return Answer(not found, tuple(found), bool(found) and conflict)

    def check(self) -> None:
        """Raise :class:`RuleError` (with :attr:`conflict`) unless allowed."""
        if not self.allowed:
            raise RuleError(self.violations, conflict=self.conflict)


def conflict_violations(state: RoundView, seat: int, step: Step) -> list[Violation]:
    """Why ``step`` is not open to ``seat`` now: the engine's own refusal of the step with
    its default amounts when it has one, else whose turn it is."""
    found = _default_check(state, seat, step)
    if found:
        return found
    if step is Step.CLOSE_BETS:
        return [Violation(BETS, f"seat {seat} has no Blackjack wager; a seat with one calls "
                                "the deal")]
    hand = state.current_hand
    if hand is not None:
        return [Violation(PLAY, f"it is seat {hand.seat}'s turn, not seat {seat}'s")]
    if step is Step.BET:
        return [Violation(BETS, f"seat {seat} has placed every wager the table offers")]
    return [Violation(PLAY, f"seat {seat} has no {step.value} decision now "
                            f"(phase {state.phase.value})")]


def _default_check(state: RoundView, seat: int, step: Step) -> list[Violation]:
    if step is Step.BET:
        return checks.place_bet_violations(state, seat, BLACKJACK, 1)
    if step is Step.CLOSE_BETS:
        return checks.close_violations(state)
    if step is Step.PRESS:
        return checks.press_violations(state, seat, 0)
    if step is Step.INSURANCE:
        return checks.insurance_violations(state, seat, 0)
    return play_action(step).check(state)


def answer(state: RoundView, decision: Record) -> Answer:
    """The answer to ``decision`` now (:class:`SidebetError` for a dealer step, which no
    one decides)."""
    match decision:
        case CloseBets(seat=None):  # the dealer's call
            return Answer.of(checks.close_violations(state), conflict=True)
        case Withdraw():  # the operator's, never offered to the player
            return Answer.of(checks.withdraw_violations(state, decision.seat), conflict=True)
        case Bet() | CloseBets() | Press() | Insurance() | Hit() | Stand() | Double() | Split() \
                | Surrender():
            seat = decision.seat
        case _:
            raise SidebetError(f"{decision.step.value} is a dealer step, not a decision to replay")
    assert seat is not None
    if decision.step not in {o.step for o in options(state, seat)}:
        return Answer.of(conflict_violations(state, seat, decision.step), conflict=True)
    match decision:
        case Hit(hand=int(index)) | Stand(hand=int(index)) | Double(hand=int(index)) \
                | Split(hand=int(index)) | Surrender(hand=int(index)) \
                if index != state.current_index:
            current = (state.current_index or 0) + 1
            return Answer.of([Violation(PLAY, f"seat {seat}'s hand {current} is to act, not "
                                              f"hand {index + 1}")], conflict=True)
        case Bet(wager=wager, amount=amount):
            return Answer.of(checks.place_bet_violations(state, seat, wager, amount))
        case Press(amount=amount):
            return Answer.of(checks.press_violations(state, seat, amount))
        case Insurance(amount=amount):
            return Answer.of(checks.insurance_violations(state, seat, amount))
        case Double(amount=amount):
            return Answer.of(checks.double_violations(state, amount))
    return Answer(True)


def hand_decision(state: RoundView, kind: type[PlayDecision]) -> PlayDecision | None:
    """The decision ``kind`` on the hand to act (``None`` when no hand is to act)."""
    hand, index = state.current_hand, state.current_index
    return None if hand is None or index is None else kind(seat=hand.seat, hand=index)


# ----- the answers behind can_x and verify_x ----------------------------------------------

def ask_bet(state: RoundView, seat: int, wager: str, amount: int) -> Answer:
    """The answer to a bet."""
    return answer(state, Bet(seat, wager, amount))


def ask_close_bets(state: RoundView) -> Answer:
    """The answer to the dealer's call of "no more bets"."""
    return answer(state, CloseBets())


def ask_press(state: RoundView, seat: int, amount: int) -> Answer:
    """The answer to a press."""
    return answer(state, Press(seat, amount))


def ask_insure(state: RoundView, seat: int, amount: int) -> Answer:
    """The answer to insurance."""
    return answer(state, Insurance(seat, amount))


def ask_on_hand(kind: type[PlayDecision]) -> Callable[[RoundView], Answer]:
    """The answer to ``kind`` on the hand to act (refused when no hand is to act)."""

    def ask(state: RoundView) -> Answer:
        decision = hand_decision(state, kind)
        if decision is None:
            return Answer.of(play_action(kind.step).check(state), conflict=True)
        return answer(state, decision)

    return ask


def ask_double(state: RoundView, amount: int | None = None) -> Answer:
    """The answer to a Double Down of ``amount`` (default: the whole wager) on the hand to
    act."""
    decision = hand_decision(state, Double)
    if decision is None:
        return Answer.of(checks.double_violations(state, amount), conflict=True)
    return answer(state, Double(decision.seat, decision.hand, amount))


P = ParamSpec("P")
R = TypeVar("R")


class _AnswerMethod(Generic[P, R]):
    """A method of :class:`RoundState` made from an ask: ``can_x`` or ``verify_x``."""

    def __init__(self, ask: Callable[Concatenate[Any, P], Answer], doc: str) -> None:
        self.ask = ask
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def reply(self, given: Answer) -> R:
        """What the method returns for the answer."""
        raise NotImplementedError

    @overload
    def __get__(self, obj: None, owner: type) -> Self: ...
    @overload
    def __get__(self, obj: object, owner: type) -> Callable[P, R]: ...
    def __get__(self, obj: object | None, owner: type) -> Self | Callable[P, R]:
        if obj is None:
            return self
        ask, reply = self.ask, self.reply

        def bound(*args: P.args, **kwargs: P.kwargs) -> R:
            return reply(ask(obj, *args, **kwargs))

        bound.__name__ = self.name
        bound.__doc__ = self.__doc__
        return bound


class can(_AnswerMethod[P, bool]):
    """``can_x``: whether the answer allows it."""

    def reply(self, given: Answer) -> bool:
        """``True`` when allowed."""
        return given.allowed


class verify(_AnswerMethod[P, None]):
    """``verify_x``: raise :class:`RuleError` naming every rule the answer finds (the state
    is unchanged)."""

    def reply(self, given: Answer) -> None:
        """Raise unless allowed."""
        given.check()


def decision(ask: Callable[Concatenate[Any, P], Answer], can_doc: str, verify_doc: str
             ) -> tuple[can[P], verify[P]]:
    """A decision's ``can_x`` and ``verify_x`` methods, both from one ``ask``."""
    return can(ask, can_doc), verify(ask, verify_doc)
