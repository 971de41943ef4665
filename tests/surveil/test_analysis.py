"""Surveillance: the exact edge at each decision, the statistics, the alarm, the readers."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sidebet.core.cards import parse_cards
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.removal import BlackjackEdge
from sidebet.exact.par import par_sheet
from sidebet.regulation.house_rules import HouseRules
from sidebet.serve.chain import EXPORT_FORMAT
from sidebet.surveil import AlarmRule, Surveillance, round_seen, survey
from sidebet.surveil.readers import read_file, rounds_from_history, rounds_from_log
from sidebet.table.records import Bet, Deal, SideWager

from .helpers import session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LOG = FIXTURES / "server-table-log.jsonl"


def test_each_decision_is_valued_at_the_exact_edge_of_the_depleted_shoe() -> None:
    data = session(12, seats=2, seed=5, every=2)
    table = rounds_from_history(data)
    s = survey(2, table.sides, table.rounds)
    seen: dict[int, list[int]] = {}
    for rnd in table.rounds:
        shoe = rnd.spans[0].shoe
        counts = np.full(52, 2, dtype=np.int64)
        for k in seen.get(shoe, []):
            counts[k] -= 1
        exact = par_sheet("trilux", Shoe(tuple(int(c) for c in counts)), "TLX-2")
        mine = [d for d in s.decisions if d.game == rnd.game and d.wager == "trilux"]
        assert len(mine) == 2  # both seats decided
        for d in mine:
            assert math.isclose(d.edge, float(exact.expected_return), abs_tol=1e-12)
        for span, cards in rnd.shoe_cards():
            seen.setdefault(span.shoe, []).extend(cards)
    seat1 = s.players[("seat 1", "trilux")]
    assert (seat1.decisions, seat1.placed, seat1.total_bet) == (12, 6, 30_00)
    assert seat1.result == sum(int(n.get(1, {}).get("trilux", 0))
                               for n in (rnd.nets for rnd in table.rounds))
    bettor = [d for d in s.decisions if d.player == "seat 1" and d.wager == "trilux"]
    assert math.isclose(seat1.expected, sum(d.bet * d.edge for d in bettor))
    assert s.players[("seat 2", "trilux")].placed == 0


def test_the_blackjack_wager_is_surveyed_with_its_net_and_each_seats_cards() -> None:
    """Every seated player has a Blackjack decision a round, its bet and its net from the
    round's ledger; the seats' cards and the dealer's are exactly the cards dealt."""
    data = session(12, seats=2, seed=5, every=2)
    table = rounds_from_history(data)
    s = survey(2, table.sides, table.rounds)
    for n, rnd in enumerate(table.rounds):
        got = sorted([*(k for h in rnd.hands.values() for k in h), *rnd.dealer])
        assert got == sorted(rnd.cards), rnd.game
        ledger = data["rounds"][n]["final"]["ledger"]
        for seat in (1, 2):
            net = sum((1 if e["move"] in ("return", "win") else -1 if e["move"] == "stake"
                       else 0) * round(float(e["amount"]) * 100)
                      for e in ledger if e["seat"] == seat and e["wager"] == "blackjack")
            assert rnd.nets[seat]["blackjack"] == net
    bj = s.players[("seat 1", "blackjack")]
    assert (bj.decisions, bj.placed, bj.total_bet) == (12, 12, 120_00)
    edge = BlackjackEdge.of(HouseRules(), 2)
    assert s.decisions[0].wager == "blackjack"
    assert math.isclose(s.decisions[0].edge, edge.full_ev)


def test_server_log_is_read_and_the_first_round_is_at_the_full_shoe() -> None:
    table = read_file(LOG, EXPORT_FORMAT)
    assert (len(table.rounds), table.not_finished) == (7, 1)
    s = survey(table.config.decks, table.sides, table.rounds)
    first = [d for d in s.decisions if d.game == "T1-R1"]
    full = {w: float(par_sheet(w, 2, p).expected_return) for w, p in table.sides.items()}
    assert {d.wager: d.edge for d in first if d.wager != "blackjack"} == pytest.approx(
        full, abs=1e-12)
    ann = s.players[("ann", "trilux")]
    assert (ann.placed, ann.total_bet, ann.result) == (2, 20_00, 250_00)
    assert s.players[("carol", "trilux")].decisions == 3  # she sat down at round 5
    assert s.alarms() == []


