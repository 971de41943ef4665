"""Hostile input on the command line and in files: one ``error:`` line naming the input,
exit status 2, no traceback, no hang, and one-line usage errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.regulation.submission import Limits, TableConfig

SIDEBET = str(Path(sys.executable).with_name("sidebet"))
HUGE = "9" * 5000


def _one_error(args: list[str], match: str, stdin: str = "") -> None:
    result = CliRunner().invoke(app, args, input=stdin)
    assert result.exit_code == 2, (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), args
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
    assert match in lines[0], (args, lines[0])


@pytest.mark.parametrize("args, match", [
    (["par", "trilux", "--decks", HUGE[:30]], "a shoe holds 1 to 8 decks"),
    (["par", "trilux", "--decks", "-1"], "a shoe holds 1 to 8 decks, not -1"),
    (["par", "trilux", "--decks", HUGE], "--decks"),
    (["par", "trilux", "--remove", "As " * 5000], "cannot be dealt"),
    (["settle", "trilux", "--player", "As Kd", "--up", "7c", "--bet", "1e999999999",
      "--blackjack-bet", "10"], "not an amount of money"),
    (["settle", "trilux", "--player", "As Kd", "--up", "7c", "--bet", HUGE,
      "--blackjack-bet", "10"], "not an amount of money (too long)"),
    (["settle", "trilux", "--player", "As Kd", "--up", "7c", "--bet", "nan",
      "--blackjack-bet", "10"], "'nan' is not an amount of money"),
    (["settle", "trilux", "--player", "As Kd", "--up", "7c", "--bet", "5",
      "--blackjack-bet", "10", "--format", "csv"], "'csv' is not one of 'table', 'json'"),
    (["strategy", "--split-hands", HUGE[:30]], "max_split_hands must be 2 to 4"),
    (["press", "--ratio", "inf"], "§ 633c.11(c)"),
    (["press", "--ratio", "nan"], "§ 633c.11(c)"),
    (["play", "--chips", "1e99999999"], "not an amount of money"),
    (["play", "--chips", "-5"], "--chips must be a positive amount"),
    (["play", "--chips", "inf"], "'inf' is not an amount of money"),
    (["play", "--seed", "-1"], "--seed must be 0 to 2**63 - 1"),
    (["play", "--seed", HUGE[:40]], "--seed must be 0 to 2**63 - 1"),
    (["play", "--rounds", "-1"], "--rounds must be 0 to"),
    (["play", "--seats", "0"], "1 to 7 seats, not 0"),
    (["play", "--decks", HUGE[:30]], "a shoe holds 1 to 8 decks"),
    (["nope"], "No such command 'nope'"),
    (["par", "trilux", "--bogus"], "sidebet par: No such option: --bogus"),
    (["simulate", "--seats", "x"], "Invalid value for '--seats'"),
    (["rules", "--format", "json"], "No such option: --format"),
    (["design", "upcard-luck", "--decks", "2"], "§ 633b.15(b): Upcard Luck is offered only"),
    (["design", "trilux", "--max-volatility", "nan"], "--max-volatility must be a positive"),
    (["simulate", "--side", "", "--rounds", "10"], "--side '' names no wager"),
    (["simulate", "--side", "trilux,,top3", "--rounds", "10"], "names no wager"),
    (["strategy", "--dealer-bj-takes-doubles"], "--dealer-bj-takes-doubles needs --no-peek"),
    (["press", "--dealer-bj-takes-doubles"], "--dealer-bj-takes-doubles needs --no-peek"),
])
def test_bad_command_lines(args: list[str], match: str) -> None:
    _one_error(args, match)


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name, content, match", [
    ("deep.toml", "a = " + "{b=" * 3000 + "1" + "}" * 3000 + "\n", "nested too deeply"),
    ("bigint.toml", "decks = 1" + "0" * 5000 + "\n", "a number is too long"),
    ("pen.toml", '[rules]\npenetration = "1e999999999"\n', "[rules] penetration must be"),
    ("penf.toml", "[rules]\npenetration = 1e300\n", "[rules] penetration must be"),
    ("peninf.toml", "[rules]\npenetration = nan\n", "[rules] penetration must be"),
    ("lim.toml", '[limits]\nmax = "1e999999999"\n', "[limits] max:"),
    ("limf.toml", "[limits]\nmax = 1e308\n", "[limits] max:"),
    ("binary.toml", bytes(range(256)) * 4, "is not UTF-8 text"),
    ("long.toml", 'name = "' + "x" * 100_000 + '"\n', "is larger than 64 KiB"),
    ("neg.toml", '[limits]\nmin = "-5"\n', "blackjack table minimum -5.00 is negative"),
    ("minmax.toml", '[limits]\nmin = "50"\nmax = "10"\n', "minimum 50.00 exceeds its maximum"),
])
def test_bad_rules_submission_files(tmp_path: Path, name: str, content: str | bytes,
                                    match: str) -> None:
    path = _write(tmp_path / name, content)
    for command in (["play", "--config", str(path)],
                    ["simulate", "--rounds", "10", "--config", str(path)]):
        _one_error(command, match)


def test_a_sparse_terabyte_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as f:
        f.truncate(1 << 40)
    _one_error(["play", "--replay", str(path)], "larger than 64 MiB")
    toml = tmp_path / "huge.toml"
    with toml.open("wb") as f:
        f.truncate(1 << 40)
    _one_error(["check-table", str(toml)], "larger than 64 KiB")


def test_min_above_max_or_negative_limits_are_not_compliant() -> None:
    assert TableConfig(limits={"blackjack": Limits(50_00, 10_00)}).violations()
    assert TableConfig(limits={"trilux": Limits(-1, None)}).violations()
    assert TableConfig(limits={"blackjack": Limits(None, -1)}).violations()
    assert not TableConfig(limits={"blackjack": Limits(5_00, 10_00)}).violations()


@pytest.mark.slow
@pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")
def test_usage_errors_are_one_line_in_a_real_process() -> None:
    for args in (["nope"], ["par", "--bogus"], ["settle", "trilux"]):
        result = subprocess.run([SIDEBET, *args], capture_output=True, text=True, timeout=60,
                                check=False)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: sidebet")


def test_a_negative_blackjack_wager_is_refused_for_what_it_is() -> None:
    """No Blackjack wager: the side wager's limit (a multiple of it) is not reported too."""
    result = subprocess.run(
        [sys.executable, "-m", "sidebet", "settle", "trilux", "--player", "AS KS", "--up", "QS",
         "--bet", "10", "--blackjack-bet", "-10"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == ("error: § 633c.11(c): TriLux Deluxe wager requires a Blackjack "
                             "wager first\n")
