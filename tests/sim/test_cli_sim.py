"""``sidebet simulate`` as a user runs it."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

runner = CliRunner()


def simulate(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["simulate", "--format", "json", "--no-progress", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_the_issue_example_runs() -> None:
    data = simulate("--rounds", "2e4", "--decks", "6", "--seats", "3", "--side",
                    "trilux,blazing7s", "--press", "advice", "--penetration", "0.8",
                    "--seed", "1")
    assert data["rounds"] == 20_000 and data["seat_rounds"] == 60_000
    table = data["table"]
    assert isinstance(table, dict)
    assert table["cut_card"] == int(312 * 0.8)
    assert table["side_wagers"] == {"trilux": "TLX-3", "blazing7s": "A"}
    sides = data["side_wagers"]
    assert isinstance(sides, list) and [w["wager"] for w in sides] == ["trilux", "blazing7s"]
    assert data["press"] and data["blackjack"] and data["round_total"]


def test_same_seed_same_json_and_workers_agree() -> None:
    a = simulate("--rounds", "30000", "--seed", "9", "--press", "all")
    b = simulate("--rounds", "30000", "--seed", "9", "--press", "all", "--workers", "2",
                 "--chunk-shoes", "100")
    for key in ("side_wagers", "blackjack", "press", "round_total"):
        assert a[key] == b[key]


@pytest.mark.slow
def test_side_only_defaults_and_table_output() -> None:
    data = simulate("--rounds", "1e5", "--side-only", "--decks", "2", "--seed", "3")
    assert data["blackjack"] is None and data["press"] is None
    sides = data["side_wagers"]
    assert isinstance(sides, list)
    assert [w["wager"] for w in sides] == ["trilux", "top3", "blazing7s", "three-card-poker"]
    out = runner.invoke(app, ["simulate", "--rounds", "5000", "--seed", "3", "--no-progress"])
    assert out.exit_code == 0, out.output
    assert "TriLux Deluxe" in out.stdout and "95% confidence interval" in out.stdout


def test_config_and_rule_options(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text('decks = 8\n[rules]\ndealer_hits_soft_17 = true\n'
                    '[side_wagers.top3]\npaytable = "B"\n'
                    '[side_wagers.three-card-poker]\npaytable = "classic"\n')
    data = simulate("--rounds", "5000", "--config", str(toml), "--side", "top3",
                    "--blackjack-pays", "6:5", "--no-peek", "--seed", "2")
    table = data["table"]
    assert isinstance(table, dict)
    assert table["decks"] == 8
    assert table["side_wagers"] == {"top3": "B", "three-card-poker": "classic"}
    assert str(table["rules"]).startswith("H17, BJ 6:5") and "no peek" in str(table["rules"])


def test_bad_input_is_one_line() -> None:
    for args, text in (
        (["--rounds", "lots"], "--rounds"),
        (["--decks", "3", "--side", "trilux"], "633c.11(i)"),
        (["--penetration", "1.5"], "--penetration"),
        (["--side", "poker"], "unknown wager"),
        (["--seats", "9"], "seats"),
        (["--side", "trilux", "--side-bet", "3"], "twice"),
    ):
        result = runner.invoke(app, ["simulate", "--no-progress", *args])
        assert result.exit_code == 2, (args, result.output)
        assert text in result.output


@pytest.mark.slow
def test_ctrl_c_reports_rounds_done(tmp_path: Path) -> None:
    """Ctrl-C once the progress bar (on a terminal) shows rounds played: the rounds done are
    reported, as JSON on stdout, and stderr says the run was interrupted."""
    out = tmp_path / "result.json"
    command = shlex.join([sys.executable, "-m", "sidebet", "simulate", "--rounds", "1e12",
                          "--seed", "1", "--format", "json", "--chunk-shoes", "200"])
    child = pexpect.spawn("/bin/sh", ["-c", f"exec {command} > {shlex.quote(str(out))}"],
                          env={**os.environ, "TERM": "xterm", "COLUMNS": "200"},
                          encoding="utf-8", dimensions=(50, 200))
    child.expect(r"[1-9][0-9,]* rounds/s", timeout=300)  # compiling may take a while
    child.kill(signal.SIGINT)
    child.expect(pexpect.EOF, timeout=120)
    child.close()
    assert child.exitstatus == 0, child.before
    data = json.loads(out.read_text())
    assert data["interrupted"] is True
    assert 0 < data["rounds"] < 10**12
    assert "interrupted" in child.before


def test_json_is_strict_when_nothing_was_pressed() -> None:
    result = runner.invoke(app, ["simulate", "--format", "json", "--no-progress", "--rounds",
                                 "300", "--side", "none", "--seed", "4"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert data["press"]["pressed_rounds"] == 0
    assert data["press"]["return_per_unit_pressed"] is None
