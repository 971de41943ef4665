"""Surveillance of one table: every betting decision on the Blackjack wager and every side
wager valued at the edge of the moment, and per player and wager the correlation of bet
and edge, the two tests' alarm (:mod:`sidebet.surveil.alarm`) and the result against
expectation.

:class:`Surveillance` is a pure function of the rounds it is given, one at a time
(:meth:`Surveillance.observe`), so a server can keep one per table and feed it each round
as it ends; :func:`survey` runs it over a whole history.

A decision is a seat in the round (it placed the Blackjack wager) and a wager: the
Blackjack wager or a side wager the table offers; ``bet`` is what the seat placed on it
before the deal, 0 when it did not.  The edge is the wager's expected return per unit for
the shoe as it stood when the bets were made (the cards of the rounds before, from the
same shoe).  Both tests measure the edge against what the player's own results could have
told them: the edge of the shoe less only the cards of the player's own hands and the
dealer's (:class:`OwnCards`), so that a progression on wins or losses, which follows
those cards, is not taken for counting.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.money import Cents, format_money
from sidebet.exact.blackjack.removal import BLACKJACK_SD
from sidebet.exact.par import par_sheet
from sidebet.regulation.house_rules import HouseRules
from sidebet.surveil.alarm import AlarmRule, AlarmTest, Running, clip
from sidebet.surveil.edge import EdgeTracker
from sidebet.surveil.events import RoundSeen

__all__ = ["TESTS", "Decision", "OwnCards", "PlayerWager", "Surveillance", "survey"]

TESTS = "CUSUM of log-likelihood ratios: correlation and advantage, each at alpha / 2"

DEPTHS = 8
"""The table's spread of the edge is kept by eighths of the shoe dealt."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One betting decision: the exact edge (float, expected return per unit bet), the bet
    (cents, 0: not placed), what it returned (cents), its score and the CUSUM after it."""

    game: str
    player: str
    seat: int
    wager: str
    edge: float
    bet: Cents
    net: Cents
    score: float
    cusum: float

    def to_json(self) -> dict[str, Any]:
        """As JSON data (money as decimal text; the edge a float, so labelled)."""
        return {"game": self.game, "player": self.player, "seat": self.seat,
                "wager": self.wager, "edge_float": self.edge, "placed": self.bet > 0,
                "bet": format_money(self.bet), "net": format_money(self.net),
                "score": round(self.score, 6), "cusum": round(self.cusum, 6)}


@dataclass
class Advantage:
    """The advantage test of one player on one wager: its CUSUM over shoes, at most, the
    shoes counted, and the current shoe's sums (bet × edge above the own-cards baseline,
    bet × the table's spread of the edge)."""

    cusum: float = 0.0
    top: float = 0.0
    shoes: int = 0
    shoe_sum: float = 0.0
    shoe_scale: float = 0.0

    def close(self, rule: AlarmRule) -> bool:
        """The step at the end of a shoe: ``z`` the shoe's sums' ratio; whether the alarm
        is now raised."""
        raised = False
        if self.shoe_scale > 0:
            z = clip(self.shoe_sum / self.shoe_scale)
            self.cusum = rule.step(self.cusum, 1.0, z)
            self.top = max(self.top, self.cusum)
            self.shoes += 1
            raised = self.cusum >= rule.threshold
        self.shoe_sum = self.shoe_scale = 0.0
        return raised


