"""The statistical battery on the shuffle (58 Pa. Code § 810a.5's list, at the 95% level).

The battery runs on whole shoes: card indices (0..51) in dealing order, ``decks`` copies
of every card kind per shoe.  Shoes are independent of one another, so every test is built
from quantities that are independent *across shoes*, each with an exact null distribution
(integers and :class:`~fractions.Fraction` underneath, floats only when handed to
``scipy.stats`` for the tail probability):

* **chi-square, card by position**: how often each card kind lands at each position.  The
  ``n × 52`` table of counts over ``N`` shoes has both margins fixed shoe by shoe, so its
  covariance is ``n/(n−1)`` times that of an ordinary contingency table; the Pearson
  statistic is multiplied by ``(n−1)/n`` and referred to χ² with ``(n−1)·51`` degrees of
  freedom (needs ``N ≥ 260`` for 5 expected per cell).
* **gap**: in shoe ``i``, the number of cards between the first and the second card of rank
  ``i mod 13`` (``m = 4·decks`` cards of that rank among ``n``): ``P(g = j) =
  C(n−1−j, m−1) / C(n, m)``; χ² goodness of fit.
* **poker**: in shoe ``i``, the five cards at positions ``5k .. 5k+4`` with ``k = i mod
  ⌊n/5⌋``, classified by their rank pattern (all different, one pair, ... five of a kind);
  exact probabilities from counting; χ² goodness of fit.
* **runs**: the number of runs of red and black cards in the whole shoe (``n/2`` of each):
  the exact runs distribution; χ² goodness of fit.
* **serial correlation**: the circular lag-1 sum ``R = Σ x_i x_{i+1}`` of the card ranks
  (2..14) in each shoe, standardised by its exact permutation mean and variance (Wald and
  Wolfowitz, 1943); the mean of the ``N`` standardised values times ``√N`` is referred to
  the standard normal (two-sided).

χ² cells are merged, in order, until each expects at least 5 observations.  A test
*passes* when its p-value is at least 0.05.  A test that the sample is too small for is
reported with ``statistic``, ``p_value`` and ``passed`` all ``None`` and a ``note``:
reported as not made, never as passed.

>>> battery = run_battery(shuffled_shoes(1, 300, seed=1), 1)
>>> [t.name for t in battery.tests]
['chi-square card-by-position', 'gap', 'poker', 'runs', 'serial correlation']
>>> all(0 <= t.p_value <= 1 for t in battery.tests if t.p_value is not None)
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import Suit, parse_cards
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.table.dealing import shuffled_order

__all__ = [
    "LEVEL",
    "MIN_EXPECTED",
    "BatteryResult",
    "RngTest",
    "gap_distribution",
    "history_shoes",
    "poker_distribution",
    "run_battery",
    "runs_distribution",
    "serial_moments",
    "shuffled_shoes",
]

LEVEL = Fraction(95, 100)
"""Confidence level of the battery: a test passes when its p-value is at least 1 − LEVEL."""
MIN_EXPECTED = 5
"""Least expected count of a χ² cell (cells are merged until they reach it)."""

Orders = npt.NDArray[np.int64]
_RED = (int(Suit.DIAMONDS), int(Suit.HEARTS))


@dataclass(frozen=True, slots=True)
class RngTest:
    """One test of the battery (``None`` values: the test was not made, see ``note``)."""

    name: str
    statistic: float | None
    p_value: float | None
    dof: int | None
    distribution: str
    """What the statistic is referred to (``'chi2'`` or ``'normal'``)."""
    observations: int
    note: str = ""

    @property
    def passed(self) -> bool | None:
        """Whether the test passes at the battery's level (``None``: not made)."""
        if self.p_value is None:
            return None
        return self.p_value >= float(1 - LEVEL)

    def to_json(self) -> dict[str, Any]:
        """``{name, statistic, p_value, passed}`` and how the statistic is referred."""
        return {
            "name": self.name,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "passed": self.passed,
            "dof": self.dof,
            "distribution": self.distribution,
            "observations": self.observations,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class BatteryResult:
    """The battery on ``shoes`` shoes of ``decks`` decks."""

    shoes: int
    decks: int
    seed: int | None
    source: str
    tests: tuple[RngTest, ...]

    @property
    def passed(self) -> bool | None:
        """Every test made passed (``None`` when no test could be made)."""
        made = [t.passed for t in self.tests if t.passed is not None]
        return all(made) if made else None

    def to_json(self) -> dict[str, Any]:
        """``{shoes, decks, tests: [{name, statistic, p_value, passed}]}`` plus the seed,
        the source of the shoes and the level."""
        return {
            "shoes": self.shoes,
            "decks": self.decks,
            "seed": self.seed,
            "source": self.source,
            "level": float(LEVEL),
            "tests": [t.to_json() for t in self.tests],
        }


# --- the shoes ---------------------------------------------------------------------------


def shuffled_shoes(decks: int, shoes: int, seed: int | None = None) -> Orders:
    """``shoes`` shoes from the table's own shuffle, :func:`sidebet.table.dealing.shuffled_order`:
    shoe ``k`` with seed ``seed + k`` (as a table seeded ``seed`` deals them), or the
    unseeded (cryptographic) shuffle when ``seed`` is ``None``."""
    Shoe.standard(decks)
    if shoes < 1:
        raise SidebetError("the battery needs at least 1 shoe (--shoes)")
    if seed is not None and seed < 0:
        raise SidebetError("the seed must not be negative")
    out = np.empty((shoes, 52 * decks), dtype=np.int64)
    for k in range(shoes):
        out[k] = shuffled_order(decks, None if seed is None else seed + k)
    return out


def history_shoes(data: dict[str, Any]) -> tuple[Orders, int]:
    """The revealed shoes of a session history (``sidebet play --save``), audited first by
    :func:`sidebet.table.session_audit.verify`; returns ``(orders, decks)``."""
    from sidebet.table.history import SESSION_FORMAT
    from sidebet.table.session_audit import verify

    if data.get("format") != SESSION_FORMAT:
        raise SidebetError(
            f"the RNG battery needs a session history ({SESSION_FORMAT!r}) with revealed shoes"
        )
    verify(data)
    decks = data.get("config", {}).get("decks")
    if not isinstance(decks, int):
        raise SidebetError("malformed session history: its configuration names no deck count")
    rows = [[c.index for c in parse_cards(str(s["order"]))] for s in data["shoes"]]
    if not rows:
        raise SidebetError("the history reveals no shoe yet: nothing to test")
    return np.array(rows, dtype=np.int64), decks


def _check(orders: Orders, decks: int) -> None:
    Shoe.standard(decks)
    n = 52 * decks
    if orders.ndim != 2 or orders.shape[1] != n or orders.shape[0] < 1:
        raise SidebetError(f"the battery takes whole {decks}-deck shoes of {n} cards")
    if orders.min() < 0 or orders.max() > 51:
        raise SidebetError("a card index must be in 0..51")
    counts = np.apply_along_axis(np.bincount, 1, orders, minlength=52)
    bad = np.nonzero((counts != decks).any(axis=1))[0]
    if len(bad):
        raise SidebetError(f"shoe {int(bad[0]) + 1} does not hold {decks} of every card kind")


# --- exact null distributions ------------------------------------------------------------


@cache
def gap_distribution(n: int, m: int) -> tuple[Fraction, ...]:
    """``P(g = j)``, ``j = 0 .. n−m``: cards between the first two of ``m`` marked cards
    placed at random among ``n``.

    >>> dist = gap_distribution(52, 4)
    >>> sum(dist), dist[0]
    (Fraction(1, 1), Fraction(1, 13))
    """
    total = math.comb(n, m)
    return tuple(Fraction(math.comb(n - 1 - j, m - 1), total) for j in range(n - m + 1))


_PATTERNS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("all different", (1, 1, 1, 1, 1)),
    ("one pair", (2, 1, 1, 1)),
    ("two pairs", (2, 2, 1)),
    ("three of a kind", (3, 1, 1)),
    ("full house", (3, 2)),
    ("four of a kind", (4, 1)),
    ("five of a kind", (5,)),
)


