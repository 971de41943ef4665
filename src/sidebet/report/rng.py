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
* **coupon collector**: the cards dealt from the top of shoe ``i`` until every rank has
  shown: exact distribution by inclusion–exclusion; χ² goodness of fit.
* **Kolmogorov–Smirnov**: the position of the first card of kind ``i mod 52`` in shoe ``i``
  against its exact distribution (conservative: the positions are whole numbers).
* **permutation**: the order in which the first cards of the four suits of rank
  ``i mod 13`` appear in shoe ``i``: 24 orders, equally likely; χ² goodness of fit.

χ² cells are merged, in order, until each expects at least 5 observations.  A test
*passes* when its p-value is at least 0.05.  A test that the sample is too small for is
reported with ``statistic``, ``p_value`` and ``passed`` all ``None``, a ``note`` and the
``min_sample`` it needs: reported as not made, never as passed.  The battery is called
passed only when every test was made on at least :func:`min_shoes` shoes and passed
(:attr:`BatteryResult.summary` says "N of M tests run, all passed", or names each failure);
:data:`NOT_RUN` lists the tests of § 810a.5's list it does not run, with the reason.

The shoes come from every shuffle sidebet deals with: the table engine's
(:func:`shuffled_shoes`, seeded PCG64 or the unseeded ``secrets`` shuffle), the simulator's
SplitMix64 batched Fisher–Yates (:func:`simulator_shoes`), and the server's HMAC Fisher–Yates
(``sidebet.serve.fair``, handed in by the command line, which sits above both).

>>> battery = run_battery(shuffled_shoes(1, 300, seed=1), 1)
>>> [t.name for t in battery.tests][:5]
['chi-square card-by-position', 'gap', 'poker', 'runs', 'serial correlation']
>>> battery.summary
'8 of 8 tests run, none failed; not passed: the battery needs at least 1,000 shoes, not 300'
>>> all(0 <= t.p_value <= 1 for t in battery.tests if t.p_value is not None)
True
"""

from __future__ import annotations

import itertools
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
    "NOT_RUN",
    "SHUFFLES",
    "BatteryResult",
    "RngTest",
    "coupon_distribution",
    "gap_distribution",
    "history_shoes",
    "holm_failures",
    "min_shoes",
    "poker_distribution",
    "run_batteries",
    "run_battery",
    "runs_distribution",
    "serial_moments",
    "shuffled_shoes",
    "simulator_shoes",
]

LEVEL = Fraction(95, 100)
"""Confidence level of the battery: a test passes when its p-value is at least 1 − LEVEL."""
MIN_EXPECTED = 5
"""Least expected count of a χ² cell (cells are merged until they reach it)."""
MIN_SHOES = 1000
"""Below this many shoes the battery is never called passed (too little power)."""
SERIAL_MIN = 30
"""Shoes the serial test's normal reference needs."""
KS_MIN = 50
"""Shoes the Kolmogorov–Smirnov test needs."""

Orders = npt.NDArray[np.int64]
_RED = (int(Suit.DIAMONDS), int(Suit.HEARTS))


