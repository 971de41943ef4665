"""What every side wager is made of: outcomes, paytables, a classifier and its rules.

Each wager module (``trilux``, ``upcard_luck``, ``top3``, ``blazing7s``,
``three_card_poker``) builds one :class:`Wager` from plain data and one plain-Python
classifier.  Everything else (settlement, the exact PAR sheets, the simulator's outcome
tables) derives from those.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sidebet.cards import Card
from sidebet.errors import RuleError, SidebetError, Violation
from sidebet.money import Cents, format_money

__all__ = [
    "LOSE",
    "BetContext",
    "Classifier",
    "Outcome",
    "Paytable",
    "PaytableLine",
    "Wager",
]

LOSE = "lose"
"""Outcome identifier of a losing wager."""

Classifier = Callable[[Card, Card, Card], str | None]
"""``(player's first card, player's second card, dealer's upcard) -> outcome or None``."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A winning outcome of a wager (identifier and label)."""

    id: str
    label: str


@dataclass(frozen=True, slots=True)
class PaytableLine:
    """One line of a paytable: the outcome, its odds ``pays`` to 1, and where it is written."""

    outcome: str
    pays: int
    citation: str


@dataclass(frozen=True, slots=True)
class Paytable:
    """A named paytable of a wager.

    ``from_seed_texts`` is ``False`` for a paytable that the regulation texts of this
    project do not contain (the Three Card Poker wager, interpretation 11).
    """

    name: str
    lines: tuple[PaytableLine, ...]
    citation: str
    from_seed_texts: bool = True
    note: str = ""

    def line(self, outcome: str) -> PaytableLine:
        """The line paying ``outcome``."""
        for line in self.lines:
            if line.outcome == outcome:
                return line
        raise KeyError(outcome)

    def pays(self, outcome: str) -> int:
        """Odds paid to 1 for ``outcome``; ``-1`` for :data:`LOSE`."""
        return -1 if outcome == LOSE else self.line(outcome).pays


@dataclass(frozen=True, slots=True)
class BetContext:
    """The bets a player has placed around one side wager, in cents (0 = none)."""

    amount: Cents
    blackjack_bet: Cents
    three_card_poker_bet: Cents = 0


@dataclass(frozen=True, slots=True)
class Wager:
    """A side wager: its rules as data plus its classifier.

    ``table_rules(decks, paytable)`` lists what a table with that many decks offering
    that paytable breaks; ``bet_rules(bets)`` what a bet breaks beyond the rules shared
    by all wagers (a positive amount and a Blackjack wager, checked here).
    """

    id: str
    name: str
    section: str
    summary: str
    outcomes: tuple[Outcome, ...]
    classify: Classifier
    paytables: tuple[Paytable, ...]
    default_paytable: str
    blackjack_wager_rule: str
    table_rules: Callable[[int, str], list[Violation]]
    bet_rules: Callable[[BetContext], list[Violation]] = field(default=lambda _bets: [])
    requires: tuple[str, ...] = ()
    """Other wagers the table must offer, and the player must place, with this one."""
    requires_rule: str = ""
    paytable_by_decks: Mapping[int, str] = field(default_factory=dict)
    """Where the regulation fixes the paytable by deck count (TriLux Deluxe)."""
    lose_rule: str | Callable[[Card, Card, Card], str] = ""
    """The subsection that collects a losing wager (or a function of the cards giving it)."""

    def lose_citation(self, first: Card, second: Card, upcard: Card) -> str:
        """The subsection under which these cards lose the wager."""
        rule = self.lose_rule
        return rule(first, second, upcard) if callable(rule) else rule or self.section

    @property
    def outcome_ids(self) -> tuple[str, ...]:
        """Winning outcomes, highest first, then :data:`LOSE`."""
        return (*(o.id for o in self.outcomes), LOSE)

    def paytable(self, name: str | None = None, decks: int | None = None) -> Paytable:
        """The paytable called ``name`` (case-insensitive).  Without a name: the one the
        regulation fixes for ``decks`` if it does, else the wager's default."""
        default = self.paytable_by_decks.get(decks, self.default_paytable) if decks else None
        wanted = (name or default or self.default_paytable).upper()
        for table in self.paytables:
            if table.name.upper() == wanted:
                return table
        known = ", ".join(t.name for t in self.paytables)
        raise SidebetError(f"{self.name} has no paytable {name!r} (paytables: {known})")

    def outcome(self, first: Card, second: Card, upcard: Card) -> str:
        """The classifier's outcome, or :data:`LOSE`."""
        return self.classify(first, second, upcard) or LOSE

    def label(self, outcome: str) -> str:
        """Human label of an outcome identifier."""
        if outcome == LOSE:
            return "Lose"
        return next(o.label for o in self.outcomes if o.id == outcome)

    def bet_violations(self, bets: BetContext) -> list[Violation]:
        """Every rule the bet breaks (empty when it may be placed)."""
        out: list[Violation] = []
        if bets.amount <= 0:
            out.append(Violation(self.section, f"{self.name} wager must be a positive amount"))
        if bets.blackjack_bet <= 0:
            out.append(
                Violation(
                    self.blackjack_wager_rule,
                    f"{self.name} wager requires a Blackjack wager first",
                )
            )
        out.extend(self.bet_rules(bets))
        return out

    def verify_bet(self, bets: BetContext) -> None:
        """Raise :class:`RuleError` naming every rule the bet breaks."""
        found = self.bet_violations(bets)
        if found:
            raise RuleError(found)


def limit_violation(
    rule: str, wager_name: str, amount: Cents, limit: Cents, what: str
) -> list[Violation]:
    """A violation when ``amount`` exceeds ``limit``; ``what`` names the limit in words."""
    if amount > limit:
        return [Violation(rule, f"{wager_name} wager {format_money(amount)} exceeds {what}")]
    return []


def deck_rule(
    rule: str, wager_name: str, allowed: Mapping[int, str] | frozenset[int]
) -> Callable[[int, str], list[Violation]]:
    """Table rules for a wager whose paytable or offer depends on the deck count.

    ``allowed`` maps each permitted deck count to the only paytable allowed there, or is
    the set of permitted deck counts (any paytable).
    """

    def check(decks: int, paytable: str) -> list[Violation]:
        counts = sorted(allowed)
        if decks not in allowed:
            listed = ", ".join(str(n) for n in counts[:-1]) + f" or {counts[-1]}"
            return [
                Violation(
                    rule,
                    f"{wager_name} may be offered only with {listed} decks, not {decks}",
                )
            ]
        if isinstance(allowed, Mapping) and allowed[decks].upper() != paytable.upper():
            return [
                Violation(
                    rule,
                    f"{wager_name} paytable {paytable} is not allowed with {decks} "
                    f"deck{'s' if decks != 1 else ''}; the regulation requires {allowed[decks]}",
                )
            ]
        return []

    return check
