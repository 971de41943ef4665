"""Detection measured on simulated players through the engine: the perfect Blazing 7's
player is flagged within 600 rounds, the Hi-Lo spreader and the wonger within a stated
number, players betting independently of the edge or by their own results are not (the
long runs are ``scripts/surveillance_detection.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from sidebet.regulation.submission import TableConfig
from sidebet.surveil.alarm import AlarmRule
from sidebet.surveil.detection import simulate_table
from sidebet.surveil.players import (
    FlatBettor,
    HiLoSpreader,
    LossProgression,
    Moment,
    PerfectPlayer,
    RandomBettor,
    SevensCounter,
    SimPlayer,
    StreakyBettor,
    SuitCounter,
    WinProgression,
    Wonger,
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


SEVEN_SEATS = [PerfectPlayer("perfect", B7), FlatBettor("flat", B7),
               RandomBettor("random", B7, seed=4), StreakyBettor("streaky", B7, seed=4, every=10),
               Wonger("wonger", "blazing7s", trigger=4.6), HiLoSpreader("spreader"),
               LossProgression("loss", B7)]


def test_the_wonger_and_the_blackjack_spreader_are_flagged_and_the_others_not() -> None:
    """Seven seats of a 6-deck table: the Hi-Lo spreader (25.00 to 300.00 by the true
    count) is flagged on the Blackjack wager within 400 rounds, the wonger (seated only when
    the sevens left per deck left reach 4.6, always the same bets) on Blazing 7's by the
    advantage test within 1000; the flat, random, streaky and loss-progression bettors
    are not."""
    cfg = TableConfig(decks=6, side_wagers={"blazing7s": "A"})
    want = {("spreader", "blackjack"), ("wonger", "blazing7s")}
    run = simulate_table(cfg, SEVEN_SEATS, rounds=1000, seed=4,
                         stop=lambda alarms: want <= alarms.keys())
    assert want <= run.alarms.keys()
    assert run.alarms[("spreader", "blackjack")] <= 400
    assert run.alarms[("wonger", "blazing7s")] <= 1000
    assert {p for p, _ in run.alarms} <= {"perfect", "spreader", "wonger"}


@pytest.mark.slow
def test_progression_bettors_are_flagged_at_most_at_the_set_rate() -> None:
    """Loss and win progressions on Blazing 7's and on Blackjack (no card knowledge) at
    α = 0.1 within 400 decisions: over 20 tables of 400 rounds, 120 player-wager sequences
    of each kind (three players, each on two wagers); at most 18 of each may be flagged (a
    rate of 0.1 would exceed 18 with chance 0.03, and the bound says at most 0.1)."""
    cfg = TableConfig(decks=6, side_wagers={"blazing7s": "A"})
    rule = AlarmRule(alpha=0.1, horizon=400)
    flagged = {"loss": 0, "win": 0}
    for k in range(20):
        players: list[SimPlayer] = [
            LossProgression("loss b7", B7), WinProgression("win b7", B7),
            LossProgression("loss bj", ("blackjack",), base=25_00),
            WinProgression("win bj", ("blackjack",), base=25_00),
            LossProgression("loss both", ("blackjack", "blazing7s"), base=25_00),
            WinProgression("win both", ("blackjack", "blazing7s"), base=25_00)]
        run = simulate_table(cfg, players, rounds=400, seed=1000 + 7 * k, rule=rule)
        for (p, _w) in run.alarms:
            flagged[p.split()[0]] += 1
    assert flagged["loss"] <= 18 and flagged["win"] <= 18, flagged
