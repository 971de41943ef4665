"""Every command's output fits an 80-column terminal without wrapping mid-word, and every
``--format`` a command offers works."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

SIDEBET = str(Path(sys.executable).with_name("sidebet"))
ENV = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb",
       "PYTHONIOENCODING": "utf-8"}
SETTLE = ["settle", "trilux", "--player", "As Kd", "--up", "7c", "--bet", "5",
          "--blackjack-bet", "10"]


def _toml(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text('decks = 6\n[limits]\nmin = "50"\nmax = "10"\n[side_wagers.trilux]\n'
                    'paytable = "TLX-3"\n', encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")
def test_every_command_fits_80_columns(tmp_path: Path) -> None:
    commands = [["rules"], ["par", "trilux"], ["par", "top3", "--format", "markdown"],
                SETTLE, ["check-table", str(_toml(tmp_path))], ["strategy", "--decks", "2"],
                ["press", "--decks", "6"],
                ["simulate", "--rounds", "2000", "--seed", "1", "--no-progress"],
                ["--help"], ["simulate", "--help"]]
    for args in commands:
        result = subprocess.run([SIDEBET, *args], capture_output=True, text=True, env=ENV,
                                timeout=300, check=False)
        assert result.returncode in (0, 1), (args, result.stderr)
        long = [line for line in result.stdout.splitlines() if len(line) > 80]
        assert not long, (args, long)


@pytest.mark.slow
@pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")
def test_the_game_fits_80_columns() -> None:
    child = pexpect.spawn(SIDEBET, ["play", "--seed", "1"], env=ENV, encoding="utf-8",
                          timeout=60, dimensions=(24, 80))
    log = io.StringIO()
    child.logfile_read = log
    child.expect(r"Seat 1 Blackjack wager")
    child.sendline("10")
    child.expect("TriLux Deluxe wager")
    child.sendline("5")
    for _ in range(4):
        child.expect(r"wager \[Enter = none\]: ")
        child.sendline("")
    child.expect(r"\?\)advice: ")
    child.sendline("?")
    child.expect(r"\?\)advice: ")
    child.sendline("s")
    child.expect("Another round")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    lines = log.getvalue().replace("\r", "").split("\n")
    assert any("Shoe commitment" in line for line in lines)
    assert any("EV per unit wagered" in line for line in lines)
    long = [line for line in lines if len(line) > 80]
    assert not long, long


@pytest.mark.parametrize("args, formats", [
    (["par", "trilux"], ["table", "json", "csv", "markdown"]),
    (SETTLE, ["table", "json"]),
    (["strategy", "--decks", "1"], ["table", "json"]),
    (["press", "--decks", "1"], ["table", "json"]),
    (["simulate", "--rounds", "500", "--seed", "2", "--no-progress"], ["table", "json"]),
])
def test_every_offered_format_works(args: list[str], formats: list[str]) -> None:
    for fmt in formats:
        result = CliRunner().invoke(app, [*args, "--format", fmt])
        assert result.exit_code == 0, (args, fmt, result.output)
        if fmt == "json":
            json.loads(result.stdout)
        else:
            assert result.stdout.strip() and not result.stdout.lstrip().startswith("{")
