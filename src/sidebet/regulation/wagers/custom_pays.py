"""Custom paytables as data: the odds of every winning outcome, checked, and their name.

A designer's paytable is written ``outcome = odds`` for every winning outcome of the
wager (a Rules Submission's ``pays = {...}``, the command line's ``--pays
outcome=odds,...``).  It travels through the project as its *name*, ``custom:`` and the
odds in the wager's outcome order (highest first), e.g. ``custom:5000/2000/1000/500/40/3``:
a Rules Submission, a table's log and a hand history keep it as text, and
:meth:`sidebet.regulation.wagers.base.Wager.paytable` turns the name back into the
paytable wherever a paytable is looked up (the PAR sheet, the simulator, the counting
analysis, settlement).

>>> parse_pays_text("one_seven=3, two_sevens=50", "--pays")
{'one_seven': '3', 'two_sevens': '50'}
>>> odds_in_order(("a", "b"), {"b": 2, "a": 10}, "--pays")
(10, 2)
>>> custom_name((10, 2)), parse_custom_name("custom:10/2", 2)
('custom:10/2', (10, 2))
>>> odds_in_order(("a", "b"), {"a": 10}, "--pays")
Traceback (most recent call last):
...
sidebet.core.errors.SidebetError: --pays has no line for b (every winning outcome needs one: a, b)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sidebet.core.errors import SidebetError

__all__ = [
    "CUSTOM_PREFIX",
    "MAX_ODDS",
    "custom_name",
    "is_custom",
    "odds_in_order",
    "parse_custom_name",
    "parse_pays_text",
]

CUSTOM_PREFIX = "custom:"
"""How a custom paytable's name starts."""
MAX_ODDS = 1_000_000
"""The largest odds a line may pay (to 1): more is taken for a typing error."""
_MAX_TEXT = 2000
_ODDS = re.compile(r"[+-]?\d{1,12}")


def is_custom(name: str | None) -> bool:
    """Whether ``name`` names a custom paytable (``custom:...``)."""
    return name is not None and name.strip().lower().startswith(CUSTOM_PREFIX)


def custom_name(odds: Sequence[int]) -> str:
    """The name that carries ``odds`` (in the wager's outcome order)."""
    return CUSTOM_PREFIX + "/".join(str(n) for n in odds)


def _odds(raw: object, what: str) -> int:
    """One line's odds: a whole number from 1 to :data:`MAX_ODDS`."""
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise SidebetError(f"{what} must be whole odds (N of 'N to 1'), not {raw!r}")
    text = str(raw).strip().replace("_", "")
    if text.lower().endswith("to 1"):
        text = text[:-4].strip()
    if not _ODDS.fullmatch(text):
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise SidebetError(f"{what} must be whole odds (N of 'N to 1'), not {shown!r}")
    value = int(text)
    if value < 1:
        raise SidebetError(f"{what} pays {value} to 1: a winning line pays at least 1 to 1")
    if value > MAX_ODDS:
        raise SidebetError(f"{what} pays {value:,} to 1: more than {MAX_ODDS:,} to 1 is "
                           "refused as a typing error")
    return value


def odds_in_order(outcomes: Sequence[str], pays: Mapping[str, object], what: str
                  ) -> tuple[int, ...]:
    """The odds of every outcome of ``outcomes``, in that order, from ``pays``; one clear
    :class:`SidebetError` for an unknown outcome, a missing line or bad odds."""
    if not isinstance(pays, Mapping):
        raise SidebetError(f"{what} must map each outcome to its odds, not {pays!r}")
    unknown = [str(k) for k in pays if k not in outcomes]
    if unknown:
        raise SidebetError(f"{what}: unknown outcome {unknown[0][:40]!r} (outcomes: "
                           f"{', '.join(outcomes)})")
    missing = [o for o in outcomes if o not in pays]
    if missing:
        raise SidebetError(f"{what} has no line for {', '.join(missing)} (every winning "
                           f"outcome needs one: {', '.join(outcomes)})")
    return tuple(_odds(pays[o], f"{what} {o}") for o in outcomes)


def parse_pays_text(text: str, what: str) -> dict[str, str]:
    """``outcome=odds,outcome=odds`` as a dict of text (checked by :func:`odds_in_order`)."""
    if len(text) > _MAX_TEXT:
        raise SidebetError(f"{what} is {len(text):,} characters: a paytable is far shorter")
    out: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        outcome, sep, odds = item.partition("=")
        outcome = outcome.strip()
        if not sep or not outcome or not odds.strip():
            raise SidebetError(f"{what} takes outcome=odds,... (e.g. one_seven=3), not "
                               f"{item.strip()[:40]!r}")
        if outcome in out:
            raise SidebetError(f"{what} gives {outcome[:40]} twice")
        out[outcome] = odds.strip()
    if not out:
        raise SidebetError(f"{what} is empty: give outcome=odds for every winning outcome")
    return out


def parse_custom_name(name: str, lines: int) -> tuple[int, ...]:
    """The odds a ``custom:a/b/...`` name carries (``lines`` of them)."""
    body = name.strip()[len(CUSTOM_PREFIX):]
    parts = body.split("/") if body else []
    if len(parts) != lines or len(name) > _MAX_TEXT:
        raise SidebetError(f"paytable {name[:60]!r} must give {lines} odds, highest outcome "
                           f"first (custom:a/b/...)")
    return tuple(_odds(p, f"paytable {CUSTOM_PREFIX}... line {n + 1}")
                 for n, p in enumerate(parts))
