"""Simulated players for measuring detection: each decides its side wagers from what a
player at the table can know before the deal (the cards seen from the shoe in use).

* :class:`FlatBettor` always bets the same; :class:`RandomBettor` bets at random and
  :class:`StreakyBettor` in long runs of one amount, whatever the cards: they bet
  independently of the edge (the alarm's null hypothesis);
* :class:`SevensCounter` (Blazing 7's) bets when the sevens left per deck left reach its
  trigger; :class:`SuitCounter` (TriLux Deluxe, Three Card Poker) when the most-minus-least
  suit seen per deck left does (the non-linear counts of :mod:`sidebet.vuln.tags`);
* :class:`PerfectPlayer` bets exactly when the wager's exact edge is positive, with or
  without a cover bet when it is not;
* :func:`LossProgression` and :func:`WinProgression` raise the bet after a loss (a win)
  and go back to the first bet after a win (a loss), knowing no card: their bets follow
  their own results;
* :class:`HiLoSpreader` bets the Blackjack wager by the Hi-Lo true count, every round;
  :class:`BackCounter` watches and sits down (bets) only at a true count of 2 or more;
  :class:`Wonger` sits down with the Blackjack minimum and a side wager only when that
  wager's edge is rich (Blazing 7's: the sevens left per deck left).

A player's Blackjack wager is its ``"blackjack"`` entry (absent: 25.00, or its largest
side wager if more); 0 sits the round out.  After each round it is told its results
(:meth:`SimPlayer.settle`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS, Rank, Suit
from sidebet.core.money import Cents

__all__ = ["BackCounter", "FlatBettor", "HiLoSpreader", "LossProgression", "Moment",
           "PerfectPlayer", "Progression", "RandomBettor", "SevensCounter", "SimPlayer", "StreakyBettor",
           "SuitCounter", "WinProgression", "Wonger"]

BLACKJACK = "blackjack"
_SEVEN_MASK = np.array([c.rank is Rank.SEVEN for c in ALL_CARDS], dtype=bool)
_HILO = np.array([1 if c.rank.value <= 6 else -1 if c.rank.value >= 10 else 0
                  for c in ALL_CARDS], dtype=np.int64)
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
    def hilo_true_count(self) -> float:
        """The Hi-Lo running count of the cards seen over the decks left."""
        seen = self.decks - self.remaining
        return float(np.dot(seen, _HILO)) / self.decks_left

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
        """The wagers placed (cents; a side wager absent is not placed)."""
        ...

    def settle(self, nets: dict[str, Cents]) -> None:
        """The round's net on each wager placed."""
        ...


class _NoMemory:
    """A player whose bets do not follow its results."""

    def settle(self, nets: dict[str, Cents]) -> None:
        """Forgotten."""


@dataclass
class FlatBettor(_NoMemory):
    """Bets ``amount`` on each of ``wagers`` every round."""

    name: str
    wagers: tuple[str, ...]
    amount: Cents = 5_00
    kind: str = "flat"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """The same bets every round."""
        return dict.fromkeys(self.wagers, self.amount)


@dataclass
class RandomBettor(_NoMemory):
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
class StreakyBettor(_NoMemory):
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
class SevensCounter(_NoMemory):
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
class SuitCounter(_NoMemory):
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
class PerfectPlayer(_NoMemory):
    """Bets ``amount`` on each of ``wagers`` exactly when its exact edge is positive, and
    ``cover`` (0: nothing) when it is not."""

    name: str
    wagers: tuple[str, ...]
    amount: Cents = 25_00
    cover: Cents = 0
    kind: str = "perfect"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """Bet the positive edges."""
        out = {w: self.amount if moment.edges[w] > 0 else self.cover for w in self.wagers}
        return {w: a for w, a in out.items() if a}


@dataclass
class Progression:
    """Bets ``base`` on each of ``wagers``, doubled after each loss on it (``on_loss``;
    otherwise after each win) up to ``steps`` doublings, back to ``base`` after the
    other result; no card knowledge."""

    name: str
    wagers: tuple[str, ...]
    on_loss: bool
    base: Cents = 5_00
    steps: int = 3
    kind: str = "progression"
    _level: dict[str, int] = field(default_factory=dict, repr=False)

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """The progression's bets."""
        return {w: self.base << self._level.get(w, 0) for w in self.wagers}

    def settle(self, nets: dict[str, Cents]) -> None:
        """Up one step after the result it raises on, back to the first after the other."""
        for w, net in nets.items():
            if w in self.wagers and net:
                up = (net < 0) == self.on_loss
                self._level[w] = min(self.steps, self._level.get(w, 0) + 1) if up else 0


def LossProgression(name: str, wagers: tuple[str, ...], base: Cents = 5_00,
                    steps: int = 3) -> Progression:
    """A martingale: doubled after a loss, back after a win."""
    return Progression(name, wagers, True, base, steps, "loss progression")


def WinProgression(name: str, wagers: tuple[str, ...], base: Cents = 5_00,
                   steps: int = 3) -> Progression:
    """A parlay: doubled after a win, back after a loss."""
    return Progression(name, wagers, False, base, steps, "win progression")


def _ramp(true_count: float, ramp: tuple[Cents, ...]) -> Cents:
    """``ramp[k]`` at a true count of ``k`` (rounded down; below 1: ``ramp[0]``)."""
    return ramp[max(0, min(len(ramp) - 1, int(np.floor(true_count))))]


@dataclass
class HiLoSpreader(_NoMemory):
    """Plays every round, the Blackjack wager by the Hi-Lo true count: ``ramp[k]`` at a
    true count of ``k`` (25.00 to 300.00 by default)."""

    name: str
    ramp: tuple[Cents, ...] = (25_00, 25_00, 50_00, 100_00, 200_00, 300_00)
    kind: str = "Hi-Lo spreader"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """The ramp's bet."""
        return {BLACKJACK: _ramp(moment.hilo_true_count, self.ramp)}


@dataclass
class BackCounter(_NoMemory):
    """Counts Hi-Lo from behind the table and sits down only at a true count of
    ``enter`` or more, betting ``amount`` on the Blackjack wager."""

    name: str
    enter: float = 2.0
    amount: Cents = 100_00
    kind: str = "back-counter"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """In at the count, out below it."""
        return {BLACKJACK: self.amount if moment.hilo_true_count >= self.enter else 0}


@dataclass
class Wonger(_NoMemory):
    """Sits down only when the sevens left per deck left reach ``trigger``, with the
    Blackjack minimum and ``amount`` on ``wager`` (Blazing 7's), the same bet whenever
    seated."""

    name: str
    wager: str
    trigger: float = 5.0
    amount: Cents = 25_00
    minimum: Cents = 25_00
    kind: str = "wonger"

    def bets(self, moment: Moment) -> dict[str, Cents]:
        """Seated at the trigger, away below it."""
        if moment.sevens_per_deck_left >= self.trigger:
            return {BLACKJACK: self.minimum, self.wager: self.amount}
        return {BLACKJACK: 0}