def holm_failures(p_values: list[tuple[str, float]], level: Fraction = LEVEL) -> list[str]:
    """The tests that still fail when the whole battery is held to the level together
    (Holm's step-down correction, family-wise error 1 − ``level``): with many tests at
    5% each, about one in twenty fails by chance alone, which this accounts for.

    >>> holm_failures([("a", 0.0383)] + [(f"t{i}", 0.5) for i in range(31)])
    []
    >>> holm_failures([("a", 0.0001), ("b", 0.03), ("c", 0.9)])
    ['a']
    """
    alpha = float(1 - level)
    ranked = sorted(p_values, key=lambda item: item[1])
    failed: list[str] = []
    for i, (name, p) in enumerate(ranked):
        if p >= alpha / (len(ranked) - i):
            break
        failed.append(name)
    return failed

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
    min_sample: int = 1
    """The fewest shoes the test needs to be made."""

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
            "min_sample": self.min_sample,
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
        """``True`` only when every test of the battery was made on at least
        :func:`min_shoes` shoes and passed; ``False`` when a test made failed; ``None``
        (not passed, nothing failed) when a test was not made or the sample is too small."""
        made = [t.passed for t in self.tests if t.passed is not None]
        if not all(made):
            return False
        if len(made) < len(self.tests) or self.shoes < min_shoes(self.decks):
            return None
        return True

    @property
    def summary(self) -> str:
        """What was run and found, in words: "N of M tests run, all passed", the failures by
        name, or why the battery is not called passed."""
        made = [t for t in self.tests if t.passed is not None]
        failed = [t.name for t in made if not t.passed]
        head = f"{len(made)} of {len(self.tests)} tests run"
        if failed:
            return f"{head}; failed: {', '.join(failed)}"
        if len(made) < len(self.tests) or self.shoes < min_shoes(self.decks):
            return (f"{head}, none failed; not passed: the battery needs at least "
                    f"{min_shoes(self.decks):,} shoes, not {self.shoes:,}")
        return f"{head}, all passed"

    def to_json(self) -> dict[str, Any]:
        """``{shoes, decks, tests: [{name, statistic, p_value, passed}]}`` plus the seed,
        the source of the shoes and the level."""
        return {
            "shoes": self.shoes,
            "decks": self.decks,
            "seed": self.seed,
            "source": self.source,
            "level": float(LEVEL),
            "min_shoes": min_shoes(self.decks),
            "passed": self.passed,
            "summary": self.summary,
            "tests": [t.to_json() for t in self.tests],
            "not_run": [{"name": n, "reason": r} for n, r in NOT_RUN],
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


def simulator_shoes(decks: int, shoes: int, seed: int) -> Orders:
    """``shoes`` whole shoes shuffled by the simulator's own shuffle
    (:func:`sidebet.sim.shuffle.shuffle`: shoe ``k`` of a run seeded ``seed``, its own
    SplitMix64 stream), as the simulator and the counting kernels deal them."""
    from sidebet.sim.chunk import seed_key
    from sidebet.sim.shuffle import shoe_state, shuffle

    Shoe.standard(decks)
    if shoes < 1:
        raise SidebetError("the battery needs at least 1 shoe (--shoes)")
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    words = seed_key(seed)
    key0, key1 = np.uint64(words[0]), np.uint64(words[1])
    n = 52 * decks
    base = np.tile(np.arange(52, dtype=np.uint8), decks)
    out = np.empty((shoes, n), dtype=np.int64)
    buf = base.copy()
    for k in range(shoes):
        shuffle(buf, base, n, np.uint64(shoe_state(k, key0, key1)))
        out[k] = buf
    return out


ShoeSource = Callable[[int, int, int], Orders]
"""``(decks, shoes, seed) -> orders``: whole shoes from one shuffle."""


def _live_shoes(decks: int, shoes: int, seed: int) -> Orders:
    return shuffled_shoes(decks, shoes, None)


SHUFFLES: dict[str, tuple[str, ShoeSource]] = {
    "table": ("the table engine's seeded shuffle (sidebet.table.dealing.shuffled_order: "
              "PCG64 permutation, shoe k seeded S+k)", shuffled_shoes),
    "live": ("the table engine's live shuffle (shuffled_order unseeded: "
             "secrets.SystemRandom; not reproducible)", _live_shoes),
    "simulator": ("the simulator's shuffle (sidebet.sim.shuffle: SplitMix64 stream per "
                  "shoe, batched Fisher–Yates; shoe k of a run seeded S)", simulator_shoes),
}
"""The shuffles of the layers the report may read; the server's HMAC Fisher–Yates
(``sidebet.serve.fair``) is added by the command line, above both."""


def run_batteries(decks: int, shoes: int, seed: int,
                  sources: dict[str, tuple[str, ShoeSource]],
                  progress: Callable[[int, int], None] | None = None) -> list[BatteryResult]:
    """The battery on ``shoes`` shoes of every shuffle in ``sources``; ``progress`` is told
    the shuffles done and their number."""
    out = []
    for k, (text, make) in enumerate(sources.values()):
        if progress is not None:
            progress(k, len(sources))
        out.append(run_battery(make(decks, shoes, seed), decks, seed=seed, source=text))
    if progress is not None:
        progress(len(sources), len(sources))
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
    name: str, observed: Sequence[int], probs: Sequence[Fraction], note: str = "",
    per_shoe: int = 1,
) -> RngTest:
    """χ² goodness of fit of category counts against exact probabilities."""
    from scipy import stats

    total = int(sum(observed))
    groups = _merge(probs, total)
    need = _least_for_two_cells(probs)
    if len(groups) < 2:
        return RngTest(name, None, None, None, "chi2", total,
                       f"not made: {total} observations are too few for 2 cells of "
                       f"{MIN_EXPECTED} expected (needs {need:,} shoes)",
                       min_sample=math.ceil(need / per_shoe))
    obs = np.array([sum(observed[i] for i in g) for g in groups], dtype=np.float64)
    exp = np.array([float(sum(probs[i] for i in g) * total) for g in groups])
    exp *= total / exp.sum()  # the float rounding only: the exact masses sum to 1
    res = stats.chisquare(obs, exp)
    return RngTest(name, float(res.statistic), float(res.pvalue), len(groups) - 1, "chi2",
                   total, note, min_sample=math.ceil(need / per_shoe))


