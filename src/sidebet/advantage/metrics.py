"""The figures a counter and a manager read, from a run's sums (money in table units).

* **EV** per round (and per 100 rounds, per hour at ``rounds_per_hour``) with its 95%
  interval: a ratio over independent shoes (the rounds of one shoe share its count);
* **SD** per round; **DI** ``1000 · EV / SD``; **SCORE** ``10⁶ · (EV / SD)²`` (the win per
  100 rounds of a 10,000-unit bank bet at full Kelly); **N0** ``(SD / EV)²`` rounds;
* **certainty equivalent** per 100 rounds: of the ramp as played with the bank
  (``EV − SD² / (2 · bank)`` per round) and of the ramp scaled to a Kelly fraction ``f``
  (``(f − f²/2) · bank · EV² / SD²``);
* **risk of ruin** by the formulas of :mod:`sidebet.advantage.ruin` (at the EV and the
  ends of its interval; a trip's by the walk over the traced rounds' own distribution of
  a round's net, tilted to each EV) beside the share of simulated trials ruined
  (Wilson's interval);
* per index: frequency, EV and SD per unit of the Blackjack wager (insurance included),
  and the **optimal ramp** (bets proportional to EV / variance, to the ramp's largest bet,
  rounded to the chip, never falling as the count rises);
* the split of the win between the Blackjack wager (with insurance) and each side wager.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sidebet.advantage.kernel import ruin_trials
from sidebet.advantage.ruin import (
    RUIN_TARGETS,
    bank_for_ruin,
    barrier_ruin,
    simple_ruin,
    tilted,
    trip_ruin,
    walk_trip_ruin,
    wilson,
)
from sidebet.advantage.run import AdvantageRun
from sidebet.advantage.tables import kernel_tables
from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import get_wager
from sidebet.vuln.counter import Estimate, _ratio

__all__ = ["Bankroll", "IndexRow", "Report", "RuinRow", "far_goal", "report"]

UNIT = 10.0
MIN_OPTIMAL_ROUNDS = 1000
"""Rounds an index needs before the optimal ramp bets more than the minimum there."""


@dataclass(frozen=True, slots=True)
class Bankroll:
    """The money side of a set-up, in table units: the bank, a trip's rounds and a goal
    for the double barrier, rounds per hour, the Kelly fraction and the chip the
    optimal ramp rounds to."""

    bank: float = 1000.0
    trip_rounds: int = 1000
    goal: float = 1000.0
    rounds_per_hour: float = 100.0
    kelly: float = 0.5
    chip: int = 1

    def verify(self) -> None:
        """Raise for money that cannot be."""
        if not 0 < self.bank <= 1e9 or not 0 < self.goal <= 1e9:
            raise SidebetError("the bankroll and the goal are positive units, at most 1e9")
        if not 1 <= self.trip_rounds <= 10**9:
            raise SidebetError("a trip is 1 to 1e9 rounds")
        if not 0 < self.rounds_per_hour <= 10_000:
            raise SidebetError("rounds per hour are 1 to 10,000")
        if not 0 < self.kelly <= 2:
            raise SidebetError("the Kelly fraction is above 0, at most 2")
        if not 1 <= self.chip <= 1_000_000:
            raise SidebetError("the chip is 1 to 1,000,000 units")


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One index: its rounds, share, the Blackjack EV and SD of a round with one unit on
    each of the counter's spots, the bet of the ramp and of the optimal ramp (units a
    spot), the rounds bet."""

    index: int
    rounds: int
    share: float
    ev: float
    sd: float
    bet: int
    optimal: int
    played: int


@dataclass(frozen=True, slots=True)
class RuinRow:
    """One risk of ruin: the formula at the EV (and at the ends of its interval) and the
    simulated share of trials ruined."""

    kind: str
    formula: float
    formula_low: float
    formula_high: float
    ruined: int
    trials: int
    method: str = "formula"
    """``formula`` (:mod:`sidebet.advantage.ruin`'s) or ``walk`` (the trip over the traced
    rounds' own distribution of a round's net, :func:`walk_trip_ruin`)."""

    @property
    def simulated(self) -> tuple[float, float, float]:
        """The share ruined and its 95% interval."""
        if self.trials == 0:
            return math.nan, math.nan, math.nan
        lo, hi = wilson(self.ruined, self.trials)
        return self.ruined / self.trials, lo, hi