@dataclass
class PlayerWager:
    """What surveillance knows of one player on one wager."""

    player: str
    wager: str
    decisions: int = 0
    placed: int = 0
    total_bet: Cents = 0
    result: Cents = 0
    expected: float = 0.0
    variance: float = 0.0
    cusum: float = 0.0
    max_cusum: float = 0.0
    alarm_game: str | None = None
    alarm_decision: int | None = None
    alarm_test: AlarmTest | None = None
    excess: float = 0.0
    advantage: Advantage = field(default_factory=Advantage)
    bet_moves: Running = field(default_factory=Running)
    last_bet: Cents | None = None
    last_edge: float = 0.0
    last_shoe: int | None = None
    _sums: list[float] = field(default_factory=lambda: [0.0] * 5)

    def add_pair(self, bet: float, edge: float) -> None:
        """Count ``(bet, edge)`` for the correlation."""
        s = self._sums
        s[0] += bet
        s[1] += edge
        s[2] += bet * bet
        s[3] += edge * edge
        s[4] += bet * edge

    @property
    def correlation(self) -> float | None:
        """Pearson's correlation of bet size (0 when not placed) with the edge (``None``
        when either never varied)."""
        n = self.decisions
        if n < 2:
            return None
        sb, se, sbb, see, sbe = self._sums
        vb, ve = sbb - sb * sb / n, see - se * se / n
        if vb <= 1e-12 * max(1.0, sbb) or ve <= 1e-18 * max(1.0, see):
            return None
        return (sbe - sb * se / n) / math.sqrt(vb * ve)

    @property
    def mean_edge_placed(self) -> float | None:
        """The mean edge over the decisions where the wager was placed, weighted by the bet."""
        return self.expected / self.total_bet if self.total_bet else None

    @property
    def mean_excess_placed(self) -> float | None:
        """The bet-weighted mean of the edge less what the player's own cards and the
        dealer's gave (the advantage test's measure)."""
        return self.excess / self.total_bet if self.total_bet else None

    def raise_alarm(self, test: AlarmTest, game: str) -> None:
        """The first alarm of either test, kept."""
        if self.alarm_game is None:
            self.alarm_game, self.alarm_decision, self.alarm_test = game, self.decisions, test

    def close_shoe(self, rule: AlarmRule, game: str) -> None:
        """The advantage test's step at the end of a shoe the player bet in."""
        if self.advantage.close(rule):
            self.raise_alarm(AlarmTest.ADVANTAGE, game)

    def alarm_json(self) -> dict[str, Any]:
        """The alarm line: who, on what, where, by which test, and the bets' mean edge,
        expected and actual result."""
        return {"player": self.player, "wager": self.wager, "game": self.alarm_game,
                "decision": self.alarm_decision,
                "test": None if self.alarm_test is None else self.alarm_test.value,
                "max_cusum": round(max(self.max_cusum, self.advantage.top), 6),
                "mean_edge_placed_float": self.mean_edge_placed,
                "expected_float_cents": round(self.expected, 2),
                "result": format_money(self.result)}

    def to_json(self, threshold: float) -> dict[str, Any]:
        """As JSON data."""
        corr = self.correlation
        sd = math.sqrt(self.variance)
        return {
            "player": self.player, "wager": self.wager, "decisions": self.decisions,
            "placed": self.placed, "total_bet": format_money(self.total_bet),
            "correlation_float": corr, "mean_edge_placed_float": self.mean_edge_placed,
            "cusum": round(self.cusum, 6), "max_cusum": round(self.max_cusum, 6),
            "threshold": round(threshold, 6),
            "advantage_cusum": round(self.advantage.cusum, 6),
            "advantage_max_cusum": round(self.advantage.top, 6),
            "advantage_shoes": self.advantage.shoes,
            "mean_excess_placed_float": self.mean_excess_placed,
            "alarm": None if self.alarm_game is None else {
                "game": self.alarm_game, "decision": self.alarm_decision,
                "test": None if self.alarm_test is None else self.alarm_test.value},
            "result": format_money(self.result),
            "expected_float_cents": round(self.expected, 2),
            "result_minus_expected_float_cents": round(self.result - self.expected, 2),
            "sd_full_shoe_float_cents": round(sd, 2),
        }


