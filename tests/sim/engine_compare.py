"""Play the same seeded shoes through the table engine and the kernel, round by round."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sidebet.sim import SimSpec, run_orders
from sidebet.table import (
    BASIC,
    CHART,
    ExactStrategy,
    PlayPolicy,
    PressAll,
    PressByAdvice,
    PressBySimpleRule,
    PressNothing,
    Table,
    play_out,
)
from sidebet.table.dealing import shuffled_order

PRESS = {"none": PressNothing, "all": PressAll, "advice": PressByAdvice,
         "rule": PressBySimpleRule}
PLAY: dict[str, PlayPolicy] = {"exact": BASIC, "chart": CHART}
"""The table engine's play policy for each simulator strategy source."""
MAIN_KEYS = ("blackjack", "split", "double", "press", "insurance")

ExactPolicy = ExactStrategy
"""The exact analyser's basic strategy at the table (now the engine's own policy)."""


@dataclass
class Mismatch:
    round: int
    seat: int
    what: str
    engine: int
    kernel: int
    records: list[str]


def engine_rounds(
    spec: SimSpec, seed: int, rounds: int, play: PlayPolicy | None = None
) -> tuple[list[dict[str, int]], list[list[str]], int]:
    """Per round and seat, the engine's net (cents) per ledger key; and the shoes used.
    ``play`` defaults to the engine policy of the spec's strategy source."""
    play = PLAY[spec.strategy] if play is None else play
    table = Table(spec.table_config(), seats=spec.seats, seed=seed, unit=100)
    order = ["three-card-poker"] + [w for w, _ in spec.sides if w != "three-card-poker"]
    placed = [w for w in order if w in dict(spec.sides)]
    nets: list[dict[str, int]] = []
    logs: list[list[str]] = []
    for _ in range(rounds):
        r = table.new_round()
        for seat in range(1, spec.seats + 1):
            r.place_bet(seat, "blackjack", spec.bet * 100)
            for w in placed:
                r.place_bet(seat, w, spec.side_bet * 100)
        r.close_bets()
        play_out(r, play, PRESS[spec.press]())
        table.finish(r)
        for seat in range(1, spec.seats + 1):
            row = {w: r.ledger.player_net(seat, w) for w in dict(spec.sides)}
            row["main"] = sum(r.ledger.player_net(seat, k) for k in MAIN_KEYS)
            row["press"] = r.ledger.player_net(seat, "press")
            nets.append(row)
            logs.append([rec.describe() for rec in r.records])
    return nets, logs, table.shoe_number + 1


def compare(spec: SimSpec, seed: int, rounds: int, play: PlayPolicy | None = None
            ) -> tuple[int, list[Mismatch]]:
    """Rounds compared and every difference between the engine and the kernel."""
    nets, logs, shoes = engine_rounds(spec, seed, rounds, play)
    orders = np.stack([shuffled_order(spec.decks, seed + k) for k in range(shoes + 1)])
    run = run_orders(spec, orders, rounds)
    inp = spec.inputs()
    out: list[Mismatch] = []
    assert run.result.rounds == rounds, (run.result.rounds, rounds)
    for rnd in range(rounds):
        for s in range(spec.seats):
            eng = nets[rnd * spec.seats + s]
            log = logs[rnd * spec.seats + s]
            if spec.side_only:
                combo = int(run.trace[rnd, s])
                main = press = None
            else:
                combo = int(run.trace[rnd, s, 0])
                main = int(run.trace[rnd, s, 1]) * 10
                press = int(run.trace[rnd, s, 2]) * 10
            for w, (wid, _) in enumerate(spec.sides):
                o = inp.combo_outcomes[combo, w]
                got = inp.pays[w][o] * spec.side_bet * 100
                if got != eng[wid]:
                    out.append(Mismatch(rnd, s + 1, wid, eng[wid], got, log))
            if main is not None and main != eng["main"]:
                out.append(Mismatch(rnd, s + 1, "main", eng["main"], main, log))
            if press is not None and press != eng["press"]:
                out.append(Mismatch(rnd, s + 1, "press", eng["press"], press, log))
    return rounds, out
