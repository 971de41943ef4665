"""How fast the alarm catches a counter: simulated players at a table of the table engine,
their rounds turned into the same :class:`~sidebet.surveil.events.RoundSeen` a log gives,
and the round at which each player's alarm is raised on each wager.

Every round goes through the engine (:class:`sidebet.table.game.Table`): the players' bets
are placed and checked by it, the hands played by the published chart, the side wagers
settled by it; so the events are those a real table would log.

>>> from sidebet.surveil.players import FlatBettor
>>> cfg = TableConfig(decks=6, side_wagers={"blazing7s": "A"})
>>> run = simulate_table(cfg, [FlatBettor("flat", ("blazing7s",))], rounds=5, seed=1)
>>> run.rounds, run.alarms
(5, {})
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sidebet.core.money import Cents
from sidebet.regulation.submission import TableConfig
from sidebet.surveil.alarm import AlarmRule
from sidebet.surveil.analysis import Surveillance
from sidebet.surveil.events import BLACKJACK, round_seen
from sidebet.surveil.players import Moment, SimPlayer
from sidebet.table.game import Table
from sidebet.table.policy import CHART, play_out
from sidebet.table.state import RoundState
from sidebet.vuln.side_ev import ev_tables

__all__ = ["TableRun", "simulate_table"]

BLACKJACK_BET: Cents = 25_00
"""A simulated player's Blackjack wager unless it names one (at least its largest side
wager, which may not exceed it)."""


@dataclass(frozen=True, slots=True)
class TableRun:
    """One simulated table: rounds played, the round (1, 2, ...) of each alarm by
    ``(player, wager)``, and each player's kind."""

    rounds: int
    alarms: dict[tuple[str, str], int]
    kinds: dict[str, str]
    placed: dict[tuple[str, str], int]


def simulate_table(config: TableConfig, players: Sequence[SimPlayer], *, rounds: int,
                   seed: int, rule: AlarmRule | None = None,
                   stop: Callable[[dict[tuple[str, str], int]], bool] | None = None,
                   on_round: Callable[[Table, RoundState], None] | None = None) -> TableRun:
    """Play ``rounds`` rounds (fewer if ``stop(alarms)`` says so after a round) with one
    seat per player; survey them as they end (and hand each finished round to
    ``on_round``, to keep its history)."""
    table = Table(config, seats=len(players), seed=seed)
    sides = dict(config.side_wagers)
    tables = ev_tables(tuple(sides.items()))
    watch = Surveillance(config.decks, sides, rule, rules=config.rules, keep_decisions=False)
    names = {seat: p.name for seat, p in enumerate(players, 1)}
    alarms: dict[tuple[str, str], int] = {}
    placed: dict[tuple[str, str], int] = {}
    played = 0
    for n in range(1, rounds + 1):
        state = table.new_round()
        shoe = table.shoe
        remaining = np.full(52, config.decks, dtype=np.int64)
        np.subtract.at(remaining, np.asarray(shoe.order[:shoe.position], dtype=np.int64), 1)
        edges = tables.expected_returns(remaining)
        moment = Moment(config.decks, remaining, dict(zip(sides, map(float, edges),
                                                             strict=True)))
        seated: list[tuple[int, SimPlayer]] = []
        for seat, p in enumerate(players, 1):
            bets = p.bets(moment)
            sides_bet = {w: a for w, a in bets.items() if w != BLACKJACK and a}
            main = bets.get(BLACKJACK, max([BLACKJACK_BET, *sides_bet.values()]))
            if not main:
                continue
            seated.append((seat, p))
            state.place_bet(seat, BLACKJACK, main)
            placed[(p.name, BLACKJACK)] = placed.get((p.name, BLACKJACK), 0) + 1
            for wager, amount in sides_bet.items():
                state.place_bet(seat, wager, amount)
                placed[(p.name, wager)] = placed.get((p.name, wager), 0) + 1
        if not seated:
            continue
        state.close_bets()
        play_out(state, CHART)
        table.finish(state)
        if on_round is not None:
            on_round(table, state)
        spans = [(s.shoe, s.start, s.cards) for s in table.round_shoes]
        seen = round_seen(str(n), state.records, state.dealt, spans, names, state.ledger)
        for seat, p in seated:
            p.settle(dict(seen.nets.get(seat, {})))
        watch.observe(seen)
        for t in watch.alarms():
            alarms.setdefault((t.player, t.wager), n)
        played = n
        if stop is not None and stop(alarms):
            break
    return TableRun(played, alarms, {p.name: p.kind for p in players}, placed)
