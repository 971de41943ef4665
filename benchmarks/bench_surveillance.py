"""What the server's surveillance costs per round: the CPU time to read a
``round-end`` event as the database stores it (JSON text to a ``RoundSeen``, by
``surveil.readers.round_from_event``) and to value its betting decisions and update the
players' statistics and alarms (``Surveillance.observe``), for a 6-deck table offering
Blazing 7's, TriLux Deluxe and Three Card Poker with five seats.

The rounds are played through the table engine (``surveil.detection.simulate_table``), then
their game records are built as the server writes them (the engine's ``sidebet-round/1``
history with its shoe spans, and the players by seat).  Both figures are per round, in the
process's CPU time (``time.process_time``: fairer than wall-clock time on a shared machine).

Run: ``.venv/bin/python benchmarks/bench_surveillance.py [--rounds N]``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from sidebet.regulation.submission import TableConfig
from sidebet.surveil import Surveillance
from sidebet.surveil.detection import simulate_table
from sidebet.surveil.players import FlatBettor, RandomBettor, SimPlayer
from sidebet.surveil.readers import round_from_event
from sidebet.table.game import Table
from sidebet.table.history import round_to_json
from sidebet.table.state import RoundState

WAGERS = ("blazing7s", "trilux", "three-card-poker")


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2000
    config = TableConfig(decks=6, side_wagers={"blazing7s": "A", "trilux": "TLX-3",
                                               "three-card-poker": "classic"})
    players: list[SimPlayer] = [FlatBettor(f"p{i}", WAGERS) if i % 2 else
                                RandomBettor(f"p{i}", WAGERS, seed=i) for i in range(1, 6)]
    names = [{"seat": n, "player": p.name} for n, p in enumerate(players, 1)]
    stored: list[str] = []

    def keep(table: Table, state: RoundState) -> None:
        history: dict[str, Any] = round_to_json(state, None)
        history["fair_shoes"] = [{"shoe": s.shoe, "start": s.start, "cards": s.cards}
                                 for s in table.round_shoes]
        stored.append(json.dumps({"game": f"T1-R{len(stored) + 1}",
                                  "record": {"players": names, "history": history}}))

    simulate_table(config, players, rounds=rounds, seed=7, on_round=keep)
    watch = Surveillance(6, dict(config.side_wagers), keep_decisions=False)
    watch.observe(round_from_event(json.loads(stored[0]), "warm-up"))
    read = analyse = 0.0
    for text in stored[1:]:
        t0 = time.process_time()
        rnd = round_from_event(json.loads(text), "bench")
        t1 = time.process_time()
        watch.observe(rnd)
        t2 = time.process_time()
        read, analyse = read + t1 - t0, analyse + t2 - t1
    n = len(stored) - 1
    size = sum(map(len, stored)) // len(stored)
    print(f"{n} rounds of 5 seats x 3 side wagers, 6 decks; round-end events of {size} bytes")
    print(f"read a round-end event:  {1000 * read / n:.3f} ms CPU per round")
    print(f"analyse its decisions:   {1000 * analyse / n:.3f} ms CPU per round")
    print(f"together:                {1000 * (read + analyse) / n:.3f} ms CPU per round, "
          f"{n / (read + analyse):,.0f} rounds per CPU second")


if __name__ == "__main__":
    main()