@dataclass(frozen=True)
class Report:
    """Everything the command prints (see :meth:`to_json`)."""

    run: AdvantageRun
    money: Bankroll
    ev: Estimate
    sd: float
    avg_bet: float
    components: tuple[tuple[str, Estimate, float, int, float], ...]
    """``(name, EV per round, SD per round, bets placed, units bet)``."""
    rows: tuple[IndexRow, ...]
    side_rows: tuple[tuple[str, tuple[tuple[int, int, float], ...]], ...]
    ruin: tuple[RuinRow, ...]
    optimal: tuple[float, float]
    """The optimal ramp's EV and SD per round (Blackjack wager only), estimated."""
    uncovered: float = math.nan
    """The ramp's EV per round placed without cover (Blackjack wager only), estimated."""

    def ramps_compared(self) -> dict[str, float]:
        """The Blackjack wager's EV per 100 rounds as played, of the same ramp without its
        cover, and of the optimal ramp scaled to the same SD; what the cover and the ramp
        as played cost against them."""
        _, played, sd = self.components[0][:3]
        o_ev, o_sd = self.optimal
        best = o_ev * sd / o_sd if o_sd > 0 and o_ev > 0 else math.nan
        return {"as_played_ev_per_100": 100.0 * played.value,
                "without_cover_ev_per_100": 100.0 * self.uncovered,
                "cover_cost_per_100": 100.0 * (self.uncovered - played.value),
                "optimal_at_same_sd_ev_per_100": 100.0 * best,
                "cost_against_optimal_per_100": 100.0 * (best - played.value)}

    @property
    def rounds(self) -> int:
        """Rounds observed."""
        return self.run.tally.rounds

    @property
    def di(self) -> float:
        """Desirability index."""
        return 1000.0 * self.ev.value / self.sd if self.sd > 0 else math.nan

    @property
    def score(self) -> float:
        """SCORE (0 for a game that does not win)."""
        return 1e6 * (max(self.ev.value, 0.0) / self.sd) ** 2 if self.sd > 0 else math.nan

    @property
    def n0(self) -> float:
        """Rounds for the win to equal one SD (N0)."""
        return (self.sd / self.ev.value) ** 2 if self.ev.value > 0 else math.inf

    def ce(self) -> tuple[float, float, float]:
        """Certainty equivalents per 100 rounds: of the ramp as played with the bank, of
        the ramp scaled to the Kelly fraction; and that scale (bets × it)."""
        mu, var, bank, f = self.ev.value, self.sd ** 2, self.money.bank, self.money.kelly
        if var <= 0:
            return math.nan, math.nan, math.nan
        played = 100.0 * (mu - var / (2.0 * bank))
        if mu <= 0:
            return played, 0.0, 0.0
        return played, 100.0 * (f - f * f / 2.0) * bank * mu * mu / var, f * bank * mu / var

    def to_json(self) -> dict[str, Any]:
        """The report as plain data."""
        spec = self.run.spec
        t = self.run.tally
        acc = t.acc
        ce_played, ce_kelly, scale = self.ce()
        sys = spec.system
        out: dict[str, Any] = {
            "seed": self.run.seed,
            "rounds": t.rounds,
            "rounds_bet": int(acc[1]),
            "shoes": int(acc[2]),
            "interrupted": self.run.interrupted,
            "elapsed_s": self.run.elapsed,
            "rounds_per_s": t.rounds / self.run.elapsed if self.run.elapsed > 0 else None,
            "workers": self.run.workers,
            "table": {"decks": spec.decks, "rules": spec.rules.describe(),
                      "penetration": float(spec.penetration if spec.penetration is not None
                                           else spec.rules.penetration),
                      "spots": spec.spots, "others": spec.others, "burn": spec.burn,
                      "cut_spread": spec.cut_spread,
                      "side_wagers": [{"wager": w, "paytable": p,
                                       "plan": spec.plan(w).describe()} for w, p in spec.sides]},
            "count": {"system": sys.name, "tags": sys.describe(), "balanced": sys.balanced,
                      "initial_running_count": sys.initial_count(spec.decks),
                      "index": "true count" if sys.balanced else "running count",
                      "resolution": spec.resolution.value, "rounding": spec.rounding.value,
                      "ace_side_count": ({"bet": spec.ace_bet, "insurance": spec.ace_ins}
                                         if spec.ace_bet or spec.ace_ins else None)},
            "index_plays": [p.text for p in spec.plays],
            "ramp": {"steps": spec.ramp.text, "min": spec.ramp.low, "max": spec.ramp.high,
                     "spread": spec.ramp.spread, "wong_in": spec.wong_in,
                     "wong_out": spec.wong_out, "cover": spec.cover.text,
                     "spots_by": spec.spots_by.text if spec.spots_by.steps else None},
            "ramps_compared": self.ramps_compared(),
            "money": {"bankroll": self.money.bank, "trip_rounds": self.money.trip_rounds,
                      "goal": self.money.goal, "rounds_per_hour": self.money.rounds_per_hour,
                      "kelly_fraction": self.money.kelly},
            "ev_per_round": _est(self.ev),
            "ev_per_100": _est(self.ev, 100.0),
            "win_per_hour": _est(self.ev, self.money.rounds_per_hour),
            "sd_per_round": self.sd,
            "sd_per_100": self.sd * 10.0,
            "average_bet": self.avg_bet,
            "win_rate_of_average_bet": (self.ev.value / self.avg_bet if self.avg_bet > 0
                                        else None),
            "di": self.di, "score": self.score, "n0": self.n0,
            "n0_hours": self.n0 / self.money.rounds_per_hour,
            "bankroll_for_risk_of_ruin": [
                {"risk": r, "bankroll": bank_for_ruin(self.ev.value, self.sd, r)}
                for r in RUIN_TARGETS],
            "di_interval": [1000.0 * e / self.sd for e in (self.ev.low, self.ev.high)]
            if self.sd > 0 else None,
            "score_interval": [1e6 * (max(e, 0.0) / self.sd) ** 2
                               for e in (self.ev.low, self.ev.high)] if self.sd > 0 else None,
            "n0_interval": [(self.sd / e) ** 2 if e > 0 else math.inf
                            for e in (self.ev.high, self.ev.low)],
            "ce_per_100_as_played": ce_played,
            "ce_per_100_at_kelly_fraction": ce_kelly,
            "kelly_scale": scale,
            "risk_of_ruin": [
                {"kind": r.kind, "formula": r.formula, "formula_interval": [r.formula_low,
                                                                            r.formula_high],
                 "simulated": r.simulated[0], "simulated_interval": list(r.simulated[1:]),
                 "ruined": r.ruined, "trials": r.trials, "method": r.method}
                for r in self.ruin],
            "components": [
                {"wager": name, "ev_per_round": _est(est), "sd_per_round": sd,
                 "share_of_win": (est.value / self.ev.value if self.ev.value != 0 else None),
                 "bets": bets, "units_bet": units}
                for name, est, sd, bets, units in self.components],
            "by_index": [
                {"index": r.index, "rounds": r.rounds, "share": r.share, "ev_per_unit": r.ev,
                 "sd_per_unit": r.sd, "bet": r.bet, "optimal_bet": r.optimal,
                 "rounds_bet": r.played} for r in self.rows],
            "optimal_ramp": {"ev_per_round": self.optimal[0], "sd_per_round": self.optimal[1],
                             "score": (1e6 * (self.optimal[0] / self.optimal[1]) ** 2
                                       if self.optimal[1] > 0 and self.optimal[0] > 0 else 0.0)},
            "side_by_index": [
                {"wager": w, "rows": [{"index": i, "rounds": n, "ev_per_unit": e}
                                      for i, n, e in rows]} for w, rows in self.side_rows],
            "warnings": self.warnings(),
        }
        return out

    def warnings(self) -> list[str]:
        """Plain warnings: a side wager bet by a count at no well-measured index of which
        it wins (1,000 rounds or more at the index)."""
        out = []
        for w, rows in self.side_rows:
            seen = [e for _i, n, e in rows if n >= 1000]
            if seen and max(seen) <= 0:
                out.append(f"{w} bet by its count never wins: its EV per unit is negative at "
                           f"every index seen 1,000 times or more (best "
                           f"{100 * max(seen):+.2f}%); the count cannot beat it")
        return out


