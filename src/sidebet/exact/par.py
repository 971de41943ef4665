"""Exact PAR sheets: every outcome's combinations, probability, pay and return.

A combination is an unordered pair of player cards together with an upcard, all dealt
without replacement from the shoe (interpretation 1): a full 6-deck shoe has
C(312, 2) × 310 = 15,039,960.  Counts are exact integers from one weighted sum over the
wager's outcome table (:mod:`sidebet.exact.outcomes`); probabilities, the house edge and
the variance are exact fractions, shown as floats only at the edge.

>>> sheet = par_sheet("three-card-poker", 6)
>>> sheet.total_combinations
15039960
>>> f"{float(sheet.house_edge):.4%}", sheet.compliant
('3.2386%', True)
>>> par_sheet("trilux", 6, "TLX-1").violations
('§ 633c.11(i): TriLux Deluxe paytable TLX-1 is not allowed with 6 decks; the regulation requires TLX-3',)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from sidebet.core.cards import Card
from sidebet.core.errors import ShoeError
from sidebet.core.shoe import Shoe
from sidebet.native.diskcache import cached_json
from sidebet.regulation.wagers import LOSE, WAGERS, Paytable, Wager, get_wager

if TYPE_CHECKING:  # numpy: imported by the counting, not by a full shoe's cached counts
    import numpy as np
    import numpy.typing as npt

__all__ = ["ParLine", "ParSheet", "all_par_sheets", "count_outcomes", "par_sheet"]


def count_outcomes(wager: str | Wager, shoe: Shoe | npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Combinations of each outcome (order of :attr:`Wager.outcome_ids`) for ``shoe``.

    ``shoe`` may be a :class:`Shoe` or a 52-long ``int64`` count array (the fast path
    for counting analysis: no validation beyond the kernel's).

    >>> count_outcomes("blazing7s", Shoe.standard(1)).tolist()
    [0, 0, 0, 12, 288, 9600, 56400]
    """
    w = get_wager(wager) if isinstance(wager, str) else wager
    import numpy as np

    from sidebet.exact.outcomes import outcome_table
    from sidebet.exact.par_kernel import count_kernel  # numba: only when counting

    counts = shoe.array() if isinstance(shoe, Shoe) else np.ascontiguousarray(shoe, np.int64)
    return count_kernel(counts, outcome_table(w), len(w.outcome_ids))


def _shoe_counts(w: Wager, s: Shoe) -> list[int]:
    """:func:`count_outcomes`; a full shoe's from the disk cache (:mod:`sidebet.native.diskcache`,
    as JSON text), so that ``sidebet par`` answers without compiling or loading a kernel,
    nor numpy."""
    if s.decks is None or s.counts != (s.decks,) * 52:
        return [int(n) for n in count_outcomes(w, s)]
    got = cached_json("par-counts", f"{w.id} decks={s.decks}",
                      lambda: [int(n) for n in count_outcomes(w, s)])
    return [int(n) for n in got]


@dataclass(frozen=True, slots=True)
class ParLine:
    """One outcome of a PAR sheet; ``pays`` is N of "N to 1" (``-1`` for a loss)."""

    outcome: str
    label: str
    pays: int
    combinations: int
    total: int
    citation: str

    @property
    def probability(self) -> Fraction:
        """Exact probability of the outcome."""
        return Fraction(self.combinations, self.total)

    @property
    def contribution(self) -> Fraction:
        """Contribution to the expected return per unit bet (probability × pays)."""
        return self.probability * self.pays


