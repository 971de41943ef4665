"""Exact effects of removal: how a wager's expected return moves when one card is gone.

The effect of removing a card of kind ``k`` is the player's expected return (per unit
bet) on the shoe less that one card, minus the return on the full shoe, each an exact
fraction from the PAR kernel (:func:`sidebet.exact.par.count_outcomes`).  Effects are quoted
in percentage points of return; ``exact`` keeps the fraction.

By symmetry every suit of a full shoe has the same total effect, so the flush-based
wagers have no first-order suit effect: their effects are summarised by rank, and the
per-suit means are equal (see :attr:`EffectsOfRemoval.suits_matter`).  Where single
cards differ from the rest of their rank (Upcard Luck's A♠ and J♠, Blazing 7's 7♦) the
summary lists the rank's suits separately.

>>> eor = effects_of_removal("blazing7s", 6)
>>> eor.effect("7d") < eor.effect("7c") < 0 < eor.effect("Kc")
True
>>> [r.rank for r in eor.by_rank if r.suits_differ]
['7']
>>> eor.to_json()["effects"][21]["card"], f"{eor.effect('7D'):.4f}"
('7D', '-6.7758')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from sidebet.core.cards import ALL_CARDS, Card, Rank, Suit
from sidebet.core.errors import RuleError, SidebetError
from sidebet.exact.par import count_outcomes
from sidebet.regulation.wagers import Paytable, Wager, get_wager

__all__ = [
    "CardEffect",
    "EffectsOfRemoval",
    "RankEffect",
    "card_code",
    "checked_table",
    "effects_of_removal",
    "expected_return",
]


def card_code(card: Card) -> str:
    """The JSON form of a card kind: rank symbol and capital suit letter (``7D``, ``10S``)."""
    return f"{card.rank.symbol}{card.suit.letter.upper()}"


def checked_table(wager: str | Wager, decks: int, paytable: str | None = None
                  ) -> tuple[Wager, Paytable]:
    """The wager and paytable, if the regulation lets a table with ``decks`` decks offer
    them; else :class:`RuleError` naming the rule.

    >>> checked_table("upcard-luck", 2)
    Traceback (most recent call last):
    ...
    sidebet.core.errors.RuleError: § 633b.15(b): Upcard Luck may be offered only with 4, 6 or 8 decks, not 2
    """
    w = get_wager(wager) if isinstance(wager, str) else wager
    if not 1 <= decks <= 8:
        raise SidebetError(f"--decks must be 1 to 8, not {decks}")
    table = w.paytable(paytable, decks)
    found = w.table_rules(decks, table.name)
    if found:
        raise RuleError(found)
    return w, table


def expected_return(wager: Wager, table: Paytable, counts: np.ndarray[Any, Any]) -> Fraction:
    """Exact expected return per unit bet of ``wager`` for a 52-long count array."""
    got = count_outcomes(wager, counts)
    total = int(got.sum())
    if total == 0:
        raise SidebetError("the shoe has fewer than three cards: nothing can be dealt")
    moment = sum(int(n) * table.pays(o) for o, n in zip(wager.outcome_ids, got, strict=True))
    return Fraction(moment, total)


@dataclass(frozen=True, slots=True)
class CardEffect:
    """The effect of removing one card of a kind: ``exact`` percentage points of return."""

    card: Card
    exact: Fraction

    @property
    def effect(self) -> float:
        """The effect in percentage points of return (float)."""
        return float(self.exact)

    def to_json(self) -> dict[str, Any]:
        """``{card, effect, exact}``."""
        return {"card": card_code(self.card), "effect": self.effect, "exact": str(self.exact)}


@dataclass(frozen=True, slots=True)
class RankEffect:
    """The mean effect of a rank's four suits, and each suit's (♣ ♦ ♥ ♠)."""

    rank: str
    mean: Fraction
    suits: tuple[Fraction, Fraction, Fraction, Fraction]

    @property
    def suits_differ(self) -> bool:
        """Whether the rank's suits have different effects."""
        return len(set(self.suits)) > 1


@dataclass(frozen=True, slots=True)
class EffectsOfRemoval:
    """The 52 effects of removal of one wager, paytable and deck count."""

    wager: str
    decks: int
    paytable: str
    expected_return: Fraction
    effects: tuple[CardEffect, ...]
    """In card-index order (2♣ 2♦ 2♥ 2♠ 3♣ ... A♠)."""

    @property
    def house_edge(self) -> Fraction:
        """The full shoe's house edge per unit bet."""
        return -self.expected_return

    def effect(self, card: str | Card) -> float:
        """The effect of one card kind, percentage points."""
        c = Card.parse(card) if isinstance(card, str) else card
        return self.effects[c.index].effect

    @property
    def by_rank(self) -> tuple[RankEffect, ...]:
        """Per rank (2 .. A): the mean of its four suits and each suit's effect."""
        out = []
        for r, rank in enumerate(Rank):
            suits = tuple(self.effects[4 * r + s].exact for s in range(4))
            out.append(RankEffect(rank.symbol, sum(suits, Fraction(0)) / 4,
                                  (suits[0], suits[1], suits[2], suits[3])))
        return tuple(out)

    @property
    def by_suit(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """Mean effect of each suit's 13 cards (♣ ♦ ♥ ♠): equal for every wager whose
        suits are symmetric, which is why flush wagers have no first-order suit effect."""
        means = [sum((self.effects[4 * r + s].exact for r in range(13)), Fraction(0)) / 13
                 for s in range(4)]
        return means[0], means[1], means[2], means[3]

    @property
    def suits_matter(self) -> bool:
        """Whether any card's effect differs from the rest of its rank's."""
        return any(r.suits_differ for r in self.by_rank)

    @property
    def summary(self) -> str:
        """How the effects are summarised: ``rank`` or ``rank, with suits where they differ``."""
        if not self.suits_matter:
            return "rank"
        odd = ", ".join(r.rank for r in self.by_rank if r.suits_differ)
        return f"rank, with suits where they differ ({odd})"

    def to_json(self) -> dict[str, Any]:
        """``{wager, decks, paytable, house_edge, effects: [{card, effect, exact}], ...}``."""
        return {
            "wager": self.wager,
            "decks": self.decks,
            "paytable": self.paytable,
            "house_edge": float(self.house_edge),
            "effects": [e.to_json() for e in self.effects],
            "summary": self.summary,
            "by_rank": [
                {"rank": r.rank, "effect": float(r.mean), "exact": str(r.mean),
                 "suits_differ": r.suits_differ,
                 "suits": {Suit(s).letter.upper(): float(v) for s, v in enumerate(r.suits)}}
                for r in self.by_rank
            ],
            "by_suit": {Suit(s).letter.upper(): float(v) for s, v in enumerate(self.by_suit)},
            "exact": {"house_edge": str(self.house_edge)},
        }


def effects_of_removal(wager: str | Wager, decks: int, paytable: str | None = None
                       ) -> EffectsOfRemoval:
    """Exact effects of removal of every card kind from a full shoe of ``decks`` decks."""
    w, table = checked_table(wager, decks, paytable)
    full = np.full(52, decks, dtype=np.int64)
    base = expected_return(w, table, full)
    effects = []
    for k, card in enumerate(ALL_CARDS):
        counts = full.copy()
        counts[k] -= 1
        effects.append(CardEffect(card, (expected_return(w, table, counts) - base) * 100))
    return EffectsOfRemoval(w.id, decks, table.name, base, tuple(effects))
