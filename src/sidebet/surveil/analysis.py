"""Surveillance of one table: every betting decision on every side wager valued at the
exact edge of the moment, and per player and wager the correlation of bet and edge, the
alarm and the result against expectation.

:class:`Surveillance` is a pure function of the rounds it is given, one at a time
(:meth:`Surveillance.observe`), so a server can keep one per table and feed it each round
as it ends; :func:`survey` runs it over a whole history.

A decision is a seat in the round (it placed the Blackjack wager) and a side wager the
table offers: ``bet`` is what the seat placed on it before the deal, 0 when it did not.
The edge is the wager's exact expected return per unit for the shoe as it stood when the
bets were made (the cards of the rounds before, from the same shoe).  Each decision's score
pairs the change of the bet with the change of the edge since the player's previous
decision (:mod:`sidebet.surveil.alarm`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sidebet.core.money import Cents, format_money
from sidebet.exact.par import par_sheet
from sidebet.surveil.alarm import AlarmRule, Running, clip
from sidebet.surveil.edge import EdgeTracker
from sidebet.surveil.events import RoundSeen

__all__ = ["Decision", "PlayerWager", "Surveillance", "survey"]


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
class PlayerWager:
    """What surveillance knows of one player on one side wager."""

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
            "alarm": None if self.alarm_game is None else {
                "game": self.alarm_game, "decision": self.alarm_decision},
            "result": format_money(self.result),
            "expected_float_cents": round(self.expected, 2),
            "result_minus_expected_float_cents": round(self.result - self.expected, 2),
            "sd_full_shoe_float_cents": round(sd, 2),
        }


class Surveillance:
    """The surveillance of one table (``decks``, side wagers ``{wager: paytable}``) under
    the operator's ``rule``; feed it the rounds in order with :meth:`observe`."""

    def __init__(self, decks: int, sides: Mapping[str, str],
                 rule: AlarmRule | None = None, *, keep_decisions: bool = True) -> None:
        self.rule = rule or AlarmRule()
        self.edge = EdgeTracker(decks, sides)
        self.sides = self.edge.sides
        self._unit_var = [float(par_sheet(w, decks, p).variance) for w, p in sides.items()]
        self._edge_moves = [Running() for _ in self.sides]
        self._last_edge = [float(e) for e in self.edge.full_shoe]
        self._shoe: int | None = None
        self.players: dict[tuple[str, str], PlayerWager] = {}
        self.rounds = 0
        self.keep_decisions = keep_decisions
        self.decisions: list[Decision] = []

    def _track(self, player: str, wager: str) -> PlayerWager:
        key = (player, wager)
        if key not in self.players:
            self.players[key] = PlayerWager(player, wager)
        return self.players[key]

    def observe(self, rnd: RoundSeen) -> list[Decision]:
        """Value ``rnd``'s betting decisions at the edge of the moment, update each
        player's statistics and alarm, then take its cards out of the shoe."""
        edges = self.edge.edges(rnd)
        self.edge.remove(rnd)
        rule = self.rule
        shoe = rnd.spans[0].shoe if rnd.spans else None
        out: list[Decision] = []
        for n, wager in enumerate(self.sides):
            edge, full = float(edges[n]), float(self.edge.full_shoe[n])
            moves = self._edge_moves[n]
            for seat, player in rnd.players.items():
                bet = int(rnd.bets.get(seat, {}).get(wager, 0))
                net = int(rnd.nets.get(seat, {}).get(wager, 0))
                t = self._track(player, wager)
                since = t.last_edge if shoe is not None and t.last_shoe == shoe else full
                z = (clip((edge - since) / moves.rms)
                     if moves.n >= rule.warmup and moves.rms > 0 else 0.0)
                bet_move = bet - (bet if t.last_bet is None else t.last_bet)
                w = (clip(bet_move / t.bet_moves.rms)
                     if t.bet_moves.n >= rule.warmup and t.bet_moves.rms > 0 else 0.0)
                score = w * z
                t.cusum = rule.step(t.cusum, w, z)
                t.max_cusum = max(t.max_cusum, t.cusum)
                t.decisions += 1
                if t.alarm_game is None and t.cusum >= rule.threshold:
                    t.alarm_game, t.alarm_decision = rnd.game, t.decisions
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
                out.append(Decision(rnd.game, player, seat, wager, edge, bet, net, score,
                                    t.cusum))
            previous = self._last_edge[n] if shoe is not None and shoe == self._shoe else full
            moves.add(edge - previous)
            self._last_edge[n] = edge
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
                                     zip(self.sides, self.edge.full_shoe, strict=True)},
            "rounds": self.rounds,
            "alarm_rule": {"test": "CUSUM of log-likelihood ratios", "alpha": rule.alpha,
                           "horizon_decisions": rule.horizon, "delta": rule.delta,
                           "warmup": rule.warmup, "threshold": round(rule.threshold, 6)},
            "alarms": [{"player": t.player, "wager": t.wager, "game": t.alarm_game,
                        "decision": t.alarm_decision} for t in self.alarms()],
            "players": [t.to_json(rule.threshold) for t in self.players.values()],
        }
        if decisions:
            out["decisions"] = [d.to_json() for d in self.decisions]
        return out


def survey(decks: int, sides: Mapping[str, str], rounds: Iterable[RoundSeen],
           rule: AlarmRule | None = None, *, keep_decisions: bool = True) -> Surveillance:
    """Run :class:`Surveillance` over ``rounds`` in order."""
    s = Surveillance(decks, sides, rule, keep_decisions=keep_decisions)
    for r in rounds:
        s.observe(r)
    return s