def _est(e: Estimate, k: float = 1.0) -> dict[str, float]:
    return {"value": e.value * k, "low": e.low * k, "high": e.high * k}


def _score(rows: list[tuple[int, int, float, float]], bets: dict[int, int]) -> float:
    """(EV / SD)² of a ramp from the rows ``(index, rounds, ev, second moment)``."""
    n = sum(r[1] for r in rows)
    ev = sum(nr * bets[i] * e for i, nr, e, _ in rows) / n
    m2 = sum(nr * bets[i] ** 2 * m for i, nr, _, m in rows) / n
    var = m2 - ev * ev
    return ev * ev / var if ev > 0 and var > 0 else 0.0


def _optimal(rows: list[tuple[int, int, float, float]], low: int, high: int, chip: int
             ) -> dict[int, int]:
    """Bets proportional to EV / variance (Kelly for small edges), between ``low`` and
    ``high``, in chips, rising with the index, at the scale of the best SCORE; rows
    ``(index, rounds, ev, second moment)``.  The EV per index is smoothed by a straight
    line fitted to the indices with at least :data:`MIN_OPTIMAL_ROUNDS` rounds (weighted by
    their rounds over their variance); the variance is their mean."""
    fit = [(i, n / max(m - e * e, 1e-12), e, m - e * e) for i, n, e, m in rows
           if n >= MIN_OPTIMAL_ROUNDS]
    flat = {i: low for i, _, _, _ in rows}
    if len(fit) < 2:
        return flat
    w = np.array([f[1] for f in fit])
    x = np.array([f[0] for f in fit], np.float64)
    y = np.array([f[2] for f in fit])
    var = float(np.average([f[3] for f in fit], weights=w))
    slope, icpt = np.polyfit(x, y, 1, w=np.sqrt(w))
    if slope <= 0:
        return flat
    ratio = {i: (slope * i + icpt) / var for i, _, _, _ in rows}
    best, best_score = flat, _score(rows, flat)
    for scale in np.geomspace(0.1, 10_000.0, 400):
        bets: dict[int, int] = {}
        top = low
        for i in sorted(ratio):
            units = round(scale * ratio[i] / chip) * chip
            top = max(top, min(max(units, low), high))
            bets[i] = top
        got = _score(rows, bets)
        if got > best_score:
            best, best_score = bets, got
    return best


