"""Simulated players for measuring detection: each decides its side wagers from what a
player at the table can know before the deal (the cards seen from the shoe in use).

* :class:`FlatBettor` always bets the same; :class:`RandomBettor` bets at random and
  :class:`StreakyBettor` in long runs of one amount, whatever the cards: they bet
  independently of the edge (the alarm's null hypothesis);
* :class:`SevensCounter` (Blazing 7's) bets when the sevens left per deck left reach its
  trigger; :class:`SuitCounter` (TriLux Deluxe, Three Card Poker) when the most-minus-least
  suit seen per deck left does (the non-linear counts of :mod:`sidebet.vuln.tags`);
* :class:`PerfectPlayer` bets exactly when the wager's exact edge is positive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS, Rank, Suit
from sidebet.core.money import Cents

__all__ = ["FlatBettor", "Moment", "PerfectPlayer", "RandomBettor", "SevensCounter",
           "SimPlayer", "StreakyBettor", "SuitCounter"]

_SEVEN_MASK = np.array([c.rank is Rank.SEVEN for c in ALL_CARDS], dtype=bool)
_SUIT_OF = np.array([list(Suit).index(c.suit) for c in ALL_CARDS], dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Moment:
    """What a player knows before a round's deal: the shoe's composition (``remaining``,
    52 counts), how many decks it was made of, and the side wagers' exact edges (what a
    perfect player computes)."""

    decks: int
    remaining: npt.NDArray[np.int64]
    edges: dict[str, float]

    @property
    def decks_left(self) -> float:
        """Cards left over 52."""
        return float(self.remaining.sum()) / 52.0

    @property
    def sevens_per_deck_left(self) -> float:
        """Sevens left per deck left."""
        return float(self.remaining[_SEVEN_MASK].sum()) / self.decks_left

    @property
    def suit_spread_per_deck_left(self) -> float:
        """Most-minus-least suit seen, per deck left."""
        left = np.bincount(_SUIT_OF, weights=self.remaining, minlength=4)
        seen = self.decks * 13 - left
        return float(seen.max() - seen.min()) / self.decks_left


class SimPlayer(Protocol):
    """A simulated player: a name, its kind and its side wagers for a moment."""

    name: str
    kind: str

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """The side wagers placed (cents; a wager absent is not placed)."""
        ...


@dataclass
class FlatBettor:
    """Bets ``amount`` on each of ``wagers`` every round."""

    name: str
    wagers: tuple[str, ...]
    amount: Cents = 5_00
    kind: str = "flat"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """The same bets every round."""
        return dict.fromkeys(self.wagers, self.amount)


@dataclass
class RandomBettor:
    """Bets on each of ``wagers`` an amount drawn from ``amounts`` (0: none), whatever the
    cards."""

    name: str
    wagers: tuple[str, ...]
    seed: int
    amounts: tuple[Cents, ...] = (0, 5_00, 10_00, 25_00)
    kind: str = "random"
    _rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng(self.seed)

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """Random bets."""
        out = {w: self.amounts[int(self._rng.integers(len(self.amounts)))] for w in self.wagers}
        return {w: a for w, a in out.items() if a}


@dataclass
class StreakyBettor:
    """Bets on each of ``wagers`` one amount from ``amounts`` (0: none) for ``every``
    rounds, then draws another, whatever the cards: bets that move in long runs, as a
    player's mood or bankroll does."""

    name: str
    wagers: tuple[str, ...]
    seed: int
    every: int = 40
    amounts: tuple[Cents, ...] = (0, 5_00, 10_00, 25_00)
    kind: str = "streaky"
    _rng: np.random.Generator = field(init=False, repr=False)
    _rounds: int = field(default=0, init=False, repr=False)
    _amount: Cents = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng(self.seed)

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """The run's amount, a new one every ``every`` rounds."""
        if self._rounds % self.every == 0:
            self._amount = self.amounts[int(self._rng.integers(len(self.amounts)))]
        self._rounds += 1
        return dict.fromkeys(self.wagers, self._amount) if self._amount else {}


@dataclass
class SevensCounter:
    """Bets ``amount`` on ``wager`` (a wager counting sevens: Blazing 7's) when the sevens
    left per deck left reach ``trigger`` (4 in a full shoe; for Blazing 7's about 4.5
    breaks even two decks from the end)."""

    name: str
    wager: str
    trigger: float = 5.0
    amount: Cents = 25_00
    kind: str = "sevens counter"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """Bet at or above the trigger."""
        return {self.wager: self.amount} if moment.sevens_per_deck_left >= self.trigger else {}


@dataclass
class SuitCounter:
    """Bets ``amount`` on each of ``wagers`` when the most-minus-least suit seen per deck
    left reaches ``trigger``."""

    name: str
    wagers: tuple[str, ...]
    trigger: float = 8.0
    amount: Cents = 25_00
    kind: str = "suit counter"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """Bet at or above the trigger."""
        if moment.suit_spread_per_deck_left >= self.trigger:
            return dict.fromkeys(self.wagers, self.amount)
        return {}


@dataclass
class PerfectPlayer:
    """Bets ``amount`` on each of ``wagers`` exactly when its exact edge is positive."""

    name: str
    wagers: tuple[str, ...]
    amount: Cents = 25_00
    kind: str = "perfect"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """Bet the positive edges."""
        return {w: self.amount for w in self.wagers if moment.edges[w] > 0}
