"""The decisions on the hand to act, one table: step -> its check, its key and its label.

:data:`PLAY_ACTIONS` drives :meth:`RoundState.legal_actions`, the policies'
:func:`sidebet.table.policy.take` and the terminal's keys (``sidebet play``), in the order
the decisions are offered.

>>> [(a.key, a.step.value) for a in PLAY_ACTIONS]
[('h', 'hit'), ('s', 'stand'), ('d', 'double'), ('p', 'split'), ('r', 'surrender')]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sidebet.core.errors import RuleError, SidebetError, Violation
from sidebet.table import checks
from sidebet.table.model import RoundView
from sidebet.table.records import Double, Hit, PlayDecision, Record, Split, Stand, Step, Surrender

__all__ = ["PLAY_ACTIONS", "PlayAction", "play_action"]


@dataclass(frozen=True, slots=True)
class PlayAction:
    """A decision on the hand to act: its kind of record, what it checks
    (:mod:`sidebet.table.checks`), and its key and label in a terminal."""

    kind: type[PlayDecision]
    check: Callable[[RoundView], list[Violation]]
    key: str
    label: str

    @property
    def step(self) -> Step:
        """The decision's step."""
        return self.kind.step

    def can(self, state: RoundView) -> bool:
        """Whether the hand to act may take this decision now."""
        return not self.check(state)

    def take(self, state: RoundView) -> Record:
        """Take the decision with its default amounts (a double of the whole wager) on the
        hand to act; :class:`RuleError` when no hand is to act."""
        hand, index = state.current_hand, state.current_index
        if hand is None or index is None:
            raise RuleError(self.check(state))
        return state.apply(self.kind(seat=hand.seat, hand=index))


PLAY_ACTIONS: tuple[PlayAction, ...] = (
    PlayAction(Hit, checks.hit_violations, "h", "h)it"),
    PlayAction(Stand, checks.stand_violations, "s", "s)tand"),
    PlayAction(Double, checks.double_violations, "d", "d)ouble"),
    PlayAction(Split, checks.split_violations, "p", "s(p)lit"),
    PlayAction(Surrender, checks.surrender_violations, "r", "(r)surrender"),
)
"""The decisions on the hand to act, in the order :meth:`RoundState.legal_actions`
lists them."""


def play_action(step: Step) -> PlayAction:
    """The decision on the hand to act of ``step``; :class:`SidebetError` otherwise."""
    for action in PLAY_ACTIONS:
        if action.step is step:
            return action
    raise SidebetError(f"{step.value} is not a play action")