def _least_for_two_cells(probs: Sequence[Fraction]) -> int:
    """The fewest observations for which :func:`_merge` makes at least two cells."""
    n = MIN_EXPECTED
    while len(_merge(probs, n)) < 2:
        n *= 2
    lo, hi = n // 2, n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if len(_merge(probs, mid)) >= 2:
            hi = mid
        else:
            lo = mid
    return hi


def card_by_position(orders: Orders, decks: int) -> RngTest:
    """Chi-square on card-kind by position frequencies (see the module docstring)."""
    from scipy import stats

    name = "chi-square card-by-position"
    shoes, n = orders.shape
    if shoes * 1 < 52 * MIN_EXPECTED:
        return RngTest(name, None, None, None, "chi2", shoes,
                       f"not made: needs at least {52 * MIN_EXPECTED} shoes "
                       f"({MIN_EXPECTED} expected per cell), not {shoes}",
                       min_sample=52 * MIN_EXPECTED)
    flat = (orders + 52 * np.arange(n, dtype=np.int64)).ravel()
    counts = np.bincount(flat, minlength=52 * n).astype(np.float64)
    expected = shoes / 52
    pearson = float(((counts - expected) ** 2).sum() / expected)
    statistic = pearson * (n - 1) / n
    dof = (n - 1) * 51
    return RngTest(name, statistic, float(stats.chi2.sf(statistic, dof)), dof, "chi2", shoes,
                   min_sample=52 * MIN_EXPECTED)


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
    if shoes < SERIAL_MIN:
        return RngTest("serial correlation", None, None, None, "normal", shoes,
                       f"not made: needs at least {SERIAL_MIN} shoes, not {shoes}",
                       min_sample=SERIAL_MIN)
    x = orders // 4 + 2
    mean, var = serial_moments(np.sort(x[0]).tolist())
    r = (x * np.roll(x, -1, axis=1)).sum(axis=1)
    z = (r.astype(np.float64) - float(mean)) / math.sqrt(var)
    statistic = float(z.sum() / math.sqrt(shoes))
    return RngTest("serial correlation", statistic, float(2 * stats.norm.sf(abs(statistic))),
                   None, "normal", shoes, min_sample=SERIAL_MIN)


@cache
def coupon_distribution(decks: int) -> tuple[Fraction, ...]:
    """``P(T = t)``, ``t = 0 .. n``: ``T`` the cards dealt from a full shoe until every one of
    the 13 ranks has shown (inclusion–exclusion over the ranks missing from the first ``t``).

    >>> d = coupon_distribution(1)
    >>> sum(d), next(t for t, p in enumerate(d) if p)
    (Fraction(1, 1), 13)
    """
    n, m = 52 * decks, 4 * decks

    def all_seen(t: int) -> Fraction:
        return sum((Fraction((-1) ** k * math.comb(13, k) * math.comb(n - k * m, t),
                             math.comb(n, t)) for k in range(14)), Fraction(0))

    cdf = [all_seen(t) for t in range(n + 1)]
    return tuple(cdf[t] - (cdf[t - 1] if t else 0) for t in range(n + 1))


