"""Index plays: decisions that change with the count, and the play tables they make.

An :class:`IndexPlay` says: with this hand against this upcard, play ``play`` when the
index (true count, or running count for an unbalanced system) is at least ``at``, and
``below`` (default: the basic strategy's play) otherwise.  A hand is a hard total
(``16``), a soft one (``A7`` or ``s18``) or a pair (``TT``, ``88``, ``AA``); the plays
are chart codes (``H``, ``S``, ``Dh``, ``Ds``, ``P``, ``Rh``, ``Rs``).  Text form:
``16vT:S@0``, ``12v4:S@0/H``; insurance is ``ins@3``.  Later plays override earlier
ones where both apply; a hit or stand where the basic strategy surrenders changes only
what is played when surrender is not allowed (``Rh`` becomes ``Rs``); the ``below`` of a
double, split or surrender is the play of the first two cards only.

>>> [p.text for p in ILLUSTRIOUS_18[:3]]
['ins@3', '16vT:S@0', '15vT:S@4']
>>> parse_plays("12v4:S@0/H")[0]
IndexPlay(kind='hard', total=12, up=4, play='S', at=0, below='H')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sidebet.core.errors import SidebetError
from sidebet.regulation.base_game.codes import HIT, STAND, SURRENDER, parse_chart_code
from sidebet.sim.strategy_tables import StrategyArrays

__all__ = [
    "FAB_4",
    "GENERATED_LISTS",
    "ILLUSTRIOUS_18",
    "INDEX_LISTS",
    "IndexPlay",
    "apply_plays",
    "insurance_index",
    "parse_plays",
]

_UPS = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "10": 10,
        "A": 11}
_UP_TEXT = {v: k for k, v in _UPS.items() if k != "10"}
_PLAY_RE = re.compile(r"^\s*(ins|\d+|[Aa]\d|[Ss]\d+|[2-9TtAa]{2})\s*(?:[vV]\s*(10|[2-9TtAa]))?\s*(?::\s*([A-Za-z]+))?"
                      r"\s*@\s*([+-]?\d+)\s*(?:/\s*([A-Za-z]+))?\s*$")

GENERATED_LISTS = ("i18", "fab4", "full")
"""The lists whose indices :mod:`sidebet.advantage.generate` makes (``generated:NAME``),
each also risk-averse (``NAME-ra``); ``full``: every decision a count may change."""

@dataclass(frozen=True, slots=True)
class IndexPlay:
    """One index play (``kind``: hard, soft, pair or insurance; ``total``: the hand's
    total, or the pair card's value 2..11; ``up``: the upcard's value 2..11)."""

    kind: str
    total: int
    up: int
    play: str
    at: int
    below: str | None = None

    @property
    def hand(self) -> str:
        """The hand as written (``16``, ``A7``, ``TT``)."""
        if self.kind == "hard":
            return str(self.total)
        if self.kind == "soft":
            return f"A{self.total - 11}"
        card = _UP_TEXT[self.total]
        return card + card

    @property
    def text(self) -> str:
        """The play's text form."""
        if self.kind == "insurance":
            return f"ins@{self.at}"
        tail = f"/{self.below}" if self.below else ""
        return f"{self.hand}v{_UP_TEXT[self.up]}:{self.play}@{self.at}{tail}"


def _hand(token: str) -> tuple[str, int]:
    t = token.upper()
    if len(t) == 2 and t[0] == t[1] and t[0] in "23456789TA":
        return "pair", _UPS[t[0]]
    if t.startswith("A") and t[1:].isdigit() and 2 <= int(t[1:]) <= 9:
        return "soft", 11 + int(t[1:])
    if t.startswith("S") and t[1:].isdigit() and 13 <= int(t[1:]) <= 20:
        return "soft", int(t[1:])
    if t.isdigit() and 4 <= int(t) <= 20:
        return "hard", int(t)
    raise SidebetError(f"index play: {token!r} is not a hand (a hard total 4-20, A2-A9 or "
                       "s13-s20, or a pair such as TT)")


def _code(text: str, where: str) -> str:
    try:
        return parse_chart_code(text).text
    except ValueError:
        raise SidebetError(f"index play {where}: {text!r} is not a play (H, S, Dh, Ds, P, Rh, "
                           "Rs)") from None


def parse_plays(text: str | Iterable[str]) -> tuple[IndexPlay, ...]:
    """Index plays from text (comma-separated, or a list): each ``HANDvUP:PLAY@INDEX``
    with an optional ``/BELOW``, or ``ins@INDEX``; or a list's name (:data:`INDEX_LISTS`,
    joined with ``+``)."""
    return _parse(text, INDEX_LISTS)


