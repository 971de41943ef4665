"""What a simulation found (:class:`SimResult`), from the shape of the run
(:class:`sidebet.sim.shape.RunShape`) and the totals of its chunks (:class:`Tally`).

Statistics treat each seat's round as one observation: the return per unit bet is the
mean net result per seat-round divided by the bet, its 95% confidence interval
``mean ± 1.96 · sd / √n`` (rounds dealt from one shoe are slightly dependent; the interval
ignores that, as is usual).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sidebet.core.jsontext import finite
from sidebet.core.money import TENTHS_PER_UNIT, tenths_to_units, units_to_tenths
from sidebet.sim.counters import Tally
from sidebet.sim.shape import RunShape

__all__ = ["Estimate", "SimResult", "Tally", "WagerResult"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A mean per observation with its standard deviation, standard error and 95%
    confidence interval."""

    n: int
    mean: float
    std_dev: float
    std_error: float

    @staticmethod
    def from_sums(
        n: int,
        total: int | Fraction,
        total2: int | Fraction,
        scale: int = 1,
        rounds: int = 0,
        round_total2: int | Fraction | None = None,
    ) -> Estimate:
        """From the sum and the sum of squares of ``n`` observations (each divided by
        ``scale``).  With ``rounds`` and ``round_total2`` (the sum over rounds of the
        squared sum of the round's observations, several seats per round), the standard
        error treats each round as one sample of ``n / rounds`` correlated observations
        (the seats share the dealer's cards)."""
        if n == 0:
            return Estimate(0, math.nan, math.nan, math.nan)
        mean = Fraction(total, n * scale)
        var = Fraction(total2, n * scale * scale) - mean * mean
        sd = math.sqrt(max(float(var), 0.0))
        se = sd / math.sqrt(n) if n > 1 else math.inf
        if rounds > 1 and round_total2 is not None and n > rounds:
            per_round = Fraction(n, rounds)
            round_mean = Fraction(total, rounds * scale)
            round_var = (Fraction(round_total2, scale * scale) - rounds * round_mean**2) / (
                rounds - 1
            )
            se = math.sqrt(max(float(round_var), 0.0) / rounds) / float(per_round)
        return Estimate(n, float(mean), sd, se)

    @property
    def half_width(self) -> float:
        """Half the 95% confidence interval."""
        return Z95 * self.std_error

    @property
    def ci(self) -> tuple[float, float]:
        """The 95% confidence interval."""
        return (self.mean - self.half_width, self.mean + self.half_width)

    def covers(self, value: float, widen: float = 1.0) -> bool:
        """Whether ``value`` lies in the interval (widened by the factor ``widen``)."""
        return abs(value - self.mean) <= widen * self.half_width

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        lo, hi = self.ci
        return {"mean": self.mean, "ci95": [lo, hi], "std_dev": self.std_dev,
                "std_error": self.std_error, "n": self.n}


