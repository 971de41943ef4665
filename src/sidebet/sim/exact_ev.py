"""Compiled exact EV of the side wagers for a shoe composition, kept up to date card by card.

The state is one ``int64`` array (layout below).  Every wager's expected return is a
ratio of integer sums over ordered triples (player's first card, second card, upcard)
drawn without replacement: ``Σ weight · count / (N (N−1) (N−2)) − 1`` where ``weight``
is "pays + 1" of a winning category.  The category counts are polynomials of degree
three in the card counts, kept as sums that one removed card changes in O(1)
(O(12) for Upcard Luck's quadratic forms):

* three-card poker family (TriLux Deluxe, Top 3, Three Card Poker): suited trips
  Σₖ cₖ(cₖ−1)(cₖ−2), trips Σᵣ nᵣ(nᵣ−1)(nᵣ−2), flushes Σₛ mₛ(mₛ−1)(mₛ−2), straights
  6 Σ n_a n_b n_c and straight flushes 6 Σₛ Σ c_a,s c_b,s c_c,s over the 12 straights;
* Blazing 7's: closed forms in the four sevens' counts and N;
* Upcard Luck: ``C_L · A − B`` with ``C_L`` the 2–7 cards left and ``A``, ``B``
  quadratic forms of 12 card classes with their gradients.

:mod:`sidebet.vuln.side_ev` builds the constant arrays from the wagers' outcome tables and
checks that each category maps to exactly one outcome.  The state lives here, below the
analyses, because the simulator's round kernel (:func:`sidebet.sim.kernels.play_chunk`)
keeps it for a counter betting the side wagers by their exact EV; the vulnerability
analyses' walks are in :mod:`sidebet.vuln.side_ev_kernel`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sidebet.native.jit import kernel

__all__ = ["NCAT", "NCLS", "NSTATE", "category_counts", "ev_remove", "ev_reset", "evaluate",
           "straight_neighbours"]

NCLS = 12
"""Upcard Luck card classes."""
NR = 52
MS = 65
U = 69
GA = 81
GB = 93
AG = 105
A_N = AG
A_ST = AG + 1
A_TR = AG + 2
A_FL = AG + 3
A_STR = AG + 4
A_SF = AG + 5
A_A = AG + 6
A_B = AG + 7
A_CL = AG + 8
NSTATE = AG + 9
"""State layout: card counts, rank counts, suit counts, Upcard Luck class counts and the
two gradients, then N and the category sums."""

NCAT = 12
"""Categories: poker [straight flush, trips (not suited), suited trips, straight,
flush], Blazing 7's [three 7♦, three suited, three one colour, three 7s, two 7s, one 7],
Upcard Luck's weighted win count."""


def straight_neighbours() -> np.ndarray[Any, Any]:
    """``[rank, i] -> (a, b)``: the other two ranks of each straight holding the rank
    (rank index 0 = deuce .. 12 = ace; A-2-3 and Q-K-A are straights); ``-1`` pads."""
    out = np.full((13, 3, 2), -1, dtype=np.int64)
    fill = np.zeros(13, dtype=np.int64)
    straights = [(12, 0, 1), *[(lo, lo + 1, lo + 2) for lo in range(11)]]
    for trio in straights:
        for r in trio:
            others = [x for x in trio if x != r]
            out[r, fill[r]] = others
            fill[r] += 1
    return out


@kernel
def ev_reset(st: Any, counts: Any, cls: Any, ma: Any, mb: Any, lucky: Any,
             nb: Any) -> None:  # pragma: no cover - compiled
    """Fill the state ``st`` for the 52 ``counts`` from scratch."""
    for i in range(NSTATE):
        st[i] = 0
    for k in range(52):
        c = counts[k]
        st[k] = c
        st[NR + (k >> 2)] += c
        st[MS + (k & 3)] += c
        st[U + cls[k]] += c
        st[A_N] += c
        st[A_ST] += c * (c - 1) * (c - 2)
    for r in range(13):
        n = st[NR + r]
        st[A_TR] += n * (n - 1) * (n - 2)
    for s in range(4):
        m = st[MS + s]
        st[A_FL] += m * (m - 1) * (m - 2)
    for lo in range(-1, 11):
        a = 12 if lo < 0 else lo
        b = lo + 1
        c3 = lo + 2
        st[A_STR] += st[NR + a] * st[NR + b] * st[NR + c3]
        for s in range(4):
            st[A_SF] += st[4 * a + s] * st[4 * b + s] * st[4 * c3 + s]
    for x in range(NCLS):
        ga = 0
        gb = 0
        for y in range(NCLS):
            ga += ma[x, y] * st[U + y]
            gb += mb[x, y] * st[U + y]
        st[GA + x] = ga
        st[GB + x] = gb
        if lucky[x]:
            st[A_CL] += st[U + x]
    qa = 0
    qb = 0
    for x in range(NCLS):
        ux = st[U + x]
        qa += ux * st[GA + x] - ma[x, x] * ux
        qb += ux * st[GB + x] - mb[x, x] * ux
    st[A_A] = qa
    st[A_B] = qb


