"""A second classification of dealt hands, written from the regulation text alone.

The independent confirmation (:mod:`sidebet.report.confirm`) must be able to catch a rule
the wager modules read wrong (a straight, a soft total, a three-7 hand), so it does not ask
them: every ordered triple of card kinds (the player's two cards, then the upcard) is
classified here by rank and suit arithmetic on card indices (``rank_index · 4 + suit``, the
ranks 2…A as 0…12), all 52³ triples at once in numpy, from the sections and our
interpretations:

- the three-card poker hands of TriLux Deluxe (§ 633c.11(a), (j)), Top 3 (§ 633c.7(a), (e))
  and the Three Card Poker wager (interpretations 3 and 11): three consecutive ranks, the ace
  high or low and no wrap-around; three of one suit; three of one rank; three identical
  cards; highest only, suited three-of-a-kind paid as three-of-a-kind where the paytable has
  no line for it;
- Upcard Luck (§ 633b.15(e)–(f), interpretations 2 and 9): an upcard 2 through 7, then A♠ J♠,
  any other ace with a ten-value card, a total of 9–11, a total of 18–20 (an ace 11 unless
  that busts);
- Blazing 7's (§ 633b.20(d)–(e), interpretation 12): the 7s among the player's two cards,
  then with a 7 upcard three 7♦, three of one suit, of one colour, any three.

It imports nothing from :mod:`sidebet.regulation` and names no wager: each classification is
keyed by the section it is written from (``Wager.section``), and only the outcome identifiers
(the keys of the paytables' lines) are shared, and a test compares both classifications on every
triple a shoe of 1 to 8 decks can deal (``tests/report/test_independent.py``); an
import-linter contract keeps the module apart from the wager modules.

>>> codes = np.array([51 * 2704 + 47 * 52 + 43, 0 * 2704 + 4 * 52 + 48])  # A♠ K♠ Q♠, 2♣ 3♣ A♣
>>> [OUTCOMES[TRILUX][k] for k in classify_codes(TRILUX, codes)]
['straight_flush', 'straight_flush']
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

__all__ = ["LOSE", "OUTCOMES", "classify_codes", "outcome_codes"]

TRILUX, THREE_CARD_POKER, TOP3 = "§ 633c.11", "§ 633a.6(e)(9)", "§ 633c.7"
UPCARD_LUCK, BLAZING_7S = "§ 633b.15", "§ 633b.20"
"""The sections the classifications are written from (each wager's ``section``)."""

LOSE = "lose"
"""A losing wager."""

_POKER = ("straight_flush", "three_of_a_kind", "straight", "flush")
OUTCOMES: dict[str, tuple[str, ...]] = {
    TRILUX: (LOSE, *_POKER),
    THREE_CARD_POKER: (LOSE, *_POKER),
    TOP3: (LOSE, "suited_three_of_a_kind", "straight_flush", "three_of_a_kind"),
    UPCARD_LUCK: (LOSE, "ace_jack_spades", "blackjack", "total_9_to_11", "total_18_to_20"),
    BLAZING_7S: (LOSE, "three_sevens_diamonds", "three_sevens_suited",
                  "three_sevens_same_color", "three_sevens", "two_sevens", "one_seven"),
}
"""Each section's outcomes by the index :func:`classify_codes` returns (0: lose)."""

_ACE, _SEVEN, _JACK, _TEN = 12, 5, 9, 8
"""Rank indices (2 is 0)."""
_DIAMONDS, _SPADES = 1, 3
_RED = (1, 2)
"""Diamonds and hearts."""


def _cards(codes: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], ...]:
    """Ranks (0 = 2 … 12 = A) and suits of the player's two cards and the upcard."""
    cards = (codes // 2704, codes // 52 % 52, codes % 52)
    return (*(c // 4 for c in cards), *(c % 4 for c in cards))


def _poker(codes: npt.NDArray[np.int64]) -> dict[str, npt.NDArray[np.bool_]]:
    r1, r2, r3, s1, s2, s3 = _cards(codes)
    lo = np.minimum(np.minimum(r1, r2), r3)
    hi = np.maximum(np.maximum(r1, r2), r3)
    distinct = (r1 != r2) & (r2 != r3) & (r1 != r3)
    flush = (s1 == s2) & (s2 == s3)
    trips = (r1 == r2) & (r2 == r3)
    # three distinct ranks spanning two: consecutive; or A-2-3, the ace low
    wheel = distinct & (hi == _ACE) & (r1 + r2 + r3 == _ACE + 0 + 1)
    straight = distinct & ((hi - lo == 2) | wheel)
    return {"suited": trips & flush, "straight_flush": straight & flush, "trips": trips,
            "straight": straight, "flush": flush}


def _first(conditions: list[npt.NDArray[np.bool_]]) -> npt.NDArray[np.int8]:
    """The index (from 1) of the first condition that holds, 0 where none does."""
    out = np.zeros(conditions[0].shape, dtype=np.int8)
    for k in range(len(conditions), 0, -1):
        out[conditions[k - 1]] = k
    return out


def _value(rank: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Blackjack value with the ace as 11: 2–10 at face value, J, Q, K 10."""
    return np.where(rank == _ACE, 11, np.minimum(rank + 2, 10))


def classify_codes(section: str, codes: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
    """Each triple code's outcome index into ``OUTCOMES[section]`` (0: lose) under the wager
    of ``section``."""
    codes = np.asarray(codes, dtype=np.int64)
    if section in (TRILUX, THREE_CARD_POKER):
        p = _poker(codes)
        return _first([p["straight_flush"], p["trips"], p["straight"], p["flush"]])
    if section == TOP3:
        p = _poker(codes)
        return _first([p["suited"], p["straight_flush"], p["trips"]])
    r1, r2, r3, s1, s2, s3 = _cards(codes)
    if section == UPCARD_LUCK:
        lucky = r3 <= _SEVEN  # an upcard 2 through 7
        ajs = (s1 == _SPADES) & (s2 == _SPADES) & (
            ((r1 == _ACE) & (r2 == _JACK)) | ((r1 == _JACK) & (r2 == _ACE)))
        tens = (r1 >= _TEN) & (r1 != _ACE), (r2 >= _TEN) & (r2 != _ACE)
        natural = ((r1 == _ACE) & tens[1]) | ((r2 == _ACE) & tens[0])
        total = _value(r1) + _value(r2)
        total = np.where(total > 21, total - 10, total)  # two aces: one counts 1
        return np.where(lucky, _first([ajs, natural, (total >= 9) & (total <= 11),
                                       (total >= 18) & (total <= 20)]), 0).astype(np.int8)
    if section == BLAZING_7S:
        sevens = (r1 == _SEVEN).astype(np.int64) + (r2 == _SEVEN)
        three = (sevens == 2) & (r3 == _SEVEN)
        suited = (s1 == s2) & (s2 == s3)
        red = np.isin(s1, _RED), np.isin(s2, _RED), np.isin(s3, _RED)
        colour = (red[0] == red[1]) & (red[1] == red[2])
        return _first([three & suited & (s1 == _DIAMONDS), three & suited, three & colour,
                       three, sevens == 2, sevens == 1])
    raise KeyError(f"no independent classification of the wager of {section}")


@cache
def outcome_codes(section: str) -> npt.NDArray[np.int8]:
    """:func:`classify_codes` of every triple code ``p1·2704 + p2·52 + up`` (read-only)."""
    out = classify_codes(section, np.arange(52**3, dtype=np.int64))
    out.flags.writeable = False
    return out