@dataclass(frozen=True)
class WagerResult:
    """One side wager over the whole simulation (per unit bet)."""

    wager: str
    name: str
    paytable: str
    seat_rounds: int
    total_bet: int
    net: int
    estimate: Estimate
    outcomes: dict[str, int]
    exact: float | None
    """The exact PAR expected return (full shoe), for comparison."""

    @property
    def hit_frequency(self) -> float:
        """Share of seat-rounds on which the wager won."""
        won = sum(n for o, n in self.outcomes.items() if o != "lose")
        return won / self.seat_rounds if self.seat_rounds else math.nan

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (money in table units)."""
        lo, hi = self.estimate.ci
        return {
            "wager": self.wager,
            "name": self.name,
            "paytable": self.paytable,
            "rounds": self.seat_rounds,
            "total_bet": self.total_bet,
            "net": self.net,
            "return_per_unit": self.estimate.mean,
            "ci95": [lo, hi],
            "std_dev": self.estimate.std_dev,
            "std_error": self.estimate.std_error,
            "hit_frequency": self.hit_frequency,
            "outcomes": {
                o: {"count": n, "frequency": n / self.seat_rounds if self.seat_rounds else None}
                for o, n in self.outcomes.items()
            },
            "exact_return": self.exact,
            "exact_within_ci": None if self.exact is None else self.estimate.covers(self.exact),
        }


@dataclass(frozen=True)
class SimResult:
    """What a simulation found, with how it was run."""

    shape: RunShape
    seed: int
    requested_rounds: int
    tally: Tally
    elapsed: float
    interrupted: bool
    backend: str
    workers: int
    chunk_shoes: int
    exact: dict[str, float] = field(default_factory=dict)

    @property
    def strategy(self) -> str:
        """The players' strategy (its source), or that only side wagers were played."""
        return self.shape.strategy

    @property
    def rounds(self) -> int:
        """Rounds played (each with every seat)."""
        return self.tally.rounds

    @property
    def seat_rounds(self) -> int:
        """Rounds times seats."""
        return self.tally.rounds * self.shape.seats

    @property
    def rate(self) -> float:
        """Rounds per second of wall time."""
        return self.rounds / self.elapsed if self.elapsed > 0 else math.nan

    def wagers(self) -> list[WagerResult]:
        """Each side wager's results."""
        # a few dozen of the combinations occur: only those are read
        seen = [(c, n) for c, n in enumerate(self.tally.combo_counts) if n]
        shape = self.shape
        side = units_to_tenths(shape.side_bet)
        out = []
        for w, wager in enumerate(shape.sides):
            per = [0] * len(wager.outcome_ids)
            column = wager.combo_outcomes
            for c, count in seen:
                per[column[c]] += count
            n = sum(per)
            s1 = sum(c * p for c, p in zip(per, wager.pays, strict=True))
            s2 = sum(c * p * p for c, p in zip(per, wager.pays, strict=True))
            out.append(
                WagerResult(
                    wager=wager.wager,
                    name=wager.name,
                    paytable=wager.paytable,
                    seat_rounds=n,
                    total_bet=n * shape.side_bet,
                    net=s1 * shape.side_bet,
                    estimate=Estimate.from_sums(n, s1, s2, 1, *self._rounds2(w, side)),
                    outcomes=dict(zip(wager.outcome_ids, per, strict=True)),
                    exact=self.exact.get(wager.wager),
                )
            )
        return out

    def _rounds2(self, index: int, scale: int) -> tuple[int, Fraction | None]:
        """``(rounds, round_total2)`` for :meth:`Estimate.from_sums`, in units of
        ``1 / scale`` of the tenths the kernels count (several seats only)."""
        r2 = self.tally.round2
        if self.shape.seats == 1 or not r2:
            return 0, None
        return self.rounds, Fraction(r2[index], scale * scale)

    def stat(self, name: str) -> int:
        """One of the kernel's counters, by name (:attr:`RunShape.stat_names`)."""
        stats = self.tally.stats
        return stats[self.shape.stat_names.index(name)] if stats else 0

    def _est(self, name: str, n: int, scale: int, index: int | None = None) -> Estimate:
        rounds, r2 = (0, None) if index is None else self._rounds2(index, 1)
        return Estimate.from_sums(n, self.stat(name), self.stat(name + "2"), scale, rounds, r2)

    def blackjack(self) -> dict[str, Any] | None:
        """The Blackjack wager (with splits, doubles and the Press), per unit of the
        initial Blackjack wager; ``None`` for a side-wager-only run."""
        if self.shape.side_only:
            return None
        n = self.seat_rounds
        unit = units_to_tenths(self.shape.bet)
        nw = len(self.shape.sides)
        whole = self._est("bj_net", n, unit, nw)
        base = self._est("base_net", n, unit, nw + 1)
        hands = self.stat("hands")
        freq = {
            k: self.stat(k) / hands if hands else math.nan
            for k in ("naturals", "wins", "pushes", "losses", "surrenders", "doubles", "busts")
        }
        out: dict[str, Any] = {
            "rounds": n,
            "total_bet": n * self.shape.bet,
            "total_action": tenths_to_units(self.stat("action")),
            "net": tenths_to_units(self.stat("bj_net")),
            "return_per_unit": whole.mean,
            "ci95": list(whole.ci),
            "std_dev": whole.std_dev,
            "std_error": whole.std_error,
            "without_press": {
                "net": tenths_to_units(self.stat("base_net")),
                "return_per_unit": base.mean,
                "ci95": list(base.ci),
                "std_dev": base.std_dev,
                "std_error": base.std_error,
            },
            "hands": hands,
            "hand_frequencies": freq,
            "splits": self.stat("splits"),
            "round_outcomes": {
                "win": self.stat("round_wins") / n if n else math.nan,
                "push": self.stat("round_pushes") / n if n else math.nan,
                "lose": self.stat("round_losses") / n if n else math.nan,
            },
            "dealer_blackjack_frequency": self.stat("dealer_blackjacks") / self.rounds
            if self.rounds else math.nan,
            "dealer_bust_frequency": self.stat("dealer_busts") / self.rounds
            if self.rounds else math.nan,
        }
        if "blackjack" in self.exact:
            out["exact_return"] = self.exact["blackjack"]
            out["exact_within_ci"] = base.covers(self.exact["blackjack"])
        return out

    def press(self) -> dict[str, Any] | None:
        """The value of the Press: what the pressed chips (on every hand they reach through
        splits and doubles) won or lost, per unit pressed and per round."""
        if self.shape.side_only:
            return None
        pressed_rounds = self.stat("press_rounds")
        amount = self.stat("press_amount")
        per_press = self._est("press_net", pressed_rounds, 1)
        mean_amount = amount / pressed_rounds if pressed_rounds else math.nan
        per_unit = (
            Estimate(pressed_rounds, per_press.mean / mean_amount,
                     per_press.std_dev / mean_amount, per_press.std_error / mean_amount)
            if pressed_rounds
            else Estimate(0, math.nan, math.nan, math.nan)
        )
        n = self.seat_rounds
        per_round = self._est("press_net", n, TENTHS_PER_UNIT)
        return {
            "policy": self.shape.press,
            "decision": self.shape.press_source,
            "pressed_rounds": pressed_rounds,
            "press_frequency": pressed_rounds / n if n else math.nan,
            "amount_pressed": tenths_to_units(amount),
            "net": tenths_to_units(self.stat("press_net")),
            "return_per_unit_pressed": per_unit.mean,
            "ci95": list(per_unit.ci),
            "value_per_round": tenths_to_units(self.stat("press_net")) / n if n else math.nan,
            "value_per_round_ci95": list(per_round.ci) if n else [math.nan, math.nan],
        }

    def by_seat(self) -> list[dict[str, Any]]:
        """Each seat's Blackjack return (per unit of its initial wager, Press included)
        and whole result per round (units), seat 1 first to act; empty for side-only."""
        out = []
        unit = units_to_tenths(self.shape.bet)
        for seat, (bj, bj2, total, total2) in enumerate(self.tally.seats, start=1):
            b = Estimate.from_sums(self.rounds, bj, bj2, unit)
            w = Estimate.from_sums(self.rounds, total, total2, TENTHS_PER_UNIT)
            out.append({
                "seat": seat,
                "blackjack_return": b.mean,
                "blackjack_ci95": list(b.ci),
                "round_mean": w.mean,
                "round_ci95": list(w.ci),
            })
        return out

    def round_total(self) -> dict[str, Any]:
        """Each seat's whole result per round (every wager together), per unit of the
        Blackjack wager, and its distribution."""
        off = self.shape.hist_off
        n = self.seat_rounds
        hist = sorted(self.tally.hist.items())
        values = [(tenths_to_units(k - off), c) for k, c in hist]
        s1 = sum(Fraction(k - off) * c for k, c in hist)
        s2 = sum(Fraction(k - off) ** 2 * c for k, c in hist)
        rounds, r2 = self._rounds2(len(self.shape.sides) + 2, 1)
        est = Estimate.from_sums(n, s1, s2, TENTHS_PER_UNIT, rounds, r2)
        return {
            "mean": est.mean,
            "ci95": list(est.ci),
            "std_dev": est.std_dev,
            "distribution": [[v, c] for v, c in values],
            "win": sum(c for v, c in values if v > 0) / n if n else math.nan,
            "push": sum(c for v, c in values if v == 0) / n if n else math.nan,
            "lose": sum(c for v, c in values if v < 0) / n if n else math.nan,
        }

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict of everything (an undefined number, e.g. the return of a Press
        never made, is ``None``)."""
        out: dict[str, Any] = finite(self._json())
        return out

    def _json(self) -> dict[str, Any]:
        shape = self.shape
        return {
            "seed": self.seed,
            "rounds": self.rounds,
            "requested_rounds": self.requested_rounds,
            "seat_rounds": self.seat_rounds,
            "shoes": self.tally.shoes,
            "interrupted": self.interrupted,
            "elapsed_s": self.elapsed,
            "rounds_per_s": self.rate,
            "backend": self.backend,
            "workers": self.workers,
            "chunk_shoes": self.chunk_shoes,
            "table": {
                "decks": shape.decks,
                "seats": shape.seats,
                "rules": shape.rules_text,
                "cut_card": shape.cut,
                "side_wagers": shape.side_wagers,
                "bet": shape.bet,
                "side_bet": shape.side_bet,
                "press": shape.press,
                "strategy": self.strategy,
                "side_only": shape.side_only,
            },
            "side_wagers": [w.to_json() for w in self.wagers()],
            "blackjack": self.blackjack(),
            "press": self.press(),
            "round_total": self.round_total(),
            "by_seat": self.by_seat(),
        }
