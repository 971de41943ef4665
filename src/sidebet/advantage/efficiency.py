"""Playing efficiency by Griffin's definition (*The Theory of Blackjack*, ch. 6).

For each playing decision (a hand against an upcard: every first decision, weighed
between the full shoe's best action and its runner-up, :func:`every_decision`; or the
index plays given, :func:`decisions`, insurance left out as it has its own correlation):

* ``m``: the gain of the play over its alternative off the top of the full shoe, and
  ``e``: the **effects of removal** of that gain, one card of each rank class removed,
  both from the exact composition-dependent analyser
  (:func:`sidebet.advantage.generate.play_gain`; floats: the analyser's values);
* with ``d`` of the shoe's ``N`` cards dealt and ``n = N − d`` left, the gain on the
  unseen cards is, to first order, ``m + (N − 1)/n · Σ (e_j − ē)`` over the cards seen;
  under the normal approximation its SD is ``σ = σ_e √((N − 1) d / n)``, ``σ_e`` the SD
  of the effects over the 52 card kinds;
* **perfect information** (the player knows the gain) earns ``σ L(|m| / σ)`` over the
  full shoe's play, ``L(z) = φ(z) − z (1 − Φ(z))`` the unit normal loss integral;
* **the count** estimates the gain linearly from the tags; the estimate is normal with
  SD ``ρ σ``, ``ρ`` the correlation of tags and effects over the 52 card kinds, and earns
  ``|ρ| σ L(|m| / (|ρ| σ))``;
* the playing efficiency is the sum over decisions of the count's gain over the sum of
  the perfect gains, each weighted by the decision's frequency (the exact chance of the
  two-card hand and upcard off the top of the full shoe, a ``Fraction``).

Floats below this line are labelled: the analyser's EVs, and what is computed from them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.advantage.generate import _Q, _hands, alternative, play_gain
from sidebet.advantage.indices import IndexPlay
from sidebet.core.errors import SidebetError
from sidebet.native.diskcache import cached_arrays
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import StrategyArrays

F64 = npt.NDArray[np.float64]

__all__ = ["Decision", "card_vector", "correlation", "decision_gains", "decisions",
           "efficiency", "every_decision", "frequency", "normal_loss"]

DEPTH = Fraction(1, 2)
"""The share of the shoe dealt at which the efficiency is stated by default."""


def normal_loss(z: float) -> float:
    """The unit normal loss integral ``E[max(X − z, 0)]``, ``X`` standard normal (float)."""
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi) - z * 0.5 * math.erfc(z / math.sqrt(2))


def card_vector(by_class: Sequence[float]) -> F64:
    """52 values (card index order 2♣ .. A♠) from rank-class values A, 2..9, T."""
    out = np.zeros(52, np.float64)
    for k in range(52):
        r = k // 4  # 0 = deuce .. 12 = ace
        cls = 0 if r == 12 else min(r + 1, 9)
        out[k] = by_class[cls]
    return out


def correlation(a: Sequence[float] | F64, b: Sequence[float] | F64) -> float:
    """Pearson's correlation over the 52 card kinds (0 when either does not vary)."""
    x = np.asarray(a, np.float64) - np.mean(a)
    y = np.asarray(b, np.float64) - np.mean(b)
    den = math.sqrt(float(x @ x) * float(y @ y))
    return float(x @ y) / den if den > 0 else 0.0


def frequency(p: IndexPlay, decks: int) -> Fraction:
    """The exact chance of the play's two-card hands (either order; a hard total of two
    different cards, as the analyser weighs it, a pair being the pair's decision) and
    its upcard off the top of a full ``decks``-deck shoe."""
    n = [q * decks for q in _Q]
    total = sum(n)
    got = Fraction(0)
    for hand, _ in _hands(p):
        left = list(n)
        ways = 1
        for c, k in enumerate(hand):
            for _ in range(k):
                ways *= left[c]
                left[c] -= 1
        order = 1 if max(hand) == 2 else 2  # a pair deals one way, two ranks two
        up = 0 if p.up == 11 else p.up - 1
        got += Fraction(order * ways * left[up], total * (total - 1) * (total - 2))
    return got


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision's inputs: the play, its alternative, its exact frequency, its gain
    off the top ``gain`` and the effects of removal ``eor`` (rank classes A, 2..9, T;
    floats from the analyser)."""

    play: IndexPlay
    against: str
    freq: Fraction
    gain: float
    eor: tuple[float, ...]

    def card_effects(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The effects over the 52 card kinds (2♣ .. A♠), float."""
        return card_vector(self.eor)

    def sigma(self, decks: int, depth: Fraction = DEPTH) -> float:
        """The SD of the gain on the unseen cards with ``depth`` of the shoe dealt
        (normal approximation; float)."""
        big_n = 52 * decks
        dealt = depth * big_n
        if not 0 < dealt < big_n:
            raise SidebetError(f"depth {depth} must be strictly between 0 and 1")
        return float(np.std(self.card_effects())) * math.sqrt(float((big_n - 1) * dealt
                                                                    / (big_n - dealt)))

    def perfect_gain(self, decks: int, depth: Fraction = DEPTH) -> float:
        """The gain of knowing the decision's gain exactly (per occurrence; float)."""
        s = self.sigma(decks, depth)
        return s * normal_loss(abs(self.gain) / s) if s > 0 else 0.0

    def count_gain(self, tags: Sequence[float], decks: int, depth: Fraction = DEPTH) -> float:
        """The gain of the count's linear estimate of the decision's gain (float)."""
        rho = abs(correlation(tags, self.card_effects()))
        s = rho * self.sigma(decks, depth)
        return s * normal_loss(abs(self.gain) / s) if s > 0 else 0.0


