"""``sidebet compare``: tables side by side, their differences, and rule sweeps."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.exact.par import par_sheet

runner = CliRunner()

TABLE = """decks = 6
[side_wagers.blazing7s]
{pays}
"""


def _write(tmp_path: Path, name: str, pays: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(TABLE.format(pays=pays))
    return path


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    tmp = tmp_path_factory.mktemp("compare")
    a = _write(tmp, "listed", 'paytable = "A"')
    b = _write(tmp, "richer", "pays = {three_sevens_diamonds = 5000, three_sevens_suited = "
               "2000, three_sevens_same_color = 1000, three_sevens = 500, two_sevens = 50, "
               "one_seven = 2}")
    return [str(a), str(b)]


def test_compare_json_has_every_figure_and_the_difference(two: list[str]) -> None:
    result = runner.invoke(app, ["compare", *two, "--samples", "50", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["tables"] == ["listed", "richer"]
    rows = {r["figure"]: r for r in data["figures"]}
    edge = rows["Blazing 7's: house edge"]
    assert edge["listed"] == pytest.approx(float(par_sheet("blazing7s", 6).house_edge))
    assert edge["richer"] == pytest.approx(3632 / 125333)
    assert edge["richer - listed"] == pytest.approx(edge["richer"] - edge["listed"])
    assert rows["Blazing 7's: compliant"]["richer"] == 0.0
    assert rows["Blackjack: house edge (basic strategy)"]["richer - listed"] == 0
    assert rows["Blazing 7's: exposure, perfect play units/100"]["richer - listed"] > 0


def test_compare_csv_is_numbers(two: list[str]) -> None:
    result = runner.invoke(app, ["compare", *two, "--samples", "50", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows and all(float(r["richer - listed"]) == float(r["richer - listed"])
                        for r in rows if r["richer - listed"])


def test_sweep_over_soft_17(tmp_path: Path) -> None:
    base = _write(tmp_path, "t", 'paytable = "A"')
    result = runner.invoke(app, ["compare", str(base), "--sweep", "rule=s17:h17",
                                 "--samples", "50", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["figure"]: r for r in json.loads(result.stdout)["figures"]}
    bj = rows["Blackjack: house edge (basic strategy)"]
    assert bj["t h17 - t s17"] > 0.001  # hitting soft 17 costs the player about 0.2%
    assert rows["Blazing 7's: house edge"]["t h17 - t s17"] == 0  # settled before play


def test_press_element_of_risk_under_each_rule_set(tmp_path: Path) -> None:
    from sidebet.exact.blackjack.press import press_chart
    from sidebet.regulation.house_rules import HouseRules

    base = tmp_path / "tlx.toml"
    base.write_text('decks = 6\n[side_wagers.trilux]\npaytable = "TLX-3"\n')
    result = runner.invoke(app, ["compare", str(base), "--sweep", "rule=s17:h17",
                                 "--samples", "50", "--format", "json"])
    assert result.exit_code == 0, result.output
    eor = {r["figure"]: r for r in json.loads(result.stdout)["figures"]}[
        "Press: element of risk, optimal pressing"]
    for label, h17 in (("tlx s17", False), ("tlx h17", True)):
        chart = press_chart(6, HouseRules(dealer_hits_soft_17=h17))
        assert eor[label] == pytest.approx(chart.summary.element_of_risk("optimal"), abs=1e-12)
        assert 0 < eor[label] < float(-chart.summary.trilux_return)


@pytest.mark.parametrize(("args", "message"), [
    (["compare"], "name two or more"),
    (["compare", "--sweep", "rule=h17:q17"], "unknown rule 'q17'"),
    (["compare", "--sweep", "colour=red:blue"], "SETTING is rule, decks or penetration"),
])
def test_compare_bad_input_is_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
