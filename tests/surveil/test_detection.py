"""Detection measured on simulated players through the engine (issue 23 item 5): the
perfect Blazing 7's player is flagged within 600 rounds, players betting independently of
the edge are not (the long runs are ``scripts/surveillance_detection.py``)."""

from __future__ import annotations

import numpy as np

from sidebet.regulation.submission import TableConfig
from sidebet.surveil.detection import simulate_table
from sidebet.surveil.players import (
    FlatBettor,
    Moment,
    PerfectPlayer,
    RandomBettor,
    SevensCounter,
    StreakyBettor,
    SuitCounter,
)

B7 = ("blazing7s",)


def test_the_perfect_blazing_7s_player_is_flagged_within_600_rounds_and_others_not() -> None:
    """The flat, random and streaky bettors at the same table bet independently of the
    edge: none of them is flagged."""
    cfg = TableConfig(decks=6, side_wagers={"blazing7s": "A"})
    players = [FlatBettor("flat", B7), RandomBettor("random", B7, seed=4),
               StreakyBettor("streaky", B7, seed=4, every=10), PerfectPlayer("perfect", B7)]
    run = simulate_table(cfg, players, rounds=600, seed=4,
                         stop=lambda alarms: ("perfect", "blazing7s") in alarms)
    assert run.alarms.keys() == {("perfect", "blazing7s")}
    assert run.alarms[("perfect", "blazing7s")] <= 600
    assert run.placed[("flat", "blazing7s")] == run.rounds  # the flat bettor bet every round


def test_the_counters_read_the_cards_seen() -> None:
    full = np.full(52, 6, dtype=np.int64)
    edges = {"blazing7s": -0.08, "trilux": -0.2, "three-card-poker": 0.01}
    m = Moment(6, full, edges)
    assert (m.sevens_per_deck_left, m.suit_spread_per_deck_left) == (4.0, 0.0)
    assert SevensCounter("s", "blazing7s").bets(m) == {}
    assert PerfectPlayer("p", ("blazing7s", "three-card-poker")).bets(m) == {
        "three-card-poker": 25_00}
    rich = full.copy()
    rich[[i for i in range(52) if i // 4 != 5][:200 // 6]] = 0  # no sevens among those removed
    m2 = Moment(6, rich, edges)
    assert m2.sevens_per_deck_left > 5.0 and SevensCounter("s", "blazing7s").bets(m2) == {"blazing7s": 25_00}
    spades_gone = full.copy()
    spades_gone[3::4] = 0
    assert SuitCounter("c", ("trilux", "three-card-poker")).bets(Moment(6, spades_gone, edges)) == {
        "trilux": 25_00, "three-card-poker": 25_00}