def decision_gains(p: IndexPlay, against: str, rules: HouseRules, decks: int
                   ) -> tuple[float, tuple[float, ...]]:
    """The play's gain over ``against`` off the top and its effects of removal (floats
    from the exact analyser)."""
    full = tuple(q * decks for q in _Q)
    base = play_gain(p, against, full, rules)
    eor = []
    for c in range(10):
        shoe = list(full)
        shoe[c] -= 1
        eor.append(play_gain(p, against, tuple(shoe), rules) - base)
    return base, tuple(eor)


def decisions(plays: Sequence[IndexPlay], rules: HouseRules, decks: int,
              basic: StrategyArrays | None = None) -> tuple[Decision, ...]:
    """Every non-insurance play's inputs, the analyser's part kept in the disk cache."""
    kept = [p for p in plays if p.kind != "insurance"]
    against = [alternative(p, basic) for p in kept]

    def build() -> dict[str, np.ndarray[Any, Any]]:
        rows = [decision_gains(p, a, rules, decks) for p, a in zip(kept, against, strict=True)]
        return {"gain": np.array([g for g, _ in rows], np.float64),
                "eor": np.array([e for _, e in rows], np.float64).reshape(len(rows), 10)}

    key = (f"{rules!r} decks={decks} "
           + " ".join(f"{p.text}/{a}" for p, a in zip(kept, against, strict=True)))
    got = cached_arrays("decision-eor", key, build)
    return tuple(Decision(p, a, frequency(p, decks), float(g), tuple(float(x) for x in e))
                 for p, a, g, e in zip(kept, against, got["gain"], got["eor"], strict=True))


def efficiency(tags: Sequence[float], rows: Sequence[Decision], decks: int,
               depth: Fraction = DEPTH) -> float:
    """Griffin's playing efficiency of ``tags`` over the decisions ``rows`` (float; NaN
    when no decision gains from information)."""
    num = den = 0.0
    for r in rows:
        f = float(r.freq)
        num += f * r.count_gain(tags, decks, depth)
        den += f * r.perfect_gain(decks, depth)
    return num / den if den > 0 else math.nan


_CODES = {"stand": "S", "hit": "H", "double": "Dh", "split": "P", "surrender": "Rh"}


def every_decision(rules: HouseRules, decks: int) -> tuple[Decision, ...]:
    """Every first decision (hard 5 to 19 of two different cards, soft 13 to 20, every
    pair; against every upcard), each weighed between the full shoe's best action and
    its runner-up, from 11 whole analyses of the full shoe and the shoe less one card
    of each rank class (kept in the disk cache; floats from the analyser)."""
    hands = ([IndexPlay("hard", t, u, "S", 0) for t in range(5, 20) for u in range(2, 12)]
             + [IndexPlay("soft", t, u, "S", 0) for t in range(13, 21) for u in range(2, 12)]
             + [IndexPlay("pair", v, u, "S", 0) for v in range(2, 12) for u in range(2, 12)])

    def build() -> dict[str, np.ndarray[Any, Any]]:
        from sidebet.exact.blackjack.engine import analyse  # the analyser: only now

        full = tuple(q * decks for q in _Q)
        shoes = [full] + [tuple(n - (c == k) for c, n in enumerate(full)) for k in range(10)]
        evs = [_action_evs(analyse(s, rules), hands) for s in shoes]
        best, runner, gain, eor = [], [], [], []
        for i in range(len(hands)):
            ranked = sorted(evs[0][i], key=lambda a: -evs[0][i][a])
            b, r = ranked[0], ranked[1]
            g = [e[i][r] - e[i][b] for e in evs]
            best.append(b)
            runner.append(r)
            gain.append(g[0])
            eor.append([x - g[0] for x in g[1:]])
        return {"best": np.array(best), "runner": np.array(runner),
                "gain": np.array(gain, np.float64), "eor": np.array(eor, np.float64)}

    got = cached_arrays("every-decision-eor", f"{rules!r} decks={decks}", build)
    out = []
    for h, b, r, g, e in zip(hands, got["best"], got["runner"], got["gain"], got["eor"],
                             strict=True):
        p = IndexPlay(h.kind, h.total, h.up, _CODES[str(r)], 0, _CODES[str(b)])
        out.append(Decision(p, str(b), frequency(p, decks), float(g),
                            tuple(float(x) for x in e)))
    return tuple(out)


def _action_evs(a: Any, hands: Sequence[IndexPlay]) -> list[dict[str, float]]:
    """Each hand's EV per action open to all its two-card compositions, averaged with
    the compositions' weights (floats from the analyser ``a``)."""
    out = []
    for p in hands:
        comps = _hands(p)
        up = 0 if p.up == 11 else p.up - 1
        open_ = set.intersection(*(set(a.values(c, up)) for c, _ in comps))
        total = sum(w for _, w in comps)
        out.append({act: sum(w * a.ev_of(c, up, act) for c, w in comps) / total
                    for act in open_})
    return out
