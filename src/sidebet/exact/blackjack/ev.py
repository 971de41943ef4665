"""Exact expected value of every decision for any hand, upcard, shoe and house rules.

Values are per unit of the initial wager.  With a peek (interpretation 14) and an ace or
10-value upcard they are conditioned on the dealer not having Blackjack (the player acts
only then); without a peek they include the loss of the initial wager to a dealer
Blackjack.  Insurance is per unit of insurance wager (pays 2 to 1).

>>> from sidebet.core.cards import parse_cards
>>> from sidebet.core.shoe import Shoe
>>> cards = parse_cards("Th Td 6c")
>>> evs = decision_evs(cards[:2], cards[2], Shoe.standard(6).remove(cards))
>>> round(evs.stand, 4), evs.best
(0.7028, 'stand')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sidebet.core.cards import Card
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.dealer import class_counts
from sidebet.exact.blackjack.engine import analyse
from sidebet.regulation.base_game.codes import rank_class
from sidebet.regulation.house_rules import HouseRules

__all__ = ["DecisionEVs", "decision_evs", "decision_evs_counts", "insurance_ev"]


@dataclass(frozen=True, slots=True)
class DecisionEVs:
    """Expected net win per unit of initial wager of each decision open to the hand."""

    stand: float
    hit: float
    double: float | None
    split: float | None
    surrender: float | None
    insurance: float | None
    """Per unit of insurance wager; ``None`` unless the upcard is an ace and it is offered."""
    conditioned_on_no_blackjack: bool

    @property
    def best(self) -> str:
        """The decision of greatest expected value (insurance aside)."""
        options = {
            "stand": self.stand, "hit": self.hit, "double": self.double,
            "split": self.split, "surrender": self.surrender,
        }
        valid = {k: v for k, v in options.items() if v is not None}
        return max(valid, key=lambda k: valid[k])


def insurance_ev(unseen: Sequence[int]) -> float:
    """EV per unit of insurance: ``3 p - 1`` with ``p`` the share of 10-values unseen.

    >>> insurance_ev((1, 0, 0, 0, 0, 0, 0, 0, 1, 1))
    0.0
    """
    n = sum(unseen)
    return 3 * unseen[9] / n - 1 if n else 0.0


def decision_evs_counts(
    hand: Sequence[int], up: int, unseen: Sequence[int], rules: HouseRules
) -> DecisionEVs:
    """As :func:`decision_evs` for rank classes (``hand``: list of classes)."""
    counts = [0] * 10
    for c in hand:
        counts[c] += 1
    before = [u + h for u, h in zip(unseen, counts, strict=True)]
    before[up] += 1
    if any(x < 0 for x in unseen) or sum(unseen) == 0:
        raise SidebetError("the shoe cannot hold these cards")
    if sum(counts) < 2:
        raise SidebetError("a hand has at least two cards")
    key = tuple(counts)
    a = analyse(tuple(before), rules, key)
    if key not in a.table.index:
        raise SidebetError("the hand is already bust")
    vals = a.values(key, up)
    peek = rules.peek

    def conv(v: float | None) -> float | None:
        if v is None:
            return None
        return a_conv(v)

    nb = a.no_bj(key, up)

    def a_conv(v: float) -> float:
        if peek:
            return v / nb if nb > 0 else 0.0
        return v - (1.0 - nb)

    ins = insurance_ev(unseen) if (up == 0 and rules.insurance) else None
    return DecisionEVs(
        stand=a_conv(vals["stand"]),
        hit=a_conv(vals["hit"]),
        double=conv(vals.get("double")),
        split=conv(vals.get("split")),
        surrender=conv(vals.get("surrender")),
        insurance=ins,
        conditioned_on_no_blackjack=peek and up in (0, 9),
    )


def decision_evs(
    player_cards: Sequence[Card],
    upcard: Card,
    shoe: Shoe,
    rules: HouseRules | None = None,
) -> DecisionEVs:
    """Exact EVs of stand, hit, double, split, surrender (and insurance) for this hand.

    ``shoe`` is the unseen cards: the shoe less the player's cards, the upcard and any
    other card seen (the dealer's hole card stays in it).  Doubling, splitting and
    surrender are offered on the first two cards as ``rules`` allow.
    """
    rules = rules or HouseRules()
    return decision_evs_counts(
        [rank_class(c) for c in player_cards], rank_class(upcard), class_counts(shoe), rules
    )
