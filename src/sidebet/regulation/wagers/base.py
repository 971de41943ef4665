"""What every side wager is made of: outcomes, paytables, a classifier and its rules.

Each wager module (``trilux``, ``upcard_luck``, ``top3``, ``blazing7s``,
``three_card_poker``) builds one :class:`Wager` from plain data and one plain-Python
classifier.  Everything else (settlement, the exact PAR sheets, the simulator's outcome
tables) derives from those.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from sidebet.core.cards import Card
from sidebet.core.errors import RuleError, SidebetError, Violation
from sidebet.core.money import Cents, format_money
from sidebet.regulation.wagers.custom_pays import (
    custom_name,
    is_custom,
    odds_in_order,
    parse_custom_name,
)

__all__ = [
    "LOSE",
    "BetContext",
    "Classifier",
    "CountKind",
    "EVCategory",
    "Outcome",
    "Paytable",
    "PaytableLine",
    "Wager",
    "times_text",
]

LOSE = "lose"
"""Outcome identifier of a losing wager."""

Classifier = Callable[[Card, Card, Card], str | None]
"""``(player's first card, player's second card, dealer's upcard) -> outcome or None``."""


class EVCategory(StrEnum):
    """Which of the exact EV kernel's category tables (:mod:`sidebet.vuln.side_ev`) tells a
    wager's outcomes apart on any shoe: the outcome must be a function of it."""

    POKER_HAND = "poker-hand"
    """The three-card poker hand of the two cards and the upcard, suited trips apart."""
    SEVENS = "sevens"
    """The sevens among the three cards, their suits and colours."""
    UPCARD_CLASS = "upcard-class"
    """The upcard's class and the two cards' total (Upcard Luck's matrices)."""


class CountKind(StrEnum):
    """A non-linear count the counting analyses try on a wager (:mod:`sidebet.vuln.tags`)."""

    SUITS = "suits"
    RANKS = "ranks"
    SEVENS = "sevens"


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
    """The bets a player has placed around one side wager, in cents (0 = none):
    ``required_bet`` is the least of those on the wagers it requires."""

    amount: Cents
    blackjack_bet: Cents
    required_bet: Cents = 0


@dataclass(frozen=True, slots=True)
class Wager:
    """A side wager: its rules as data plus its classifier, and all the rest of the
    project needs to know of it: ``short`` (its label on the table page),
    ``ev_category`` and ``counts`` (for the counting analyses).

    The table and bet rules are data, each with the subsection that states it:
    ``allowed_decks`` (``None``: any deck count) and ``paytable_by_decks`` (where the
    regulation fixes the paytable by deck count), cited by ``decks_rule``;
    ``max_bet_ratio`` (the most the wager may be, as a multiple of the Blackjack wager),
    cited by ``max_bet_rule``; ``pressable`` (its winnings may be pressed onto the
    Blackjack wager), cited by ``press_rule``; ``requires`` (other wagers the table must
    offer, cited by ``requires_rule``, and the player must place first, cited by
    ``requires_bet_rule``).  The registry's order (:data:`sidebet.regulation.wagers.WAGERS`)
    is the order of settlement, of the help and of every listing.  :meth:`table_rules`, :meth:`bet_violations` and
    :meth:`constraints` derive from them.
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
    short: str
    """The wager's short label on the table page (e.g. ``TLX``)."""
    ev_category: EVCategory
    counts: tuple[CountKind, ...] = ()
    """The non-linear counts the counting analyses try on it, beside the linear ones."""
    allowed_decks: frozenset[int] | None = None
    paytable_by_decks: Mapping[int, str] = field(default_factory=dict)
    decks_rule: str = ""
    max_bet_ratio: Fraction | None = None
    max_bet_rule: str = ""
    pressable: bool = False
    press_rule: str = ""
    requires: tuple[Wager, ...] = ()
    """Other wagers the table must offer, and the player must place, with this one."""
    requires_rule: str = ""
    requires_bet_rule: str = ""
    lose_rule: str | Callable[[Card, Card, Card], str] = ""
    """The subsection that collects a losing wager (or a function of the cards giving it)."""
    paytable_rule: str = ""
    """The subsection that fixes the paytables (a custom one is then flagged non-compliant
    with it); empty where the certificate holder chooses the odds in its Rules Submission."""

    def lose_citation(self, first: Card, second: Card, upcard: Card) -> str:
        """The subsection under which these cards lose the wager."""
        rule = self.lose_rule
        return rule(first, second, upcard) if callable(rule) else rule or self.section

    @property
    def outcome_ids(self) -> tuple[str, ...]:
        """Winning outcomes, highest first, then :data:`LOSE`."""
        return (*(o.id for o in self.outcomes), LOSE)

    @property
    def deck_counts(self) -> frozenset[int] | None:
        """The deck counts a table may offer the wager with (``None``: any)."""
        if self.paytable_by_decks:
            return frozenset(self.paytable_by_decks)
        return self.allowed_decks

    def offered_with(self, decks: int) -> bool:
        """Whether a table of ``decks`` decks may offer the wager."""
        counts = self.deck_counts
        return counts is None or decks in counts

    def paytable(self, name: str | None = None, decks: int | None = None) -> Paytable:
        """The paytable called ``name`` (case-insensitive).  Without a name: the one the
        regulation fixes for ``decks`` if it does, else the wager's default."""
        if is_custom(name):
            assert name is not None
            return self._custom(parse_custom_name(name, len(self.outcomes)))
        default = self.paytable_by_decks.get(decks, self.default_paytable) if decks else None
        wanted = (name or default or self.default_paytable).upper()
        for table in self.paytables:
            if table.name.upper() == wanted:
                return table
        known = ", ".join(t.name for t in self.paytables)
        raise SidebetError(f"{self.name} has no paytable {name!r} (paytables: {known})")

    def custom_paytable(self, pays: Mapping[str, object], what: str = "pays") -> Paytable:
        """The paytable paying ``pays[outcome]`` to 1 for each winning outcome (a listed
        paytable when the odds are one's); one clear error naming a bad line.

        >>> from sidebet.regulation.wagers import get_wager
        >>> w = get_wager("blazing7s")
        >>> w.custom_paytable({"three_sevens_diamonds": 5000, "three_sevens_suited": 2000,
        ...     "three_sevens_same_color": 1000, "three_sevens": 500, "two_sevens": 50,
        ...     "one_seven": 2}).name
        'custom:5000/2000/1000/500/50/2'
        """
        return self._custom(odds_in_order([o.id for o in self.outcomes], pays, what))

    def _custom(self, odds: tuple[int, ...]) -> Paytable:
        for table in self.paytables:
            if tuple(line.pays for line in table.lines) == odds:
                return table
        cite = self.paytable_rule or "§ 601a.2"
        note = (f"a custom paytable, not one {cite} allows" if self.paytable_rule else
                "a custom paytable, a Rules Submission setting (§ 601a.2)")
        return Paytable(
            custom_name(odds),
            tuple(PaytableLine(o.id, n, cite) for o, n in zip(self.outcomes, odds, strict=True)),
            cite, from_seed_texts=False, note=note,
        )

    def custom_violations(self, paytable: str) -> list[Violation]:
        """The flag on a custom paytable where the regulation fixes the paytable (empty
        for a listed paytable, or where the Rules Submission chooses the odds)."""
        if not is_custom(paytable) or not self.paytable_rule:
            return []
        listed = ", ".join(t.name for t in self.paytables)
        return [Violation(self.paytable_rule,
                          f"{self.name} paytable {paytable} is not one the regulation allows "
                          f"({listed})")]

    def outcome(self, first: Card, second: Card, upcard: Card) -> str:
        """The classifier's outcome, or :data:`LOSE`."""
        return self.classify(first, second, upcard) or LOSE

    def label(self, outcome: str) -> str:
        """Human label of an outcome identifier."""
        if outcome == LOSE:
            return "Lose"
        return next(o.label for o in self.outcomes if o.id == outcome)

    def table_rules(self, decks: int, paytable: str) -> list[Violation]:
        """What a table of ``decks`` decks offering ``paytable`` breaks: the deck counts
        the wager may be offered with, and the paytable fixed by deck count (a custom
        paytable is flagged by :meth:`custom_violations` instead)."""
        counts = self.deck_counts
        if counts is not None and decks not in counts:
            ordered = sorted(counts)
            listed = ", ".join(str(n) for n in ordered[:-1]) + f" or {ordered[-1]}"
            return [Violation(self.decks_rule,
                              f"{self.name} may be offered only with {listed} decks, not {decks}")]
        fixed = self.paytable_by_decks.get(decks)
        if fixed is not None and fixed.upper() != paytable.upper() and not is_custom(paytable):
            return [Violation(
                self.decks_rule,
                f"{self.name} paytable {paytable} is not allowed with {decks} "
                f"deck{'s' if decks != 1 else ''}; the regulation requires {fixed}",
            )]
        return []

    def max_bet(self, blackjack_bet: Cents) -> Cents | None:
        """The largest wager beside a Blackjack wager of ``blackjack_bet`` (``None``: no
        limit of this wager's own)."""
        if self.max_bet_ratio is None:
            return None
        return int(blackjack_bet * self.max_bet_ratio)

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
        top = self.max_bet(bets.blackjack_bet)
        # with no Blackjack wager the limit it sets means nothing: the rule above says why
        if top is not None and self.max_bet_ratio is not None and bets.blackjack_bet > 0:
            out.extend(limit_violation(
                self.max_bet_rule, self.name, bets.amount, top,
                f"{times_text(self.max_bet_ratio)}the Blackjack wager "
                f"{format_money(bets.blackjack_bet)}",
            ))
        if self.requires_bet_rule and bets.required_bet <= 0:
            out.append(Violation(self.requires_bet_rule,
                                 f"{self.name} wager requires a {self.required_names} "
                                 "wager first"))
        return out

    def verify_bet(self, bets: BetContext) -> None:
        """Raise :class:`RuleError` naming every rule the bet breaks."""
        found = self.bet_violations(bets)
        if found:
            raise RuleError(found)

    @property
    def required_names(self) -> str:
        """The names of the wagers it requires, joined by "and"."""
        return " and ".join(r.name for r in self.requires)

    def constraints(self) -> list[str]:
        """The wager's table and bet rules in words, each with its citation."""
        out = [f"Requires a Blackjack wager ({self.blackjack_wager_rule})."]
        if self.max_bet_ratio is not None:
            out.append(f"Bet at most {times_text(self.max_bet_ratio)}the Blackjack wager "
                       f"({self.max_bet_rule}).")
        if self.paytable_by_decks:
            by_table: dict[str, list[int]] = {}
            for decks, name in sorted(self.paytable_by_decks.items()):
                by_table.setdefault(name, []).append(decks)
            fixed = ", ".join("/".join(str(d) for d in ds) + f" {name}"
                              for name, ds in by_table.items())
            missing = [d for d in range(1, max(self.paytable_by_decks) + 1)
                       if d not in self.paytable_by_decks]
            text = f"Paytable fixed by decks ({self.decks_rule}): {fixed}"
            if missing:
                listed = ", ".join(str(n) for n in missing[:-1]) + f" or {missing[-1]}"
                text += f"; not offered with {listed} decks"
            out.append(text + ".")
        elif self.allowed_decks is not None:
            ordered = sorted(self.allowed_decks)
            listed = ", ".join(str(n) for n in ordered[:-1]) + f" or {ordered[-1]}"
            out.append(f"Offered only with {listed} decks ({self.decks_rule}).")
        if self.pressable:
            out.append(f"Winnings may be pressed onto the Blackjack wager ({self.press_rule}).")
        for req in self.requires:
            out.append(f"Requires the {req.name} wager ({self.requires_rule}, "
                       f"{self.requires_bet_rule}).")
        return out


def times_text(ratio: Fraction) -> str:
    """A cap's multiple in words: ``'twice '`` for 2, ``''`` for 1, ``'3/2 times '`` otherwise."""
    return {Fraction(1): "", Fraction(2): "twice "}.get(ratio, f"{ratio} times ")


def limit_violation(
    rule: str, wager_name: str, amount: Cents, limit: Cents, what: str
) -> list[Violation]:
    """A violation when ``amount`` exceeds ``limit``; ``what`` names the limit in words."""
    if amount > limit:
        return [Violation(rule, f"{wager_name} wager {format_money(amount)} exceeds {what}")]
    return []
