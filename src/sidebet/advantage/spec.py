"""What the counter does at the table: the count, the plays, the bets on every wager.

:class:`AdvantageSpec` is one whole set-up (:mod:`sidebet.advantage.setup_file` reads it
from TOML); :class:`Ramp` a bet per index; :class:`SidePlan` how one side wager is bet.

>>> r = parse_ramp("2:2,3:4,4:8", low=1, high=12)
>>> [r.units(t) for t in (-3, 1, 2, 3, 9)]
[1, 1, 2, 4, 8]
>>> RAMPS["1-12"].spread
12
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from sidebet.advantage.counts import CountSystem, Resolution, Rounding, named_system
from sidebet.advantage.indices import IndexPlay
from sidebet.core.errors import SidebetError
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.spec import MAX_SEATS, SimSpec

__all__ = ["DEFAULT_OTHERS", "MAX_UNITS", "RAMPS", "SIDE_MODES", "AdvantageSpec", "Cover", "Ramp",
           "SidePlan", "parse_cover", "parse_ramp"]

MAX_UNITS = 100_000
"""The largest bet, in table units."""
DEFAULT_OTHERS = 4
"""Other players seated when a set-up names none (at most the seats the counter's spots
leave): a counter rarely plays heads-up, and every other player's cards dealt between two
of the counter's rounds make a shoe yield fewer of them."""
SIDE_MODES = ("never", "flat", "ev", "count")
"""How a side wager is bet: never, always the same, when its exact EV is positive
(perfect play: the cards seen known exactly), or by its own count and ramp."""


@dataclass(frozen=True, slots=True)
class Ramp:
    """Units bet from each index up: ``steps`` are ``(index, units)`` in rising index;
    below the first step ``low``; every bet between ``low`` and ``high`` (the table's
    minimum and maximum, in units)."""

    steps: tuple[tuple[int, int], ...]
    low: int = 1
    high: int = MAX_UNITS

    def units(self, index: int) -> int:
        """The bet at ``index``."""
        got = self.low
        for at, units in self.steps:
            if index >= at:
                got = units
        return max(self.low, min(self.high, got))

    @property
    def spread(self) -> int:
        """The largest bet over the smallest."""
        top = max([self.low, *(u for _, u in self.steps)])
        return min(top, self.high) // max(self.low, 1)

    @property
    def text(self) -> str:
        """``INDEX:UNITS`` steps."""
        return ",".join(f"{a}:{u}" for a, u in self.steps) or "flat"


def parse_ramp(text: str, low: int = 1, high: int = MAX_UNITS) -> Ramp:
    """A ramp from ``"INDEX:UNITS,..."`` (``;`` also separates), a name (:data:`RAMPS`) or
    ``flat``, with the table's minimum ``low`` and maximum ``high`` in units."""
    key = text.strip().lower()
    if not 1 <= low <= high <= MAX_UNITS:
        raise SidebetError(f"bets: the minimum {low} and maximum {high} must be 1 to "
                           f"{MAX_UNITS:,} units, minimum first")
    if key in RAMPS:
        return Ramp(RAMPS[key].steps, low, high)
    if key in ("", "flat"):
        return Ramp((), low, high)
    steps: list[tuple[int, int]] = []
    for item in key.replace(";", ",").split(","):
        if not item.strip():
            continue
        parts = item.split(":")
        try:
            at, units = int(parts[0]), int(parts[1])
            if len(parts) != 2:
                raise ValueError
        except (ValueError, IndexError):
            raise SidebetError(f"ramp {text!r}: write INDEX:UNITS steps, e.g. 2:2,3:4,4:8, or "
                               f"a name ({', '.join(RAMPS)})") from None
        if not -99 <= at <= 99 or not 1 <= units <= MAX_UNITS:
            raise SidebetError(f"ramp step {item.strip()!r}: the index is -99..99 and the "
                               f"bet 1 to {MAX_UNITS:,} units")
        steps.append((at, units))
    steps.sort()
    if len({a for a, _ in steps}) != len(steps):
        raise SidebetError(f"ramp {text!r}: an index has two bets")
    return Ramp(tuple(steps), low, high)


