"""Custom paytables as data: checked lines, the flag where the regulation fixes the
paytable, and the same paytable read by every command and by the table engine."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.core.errors import SidebetError
from sidebet.core.money import parse_money
from sidebet.core.shoe import Shoe
from sidebet.core.tabular import sheets
from sidebet.exact.par import count_outcomes, par_sheet
from sidebet.regulation.side_settlement import settle
from sidebet.regulation.submission import load_table_config, table_config_from_dict
from sidebet.regulation.wagers import get_wager
from sidebet.serve.errors import ApiError
from sidebet.serve.service.tables import parse_submission
from sidebet.table.history import config_to_dict

runner = CliRunner()

TCP = "straight_flush=40,three_of_a_kind=30,straight=10,flush=5"
"""A Three Card Poker paytable: the Rules Submission chooses its odds (compliant)."""
B7 = ("three_sevens_diamonds=5000,three_sevens_suited=2000,three_sevens_same_color=1000,"
      "three_sevens=500,two_sevens=50,one_seven=2")
"""A Blazing 7's paytable: § 633b.20(e) fixes Paytable A (not compliant)."""
B7_TOML = """decks = 6
[side_wagers.blazing7s.pays]
three_sevens_diamonds = 5000
three_sevens_suited = 2000
three_sevens_same_color = 1000
three_sevens = 500
two_sevens = 50
one_seven = 2
"""
TCP_TOML = """decks = 6
[side_wagers.three-card-poker]
pays = {straight_flush = 40, three_of_a_kind = 30, straight = 10, flush = 5}
"""


def _pays(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in (item.split("=") for item in text.split(","))}


@pytest.mark.parametrize(("pays", "message"), [
    ({"one_seven": 2}, "has no line for three_sevens_diamonds"),
    ({**_pays(B7), "one_sevn": 2}, "unknown outcome 'one_sevn'"),
    ({**_pays(B7), "two_sevens": "4.5"}, "two_sevens must be whole odds"),
    ({**_pays(B7), "two_sevens": 0}, "two_sevens pays 0 to 1"),
    ({**_pays(B7), "two_sevens": -3}, "two_sevens pays -3 to 1"),
    ({**_pays(B7), "two_sevens": 10**9}, "more than 1,000,000 to 1"),
    ({**_pays(B7), "two_sevens": True}, "two_sevens must be whole odds"),
])
def test_bad_lines_are_named(pays: dict[str, object], message: str) -> None:
    with pytest.raises(SidebetError, match=message):
        get_wager("blazing7s").custom_paytable(pays)


def test_listed_odds_are_the_listed_paytable_and_names_round_trip() -> None:
    w = get_wager("top3")
    assert w.custom_paytable({"suited_three_of_a_kind": 1000, "straight_flush": 100,
                              "three_of_a_kind": 70}).name == "B"
    table = get_wager("blazing7s").custom_paytable(_pays(B7))
    assert table.name == "custom:5000/2000/1000/500/50/2"
    assert get_wager("blazing7s").paytable(table.name) == table
    with pytest.raises(SidebetError, match="must give 6 odds"):
        get_wager("blazing7s").paytable("custom:5000/2000")


def test_par_sheet_of_a_custom_paytable_is_the_counts_times_the_odds() -> None:
    w = get_wager("three-card-poker")
    table = w.custom_paytable(_pays(TCP))
    sheet = par_sheet(w, 6, table.name)
    counts = count_outcomes(w, Shoe.standard(6))
    odds = [*_pays(TCP).values(), -1]
    assert sheet.expected_return == Fraction(
        sum(int(n) * p for n, p in zip(counts, odds, strict=True)), int(counts.sum()))
    assert sheet.compliant
    flagged = par_sheet("blazing7s", 6, get_wager("blazing7s").custom_paytable(_pays(B7)).name)
    assert not flagged.compliant
    assert flagged.violations[0].startswith("§ 633b.20(e): Blazing 7's paytable custom:")


@pytest.mark.parametrize(("wager", "rule"), [
    ("trilux", "§ 633c.11(h)-(i)"), ("upcard-luck", "§ 633b.15(g)"),
    ("top3", "§ 633c.7(e)"), ("blazing7s", "§ 633b.20(e)"), ("three-card-poker", None),
])
def test_each_wager_flags_a_custom_paytable_with_its_rule(wager: str, rule: str | None) -> None:
    w = get_wager(wager)
    odds = {o.id: 100 + n for n, o in enumerate(w.outcomes)}
    name = w.custom_paytable(odds).name
    found = w.custom_violations(name)
    assert [v.rule for v in found] == ([rule] if rule else [])
    assert w.table_rules(6, name) == []  # the deck count alone is checked there


def test_rules_submission_pays_flows_to_settlement_history_and_server(tmp_path: Path) -> None:
    path = tmp_path / "tcp.toml"
    path.write_text(TCP_TOML)
    table = load_table_config(path)
    assert table.side_wagers == {"three-card-poker": "custom:40/30/10/5"}
    assert table.violations() == []
    result = settle(table, "three-card-poker", parse_money("10"), parse_money("10"),
                    "7h 8h", "9h")
    assert result.pays == 40 and result.to_json()["winnings"] == "400.00"
    assert table_config_from_dict(config_to_dict(table)) == table
    assert parse_submission(TCP_TOML, 100) == table
    with pytest.raises(ApiError, match=r"§ 633b\.20\(e\)"):
        parse_submission(B7_TOML, 100)


