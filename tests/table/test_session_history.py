"""Session histories: every round kept, each round's shoe(s), the revealed shoes audited."""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from sidebet.core.errors import SidebetError
from sidebet.table import Table
from sidebet.table.history import (
    FORMAT,
    SESSION_FORMAT,
    dumps,
    load_history,
    loads,
    round_to_json,
    rounds_of,
    save_session,
    session_to_json,
)
from sidebet.table.policy import play_out
from sidebet.table.session_audit import verify

from .helpers import full_table


def _session(rounds: int = 10, seats: int = 7, seed: int = 0,
             penetration: Fraction = Fraction(51, 52)) -> tuple[Table, list[dict[str, Any]]]:
    cfg = full_table(1)
    cfg = replace(cfg, rules=replace(cfg.rules, penetration=penetration))
    table = Table(cfg, seats, seed=seed, chips=1000_00)
    history = []
    for _ in range(rounds):
        r = table.new_round()
        for s in range(1, seats + 1):
            r.place_bet(s, "blackjack", 10_00)
        r.close_bets()
        play_out(r)
        table.finish(r)
        history.append(round_to_json(r, shoes=table.round_shoes))
    return table, history


def test_a_round_across_a_reshuffle_records_both_shoes() -> None:
    table, history = _session()
    crossing = [h for h in history if len(h["shoes"]) > 1]
    assert crossing, "seed 0 should run a shoe out mid-round"
    for h in crossing:
        first, second = h["shoes"]
        assert h["commitment"] == first["commitment"] != second["commitment"]
        assert second["start"] == 0 and second["shoe"] == first["shoe"] + 1
        assert first["start"] + first["cards"] == 52
    for h in history:
        k = h["shoes"][0]["shoe"]
        assert h["commitment"] == table.commitments[k]
        assert sum(s["cards"] for s in h["shoes"]) == len(h["cards"].split())


def test_a_round_after_the_cut_card_records_the_new_shoe() -> None:
    table, history = _session(rounds=8, seats=3, penetration=Fraction(1, 2))
    shoes = [h["shoes"][0]["shoe"] for h in history]
    assert shoes == sorted(shoes) and shoes[-1] >= 2
    for prev, h in itertools.pairwise(history):
        if h["shoes"][0]["shoe"] != prev["shoes"][-1]["shoe"]:
            assert h["shoes"][0]["start"] == 0
            assert h["commitment"] == table.commitments[h["shoes"][0]["shoe"]]
            assert h["commitment"] != prev["commitment"]


def test_session_saves_atomically_and_verifies(tmp_path: Path) -> None:
    table, history = _session()
    path = tmp_path / "session.json"
    save_session(path, table, history[:3])
    save_session(path, table, history, reveal_current=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.json"]
    data = load_history(path)
    assert data["format"] == SESSION_FORMAT and data["seed"] == 0 and data["seats"] == 7
    assert len(rounds_of(data)) == 10 and all(r["format"] == FORMAT for r in data["rounds"])
    assert [s["shoe"] for s in data["shoes"]] == list(range(table.shoe_number + 1))
    assert verify(data) == 10


def _refused(data: dict[str, Any], match: str) -> None:
    with pytest.raises(SidebetError, match=match):
        verify(loads(dumps(data)))


def test_tampered_sessions_are_refused() -> None:
    table, history = _session()
    data = session_to_json(table, history, reveal_current=True)
    bad = copy.deepcopy(data)
    bad["shoes"][1]["salt"] = "00" * 32
    _refused(bad, "shoe 2: the revealed order and salt do not match its commitment")
    bad = copy.deepcopy(data)
    order = bad["shoes"][0]["order"].split()
    order[0], order[-1] = order[-1], order[0]
    bad["shoes"][0]["order"] = " ".join(order)
    _refused(bad, "shoe 1: the revealed order and salt do not match")
    bad = copy.deepcopy(data)
    del bad["rounds"][1]
    _refused(bad, "round 2: it does not start with the chips the previous round ended")
    bad = copy.deepcopy(data)
    cards = bad["rounds"][0]["cards"].split()
    bad["rounds"][0]["cards"] = " ".join(["2c" if cards[0] != "2c" else "3c", *cards[1:]])
    _refused(bad, "round 1: the replay does not reproduce")
    bad = copy.deepcopy(data)
    bad["rounds"][0]["cards"] += " 2c"  # replays fine, but is not the shoe's
    _refused(bad, "round 1: its shoes do not account for its cards")
    bad = copy.deepcopy(data)
    del bad["shoes"][0]["salt"]
    _refused(bad, "shoe 1: no 'salt'")
    with pytest.raises(SidebetError, match="not a hand history"):
        loads(json.dumps({"format": "sidebet-session/9"}))


def test_old_single_round_history_still_verifies() -> None:
    table = Table(full_table(6), 2, seed=4)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    play_out(r)
    data = loads(dumps(round_to_json(r, table.shoe.commitment)))
    assert "shoes" not in data
    assert rounds_of(data) == [data] and verify(data) == 1