def report(run: AdvantageRun, money: Bankroll) -> Report:
    """The figures of a run."""
    money.verify()
    spec = run.spec
    t = run.tally
    if t.rounds == 0:
        raise SidebetError("no round was played")
    acc = t.acc
    comp = t.sums["comp"]
    n = float(t.rounds)
    shoes = float(acc[2])

    def est(j: int) -> Estimate:
        e = _ratio(comp[j, 2], comp[j, 3], comp[j, 4], acc[3], acc[4], shoes)
        return Estimate(e.value / UNIT, e.low / UNIT, e.high / UNIT)

    def sd(j: int) -> float:
        m = comp[j, 0] / n
        return math.sqrt(max(comp[j, 1] / n - m * m, 0.0)) / UNIT

    tables = kernel_tables(spec)
    names = ["blackjack (with insurance)", "insurance",
             *(get_wager(w).name for w in tables.wagers)]
    side_acc = t.sums["side_acc"]
    components = []
    for j, name in enumerate(names, start=1):
        bets, units = (int(acc[1]), float(acc[5])) if j == 1 else (
            (int(acc[7]), float(acc[7]) / 2) if j == 2 else
            (int(side_acc[j - 3, 0]), float(side_acc[j - 3, 1])))
        components.append((name, est(j), sd(j), bets, units))
    ev = est(0)
    total_sd = sd(0)
    tc = t.sums["tc_stats"]
    half = tables.half
    raw = [(b - half, int(tc[b, 0]), tc[b, 1] / tc[b, 0] / UNIT,
            tc[b, 2] / tc[b, 0] / UNIT ** 2) for b in range(tables.buckets) if tc[b, 0] > 0]
    opt = _optimal(raw, spec.ramp.low, max(spec.ramp.low, min(spec.ramp.high, max(
        [u for _, u in spec.ramp.steps] or [spec.ramp.low]))), money.chip)
    rows = tuple(IndexRow(i, nr, nr / n, float(e), math.sqrt(max(m - e * e, 0.0)),
                          spec.ramp.units(i), opt[i], int(tc[i + half, 3]))
                 for i, nr, e, m in raw)
    o_ev = sum(nr / n * opt[i] * e for i, nr, e, _ in raw)
    o_m2 = sum(nr / n * opt[i] ** 2 * m for i, nr, _, m in raw)
    optimal = (o_ev, math.sqrt(max(o_m2 - o_ev * o_ev, 0.0)))
    uncovered = sum(float(tc[i + half, 3]) / n * spec.ramp.units(i) * e for i, _, e, _ in raw)
    side_tc = t.sums["side_tc"]
    side_rows = []
    for w, wid in enumerate(tables.wagers):
        if spec.plan(wid).mode != "count":
            continue
        side_rows.append((get_wager(wid).name, tuple(
            (b - half, int(side_tc[w, b, 0]), side_tc[w, b, 1] / side_tc[w, b, 0] / UNIT
             / spec.spots) for b in range(tables.buckets) if side_tc[w, b, 0] > 0)))
    ruin = _ruin(run, money, ev, total_sd)
    avg_bet = float(acc[5]) / n
    return Report(run, money, ev, total_sd, avg_bet, tuple(components), rows,
                  tuple(side_rows), ruin, optimal, uncovered)