RAMPS = {
    "1-8": Ramp(((2, 2), (3, 4), (4, 6), (5, 8))),
    "1-12": Ramp(((2, 2), (3, 4), (4, 8), (5, 10), (6, 12))),
}
"""Named Hi-Lo ramps for a shoe game (1 unit to a true count of +1)."""


@dataclass(frozen=True, slots=True)
class Cover:
    """Cover play: the ramp's bet placed so as not to look like one.  ``jump``: the bet
    changes at most ``jump`` times (up) or to a ``jump``-th (down) from the last round's
    in the shoe (0: any change); ``parlay``: it rises only after a won round (the winnings
    left on the table)."""

    jump: int = 0
    parlay: bool = False

    @property
    def text(self) -> str:
        """``jump:N``, ``parlay`` or both, or ``none``."""
        parts = ([f"jump:{self.jump}"] if self.jump else []) + (["parlay"] if self.parlay else [])
        return ",".join(parts) or "none"


def parse_cover(text: str) -> Cover:
    """Cover play from ``none``, ``jump:N`` (N 2 to 100), ``parlay`` or both, comma
    separated.

    >>> parse_cover("jump:2,parlay")
    Cover(jump=2, parlay=True)
    """
    jump = 0
    parlay = False
    for item in text.strip().lower().replace(";", ",").split(","):
        item = item.strip()
        if item in ("", "none"):
            continue
        if item == "parlay":
            parlay = True
            continue
        name, _, value = item.partition(":")
        if name != "jump" or not value.strip().isdigit() or not 2 <= int(value) <= 100:
            raise SidebetError(f"cover {text!r}: write none, jump:N (the bet changes at most N "
                               "times round to round, N 2 to 100), parlay (it rises only "
                               "after a win), or both: jump:2,parlay")
        jump = int(value)
    return Cover(jump, parlay)


@dataclass(frozen=True, slots=True)
class SidePlan:
    """How one side wager is bet (``mode``: :data:`SIDE_MODES`): ``units`` flat or when
    the EV is positive; by count, ``ramp`` on the true count of ``tags`` (52 values,
    centred by the kernel's caller) named ``count``."""

    wager: str
    mode: str = "never"
    units: int = 1
    count: str = ""
    tags: tuple[int, ...] = ()
    ramp: Ramp = field(default_factory=lambda: Ramp(()))

    def describe(self) -> str:
        """The plan in words."""
        if self.mode == "flat":
            return f"{self.units} unit{'s' if self.units != 1 else ''} every round"
        if self.mode == "ev":
            return f"{self.units} unit{'s' if self.units != 1 else ''} when its exact EV > 0"
        if self.mode == "count":
            return f"by {self.count} true count, ramp {self.ramp.text}"
        return "never"