@cache
def poker_distribution(decks: int) -> tuple[tuple[str, tuple[int, ...], Fraction], ...]:
    """Rank patterns of five cards dealt from a full shoe with their exact probabilities.

    >>> {name: str(p) for name, _, p in poker_distribution(1)}["full house"]
    '6/4165'
    """
    m, n = 4 * decks, 52 * decks
    total = math.comb(n, 5)
    out = []
    for name, pattern in _PATTERNS:
        ways = math.perm(13, len(pattern))
        for same in Counter(pattern).values():
            ways //= math.factorial(same)
        for k in pattern:
            ways *= math.comb(m, k)
        out.append((name, pattern, Fraction(ways, total)))
    return tuple(out)


@cache
def runs_distribution(n1: int, n2: int) -> dict[int, Fraction]:
    """Exact distribution of the number of runs in a random arrangement of ``n1`` and ``n2``
    cards of two kinds.

    >>> runs_distribution(2, 2)
    {2: Fraction(1, 3), 3: Fraction(1, 3), 4: Fraction(1, 3)}
    """
    total = math.comb(n1 + n2, n1)
    out: dict[int, Fraction] = {}
    for r in range(2, n1 + n2 + 1):
        k = r // 2
        if r % 2 == 0:
            ways = 2 * math.comb(n1 - 1, k - 1) * math.comb(n2 - 1, k - 1)
        else:
            ways = math.comb(n1 - 1, k) * math.comb(n2 - 1, k - 1) + math.comb(
                n1 - 1, k - 1
            ) * math.comb(n2 - 1, k)
        if ways:
            out[r] = Fraction(ways, total)
    return out