@dataclass
class OwnCards:
    """What one player's own results could tell them of a shoe: the cards their results
    were settled on in the rounds they sat in, since the shoe began and since their
    previous decision, and the cards left at that decision.  Row 0: the Blackjack wager's
    (the player's hands and the dealer's); row 1: the side wagers' (the player's first two
    cards and the upcard)."""

    shoe: int | None = None
    seen: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros((2, 52), np.int64))
    since: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros((2, 52), np.int64))
    before: npt.NDArray[np.int64] | None = None


class Surveillance:
    """The surveillance of one table (``decks``, side wagers ``{wager: paytable}``, the
    Blackjack wager under ``rules``) under the operator's ``rule``; feed it the rounds in
    order with :meth:`observe`."""

    def __init__(self, decks: int, sides: Mapping[str, str],
                 rule: AlarmRule | None = None, *, rules: HouseRules | None = None,
                 keep_decisions: bool = True) -> None:
        self.rule = rule or AlarmRule()
        rules = rules or HouseRules()
        self.edge = EdgeTracker(decks, sides, rules)
        self.sides = self.edge.sides
        self.wagers = self.edge.wagers
        self._unit_var = [BLACKJACK_SD ** 2] + [
            float(par_sheet(w, decks, p).variance) for w, p in sides.items()]
        self._edge_moves = [Running() for _ in self.wagers]
        self._spread = [[Running() for _ in range(DEPTHS)] for _ in self.wagers]
        self._last_edge = [float(e) for e in self.edge.full_shoe]
        self._shoe: int | None = None
        self.players: dict[tuple[str, str], PlayerWager] = {}
        self.own: dict[str, OwnCards] = {}
        self.rounds = 0
        self.keep_decisions = keep_decisions
        self.decisions: list[Decision] = []

    def _track(self, player: str, wager: str) -> PlayerWager:
        key = (player, wager)
        if key not in self.players:
            self.players[key] = PlayerWager(player, wager)
        return self.players[key]

    def _baselines(self, player: str, shoe: int | None, counts: npt.NDArray[np.int64]
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The player's baselines for this round, by wager: the edge of the full shoe less
        the cards their own results were settled on (the advantage test), and of the shoe
        at their previous decision less those cards since (the correlation test)."""
        own = self.own.setdefault(player, OwnCards())
        full = np.full(52, self.edge.decks, dtype=np.int64)
        if own.shoe != shoe:
            own.shoe, own.before = shoe, None
            own.seen[:] = 0
            own.since[:] = 0
        base = np.empty(len(self.wagers))
        anchor = np.empty(len(self.wagers))
        for row, part in ((0, slice(0, 1)), (1, slice(1, None))):
            b = self.edge.values(full - own.seen[row]) if own.seen[row].any() else \
                self.edge.full_shoe
            base[part] = b[part]
            if own.before is None:
                anchor[part] = b[part]
            else:
                anchor[part] = self.edge.values(own.before - own.since[row])[part]
        own.before = counts
        own.since[:] = 0
        return base, anchor

    def _after(self, rnd: RoundSeen) -> None:
        """Each player's cards of ``rnd`` that their results were settled on, counted."""
        up = rnd.dealer[:1]
        for seat, player in rnd.players.items():
            own = self.own.get(player)
            if own is None:
                continue
            hand = rnd.hands.get(seat, ())
            for row, cards in ((0, (*hand, *rnd.dealer)), (1, (*hand[:2], *up))):
                for k in cards:
                    own.seen[row, k] += 1
                    own.since[row, k] += 1

    def observe(self, rnd: RoundSeen) -> list[Decision]:
        """Value ``rnd``'s betting decisions at the edge of the moment, update each
        player's statistics and both alarms, then take its cards out of the shoe."""
        counts = self.edge.at_bets(rnd)
        edges = self.edge.values(counts)
        self.edge.remove(rnd)
        rule = self.rule
        shoe = rnd.spans[0].shoe if rnd.spans else None
        if shoe != self._shoe:
            for t in self.players.values():
                t.close_shoe(rule, rnd.game)
        depth = min(DEPTHS - 1, int(DEPTHS * (1 - counts.sum() / (52 * self.edge.decks))))
        baselines = {p: self._baselines(p, shoe, counts) for p in set(rnd.players.values())}
        out: list[Decision] = []
        for n, wager in enumerate(self.wagers):
            edge, full = float(edges[n]), float(self.edge.full_shoe[n])
            moves, spread = self._edge_moves[n], self._spread[n][depth]
            for seat, player in rnd.players.items():
                base, anchor = baselines[player]
                bet = int(rnd.bets.get(seat, {}).get(wager, 0))
                net = int(rnd.nets.get(seat, {}).get(wager, 0))
                t = self._track(player, wager)
                z = (clip((edge - float(anchor[n])) / moves.rms)
                     if moves.n >= rule.warmup and moves.rms > 0 else 0.0)
                bet_move = bet - (bet if t.last_bet is None else t.last_bet)
                w = (clip(bet_move / t.bet_moves.rms)
                     if t.bet_moves.n >= rule.warmup and t.bet_moves.rms > 0 else 0.0)
                score = w * z
                t.cusum = rule.step(t.cusum, w, z)
                t.max_cusum = max(t.max_cusum, t.cusum)
                t.decisions += 1
                if t.cusum >= rule.threshold:
                    t.raise_alarm(AlarmTest.CORRELATION, rnd.game)
                if t.last_bet is not None:
                    t.bet_moves.add(float(bet_move))
                t.last_bet, t.last_edge, t.last_shoe = bet, edge, shoe
                t.add_pair(float(bet), edge)
                if bet > 0:
                    t.placed += 1
                    t.total_bet += bet
                    t.result += net
                    t.expected += bet * edge
                    t.variance += bet * bet * self._unit_var[n]
                    t.excess += bet * (edge - float(base[n]))
                    if spread.n >= rule.warmup and spread.rms > 0:
                        t.advantage.shoe_sum += bet * (edge - float(base[n]))
                        t.advantage.shoe_scale += bet * spread.rms
                out.append(Decision(rnd.game, player, seat, wager, edge, bet, net, score,
                                    t.cusum))
            previous = self._last_edge[n] if shoe is not None and shoe == self._shoe else full
            moves.add(edge - previous)
            spread.add(edge - full)
            self._last_edge[n] = edge
        self._after(rnd)
        self._shoe = shoe
        if self.keep_decisions:
            self.decisions.extend(out)
        self.rounds += 1
        return out

    def alarms(self) -> list[PlayerWager]:
        """The players and wagers whose alarm was raised, in the order raised."""
        return [t for t in self.players.values() if t.alarm_game is not None]

    def to_json(self, *, decisions: bool = True) -> dict[str, Any]:
        """The report as JSON data."""
        rule = self.rule
        out: dict[str, Any] = {
            "decks": self.edge.decks, "side_wagers": list(self.sides),
            "full_shoe_edge_float": {w: float(e) for w, e in
                                     zip(self.wagers, self.edge.full_shoe, strict=True)},
            "rounds": self.rounds,
            "alarm_rule": {"test": TESTS, "alpha": rule.alpha,
                           "horizon_decisions": rule.horizon, "delta": rule.delta,
                           "warmup": rule.warmup, "threshold": round(rule.threshold, 6)},
            "alarms": [t.alarm_json() for t in self.alarms()],
            "players": [t.to_json(rule.threshold) for t in self.players.values()],
        }
        if decisions:
            out["decisions"] = [d.to_json() for d in self.decisions]
        return out


def survey(decks: int, sides: Mapping[str, str], rounds: Iterable[RoundSeen],
           rule: AlarmRule | None = None, *, rules: HouseRules | None = None,
           keep_decisions: bool = True) -> Surveillance:
    """Run :class:`Surveillance` over ``rounds`` in order."""
    s = Surveillance(decks, sides, rule, rules=rules, keep_decisions=keep_decisions)
    for r in rounds:
        s.observe(r)
    return s