def _parse(text: str | Iterable[str], lists: dict[str, tuple[IndexPlay, ...]]
           ) -> tuple[IndexPlay, ...]:
    items = [p.strip() for p in (text.split(",") if isinstance(text, str) else text)]
    out: list[IndexPlay] = []
    for item in items:
        if not item:
            continue
        named = [lists.get(name.strip().lower()) for name in item.split("+")]
        if all(x is not None for x in named):
            for lst in named:
                out.extend(lst or ())
            continue
        for name in item.split("+"):
            key = name.strip().lower()
            if key.removesuffix("-ra") in GENERATED_LISTS and key not in lists:
                raise SidebetError(f"index list {key}: its indices are generated for the "
                                   f"count and table; write generated:{key}")
        m = _PLAY_RE.match(item)
        if m is None:
            raise SidebetError(f"index play {item!r}: write HANDvUP:PLAY@INDEX (e.g. 16vT:S@0, "
                               f"12v4:S@0/H), ins@3, or a list ({', '.join(INDEX_LISTS)})")
        hand, up, play, at, below = m.groups()
        if abs(int(at)) > 99:
            raise SidebetError(f"index play {item!r}: the index is outside -99..99")
        if hand.lower() == "ins":
            if up or play or below:
                raise SidebetError(f"index play {item!r}: insurance is written ins@INDEX")
            out.append(IndexPlay("insurance", 0, 11, "I", int(at)))
            continue
        if up is None or play is None:
            raise SidebetError(f"index play {item!r}: write HANDvUP:PLAY@INDEX")
        kind, total = _hand(hand)
        p = _code(play, item)
        if p.startswith("P") and kind != "pair":
            raise SidebetError(f"index play {item!r}: only a pair splits")
        out.append(IndexPlay(kind, total, _UPS[up.upper()], p, int(at),
                             _code(below, item) if below else None))
    return tuple(out)


ILLUSTRIOUS_18 = _parse(
    "ins@3,16vT:S@0,15vT:S@4,TTv5:P@5,TTv6:P@4,10vT:Dh@4,12v3:S@2,12v2:S@3,11vA:Dh@1,"
    "9v2:Dh@1,10vA:Dh@4,9v7:Dh@3,16v9:S@5,13v2:S@-1/H,12v4:S@0/H,12v5:S@-2/H,12v6:S@-1/H,"
    "13v3:S@-2/H", {})
"""Don Schlesinger's Illustrious 18 (Blackjack Attack, Hi-Lo, multi-deck, S17)."""
FAB_4 = _parse("14vT:Rh@3,15vT:Rh@0,15v9:Rh@2,15vA:Rh@1", {})
"""The Fab 4 surrenders (Blackjack Attack, Hi-Lo, multi-deck, S17)."""
INDEX_LISTS: dict[str, tuple[IndexPlay, ...]] = {
    "none": (),
    "i18": ILLUSTRIOUS_18,
    "fab4": FAB_4,
    "insurance": ILLUSTRIOUS_18[:1],
}
"""Published lists by name (``i18+fab4``: both, the Fab 4 applied last)."""


def insurance_index(plays: Sequence[IndexPlay]) -> int | None:
    """The last insurance index of ``plays`` (``None``: never insure)."""
    found = [p.at for p in plays if p.kind == "insurance"]
    return found[-1] if found else None


def _packed(code: str) -> int:
    return parse_chart_code(code).packed


def _set(arrays: dict[str, npt.NDArray[np.int8]], p: IndexPlay, code: str,
         two_only: bool = False) -> None:
    """Play ``code`` for ``p``'s hand and upcard in the arrays (copies, changed);
    ``two_only``: for the first two cards only (a double's or surrender's ``below``)."""
    new = parse_chart_code(code)
    if p.kind == "pair":
        arrays["pair"][p.total, p.up] = new.packed
        return
    two = arrays["hard2" if p.kind == "hard" else "soft2"]
    if two_only:
        two[p.total, p.up] = new.packed
        return
    first, _ = divmod(int(two[p.total, p.up]), 5)
    if first == SURRENDER and new.first in (HIT, STAND):
        two[p.total, p.up] = SURRENDER * 5 + new.first
    else:
        two[p.total, p.up] = new.packed
    if new.first in (HIT, STAND):
        arrays["hs_hard" if p.kind == "hard" else "hs_soft"][p.total, p.up] = new.first


def apply_plays(basic: StrategyArrays, plays: Sequence[IndexPlay], index: int) -> StrategyArrays:
    """The strategy arrays played at ``index``: the basic strategy with every play that
    applies there, in order."""
    arrays = {name: getattr(basic, name).copy() for name in
              ("hard2", "soft2", "pair", "nosplit", "hs_hard", "hs_soft")}
    for p in plays:
        if p.kind == "insurance":
            continue
        if index >= p.at:
            _set(arrays, p, p.play)
        elif p.below is not None:
            _set(arrays, p, p.below, parse_chart_code(p.play).first not in (HIT, STAND))
    return StrategyArrays(**arrays, source=f"{basic.source} with {len(plays)} index plays")