@kernel
def ev_remove(st: Any, k: Any, cls: Any, ma: Any, mb: Any, lucky: Any,
              nb: Any) -> None:  # pragma: no cover - compiled
    """Take one card of kind ``k`` out of the state (the shoe must hold one)."""
    r = k >> 2
    s = k & 3
    c = st[k]
    st[A_ST] -= 3 * (c - 1) * (c - 2)
    n = st[NR + r]
    st[A_TR] -= 3 * (n - 1) * (n - 2)
    m = st[MS + s]
    st[A_FL] -= 3 * (m - 1) * (m - 2)
    for i in range(3):
        a = nb[r, i, 0]
        if a < 0:
            break
        b = nb[r, i, 1]
        st[A_STR] -= st[NR + a] * st[NR + b]
        st[A_SF] -= st[4 * a + s] * st[4 * b + s]
    st[k] = c - 1
    st[NR + r] = n - 1
    st[MS + s] = m - 1
    x = cls[k]
    st[A_A] += 2 * (ma[x, x] - st[GA + x])
    st[A_B] += 2 * (mb[x, x] - st[GB + x])
    for y in range(NCLS):  # the matrices are symmetric: read row x
        st[GA + y] -= ma[x, y]
        st[GB + y] -= mb[x, y]
    st[U + x] -= 1
    if lucky[x]:
        st[A_CL] -= 1
    st[A_N] -= 1


@kernel
def category_counts(st: Any, out: Any) -> Any:  # pragma: no cover - compiled
    """Ordered-triple counts of the :data:`NCAT` categories into ``out``; returns
    N (N−1) (N−2), the number of ordered triples."""
    n = st[A_N]
    sf = 6 * st[A_SF]
    out[0] = sf
    out[1] = st[A_TR] - st[A_ST]
    out[2] = st[A_ST]
    out[3] = 6 * st[A_STR] - sf
    out[4] = st[A_FL] - st[A_ST] - sf
    n7 = st[NR + 5]
    c0 = st[20]
    c1 = st[21]
    c2 = st[22]
    c3 = st[23]
    f0 = c0 * (c0 - 1) * (c0 - 2)
    f1 = c1 * (c1 - 1) * (c1 - 2)
    f2 = c2 * (c2 - 1) * (c2 - 2)
    f3 = c3 * (c3 - 1) * (c3 - 2)
    red = c1 + c2
    black = c0 + c3
    colour = red * (red - 1) * (red - 2) - f1 - f2 + black * (black - 1) * (black - 2) - f0 - f3
    out[5] = f1
    out[6] = f0 + f2 + f3
    out[7] = colour
    out[8] = n7 * (n7 - 1) * (n7 - 2) - f1 - f0 - f2 - f3 - colour
    out[9] = n7 * (n7 - 1) * (n - n7)
    out[10] = 2 * n7 * (n - n7) * (n - 2)
    out[11] = st[A_CL] * st[A_A] - st[A_B]
    return n * (n - 1) * (n - 2)


@kernel
def evaluate(st: Any, weights: Any, cats: Any, out: Any) -> None:  # pragma: no cover
    """Each wager's exact expected return (row ``w`` of ``weights`` over the categories)
    into ``out[w]``."""
    total = category_counts(st, cats)
    for w in range(weights.shape[0]):
        acc = 0
        for j in range(NCAT):
            acc += weights[w, j] * cats[j]
        out[w] = acc / total - 1.0
