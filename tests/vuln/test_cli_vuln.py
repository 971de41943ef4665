"""``sidebet eor`` and ``sidebet vulnerability`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

runner = CliRunner()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidebet", *args], capture_output=True,
                          text=True, check=False)


def test_eor_json() -> None:
    result = runner.invoke(app, ["eor", "blazing7s", "--decks", "6", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [k for k in data if k in ("wager", "decks", "paytable", "house_edge", "effects")] == [
        "wager", "decks", "paytable", "house_edge", "effects"]
    assert data["wager"] == "blazing7s" and data["decks"] == 6 and data["paytable"] == "A"
    seven = next(e for e in data["effects"] if e["card"] == "7D")
    assert set(seven) == {"card", "effect", "exact"}
    assert seven["effect"] == pytest.approx(float(Fraction(seven["exact"])))
    assert seven["effect"] < -6


def test_eor_table_csv_markdown() -> None:
    for fmt, needle in (("table", "betting correlation"), ("csv", "7D,"),
                        ("markdown", "| 7 |")):
        result = runner.invoke(app, ["eor", "top3", "--format", fmt])
        assert result.exit_code == 0 and needle in result.stdout, result.output


def test_vulnerability_json(tmp_path: Path) -> None:
    plot = tmp_path / "edges.png"
    result = runner.invoke(app, [
        "vulnerability", "blazing7s", "--decks", "6", "--rounds", "3e4", "--seed", "4",
        "--count", "sevens", "--tags", "7:-1", "--format", "json", "--no-progress",
        "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("wager", "decks", "paytable", "penetration", "seats", "rounds", "seed",
                "rows", "perfect_play"):
        assert key in data
    assert data["rounds"] == 30_000 and data["seed"] == 4 and data["penetration"] == 0.75
    assert [r["count"] for r in data["rows"]] == ["sevens", "tags"]
    for row in data["rows"]:
        assert {"count", "tags", "trigger", "frequency", "average_edge", "units_per_100",
                "units_per_100_ci"} <= row.keys()
        assert 0 <= row["frequency"] <= 1
    pp = data["perfect_play"]
    assert {"frequency", "average_edge", "units_per_100", "units_per_100_ci"} <= pp.keys()
    assert pp["units_per_100_ci"][0] < pp["units_per_100"] < pp["units_per_100_ci"][1]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_vulnerability_cards_left_json() -> None:
    result = runner.invoke(app, ["vulnerability", "blazing7s", "--decks", "6", "--cards-left",
                                 "156", "--perfect", "--samples", "5000", "--seed", "1",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [k for k in data if k in ("wager", "decks", "cards_left", "samples", "p_positive",
                                     "p_positive_ci", "average_positive_edge")] == [
        "wager", "decks", "cards_left", "samples", "p_positive", "p_positive_ci",
        "average_positive_edge"]
    assert data["cards_left"] == 156 and data["samples"] == 5000
    assert data["p_positive_ci"][0] < data["p_positive"] < data["p_positive_ci"][1]


def test_vulnerability_sweep_csv(tmp_path: Path) -> None:
    plot = tmp_path / "sweep.svg"
    result = runner.invoke(app, ["vulnerability", "blazing7s", "--count", "sevens",
                                 "--rounds", "3000", "--seed", "2", "--sweep",
                                 "penetration=0.5:0.75:0.25", "--format", "csv",
                                 "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("setting,count,")
    labels = [line.split(",")[0] for line in lines[1:]]
    # per point: the count's row and perfect play
    assert labels == ["penetration=0.5"] * 2 + ["penetration=0.75"] * 2 + \
        ["continuous shuffler"] * 2
    assert plot.read_text().lstrip().startswith("<?xml")


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["vulnerability", "blazing7s", "--penetration", "1.5"], "--penetration"),
    (["vulnerability", "blazing7s", "--tags", "Z:1"], "--tags"),
    (["vulnerability", "blazing7s", "--count", "sevens", "--trigger", "40"], "--trigger"),
    (["vulnerability", "blazing7s", "--count", "sevens", "--trigger", "20"],
     "no count reaches"),
    (["vulnerability", "upcard-luck", "--decks", "2"], "§ 633b.15(b)"),
    (["vulnerability", "trilux", "--decks", "6", "--paytable", "TLX-1"], "§ 633c.11(i)"),
    (["vulnerability", "blazing7s", "--rounds", "0"], "--rounds"),
    (["vulnerability", "blazing7s", "--sweep", "speed=1:2:1"], "--sweep"),
    (["vulnerability", "blazing7s", "--cut-cards", "999"], "--cut-cards"),
    (["vulnerability", "blazing7s", "--plot", "x.gif", "--rounds", "10"], "--plot"),
    (["eor", "nonesuch"], "unknown wager"),
])
def test_bad_input_one_line_exit_2(args: list[str], message: str) -> None:
    result = run(*args, "--no-progress") if args[0] == "vulnerability" else run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_command_module_imports_nothing_heavy() -> None:
    code = ("import sys, sidebet.cli.vuln_cmds; "
            "print(any(m in sys.modules for m in ('numba', 'matplotlib')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
