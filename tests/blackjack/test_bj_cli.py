"""``sidebet strategy`` and ``sidebet press``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

runner = CliRunner()


def test_strategy_table() -> None:
    result = runner.invoke(app, ["strategy", "--decks", "6"])
    assert result.exit_code == 0, result.output
    assert "hard 16   S   S   S   S   S   H   H  Rh  Rh  Rh" in result.stdout
    assert "house edge 0.34" in result.stdout


def test_strategy_json_rules_flags() -> None:
    result = runner.invoke(
        app,
        ["strategy", "--decks", "2", "--h17", "--no-das", "--split-hands", "4",
         "--no-surrender", "--six-five", "--no-peek", "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rules"] == "H17, BJ 6:5, DA2, SP4, no RSA, no peek"
    assert data["chart"]["hard 16"]["T"] == "H"
    assert data["house_edge"]["house_edge"] > 0.01


def test_strategy_offers_every_analysed_house_rule() -> None:
    base = runner.invoke(app, ["strategy", "--decks", "1", "--no-peek", "--format", "json"])
    result = runner.invoke(
        app,
        ["strategy", "--decks", "1", "--double", "10-11", "--rsa", "--hit-split-aces",
         "--no-peek", "--dealer-bj-takes-doubles", "--format", "json"],
    )
    assert base.exit_code == 0 and result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rules"] == "S17, BJ 3:2, D10-11, DAS, SP3, RSA, HSA, LS, no peek, dealer BJ takes doubles"
    assert data["chart"]["hard 9"]["5"] == "H"  # no double on 9 with D10-11
    assert data["player_ev"] != json.loads(base.stdout)["player_ev"]


def test_strategy_composition_kind() -> None:
    result = runner.invoke(app, ["strategy", "--kind", "composition", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["chart"]["2,T"]["4"] == "H"


@pytest.mark.slow
def test_strategy_exact_sd_on_request() -> None:
    """The exact SD (the split's cross terms: the costly part) only with ``--sd``."""
    args = ["strategy", "--decks", "1", "--split-hands", "2"]
    plain = runner.invoke(app, [*args, "--format", "json"])
    data = runner.invoke(app, [*args, "--sd", "--format", "json"])
    table = runner.invoke(app, [*args, "--sd"])  # from the disk cache
    assert plain.exit_code == data.exit_code == table.exit_code == 0, table.output
    assert "std_dev" not in json.loads(plain.stdout)["house_edge"]
    sd = json.loads(data.stdout)["house_edge"]["std_dev"]
    assert 1.1 < sd < 1.2
    assert f"standard deviation {sd:.4f}" in table.stdout


def test_strategy_bad_input() -> None:
    assert runner.invoke(app, ["strategy", "--decks", "9"]).exit_code == 2
    assert runner.invoke(app, ["strategy", "--split-hands", "5"]).exit_code == 2


@pytest.mark.slow
def test_press_command() -> None:
    result = runner.invoke(app, ["press", "--decks", "6"])
    assert result.exit_code == 0, result.output
    assert "TLX-3" in result.stdout and "T,T" in result.stdout
    assert runner.invoke(app, ["press", "--decks", "3"]).exit_code == 2
    data = json.loads(runner.invoke(app, ["press", "--format", "json"]).stdout)
    assert [s["decks"] for s in data["summary"]] == [1, 2, 4, 6, 8]
