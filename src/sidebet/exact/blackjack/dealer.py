"""Exact dealer final-total probabilities from a depleted shoe (§ 633a.12 dealer play).

The dealer draws to 17 and stands on soft 17 unless the rules say H17.  With a peek
(card reader, interpretation 14) the probabilities are conditioned on the dealer not
having Blackjack; without one, ``blackjack`` is the chance of a dealer Blackjack.

>>> from sidebet.core.cards import Card
>>> from sidebet.core.shoe import Shoe
>>> d = dealer_probabilities(Shoe.standard(1).remove("6c"), Card.parse("6c"), HouseRules())
>>> round(float(d.bust), 6), sum(d.as_dict().values())
(0.420823, Fraction(1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sidebet.core.cards import Card
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack._tables import dealer_table
from sidebet.regulation.base_game.codes import rank_class
from sidebet.regulation.house_rules import HouseRules

__all__ = ["DealerOdds", "class_counts", "dealer_probabilities", "dealer_probabilities_counts"]


@dataclass(frozen=True, slots=True)
class DealerOdds:
    """Exact probabilities of the dealer's final hand."""

    totals: tuple[Fraction, Fraction, Fraction, Fraction, Fraction]
    """P(17), P(18), P(19), P(20), P(21) (21 of three or more cards)."""
    bust: Fraction
    blackjack: Fraction
    conditioned_on_no_blackjack: bool

    def as_dict(self) -> dict[str, Fraction]:
        """Outcome name -> probability."""
        out = {str(17 + i): p for i, p in enumerate(self.totals)}
        out["bust"] = self.bust
        out["blackjack"] = self.blackjack
        return out


def class_counts(shoe: Shoe) -> tuple[int, ...]:
    """Rank-class counts ``(A, 2, ..., 9, T)`` of a shoe (10-value ranks together)."""
    rc = shoe.rank_counts()
    out = [0] * 10
    for rank, n in rc.items():
        v = rank.blackjack_value
        out[0 if v == 11 else v - 1] += n
    return tuple(out)


def _ff(n: int, k: int) -> int:
    out = 1
    for q in range(k):
        out *= n - q
    return out


def dealer_probabilities_counts(
    unseen: tuple[int, ...], up: int, rules: HouseRules
) -> DealerOdds:
    """As :func:`dealer_probabilities` for rank-class counts (upcard already removed)."""
    shoe = list(unseen)
    shoe[up] += 1
    big_m = sum(shoe)
    table = dealer_table(rules.dealer_hits_soft_17)
    sums = [Fraction(0)] * 5
    for j in range(table.cards.shape[0]):
        mult = int(table.mult[j, up])
        if not mult:
            continue
        num = mult
        for c in range(10):
            k = int(table.cards[j, c])
            if k:
                num *= _ff(shoe[c], k)
                if not num:
                    break
        if num:
            sums[int(table.total[j])] += Fraction(num * big_m, _ff(big_m, int(table.size[j])) * shoe[up])
    n = sum(unseen)
    bj = Fraction(0)
    if n and up in (0, 9):
        bj = Fraction(unseen[9 if up == 0 else 0], n)
    no_bj = 1 - bj
    bust = no_bj - sum(sums)
    if rules.peek and no_bj:
        return DealerOdds(
            tuple(s / no_bj for s in sums), bust / no_bj, Fraction(0), True  # type: ignore[arg-type]
        )
    return DealerOdds(tuple(sums), bust, bj, False)  # type: ignore[arg-type]


def dealer_probabilities(shoe: Shoe, upcard: Card, rules: HouseRules | None = None) -> DealerOdds:
    """Exact probabilities of the dealer's final totals.

    ``shoe`` holds the cards the dealer may draw (hole card included): the shoe less every
    card already seen, the upcard too.
    """
    return dealer_probabilities_counts(class_counts(shoe), rank_class(upcard), rules or HouseRules())
