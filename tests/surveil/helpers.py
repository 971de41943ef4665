"""A short engine session for the surveillance tests."""

from __future__ import annotations

from typing import Any

from sidebet.regulation.submission import TableConfig
from sidebet.table.game import Table
from sidebet.table.history import round_to_json, session_to_json
from sidebet.table.policy import CHART, play_out


def session(rounds: int, *, seats: int, seed: int, every: int) -> dict[str, Any]:
    """A 2-deck TriLux Deluxe session: seat 1 bets 5.00 on TriLux Deluxe every ``every``-th
    round, every seat 10.00 on Blackjack."""
    t = Table(TableConfig(decks=2, side_wagers={"trilux": "TLX-2"}), seats=seats, seed=seed)
    out = []
    for n in range(rounds):
        r = t.new_round()
        for seat in range(1, seats + 1):
            r.place_bet(seat, "blackjack", 10_00)
            if seat == 1 and n % every == 0:
                r.place_bet(1, "trilux", 5_00)
        r.close_bets()
        play_out(r, CHART)
        t.finish(r)
        out.append(round_to_json(r, shoes=t.round_shoes))
    return session_to_json(t, out)