@pytest.mark.parametrize(("text", "message"), [
    ("[side_wagers.blazing7s]\npays = {one_seven = 2}\n", "has no line for"),
    ("[side_wagers.blazing7s]\npays = 3\n", "must map each outcome"),
    ("[side_wagers.top3]\npaytable = 'A'\npays = {}\n", "gives both paytable and pays"),
    ("[side_wagers.top3]\npays = {suited_three_of_a_kind = 1000, straight_flush = 100, "
     "three_of_a_kind = 7.5}\n", "three_of_a_kind must be whole odds"),
])
def test_rules_submission_bad_pays_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    result = runner.invoke(app, ["check-table", str(path)])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_check_table_flags_the_custom_paytable_with_its_citation(tmp_path: Path) -> None:
    bad, good = tmp_path / "b7.toml", tmp_path / "tcp.toml"
    bad.write_text(B7_TOML)
    good.write_text(TCP_TOML)
    result = runner.invoke(app, ["check-table", str(bad), "--format", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [v["rule"] for v in data["violations"]] == ["§ 633b.20(e)"]
    assert runner.invoke(app, ["check-table", str(good)]).exit_code == 0


def test_par_eor_and_vulnerability_read_pays() -> None:
    par = runner.invoke(app, ["par", "blazing7s", "--pays", B7, "--format", "json"])
    assert par.exit_code == 0, par.output
    data = json.loads(par.stdout)
    assert data["paytable"] == "custom:5000/2000/1000/500/50/2" and not data["compliant"]
    assert data["exact"]["house_edge"] == "3632/125333"
    eor = runner.invoke(app, ["eor", "blazing7s", "--pays", B7, "--format", "json"])
    assert eor.exit_code == 0, eor.output
    got = json.loads(eor.stdout)
    assert got["paytable"] == data["paytable"] and got["violations"][0].startswith("§ 633b.20(e)")
    assert got["exact"]["house_edge"] == "3632/125333"
    vul = runner.invoke(app, ["vulnerability", "three-card-poker", "--pays", TCP, "--rounds",
                              "3000", "--seed", "1", "--perfect", "--format", "json",
                              "--no-progress"])
    assert vul.exit_code == 0, vul.output
    res = json.loads(vul.stdout)
    assert res["violations"] == []
    assert res["every_round"]["full_shoe_return"] == pytest.approx(-float(par_sheet(
        "three-card-poker", 6, "custom:40/30/10/5").house_edge))
    both = runner.invoke(app, ["par", "blazing7s", "--pays", B7, "--paytable", "A"])
    assert both.exit_code == 2 and "not both" in both.stderr


def test_simulate_reads_pays_and_flags() -> None:
    result = runner.invoke(app, ["simulate", "--side", "blazing7s,three-card-poker",
                                 "--side-only", "--rounds", "2000", "--seed", "3",
                                 "--pays", f"blazing7s:{B7}", "--pays",
                                 f"three-card-poker:{TCP}", "--format", "json",
                                 "--no-progress"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["table"]["side_wagers"] == {"blazing7s": "custom:5000/2000/1000/500/50/2",
                                           "three-card-poker": "custom:40/30/10/5"}
    assert [v.split(":")[0] for v in data["violations"]] == ["§ 633b.20(e)"]
    exact = {w["wager"]: w["exact_return"] for w in data["side_wagers"]}
    assert exact["blazing7s"] == pytest.approx(-3632 / 125333)


def test_report_reads_pays_flags_it_and_exports_its_data(tmp_path: Path) -> None:
    path = tmp_path / "custom.toml"
    path.write_text(TCP_TOML + "[side_wagers.blazing7s]\npays = {three_sevens_diamonds = 5000, "
                    "three_sevens_suited = 2000, three_sevens_same_color = 1000, "
                    "three_sevens = 500, two_sevens = 50, one_seven = 2}\n")
    args = ["report", str(path), "--rounds", "1000", "--rng-shoes", "20", "--vuln-rounds",
            "1000", "--seed", "1", "--quiet"]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert not data["compliance"]["compliant"]
    assert [v["rule"] for v in data["compliance"]["violations"]] == ["§ 633b.20(e)"]
    tables = sheets(data, "report")
    assert any(s.name == "report wagers" for s in tables)


def test_settle_reads_pays_and_refuses_a_paytable_the_regulation_fixes() -> None:
    base = ["--player", "7h 8h", "--up", "9h", "--bet", "10", "--blackjack-bet", "10",
            "--format", "json"]
    ok = runner.invoke(app, ["settle", "three-card-poker", "--pays", TCP, *base])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["winnings"] == "400.00"
    refused = runner.invoke(app, ["settle", "blazing7s", "--pays", B7, *base])
    assert refused.exit_code == 2 and refused.stderr.startswith("error: § 633b.20(e)")


def test_shipped_custom_example_is_flagged_only_for_blazing_7s() -> None:
    root = Path(__file__).resolve().parents[2] / "examples"
    table = load_table_config(root / "table-6deck-custom-pays.toml")
    assert table.side_wagers["three-card-poker"] == "custom:40/30/10/5"
    assert [v.rule for v in table.violations()] == ["§ 633b.20(e)"]
