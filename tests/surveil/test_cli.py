"""``sidebet surveil FILE``: text and JSON, and one-line errors on bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.regulation.submission import TableConfig
from sidebet.surveil.detection import simulate_table
from sidebet.surveil.players import FlatBettor, PerfectPlayer
from sidebet.table.game import Table
from sidebet.table.history import dumps, round_to_json, session_to_json
from sidebet.table.state import RoundState

from .helpers import session

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "server-table-log.jsonl"
runner = CliRunner()


def _history(path: Path, rounds: int = 4) -> dict[str, Any]:
    data = session(rounds, seats=1, seed=9, every=1)
    path.write_text(dumps(data), encoding="utf-8")
    return data


def test_text_report_of_a_server_log() -> None:
    result = runner.invoke(app, ["surveil", str(LOG)])
    assert result.exit_code == 0, result.output
    assert "7 rounds (1 not finished, not analysed)" in result.output
    assert "threshold 14.51" in result.output and "alarms: none" in result.output
    ann = next(line for line in result.output.splitlines()
               if line.startswith("ann") and "trilux" in line)
    assert ann.split()[-2:] == ["250.00", "-4.93"]


def test_json_report_with_every_decision_of_a_history(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    _history(path)
    result = runner.invoke(app, ["surveil", str(path), "--format", "json", "--decisions",
                                 "--alpha", "0.05", "--horizon", "500"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rounds"] == 4 and data["alarm_rule"]["alpha"] == 0.05
    assert data["alarms"] == []
    decisions = [d for d in data["decisions"] if d["wager"] == "trilux"]
    assert [d["bet"] for d in decisions] == ["5.00"] * 4
    assert all(d["placed"] and d["edge_float"] < 0 for d in decisions)
    player, blackjack = (next(p for p in data["players"] if p["wager"] == w)
                         for w in ("trilux", "blackjack"))
    assert (player["player"], player["placed"], player["alarm"]) == ("seat 1", 4, None)
    assert (blackjack["player"], blackjack["placed"], blackjack["total_bet"]) == (
        "seat 1", 4, "40.00")


@pytest.mark.parametrize("content, match", [
    ("", "not a hand history"),
    ("{not json", "not a hand history"),
    ('{"format": "sidebet-table-log/1"}\n{"kind": "round-end", "payload": 3}\n',
     "line 2: an event without a payload object"),
    ('{"format": "sidebet-table-log/1"}\n', "no table event"),
    ('{"format": "sidebet-table-log/1"}\n[1]\n', "line 2: not a JSON object"),
])
def test_bad_files_get_one_line(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["surveil", str(path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and match in lines[0], result.output


def test_a_forged_card_or_a_missing_file_gets_one_line(tmp_path: Path) -> None:
    path = tmp_path / "forged.json"
    data = _history(path, rounds=2)
    rounds = data["rounds"]
    assert isinstance(rounds, list)
    rounds[1]["cards"] = " ".join(["As"] * len(rounds[1]["cards"].split()))
    path.write_text(dumps(data), encoding="utf-8")
    for target, match in ((path, "is not left in shoe 0 of 2 decks"),
                          (tmp_path / "none.json", "cannot read")):
        result = runner.invoke(app, ["surveil", str(target)])
        assert result.exit_code == 2
        assert len(result.output.strip().splitlines()) == 1 and match in result.output


def test_a_perfect_player_in_a_history_raises_the_alarm_and_a_flat_one_does_not(
        tmp_path: Path) -> None:
    """A constructed history whose answer is known: seat 1 bets Blazing 7's exactly when
    its edge is positive, seat 2 bets it every round."""
    cfg = TableConfig(decks=6, side_wagers={"blazing7s": "A"})
    kept: list[dict[str, Any]] = []
    holder: list[Table] = []

    def keep(table: Table, state: RoundState) -> None:
        holder[:] = [table]
        kept.append(round_to_json(state, shoes=table.round_shoes))

    players = [PerfectPlayer("perfect", ("blazing7s",)), FlatBettor("flat", ("blazing7s",))]
    run = simulate_table(cfg, players, rounds=1500, seed=4, on_round=keep,
                         stop=lambda alarms: ("perfect", "blazing7s") in alarms)
    path = tmp_path / "perfect.json"
    path.write_text(dumps(session_to_json(holder[0], kept)), encoding="utf-8")
    result = runner.invoke(app, ["surveil", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (alarm,) = data["alarms"]
    assert (alarm["player"], alarm["wager"]) == ("seat 1", "blazing7s")
    assert int(alarm["game"]) == run.alarms[("perfect", "blazing7s")]  # as the live run saw it
    assert alarm["test"] == "correlation" and alarm["mean_edge_placed_float"] > 0
    flat = next(p for p in data["players"] if p["player"] == "seat 2"
                and p["wager"] == "blazing7s")
    assert flat["placed"] == run.rounds == data["rounds"] and flat["max_cusum"] == 0.0
