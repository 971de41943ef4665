"""House rules of the Blackjack game itself (part of a table's Rules Submission).

The defaults are interpretation 14 (a Pennsylvania table): dealer stands on all 17s,
Blackjack pays 3 to 2, double on any first two cards and after splits, split to 3 hands,
aces not resplit and receiving one card each, late surrender, insurance 2 to 1, and the
dealer checks the hole card with a card reader under an ace or a 10-value upcard.

>>> HouseRules().describe()
'S17, BJ 3:2, DA2, DAS, SP3, no RSA, LS, peek'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from sidebet.core.errors import Violation
from sidebet.regulation.base_game.legality import (
    DOUBLE_ANY_TWO,
    DOUBLE_NINE_TO_ELEVEN,
    DOUBLE_TEN_OR_ELEVEN,
    double_total_allowed,
)

__all__ = ["BlackjackPays", "DoubleRule", "HoleCard", "HouseRules"]

_DOUBLE_CODES = {"any": DOUBLE_ANY_TWO, "9-11": DOUBLE_NINE_TO_ELEVEN,
                 "10-11": DOUBLE_TEN_OR_ELEVEN}

_RULE_CITE = "§ 601a.2"


class DoubleRule(Enum):
    """Which first-two-card totals may be doubled (§ 633a.10)."""

    ANY_TWO = "any"
    NINE_TO_ELEVEN = "9-11"
    TEN_OR_ELEVEN = "10-11"

    def allows(self, total: int, soft: bool) -> bool:
        """Whether a two-card hand of this total may be doubled.

        >>> DoubleRule.TEN_OR_ELEVEN.allows(11, False), DoubleRule.NINE_TO_ELEVEN.allows(19, True)
        (True, False)
        """
        return double_total_allowed(self.code, total, soft)

    @property
    def code(self) -> int:
        """The rule as the hand rules' integer code
        (:data:`sidebet.regulation.base_game.legality.DOUBLE_ANY_TWO` ...)."""
        return _DOUBLE_CODES[self.value]


class BlackjackPays(Enum):
    """What a player's Blackjack pays."""

    THREE_TO_TWO = "3:2"
    SIX_TO_FIVE = "6:5"

    @property
    def odds(self) -> Fraction:
        """The payout per unit wagered.

        >>> BlackjackPays.SIX_TO_FIVE.odds
        Fraction(6, 5)
        """
        num, den = self.value.split(":")
        return Fraction(int(num), int(den))


class HoleCard(Enum):
    """When the dealer's Blackjack is found."""

    PEEK = "peek"
    """Card-reader check under an ace or 10-value upcard, before the players act."""
    AFTER_PLAYERS = "after-players"
    """Found only after the players act; § 633a.11(d): a split player loses only the
    original wager."""


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The Blackjack rules of a table (defaults: interpretation 14)."""

    dealer_hits_soft_17: bool = False
    blackjack_pays: BlackjackPays = BlackjackPays.THREE_TO_TWO
    double: DoubleRule = DoubleRule.ANY_TWO
    double_after_split: bool = True
    max_split_hands: int = 3
    resplit_aces: bool = False
    hit_split_aces: bool = False
    late_surrender: bool = True
    insurance: bool = True
    hole_card: HoleCard = HoleCard.PEEK
    dealer_blackjack_takes_doubles: bool = False
    """Without a peek, whether a dealer Blackjack also takes Double Down wagers (``True``)
    or only the original wager (``False``, as § 633a.11(d) rules for splits)."""
    penetration: Fraction = Fraction(3, 4)
    """Share of the shoe dealt before the cut card."""

    @property
    def peek(self) -> bool:
        """Whether the dealer checks for Blackjack before the players act."""
        return self.hole_card is HoleCard.PEEK

    def violations(self) -> list[Violation]:
        """What is inconsistent in these rules (empty when they are sound).

        >>> [str(v) for v in HouseRules(max_split_hands=1).violations()]
        ['§ 601a.2: max_split_hands must be 2 to 4, not 1']
        """
        out: list[Violation] = []
        if not 2 <= self.max_split_hands <= 4:
            out.append(
                Violation(_RULE_CITE, f"max_split_hands must be 2 to 4, not {self.max_split_hands}")
            )
        if not 0 < self.penetration < 1:
            out.append(
                Violation(_RULE_CITE, f"penetration must be between 0 and 1, not {self.penetration}")
            )
        return out

    def describe(self) -> str:
        """Abbreviated rules, as analysts write them."""
        parts = [
            "H17" if self.dealer_hits_soft_17 else "S17",
            f"BJ {self.blackjack_pays.value}",
            {"any": "DA2", "9-11": "D9-11", "10-11": "D10-11"}[self.double.value],
        ]
        if self.double_after_split:
            parts.append("DAS")
        parts.append(f"SP{self.max_split_hands}")
        parts.append("RSA" if self.resplit_aces else "no RSA")
        if self.hit_split_aces:
            parts.append("HSA")
        if self.late_surrender:
            parts.append("LS")
        parts.append("peek" if self.peek else "no peek")
        if self.dealer_blackjack_takes_doubles:
            parts.append("dealer BJ takes doubles")
        return ", ".join(parts)
