"""Card-counting systems for the Blackjack wager and how a player turns a count into the
index bets and plays are keyed on.

A :class:`CountSystem` tags each of the 52 card kinds with an integer (a system with
fractional tags, Halves, is kept doubled with ``scale`` 2).  A balanced system's index
is the **true count**: the running count per deck left, the decks left estimated at
the player's :class:`Resolution` and the quotient rounded by the player's
:class:`Rounding`.  An unbalanced system (KO, Red 7) is played on its **running count**,
started at the initial running count ``irc`` (by default the usual one: minus the tag
sum of the decks in play, plus the system's pivot).

>>> hilo = named_system("hi-lo")
>>> hilo.describe(), hilo.balanced
('2:+1 3:+1 4:+1 5:+1 6:+1 10:-1 J:-1 Q:-1 K:-1 A:-1', True)
>>> true_count(7, 130, Resolution.HALF, Rounding.TRUNCATE, 1)
2
>>> named_system("ko").initial_count(6)
-20
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sidebet.core.cards import Rank
from sidebet.core.errors import SidebetError
from sidebet.vuln.tags import Tags, parse_tags

__all__ = [
    "SYSTEMS",
    "CountSystem",
    "Resolution",
    "Rounding",
    "custom_system",
    "deck_estimate",
    "decks_left",
    "named_system",
    "true_count",
    "whole",
]


class Resolution(Enum):
    """How finely the player estimates the decks left: exactly, to the nearest half deck
    (at least a half), or to the nearest whole deck (at least one)."""

    EXACT = "exact"
    HALF = "half"
    WHOLE = "whole"

    @property
    def code(self) -> int:
        """The kernel's code: 0 exact, 2 half decks, 1 whole decks (steps per deck)."""
        return {"exact": 0, "half": 2, "whole": 1}[self.value]


class Rounding(Enum):
    """How the true count is made a whole number: towards zero, down, or to the nearest
    (halves away from zero)."""

    TRUNCATE = "truncate"
    FLOOR = "floor"
    ROUND = "round"

    @property
    def code(self) -> int:
        """The kernel's code."""
        return {"truncate": 0, "floor": 1, "round": 2}[self.value]


def decks_left(cards: int, resolution: Resolution) -> float:
    """The decks left as the player estimates them from ``cards`` cards unseen
    (:func:`deck_estimate`, as a float).

    >>> decks_left(100, Resolution.EXACT), decks_left(100, Resolution.HALF), decks_left(20, Resolution.WHOLE)
    (1.9230769230769231, 2.0, 1.0)
    """
    steps, per_deck = deck_estimate(cards, resolution)
    return steps / per_deck