def test_a_card_the_shoe_no_longer_holds_or_a_missing_round_is_refused() -> None:
    s = Surveillance(2, {"trilux": "TLX-2"})
    recs = [Bet(1, "blackjack", 10_00), Deal(parse_cards("As As As Kd"))]
    bad = round_seen("R1", recs, parse_cards("As As As Kd"), [(0, 0, 4)])
    with pytest.raises(SidebetError, match=r"As is not left in shoe 0 of 2 decks"):
        s.observe(bad)
    assert s.rounds == 0 and s.edge.remaining(0).sum() == 104  # nothing changed
    gap = round_seen("R2", recs, parse_cards("As Ad Ac Kd"), [(0, 6, 4)])
    with pytest.raises(SidebetError, match="a round is missing"):
        s.observe(gap)


def test_the_cusum_rises_when_the_edge_moves_with_the_bet_and_never_without_a_move() -> None:
    rule = AlarmRule(alpha=0.01, horizon=1000)
    c, steps = 0.0, 0
    while c < rule.threshold:
        c = rule.step(c, 3.0, 1.5)  # the bet raised by three of its usual moves, the edge up
        steps += 1
    gain = rule.delta * 3.0 * 1.5 - rule.delta**2 * 9.0 / 2
    assert steps == math.ceil(rule.threshold / gain)
    assert rule.step(5.0, 0.0, 2.0) == 5.0 and rule.step(0.1, -3.0, 1.0) == 0.0


@pytest.mark.parametrize("bettor", ["random", "streaky"])
def test_the_false_alarm_rate_is_at_most_alpha_on_null_scores(bettor: str) -> None:
    """Standard normal edge changes and bet changes drawn independently of them (every
    decision, or a big change once in 40): the share of sequences of ``horizon`` decisions
    that raise the alarm stays under alpha."""
    rule = AlarmRule(alpha=0.1, horizon=200)
    rng = np.random.default_rng(7)
    z = np.clip(rng.normal(size=(2000, 200)), -3, 3)
    if bettor == "random":
        w = np.clip(rng.normal(size=(2000, 200)), -3, 3)
    else:
        w = np.where(rng.random(size=(2000, 200)) < 1 / 40, rng.choice([-3.0, 3.0],
                                                                       size=(2000, 200)), 0.0)
    alarms = 0
    for wr, zr in zip(w, z, strict=True):
        c = 0.0
        for a, b in zip(wr.tolist(), zr.tolist(), strict=True):
            c = rule.step(c, a, b)
            if c >= rule.threshold:
                alarms += 1
                break
    assert alarms / 2000 <= rule.alpha


@pytest.mark.parametrize("kwargs, match", [
    ({"alpha": 0.0}, "false-alarm rate"), ({"alpha": 1.5}, "false-alarm rate"),
    ({"horizon": 0}, "horizon"), ({"delta": 1.0}, "delta"), ({"warmup": 1}, "warm-up"),
])
def test_bad_alarm_settings_are_refused(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(SidebetError, match=match):
        AlarmRule(**kwargs)  # type: ignore[arg-type]


def test_side_wager_nets_and_bets_come_from_the_records() -> None:
    recs = [Bet(2, "blackjack", 10_00), Bet(2, "trilux", 5_00), Deal(parse_cards("7h 9c 8h 2s")),
            SideWager(2, "trilux", -5_00, parse_cards("7h 8h 9c"), "lose")]
    r = round_seen("R", recs, parse_cards("7h 9c 8h 2s"), [(0, 0, 4)])
    assert (dict(r.players), r.bets[2]["trilux"], r.nets[2]["trilux"]) == (
        {2: "seat 2"}, 5_00, -5_00)


def _set_players(ev: dict[str, Any]) -> None:
    ev["payload"]["record"]["players"] = 3


def _set_step(ev: dict[str, Any]) -> None:
    ev["payload"]["record"]["history"]["records"][0]["step"] = [1, 2]


def _set_config(ev: dict[str, Any]) -> None:
    ev["payload"]["config"] = []


@pytest.mark.parametrize("kind, change, match", [
    ("round-end", _set_players, "'players' is not a list"),
    ("round-end", _set_step, "no record step"),
    ("table", _set_config, "no table configuration"),
])
def test_a_malformed_event_is_named_in_one_error(
        kind: str, change: Callable[[dict[str, Any]], None], match: str) -> None:
    lines = LOG.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if f'"kind":"{kind}"' in line)
    event = json.loads(lines[at])
    change(event)
    lines[at] = json.dumps(event)
    with pytest.raises(SidebetError, match=match):
        rounds_from_log(lines, EXPORT_FORMAT)