@dataclass(frozen=True)
class AdvantageSpec:
    """One set-up: the table (decks, rules, penetration, side wagers played and their
    paytables), the counter's ``spots`` (the most it plays; ``spots_by``, a ramp of
    spots by index, below its first step one: spots that vary with the count) and the
    ``others`` seats playing basic strategy flat, the count, the index plays, the
    Blackjack ramp, its ``cover`` and wonging (``wong_in``: enter at that index or above,
    ``None`` from the shoe's start; ``wong_out``: leave below it until the next shoe), a
    plan per side wager; the cards ``burn``ed after each shuffle (unseen by the counter)
    and the cut card's spread (each shoe's placed uniformly within ``cut_spread`` cards
    either side of the penetration's); an ace side count's weights, the points added to
    the running count per ace in excess among the unseen cards for the bets (``ace_bet``)
    and for insurance (``ace_ins``; both 0: no side count; the plays keep the count's own
    index)."""

    decks: int = 6
    rules: HouseRules = field(default_factory=HouseRules)
    penetration: Fraction | None = None
    strategy: str = "exact"
    sides: tuple[tuple[str, str], ...] = ()
    plans: tuple[SidePlan, ...] = ()
    spots: int = 1
    others: int = 0
    system: CountSystem = field(default_factory=lambda: named_system("hi-lo"))
    resolution: Resolution = Resolution.EXACT
    rounding: Rounding = Rounding.FLOOR
    plays: tuple[IndexPlay, ...] = ()
    ramp: Ramp = field(default_factory=lambda: Ramp(()))
    wong_in: int | None = None
    wong_out: int | None = None
    spots_by: Ramp = field(default_factory=lambda: Ramp(()))
    cover: Cover = field(default_factory=Cover)
    burn: int = 0
    cut_spread: int = 0
    ace_bet: int = 0
    ace_ins: int = 0

    def spots_at(self, index: int) -> int:
        """The spots played at ``index``."""
        return self.spots_by.units(index) if self.spots_by.steps else self.spots

    @property
    def seats(self) -> int:
        """Seats dealt."""
        return self.spots + self.others

    def sim(self) -> SimSpec:
        """The simulator's spec of the table (one unit on every wager)."""
        return SimSpec(decks=self.decks, seats=self.seats, sides=self.sides, rules=self.rules,
                       strategy=self.strategy, penetration=self.penetration)

    def plan(self, wager: str) -> SidePlan:
        """The plan of a side wager played (``never`` when none was given)."""
        for p in self.plans:
            if p.wager == wager:
                return p
        return SidePlan(wager)

    def verify(self) -> None:
        """Raise :class:`SidebetError` (or the table's :class:`RuleError`) for a set-up
        that cannot run."""
        if not 1 <= self.spots <= MAX_SEATS or self.others < 0 or self.seats > MAX_SEATS:
            raise SidebetError(f"spots: the counter plays 1 to {MAX_SEATS} spots, and with the "
                               f"other players at most {MAX_SEATS} seats are dealt")
        if self.spots_by.steps and max(u for _, u in self.spots_by.steps) != self.spots:
            raise SidebetError(f"spots by count: the most spots ({max(u for _, u in self.spots_by.steps)}) "
                               f"must be the spots ({self.spots})")
        sim = self.sim()
        if not -10 <= self.ace_bet <= 10 or not -10 <= self.ace_ins <= 10:
            raise SidebetError("an ace side count's weights are -10 to 10 points an ace")
        if not 0 <= self.burn <= 52 or self.burn >= sim.cut:
            raise SidebetError(f"burn: 0 to 52 cards, before the cut card ({sim.cut} cards), "
                               f"not {self.burn}")
        if self.cut_spread < 0 or sim.cut - self.cut_spread <= self.burn or (
                sim.cut + self.cut_spread > 52 * self.decks):
            raise SidebetError(f"cut spread: the cut card ({sim.cut} cards) moved by "
                               f"{self.cut_spread} must stay after the burn and within the "
                               f"{52 * self.decks}-card shoe")
        if self.wong_out is not None and self.wong_in is not None and self.wong_out > self.wong_in:
            raise SidebetError(f"wonging: leaving below {self.wong_out} but entering at "
                               f"{self.wong_in} would leave at once")
        played = {w for w, _ in self.sides}
        for p in self.plans:
            if p.mode not in SIDE_MODES:
                raise SidebetError(f"{p.wager}: the side bet is one of {', '.join(SIDE_MODES)}")
            if p.wager not in played:
                raise SidebetError(f"{p.wager}: a plan for a side wager the table does not play")
            if p.mode == "count" and not any(p.tags):
                raise SidebetError(f"{p.wager}: betting by count needs tags")
            if not 1 <= p.units <= MAX_UNITS:
                raise SidebetError(f"{p.wager}: the bet is 1 to {MAX_UNITS:,} units")
        self.sim().verify()
