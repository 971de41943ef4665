"""The command line, run as a user would (a real subprocess) and through typer's runner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

runner = CliRunner()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sidebet", *args], capture_output=True, text=True, check=False
    )


def test_par_json_fields() -> None:
    result = runner.invoke(app, ["par", "top3", "--decks", "6", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["wager"] == "top3" and data["decks"] == 6 and data["paytable"] == "A"
    assert data["compliant"] is True and data["violations"] == []
    assert data["total_combinations"] == 15_039_960
    assert data["exact"]["house_edge"] == "13878/125333"
    assert [o["outcome"] for o in data["outcomes"]] == [
        "suited_three_of_a_kind", "straight_flush", "three_of_a_kind", "lose"]
    assert data["outcomes"][-1]["pays"] == -1


def test_par_all_json_is_a_list_and_flags_noncompliant() -> None:
    result = runner.invoke(app, ["par", "--all", "--decks", "6", "--format", "json"])
    assert result.exit_code == 0, result.output
    sheets = json.loads(result.stdout)
    assert isinstance(sheets, list) and len(sheets) == 8
    tlx1 = next(s for s in sheets if s["paytable"] == "TLX-1")
    assert tlx1["compliant"] is False
    assert tlx1["violations"][0].startswith("§ 633c.11(i)")


def test_par_all_decks() -> None:
    result = runner.invoke(app, ["par", "--all", "--format", "csv"])
    assert result.exit_code == 0
    rows = result.stdout.strip().splitlines()
    assert rows[0].startswith("wager,decks,paytable")
    assert {r.split(",")[1] for r in rows[1:]} == {str(n) for n in range(1, 9)}


def test_par_remove_and_formats() -> None:
    result = runner.invoke(app, ["par", "blazing7s", "--decks", "2", "--remove", "7D 7D",
                                 "--format", "json"])
    data = json.loads(result.stdout)
    assert data["cards_in_shoe"] == 102
    assert {o["outcome"]: o["combinations"] for o in data["outcomes"]}["three_sevens_diamonds"] == 0
    md = runner.invoke(app, ["par", "trilux", "--decks", "1", "--format", "markdown"])
    assert "| Straight flush | 20 |" in md.stdout
    table = runner.invoke(app, ["par", "upcard-luck", "--decks", "8"])
    assert "House edge" in table.stdout


def test_settle_json() -> None:
    result = runner.invoke(app, ["settle", "trilux", "--decks", "6", "--bet", "10",
                                 "--blackjack-bet", "5", "--player", "QH KH", "--up", "AH",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == {**data, "wager": "trilux", "outcome": "straight_flush", "pays": 25,
                    "stake": "10.00", "winnings": "250.00", "net": "250.00",
                    "citation": "§ 633c.11(h)"}


def test_settle_top3_needs_three_card_poker_bet() -> None:
    base = ["settle", "top3", "--bet", "5", "--blackjack-bet", "10", "--player", "9h 9h",
            "--up", "9h", "--format", "json"]
    refused = runner.invoke(app, base)
    assert refused.exit_code == 2
    assert "§ 633c.7(c)" in refused.stderr
    paid = runner.invoke(app, [*base, "--three-card-poker-bet", "5", "--paytable", "B"])
    assert json.loads(paid.stdout)["winnings"] == "5000.00"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["settle", "trilux", "--bet", "50", "--blackjack-bet", "20", "--player", "QH KH",
          "--up", "AH"],
         "error: § 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00"),
        (["settle", "upcard-luck", "--decks", "2", "--bet", "5", "--blackjack-bet", "20",
          "--player", "AS JS", "--up", "5D"], "§ 633b.15(b)"),
        (["settle", "trilux", "--decks", "2", "--paytable", "TLX-2", "--bet", "5",
          "--blackjack-bet", "20", "--player", "AS AS", "--up", "AS"], "A♠ cannot be dealt"),
        (["settle", "trilux", "--bet", "5", "--blackjack-bet", "20", "--player", "ZZ AS",
          "--up", "AS"], "'ZZ' is not a card"),
        (["par", "nosuch"], "unknown wager 'nosuch'"),
        (["par", "trilux", "--decks", "9"], "1 to 8 decks"),
        (["par", "top3", "--paytable", "C"], "Top 3 has no paytable 'C'"),
    ],
)
def test_errors_exit_2_without_traceback(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_check_table(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('decks = 6\n[side_wagers.trilux]\npaytable = "TLX-3"\n'
                    '[side_wagers.top3]\npaytable = "B"\n[side_wagers.three-card-poker]\n',
                    encoding="utf-8")
    ok = runner.invoke(app, ["check-table", str(good)])
    assert ok.exit_code == 0 and "compliant" in ok.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('decks = 2\n[side_wagers.upcard-luck]\n[side_wagers.top3]\n', encoding="utf-8")
    result = runner.invoke(app, ["check-table", str(bad), "--format", "json"])
    assert result.exit_code == 1
    rules = [v["rule"] for v in json.loads(result.stdout)["violations"]]
    assert rules == ["§ 633b.15(b)", "§ 633c.7(a)"]
    broken = tmp_path / "broken.toml"
    broken.write_text("decks = [", encoding="utf-8")
    assert run("check-table", str(broken)).returncode == 2


def test_rules_lists_every_wager() -> None:
    result = runner.invoke(app, ["rules"])
    assert result.exit_code == 0
    for name in ("TriLux Deluxe", "Upcard Luck", "Top 3", "Blazing 7's", "Three Card Poker"):
        assert name in result.stdout
    one = runner.invoke(app, ["rules", "blazing7s"])
    assert "5000 to 1" in one.stdout and "§ 633b.20(e)" in one.stdout


def test_shipped_examples() -> None:
    root = Path(__file__).resolve().parents[2] / "examples"
    assert run("check-table", str(root / "table-6deck.toml")).returncode == 0
    bad = run("check-table", str(root / "table-2deck-bad.toml"), "--format", "json")
    assert bad.returncode == 1
    assert [v["rule"] for v in json.loads(bad.stdout)["violations"]] == [
        "§ 633c.11(i)", "§ 633b.15(b)", "§ 633c.7(a)"]


def test_par_all_with_removed_cards() -> None:
    result = runner.invoke(app, ["par", "--all", "--decks", "2", "--remove", "7D 7D",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    sheets = json.loads(result.stdout)
    assert len(sheets) == 8 and {s["cards_in_shoe"] for s in sheets} == {102}
    blazing = next(s for s in sheets if s["wager"] == "blazing7s")
    assert blazing["outcomes"][0] == {**blazing["outcomes"][0], "combinations": 0}
    tlx2 = next(s for s in sheets if s["paytable"] == "TLX-2")
    assert tlx2["compliant"] is True
