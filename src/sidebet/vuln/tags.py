"""Card-counting systems: linear tags from the effects of removal, user tags, and the
non-linear counts for wagers that linear tags cannot read.

A :class:`Count` turns the cards seen so far into an *index* the counter bets on:

* ``linear``: the **true count**, the running count divided by the decks remaining
  (cards left / 52).  Balanced tags sum to zero over a deck; with unbalanced tags the
  counter first takes off the imbalance of the cards seen (tag sum per deck × decks
  seen), which makes it the true count of the balanced equivalent;
* ``suits``: the most-minus-least suit of the cards seen, per deck remaining (flush
  wagers: a shoe short of one suit is rich in flushes of the others);
* ``ranks``: rank concentration of the cards left, Σ (nᵣ − N/13)² / (N/13) over the
  13 ranks (a chi-square; trips and suited trips grow with it);
* ``sevens``: sevens per deck remaining (Blazing 7's).

>>> t = parse_tags("A:-1,7:-3,K:+1")
>>> t.values[Card.parse("7h").index], t.balanced, t.describe()
(-3, False, '7:-3 K:+1 A:-1')
>>> from sidebet.vuln.eor import effects_of_removal
>>> best = linear_tags(effects_of_removal("blazing7s", 6), level=3)
>>> best.describe(), best.balanced, round(best.correlation, 3)
('2:+1 3:+1 4:+1 7:-3', True, 0.901)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from sidebet.core.cards import ALL_CARDS, Card, Rank
from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import CountKind, get_wager
from sidebet.vuln.eor import EffectsOfRemoval

__all__ = [
    "COUNT_KINDS",
    "COUNT_NAMES",
    "Count",
    "IndexKind",
    "Tags",
    "betting_correlation",
    "default_counts",
    "linear_tags",
    "named_count",
    "parse_tags",
]


class IndexKind(IntEnum):
    """What the kernel computes from the cards seen (codes shared with the kernel)."""

    TRUE_COUNT = 0
    SUITS = 2
    RANKS = 3
    SEVENS = 4


@dataclass(frozen=True, slots=True)
class Tags:
    """Integer tags of the 52 card kinds (index order); ``correlation`` is the betting
    correlation with the effects of removal when known."""

    values: tuple[int, ...]
    correlation: float = math.nan

    @property
    def balanced(self) -> bool:
        """Whether the tags of one deck sum to zero."""
        return sum(self.values) == 0

    @property
    def level(self) -> int:
        """The largest tag in absolute value."""
        return max(abs(v) for v in self.values)

    def describe(self) -> str:
        """``RANK:TAG`` for every rank with a tag (``CARD:TAG`` where suits differ)."""
        parts = []
        for r, rank in enumerate(Rank):
            suits = self.values[4 * r: 4 * r + 4]
            if len(set(suits)) == 1:
                if suits[0]:
                    parts.append(f"{rank.symbol}:{suits[0]:+d}")
            else:
                parts.extend(f"{ALL_CARDS[4 * r + s].code.upper()}:{v:+d}"
                             for s, v in enumerate(suits) if v)
        return " ".join(parts) or "(none)"


def betting_correlation(tags: tuple[int, ...] | list[int], eor: EffectsOfRemoval) -> float:
    """Griffin's betting correlation: the correlation over the 52 card kinds between the
    tags and the effects of removal (0 when either does not vary)."""
    t = np.asarray(tags, dtype=np.float64)
    e = np.array([float(x.exact) for x in eor.effects])
    t -= t.mean()
    e -= e.mean()
    den = math.sqrt(float(t @ t) * float(e @ e))
    return float(t @ e) / den if den > 0 else 0.0


def _balance(t: np.ndarray, want: np.ndarray, level: int) -> np.ndarray | None:
    """Nudge the rank tags ``t`` (rounded from ``want``) until they sum to zero, moving
    each time the tag whose rounding cost least; ``None`` if the level does not allow."""
    t = t.copy()
    for _ in range(64):
        gap = int(t.sum())
        if gap == 0:
            return t
        step = -1 if gap > 0 else 1
        cost = np.where(np.abs(t + step) <= level, np.abs(t + step - want) - np.abs(t - want),
                        np.inf)
        i = int(np.argmin(cost))
        if not math.isfinite(cost[i]):
            return None
        t[i] += step
    return None


def linear_tags(eor: EffectsOfRemoval, level: int = 1, balanced: bool = True) -> Tags:
    """The integer rank tags of level ``level`` (1–3) with the highest betting
    correlation: each rank's mean effect of removal, centred, scaled and rounded;
    ``balanced`` tags are nudged to sum to zero over a deck."""
    if level not in (1, 2, 3):
        raise SidebetError(f"--level must be 1, 2 or 3, not {level}")
    means = np.array([float(r.mean) for r in eor.by_rank])
    centred = means - means.mean()
    top = float(np.abs(centred).max())
    if top == 0:
        raise SidebetError(f"{eor.wager}: no card has any effect; a linear count cannot work")
    unit = centred / top
    best: Tags | None = None
    for scale in np.linspace(0.5, level + 0.5, 401):
        want = unit * scale
        t = np.clip(np.rint(want), -level, level)
        if balanced:
            got = _balance(t, want, level)
            if got is None:
                continue
            t = got
        if not t.any():
            continue
        values = tuple(int(v) for v in np.repeat(t, 4))
        bc = betting_correlation(values, eor)
        if best is None or bc > best.correlation + 1e-12:
            best = Tags(values, bc)
    if best is None:
        raise SidebetError(f"no balanced level-{level} tags exist for {eor.wager}")
    return best


_TAG_RE = re.compile(r"^\s*([^:=\s]+)\s*[:=]\s*([+-]?\d+)\s*$")
_RANK_KEYS = {r.symbol: r for r in Rank} | {"T": Rank.TEN}


def parse_tags(text: str, eor: EffectsOfRemoval | None = None) -> Tags:
    """Tags from ``"A:-1,7:-3,..."``: a rank (``2``–``10``, ``T``, ``J``, ``Q``, ``K``,
    ``A``) tags its four suits, a card (``7D``, ``A♠``) just that kind; unnamed kinds 0.

    >>> parse_tags("7:-3, 7D:-4").describe()
    '7C:-3 7D:-4 7H:-3 7S:-3'
    >>> parse_tags("X:1")
    Traceback (most recent call last):
    ...
    sidebet.core.errors.SidebetError: --tags: 'X' is not a rank (2-10, J, Q, K, A) or a card (e.g. 7D)
    """
    values = [0] * 52
    seen: set[str] = set()
    items = [p for p in text.split(",") if p.strip()]
    if not items:
        raise SidebetError("--tags: give RANK:TAG pairs, e.g. 'A:-1,7:-3'")
    ranks: list[tuple[Rank, int]] = []
    cards: list[tuple[Card, int]] = []
    for item in items:
        m = _TAG_RE.match(item)
        if m is None:
            raise SidebetError(f"--tags: {item.strip()!r} is not RANK:TAG with a whole-number tag")
        key, tag = m.group(1).upper(), int(m.group(2))
        if abs(tag) > 99:
            raise SidebetError(f"--tags: tag {tag} of {key} is outside -99..99")
        if key in seen:
            raise SidebetError(f"--tags: {key} is tagged twice")
        seen.add(key)
        if key in _RANK_KEYS:
            ranks.append((_RANK_KEYS[key], tag))
            continue
        try:
            cards.append((Card.parse(key), tag))
        except SidebetError:
            raise SidebetError(f"--tags: {m.group(1)!r} is not a rank (2-10, J, Q, K, A) or "
                               "a card (e.g. 7D)") from None
    for rank, tag in ranks:
        for s in range(4):
            values[(rank - 2) * 4 + s] = tag
    for card, tag in cards:
        values[card.index] = tag
    if not any(values):
        raise SidebetError("--tags: every tag is 0; such a count never moves")
    bc = betting_correlation(values, eor) if eor is not None else math.nan
    return Tags(tuple(values), bc)


@dataclass(frozen=True, slots=True)
class Count:
    """A named count: its index kind and, for linear counts, its tags."""

    name: str
    kind: IndexKind
    tags: Tags | None = None

    def describe(self) -> str:
        """The tags, or what the index is."""
        if self.tags is not None:
            return self.tags.describe()
        return COUNT_KINDS[CountKind(self.name)]

    @property
    def index_name(self) -> str:
        """What the trigger is compared with."""
        return {
            IndexKind.TRUE_COUNT: "true count",
            IndexKind.SUITS: "suit spread per deck left",
            IndexKind.RANKS: "rank chi-square",
            IndexKind.SEVENS: "sevens per deck left",
        }[self.kind]

    @staticmethod
    def linear(name: str, tags: Tags) -> Count:
        """A linear count (its index is the true count)."""
        return Count(name, IndexKind.TRUE_COUNT, tags)


COUNT_KINDS = {
    CountKind.SUITS: "most-minus-least suit seen, per deck left",
    CountKind.RANKS: "rank concentration of the cards left (chi-square over 13 ranks)",
    CountKind.SEVENS: "sevens per deck left",
}
"""The non-linear counts by name."""

COUNT_NAMES = ("linear, linear-2, linear-3, linear-1-u (unbalanced; linear-L-u for level L), "
               + ", ".join(COUNT_KINDS))
"""The counts ``--count`` takes, in the words ``sidebet vulnerability --help`` uses."""

def named_count(name: str, eor: EffectsOfRemoval) -> Count:
    """A count by name: ``linear`` (level 1, balanced), ``linear-L`` / ``linear-L-u``
    (level L, unbalanced with ``-u``), or one of :data:`COUNT_KINDS`."""
    key = name.strip().lower()
    if key in COUNT_KINDS:
        kind = {CountKind.SUITS: IndexKind.SUITS, CountKind.RANKS: IndexKind.RANKS,
                CountKind.SEVENS: IndexKind.SEVENS}[CountKind(key)]
        return Count(key, kind)
    m = re.fullmatch(r"linear(?:-([123]))?(-u)?", key)
    if m is None:
        raise SidebetError(f"--count: unknown count {name[:40]!r} (counts: {COUNT_NAMES})")
    level = int(m.group(1) or 1)
    return Count.linear(key, linear_tags(eor, level, balanced=m.group(2) is None))


def default_counts(eor: EffectsOfRemoval) -> tuple[Count, ...]:
    """The counts tried by default: balanced linear tags of levels 1–3, unbalanced level
    1, and the non-linear counts the wager declares."""
    names = ["linear-1", "linear-2", "linear-3", "linear-1-u", *get_wager(eor.wager).counts]
    out: list[Count] = []
    seen: set[tuple[int, ...]] = set()
    for n in names:
        c = named_count(n, eor)
        if c.tags is not None:
            if c.tags.values in seen:
                continue
            seen.add(c.tags.values)
        out.append(c)
    return tuple(out)
