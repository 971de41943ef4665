"""Errors and rule violations.

Every error that bad input can cause derives from :class:`SidebetError`; the CLI turns
them into one line on stderr and exit status 2.  An error that breaks a rule of the
regulations carries the rule's citation and starts its message with it.

>>> str(Violation("§ 633c.11(c)", "TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00"))
'§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CardError",
    "ConfigError",
    "RuleError",
    "ShoeError",
    "SidebetError",
    "Violation",
]


class SidebetError(ValueError):
    """Base class of every error caused by bad input."""


class CardError(SidebetError):
    """Text that is not a card, or a card that cannot be in the shoe."""


class ShoeError(CardError):
    """A shoe composition that is impossible (a card not left in the shoe)."""


class ConfigError(SidebetError):
    """A table configuration (Rules Submission) file that cannot be read."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: its citation and what is wrong."""

    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}" if self.rule else self.message


class RuleError(SidebetError):
    """An action or configuration that breaks one or more rules.

    ``conflict`` tells why a decision is refused: it is not open to that player now (the
    wrong phase, another seat's turn, no such decision now), rather than its amount or
    wager breaking a rule of the decision itself.

    >>> err = RuleError([Violation("§ 633b.15(b)", "Upcard Luck needs 4, 6 or 8 decks")])
    >>> str(err), err.violations[0].rule, err.conflict
    ('§ 633b.15(b): Upcard Luck needs 4, 6 or 8 decks', '§ 633b.15(b)', False)
    """

    def __init__(self, violations: Violation | Sequence[Violation], *,
                 conflict: bool = False) -> None:
        items = (violations,) if isinstance(violations, Violation) else tuple(violations)
        if not items:
            raise ValueError("RuleError needs at least one violation")
        self.violations: tuple[Violation, ...] = items
        self.conflict = conflict
        super().__init__("; ".join(str(v) for v in items))

    @property
    def rule(self) -> str:
        """The citation of the first rule broken."""
        return self.violations[0].rule