def far_goal(mu: float, sd: float) -> float:
    """A goal far enough that ruin before it is within 1% of ruin ever (``exp(-2 mu G /
    sd²) = 1%``): the simulated check of the simple risk of ruin plays to it."""
    return math.log(100.0) * sd * sd / (2.0 * mu) if mu > 0 else math.inf


def _ruin(run: AdvantageRun, money: Bankroll, ev: Estimate, sd: float
          ) -> tuple[RuinRow, ...]:
    nets = run.tally.trace()
    bank = round(money.bank * UNIT)
    far = np.zeros(4, np.int64)
    barrier = np.zeros(4, np.int64)
    goal_far = far_goal(ev.value, sd)
    if len(nets):
        ruin_trials(nets, bank, round(money.goal * UNIT), money.trip_rounds, barrier)
        if math.isfinite(goal_far) and goal_far * UNIT < 2**62:
            ruin_trials(nets, bank, round(goal_far * UNIT), 0, far)
    b, g, trip = money.bank, money.goal, money.trip_rounds

    def at(f: Any) -> tuple[float, float, float]:
        vals = [f(x) for x in (ev.value, ev.low, ev.high)]
        finite = [v for v in vals[1:] if not math.isnan(v)] or [math.nan]
        return vals[0], min(finite), max(finite)

    simple = at(lambda mu: simple_ruin(mu, sd, b))
    two = at(lambda mu: barrier_ruin(mu, sd, b, g))
    short = (math.nan, math.nan, math.nan)
    how = "walk"
    if len(nets) and nets.min() < ev.low * UNIT and ev.high * UNIT < nets.max():
        values, counts = np.unique(nets, return_counts=True)
        weights = counts.astype(np.float64)
        short = at(lambda mu: walk_trip_ruin(values, tilted(values, weights, mu * UNIT),
                                             bank, trip))
    if math.isnan(short[0]):  # (no trace, or a trip too long to walk)
        short = at(lambda mu: trip_ruin(mu, sd, b, trip))
        how = "formula"
    return (
        RuinRow(f"simple (simulated to +{goal_far:,.0f})", *simple, int(far[0]),
                int(far[0] + far[1])),
        RuinRow(f"double barrier (lost before +{g:g})", *two, int(barrier[0]),
                int(barrier[0] + barrier[1])),
        RuinRow(f"trip of {trip:,} rounds", *short, int(barrier[3]), int(barrier[2]), how),
    )