def serial_moments(values: Sequence[int]) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of ``R = Σ x_i x_{i+1}`` (circular) over the random
    permutations of ``values`` (Wald and Wolfowitz, 1943).

    >>> serial_moments([1, 2, 3])
    (Fraction(11, 1), Fraction(0, 1))
    """
    n = len(values)
    a1, a2, a3, a4 = (sum((Fraction(v) ** p for v in values), Fraction(0)) for p in (1, 2, 3, 4))
    mean = (a1 * a1 - a2) / (n - 1)
    var = (
        (a2 * a2 - a4) / (n - 1)
        + (a1 * a1 * a1 * a1 - 4 * a1 * a1 * a2 + 4 * a1 * a3 + a2 * a2 - 2 * a4) / ((n - 1) * (n - 2))
        - mean * mean
    )
    return mean, var


# --- the tests ---------------------------------------------------------------------------


def _merge(probs: Sequence[Fraction], observations: int) -> list[list[int]]:
    """Consecutive categories grouped until each group expects at least MIN_EXPECTED."""
    groups: list[list[int]] = []
    current: list[int] = []
    mass = Fraction(0)
    for i, p in enumerate(probs):
        current.append(i)
        mass += p
        if mass * observations >= MIN_EXPECTED:
            groups.append(current)
            current, mass = [], Fraction(0)
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def _goodness_of_fit(
    name: str, observed: Sequence[int], probs: Sequence[Fraction], note: str = ""
) -> RngTest:
    """χ² goodness of fit of category counts against exact probabilities."""
    from scipy import stats

    total = int(sum(observed))
    groups = _merge(probs, total)
    if len(groups) < 2:
        return RngTest(name, None, None, None, "chi2", total,
                       f"not made: {total} observations are too few for 2 cells of "
                       f"{MIN_EXPECTED} expected")
    obs = np.array([sum(observed[i] for i in g) for g in groups], dtype=np.float64)
    exp = np.array([float(sum(probs[i] for i in g) * total) for g in groups])
    exp *= total / exp.sum()  # the float rounding only: the exact masses sum to 1
    res = stats.chisquare(obs, exp)
    return RngTest(name, float(res.statistic), float(res.pvalue), len(groups) - 1, "chi2",
                   total, note)


def card_by_position(orders: Orders, decks: int) -> RngTest:
    """Chi-square on card-kind by position frequencies (see the module docstring)."""
    from scipy import stats

    name = "chi-square card-by-position"
    shoes, n = orders.shape
    if shoes * 1 < 52 * MIN_EXPECTED:
        return RngTest(name, None, None, None, "chi2", shoes,
                       f"not made: needs at least {52 * MIN_EXPECTED} shoes "
                       f"({MIN_EXPECTED} expected per cell), not {shoes}")
    flat = (orders + 52 * np.arange(n, dtype=np.int64)).ravel()
    counts = np.bincount(flat, minlength=52 * n).astype(np.float64)
    expected = shoes / 52
    pearson = float(((counts - expected) ** 2).sum() / expected)
    statistic = pearson * (n - 1) / n
    dof = (n - 1) * 51
    return RngTest(name, statistic, float(stats.chi2.sf(statistic, dof)), dof, "chi2", shoes)


def gap_test(orders: Orders, decks: int) -> RngTest:
    """Gap between the first two cards of rank ``k mod 13`` in shoe ``k``."""
    shoes, n = orders.shape
    target = np.arange(shoes) % 13
    marked = (orders // 4) == target[:, None]
    first = marked.argmax(axis=1)
    marked[np.arange(shoes), first] = False
    gaps = marked.argmax(axis=1) - first - 1
    dist = gap_distribution(n, 4 * decks)
    observed = np.bincount(gaps, minlength=len(dist)).tolist()
    return _goodness_of_fit("gap", observed, dist)


def poker_test(orders: Orders, decks: int) -> RngTest:
    """Rank pattern of the five cards at positions ``5k..5k+4``, ``k = shoe mod ⌊n/5⌋``."""
    shoes, n = orders.shape
    start = (np.arange(shoes) % (n // 5)) * 5
    hands = orders[np.arange(shoes)[:, None], start[:, None] + np.arange(5)] // 4
    dist = [(pattern, p) for _, pattern, p in poker_distribution(decks) if p > 0]
    index = {pattern: i for i, (pattern, _) in enumerate(dist)}
    observed = [0] * len(dist)
    for hand in hands.tolist():
        observed[index[tuple(sorted(Counter(hand).values(), reverse=True))]] += 1
    return _goodness_of_fit("poker", observed, [p for _, p in dist])


def runs_test(orders: Orders, decks: int) -> RngTest:
    """Runs of red and black cards in each whole shoe."""
    red = np.isin(orders % 4, _RED)
    runs = 1 + (red[:, 1:] != red[:, :-1]).sum(axis=1)
    half = 26 * decks
    dist = runs_distribution(half, half)
    keys = sorted(dist)
    count = Counter(runs.tolist())
    return _goodness_of_fit("runs", [count.get(r, 0) for r in keys], [dist[r] for r in keys])


def serial_test(orders: Orders, decks: int) -> RngTest:
    """Circular lag-1 serial correlation of the ranks, standardised exactly per shoe."""
    from scipy import stats

    shoes = orders.shape[0]
    x = orders // 4 + 2
    mean, var = serial_moments(np.sort(x[0]).tolist())
    r = (x * np.roll(x, -1, axis=1)).sum(axis=1)
    z = (r.astype(np.float64) - float(mean)) / math.sqrt(var)
    statistic = float(z.sum() / math.sqrt(shoes))
    return RngTest("serial correlation", statistic, float(2 * stats.norm.sf(abs(statistic))),
                   None, "normal", shoes)


TESTS: tuple[Callable[[Orders, int], RngTest], ...] = (
    card_by_position,
    gap_test,
    poker_test,
    runs_test,
    serial_test,
)
"""The battery, in the order it is reported."""


def run_battery(
    orders: Orders, decks: int, *, seed: int | None = None, source: str = "shuffled_order"
) -> BatteryResult:
    """Every test of the battery on ``orders`` (one shoe per row)."""
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    _check(orders, decks)
    return BatteryResult(
        shoes=int(orders.shape[0]),
        decks=decks,
        seed=seed,
        source=source,
        tests=tuple(test(orders, decks) for test in TESTS),
    )
