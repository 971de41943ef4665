"""The decisions of a round, one table: step -> how to check it, take it and replay it.

:data:`DECISION_TABLE` drives :meth:`RoundState.apply` (replay),
:meth:`RoundState.legal_actions`, the policies' :func:`sidebet.table.policy.take` and the
terminal's keys (``sidebet play``).  :data:`PLAY_ACTIONS` are the decisions on the
current hand, in the order they are offered.

>>> [(a.key, a.step.value) for a in PLAY_ACTIONS]
[('h', 'hit'), ('s', 'stand'), ('d', 'double'), ('p', 'split'), ('r', 'surrender')]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sidebet.core.errors import SidebetError, Violation
from sidebet.table import checks
from sidebet.table.records import Record, Step

if TYPE_CHECKING:
    from sidebet.table.state import RoundState

__all__ = ["DECISION_TABLE", "PLAY_ACTIONS", "Decision", "decision", "play_action"]


def _seat(record: Record) -> int:
    if record.seat is None:
        raise SidebetError(f"a {record.step.value} record names no seat")
    return record.seat


def _wager(record: Record) -> str:
    if record.wager is None:
        raise SidebetError(f"a {record.step.value} record names no wager")
    return record.wager


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision: its step, how a record of it is applied to a state (replay, or taking
    it with default amounts from a bare ``Record(step)``), what it checks on the current
    hand (decisions on a hand: :mod:`sidebet.table.checks`), and its key and label in a
    terminal."""

    step: Step
    apply: Callable[[RoundState, Record], Record]
    check: Callable[[RoundState], list[Violation]] | None = None
    key: str = ""
    label: str = ""

    def can(self, state: RoundState) -> bool:
        """Whether the current hand may take this decision now (decisions on a hand)."""
        return self.check is not None and not self.check(state)

    def take(self, state: RoundState) -> Record:
        """Take the decision with its default amounts (a double of the whole wager)."""
        return self.apply(state, Record(self.step))


PLAY_ACTIONS: tuple[Decision, ...] = (
    Decision(Step.HIT, lambda s, r: s.hit(), checks.hit_violations, "h", "h)it"),
    Decision(Step.STAND, lambda s, r: s.stand(), checks.stand_violations, "s", "s)tand"),
    Decision(Step.DOUBLE, lambda s, r: s.double(r.amount),
             checks.double_violations, "d", "d)ouble"),
    Decision(Step.SPLIT, lambda s, r: s.split(), checks.split_violations, "p", "s(p)lit"),
    Decision(Step.SURRENDER, lambda s, r: s.surrender(), checks.surrender_violations, "r",
             "(r)surrender"),
)
"""The decisions on the current hand, in the order :meth:`RoundState.legal_actions`
lists them."""

DECISION_TABLE: dict[Step, Decision] = {
    Step.BET: Decision(Step.BET, lambda s, r: s.place_bet(_seat(r), _wager(r), r.amount or 0)),
    Step.CLOSE_BETS: Decision(Step.CLOSE_BETS, lambda s, r: s.close_bets()),
    Step.PRESS: Decision(Step.PRESS, lambda s, r: s.press(_seat(r), r.amount or 0)),
    Step.INSURANCE: Decision(Step.INSURANCE, lambda s, r: s.insure(_seat(r), r.amount or 0)),
    **{a.step: a for a in PLAY_ACTIONS},
}
"""Every decision a record can replay (dealer steps are derived, not replayed)."""


def decision(step: Step) -> Decision:
    """The decision of ``step``; :class:`SidebetError` for a dealer step."""
    found = DECISION_TABLE.get(step)
    if found is None:
        raise SidebetError(f"{step.value} is a dealer step, not a decision to replay")
    return found


def play_action(step: Step) -> Decision:
    """The decision on the current hand of ``step``; :class:`SidebetError` otherwise."""
    for action in PLAY_ACTIONS:
        if action.step is step:
            return action
    raise SidebetError(f"{step.value} is not a play action")