def coupon_test(orders: Orders, decks: int) -> RngTest:
    """Coupon collector: cards dealt until every rank has shown, one count per shoe."""
    shoes, n = orders.shape
    ranks = orders // 4
    seen = np.zeros((shoes, 13), dtype=bool)
    done = np.full(shoes, n, dtype=np.int64)
    open_ = np.ones(shoes, dtype=bool)
    for t in range(n):
        seen[np.arange(shoes), ranks[:, t]] = True
        full = open_ & seen.all(axis=1)
        done[full] = t + 1
        open_ &= ~full
        if not open_.any():
            break
    dist = coupon_distribution(decks)
    return _goodness_of_fit("coupon collector", np.bincount(done, minlength=n + 1).tolist(),
                            dist)


@cache
def first_position_cdf(n: int, m: int) -> tuple[float, ...]:
    """``P(F ≤ j)``: ``F`` the position of the first of ``m`` marked cards among ``n``
    (exact, handed to the KS test as floats)."""
    total = math.comb(n, m)
    return tuple(float(1 - Fraction(math.comb(n - 1 - j, m), total)) for j in range(n))


def ks_test(orders: Orders, decks: int) -> RngTest:
    """Kolmogorov–Smirnov: in shoe ``i`` the position of the first card of kind ``i mod 52``
    against its exact distribution (a discrete one: the test is conservative)."""
    from scipy import stats

    shoes, n = orders.shape
    target = np.arange(shoes) % 52
    first = (orders == target[:, None]).argmax(axis=1)
    if shoes < KS_MIN:
        return RngTest("Kolmogorov–Smirnov", None, None, None, "ks", shoes,
                       f"not made: needs at least {KS_MIN} shoes, not {shoes}",
                       min_sample=KS_MIN)
    cdf = np.array(first_position_cdf(n, decks))
    ecdf = np.cumsum(np.bincount(first, minlength=n)[:n]) / shoes
    statistic = float(np.abs(ecdf - cdf).max())  # both right-continuous, at the atoms
    return RngTest("Kolmogorov–Smirnov", statistic, float(stats.kstwo.sf(statistic, shoes)),
                   None, "ks", shoes, "positions are whole numbers: the test is conservative",
                   min_sample=KS_MIN)


def permutation_test(orders: Orders, decks: int) -> RngTest:
    """Permutations: in shoe ``i`` the order in which the first cards of the four suits of
    rank ``i mod 13`` appear, one of 24 orders, equally likely."""
    shoes = orders.shape[0]
    rank = np.arange(shoes) % 13
    firsts = np.stack([(orders == (4 * rank + suit)[:, None]).argmax(axis=1)
                       for suit in range(4)], axis=1)
    order = np.argsort(firsts, axis=1)
    perms = list(itertools.permutations(range(4)))
    index = {perm: i for i, perm in enumerate(perms)}
    observed = [0] * len(perms)
    for row in order.tolist():
        observed[index[tuple(row)]] += 1
    return _goodness_of_fit("permutation", observed, [Fraction(1, 24)] * 24)


TESTS: tuple[Callable[[Orders, int], RngTest], ...] = (
    card_by_position,
    gap_test,
    poker_test,
    runs_test,
    serial_test,
    coupon_test,
    ks_test,
    permutation_test,
)
"""The battery, in the order it is reported."""

NOT_RUN: tuple[tuple[str, str], ...] = (
    ("Poisson", "a shoe is a permutation of fixed cards: no count in it has a Poisson null "
     "distribution that could be stated exactly, so the test is not run"),
)
"""Tests of § 810a.5's list that the battery does not run, and why."""


def min_shoes(decks: int) -> int:
    """The fewest shoes on which the battery can be called passed: every test made, and at
    least :data:`MIN_SHOES`."""
    return max(MIN_SHOES, 52 * MIN_EXPECTED)


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