def deck_estimate(cards: int, resolution: Resolution) -> tuple[int, int]:
    """The decks left as the fraction ``(steps, per_deck)`` the player estimates from
    ``cards`` cards unseen: exactly (``cards`` 52nds of a deck, at least one card) or to
    the nearest step of ``1 / per_deck`` deck (at least one step; a half step rounds up,
    as ``floor(decks · per_deck + 1/2)``).

    >>> deck_estimate(100, Resolution.EXACT), deck_estimate(100, Resolution.HALF)
    ((100, 52), (4, 2))
    """
    steps = resolution.code
    if steps == 0:
        return max(cards, 1), 52
    return max(1, (2 * cards * steps + 52) // 104), steps


def whole(num: int, den: int, rounding: Rounding) -> int:
    """``num / den`` (``den`` > 0) made whole exactly: towards zero, down, or to the
    nearest with halves away from zero.

    >>> whole(-5, 2, Rounding.TRUNCATE), whole(-5, 2, Rounding.FLOOR), whole(-5, 2, Rounding.ROUND)
    (-2, -3, -3)
    """
    q, r = divmod(num, den)
    if rounding is Rounding.FLOOR:
        return q
    if rounding is Rounding.TRUNCATE:
        return q + 1 if q < 0 and r != 0 else q
    return q + 1 if 2 * r > den or (2 * r == den and num >= 0) else q


def true_count(running: int, cards: int, resolution: Resolution, rounding: Rounding,
               scale: int) -> int:
    """The whole-number true count of ``running`` (tags as kept, divided by ``scale``)
    with ``cards`` cards unseen: the running count over the decks estimated, as an
    exact fraction, made whole (the kernel's arithmetic, without its rounding errors).

    >>> true_count(-7, 156, Resolution.EXACT, Rounding.TRUNCATE, 1), true_count(-7, 156, Resolution.EXACT, Rounding.FLOOR, 1)
    (-2, -3)
    """
    steps, per_deck = deck_estimate(cards, resolution)
    return whole(running * per_deck, scale * steps, rounding)


@dataclass(frozen=True, slots=True)
class CountSystem:
    """A count's tags over the 52 card kinds (index order 2♣ 2♦ .. A♠), kept as integers
    ``scale`` times the published ones; ``pivot`` is added to an unbalanced system's
    initial running count (KO's key count 4); ``irc`` overrides that count."""

    name: str
    values: tuple[int, ...]
    scale: int = 1
    pivot: int = 0
    irc: int | None = None

    @property
    def balanced(self) -> bool:
        """Whether one deck's tags sum to zero (then the index is the true count)."""
        return sum(self.values) == 0

    @property
    def imbalance(self) -> int:
        """One deck's tag sum (as kept)."""
        return sum(self.values)

    def initial_count(self, decks: int) -> int:
        """The running count at a shoe's start (as kept): 0 for a balanced system, else
        ``irc`` or minus the shoe's tag sum plus the pivot."""
        if self.balanced:
            return 0
        if self.irc is not None:
            return self.irc
        return -self.imbalance * decks + self.pivot * self.scale

    @property
    def level(self) -> int:
        """The largest tag (as kept)."""
        return max(abs(v) for v in self.values)

    def rank_tags(self) -> tuple[float, ...]:
        """The published tag of each rank 2..A (the mean of its four suits)."""
        return tuple(sum(self.values[4 * r: 4 * r + 4]) / 4 / self.scale for r in range(13))

    def describe(self) -> str:
        """``RANK:TAG`` for every rank (cards where suits differ), published scale."""
        if self.scale == 1:
            return Tags(self.values).describe()
        return " ".join(f"{rank.symbol}:{t:+g}" for rank, t in zip(Rank, self.rank_tags(),
                                                                  strict=True) if t)


def _ranks(tags: tuple[float, ...], scale: int = 1, red7: int = 0) -> tuple[int, ...]:
    """52 values from 13 rank tags (2..A) times ``scale``; ``red7`` on 7♦ and 7♥."""
    out = [round(t * scale) for t in tags for _ in range(4)]
    out[4 * 5 + 1] += red7
    out[4 * 5 + 2] += red7
    return tuple(out)


SYSTEMS: dict[str, CountSystem] = {
    "hi-lo": CountSystem("hi-lo", _ranks((1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1, -1))),
    "ko": CountSystem("ko", _ranks((1, 1, 1, 1, 1, 1, 0, 0, -1, -1, -1, -1, -1)), pivot=4),
    "hi-opt-i": CountSystem("hi-opt-i", _ranks((0, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1, 0))),
    "hi-opt-ii": CountSystem("hi-opt-ii",
                             _ranks((1, 1, 2, 2, 1, 1, 0, 0, -2, -2, -2, -2, 0))),
    "omega-ii": CountSystem("omega-ii",
                            _ranks((1, 1, 2, 2, 2, 1, 0, -1, -2, -2, -2, -2, 0))),
    "zen": CountSystem("zen", _ranks((1, 1, 2, 2, 2, 1, 0, 0, -2, -2, -2, -2, -1))),
    "halves": CountSystem("halves", _ranks((0.5, 1, 1, 1.5, 1, 0.5, 0, -0.5, -1, -1, -1, -1,
                                            -1), 2), scale=2),
    "red-7": CountSystem("red-7", _ranks((1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1, -1),
                                         red7=1)),
}
"""The published systems (Blackjack Attack's and the systems' authors' tags)."""


def named_system(name: str) -> CountSystem:
    """A published system by name (:data:`SYSTEMS`)."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = {"hilo": "hi-lo", "red7": "red-7", "omega2": "omega-ii", "hiopt1": "hi-opt-i",
           "hiopt2": "hi-opt-ii", "zen-count": "zen"}.get(key, key)
    if key not in SYSTEMS:
        raise SidebetError(f"unknown count {name!r} (counts: {', '.join(SYSTEMS)}, or tags "
                           "such as '2:1,3:1,4:1,5:1,6:1,T:-1,A:-1')")
    return SYSTEMS[key]


def custom_system(text: str, name: str = "custom", irc: int | None = None) -> CountSystem:
    """Tags from ``"RANK:TAG,..."`` (ranks 2..10, T for every 10-value card, J, Q, K, A, or
    a card such as 7D); unnamed ranks 0.  ``irc``: an unbalanced count's initial running
    count (default minus the shoe's tag sum).

    >>> custom_system("2:1,3:1,4:1,5:1,6:1,T:-1,A:-1").balanced
    True
    """
    for piece in text.split(","):
        if piece.strip().upper().startswith("T:") or piece.strip().upper().startswith("T="):
            tag = piece.split(":" if ":" in piece else "=", 1)[1]
            text = text.replace(piece, ",".join(f"{r}:{tag.strip()}" for r in ("10", "J", "Q", "K")))
    tags = parse_tags(text)
    return CountSystem(name, tags.values, irc=irc)