@dataclass(frozen=True, slots=True)
class ParSheet:
    """The exact PAR sheet of one wager and paytable for one shoe composition."""

    wager: str
    wager_name: str
    paytable: str
    decks: int | None
    shoe: Shoe
    lines: tuple[ParLine, ...]
    total_combinations: int
    violations: tuple[str, ...]
    paytable_note: str = ""

    @property
    def compliant(self) -> bool:
        """Whether the regulation allows this paytable with this many decks."""
        return not self.violations

    def _moment(self, power: int) -> int:
        return sum(line.combinations * line.pays**power for line in self.lines)

    @property
    def expected_return(self) -> Fraction:
        """Player's expected net result per unit bet (negative: the house's edge)."""
        return Fraction(self._moment(1), self.total_combinations)

    @property
    def house_edge(self) -> Fraction:
        """The house's expected win per unit bet."""
        return -self.expected_return

    @property
    def hit_frequency(self) -> Fraction:
        """Probability that the wager wins."""
        won = sum(line.combinations for line in self.lines if line.outcome != LOSE)
        return Fraction(won, self.total_combinations)

    @property
    def variance(self) -> Fraction:
        """Variance of the net result per unit bet."""
        n = self.total_combinations
        return Fraction(self._moment(2) * n - self._moment(1) ** 2, n * n)

    @property
    def std_dev(self) -> float:
        """Standard deviation of the net result per unit bet."""
        return math.sqrt(self.variance)

    def line(self, outcome: str) -> ParLine:
        """The line of ``outcome``."""
        return next(line for line in self.lines if line.outcome == outcome)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (floats per unit bet, and ``exact`` fraction strings)."""
        variance = self.variance
        return {
            "wager": self.wager,
            "decks": self.decks,
            "paytable": self.paytable,
            "shoe": self.shoe.describe(),
            "cards_in_shoe": self.shoe.total,
            "compliant": self.compliant,
            "violations": list(self.violations),
            "paytable_note": self.paytable_note,
            "total_combinations": self.total_combinations,
            "outcomes": [
                {
                    "outcome": line.outcome,
                    "pays": line.pays,
                    "combinations": line.combinations,
                    "probability": float(line.probability),
                    "return": float(line.contribution),
                    "citation": line.citation,
                }
                for line in self.lines
            ],
            "expected_return": float(self.expected_return),
            "house_edge": float(self.house_edge),
            "hit_frequency": float(self.hit_frequency),
            "variance": float(variance),
            "std_dev": self.std_dev,
            "exact": {
                "expected_return": str(self.expected_return),
                "house_edge": str(self.house_edge),
                "hit_frequency": str(self.hit_frequency),
                "variance": str(variance),
                "std_dev": _exact_sqrt(variance),
            },
        }


def _exact_sqrt(value: Fraction) -> str:
    """``value``'s square root as a fraction string when rational, else ``'sqrt(p/q)'``."""
    num, den = math.isqrt(value.numerator), math.isqrt(value.denominator)
    if num * num == value.numerator and den * den == value.denominator:
        return str(Fraction(num, den))
    return f"sqrt({value})"


def par_sheet(
    wager: str | Wager,
    shoe: Shoe | int = 6,
    paytable: str | Paytable | None = None,
) -> ParSheet:
    """The exact PAR sheet of ``wager`` with ``paytable`` for ``shoe`` (or a deck count).

    Without ``paytable``, the one the regulation fixes for the deck count (TriLux
    Deluxe) or the wager's default.  A paytable that the regulation does not allow at that deck count is analysed all
    the same and its violations are listed (``compliant`` is then ``False``).
    """
    w = get_wager(wager) if isinstance(wager, str) else wager
    s = Shoe.standard(shoe) if isinstance(shoe, int) else shoe
    table = paytable if isinstance(paytable, Paytable) else w.paytable(paytable, s.decks)
    counts = _shoe_counts(w, s)
    total = sum(counts)
    if total == 0:
        raise ShoeError("the shoe has fewer than three cards: nothing can be dealt")
    lines = tuple(
        ParLine(
            outcome=outcome,
            label=w.label(outcome),
            pays=table.pays(outcome),
            combinations=int(n),
            total=total,
            citation=table.line(outcome).citation if outcome != LOSE else w.section,
        )
        for outcome, n in zip(w.outcome_ids, counts, strict=True)
    )
    violations = (
        tuple(str(v) for v in w.table_rules(s.decks, table.name)) if s.decks is not None else ()
    ) + tuple(str(v) for v in w.custom_violations(table.name))
    return ParSheet(
        wager=w.id,
        wager_name=w.name,
        paytable=table.name,
        decks=s.decks,
        shoe=s,
        lines=lines,
        total_combinations=total,
        violations=violations,
        paytable_note=table.note,
    )


def all_par_sheets(
    decks: Iterable[int] = range(1, 9),
    wagers: Iterable[str] | None = None,
    compliant_only: bool = False,
    removed: Iterable[Card] = (),
) -> list[ParSheet]:
    """PAR sheets of every wager and paytable at every deck count in ``decks``, each shoe
    less the ``removed`` cards.

    >>> sheets = all_par_sheets([6], compliant_only=True)
    >>> [(s.wager, s.paytable) for s in sheets]
    [('trilux', 'TLX-3'), ('upcard-luck', 'standard'), ('top3', 'A'), ('top3', 'B'), ('blazing7s', 'A'), ('three-card-poker', 'classic')]
    """
    out: list[ParSheet] = []
    gone = tuple(removed)
    for n in decks:
        shoe = Shoe.standard(n).remove(gone)
        for wager_id in wagers or WAGERS:
            w = get_wager(wager_id)
            for table in w.paytables:
                sheet = par_sheet(w, shoe, table)
                if sheet.compliant or not compliant_only:
                    out.append(sheet)
    return out
