"""Commands that do not compute answer without importing numba or Ray (issue 8 item 8), and
no command reads its options through pydantic (issue 25 item 2: ``sidebet.cli.coercion``);
``--help``, ``rules``, ``settle`` and ``check-table`` load no numpy either.

Each command runs in a fresh interpreter with ``-X importtime``, which lists every module
imported; the command list of ``sidebet --help`` is checked against the commands' own help.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from sidebet.cli.main import COMMANDS, _register, load_command

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "table-6deck.toml"
HEAVY = re.compile(r"\|\s+(numba|ray|llvmlite|openpyxl|pandas|pydantic|numpy)(\.|$)",
                   re.MULTILINE)


def imported(*args: str) -> tuple[str, set[str]]:
    """Run ``sidebet ARGS``: its stdout and the heavy top-level modules it imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sidebet", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, {m.group(1) for m in HEAVY.finditer(proc.stderr)}


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["rules"],
        ["rules", "trilux"],
        ["settle", "trilux", "--player", "7h 8h", "--up", "9h", "--bet", "10",
         "--blackjack-bet", "10"],
        ["settle", "--help"],
        ["check-table", str(EXAMPLE)],
    ],
)
def test_light_commands_import_no_numba(args: list[str]) -> None:
    out, heavy = imported(*args)
    assert out.strip()
    assert heavy == set()


@pytest.mark.slow
def test_computing_command_does_import_numba() -> None:
    """The check can fail: ``par`` of a depleted shoe runs a numba kernel (a full shoe's
    counts may come from the disk cache without one)."""
    out, heavy = imported("par", "blazing7s", "--format", "json", "--remove", "7D 7S")
    assert '"house_edge"' in out
    assert "numba" in heavy and "pydantic" not in heavy


@pytest.mark.slow
def test_par_with_a_warm_cache_imports_no_numba(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A full shoe's PAR counts come from the disk cache (``sidebet.native.diskcache``): the
    second ``par`` loads no kernel."""
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    first, heavy = imported("par", "trilux", "--decks", "6", "--format", "json")
    assert "numba" in heavy  # computed, then kept
    again, heavy = imported("par", "trilux", "--decks", "6", "--format", "json")
    assert again == first and heavy == {"numpy"}


def test_help_lists_every_command_with_its_own_summary() -> None:
    found: dict[str, str] = {}
    for module in sorted({e.module for e in COMMANDS.values()}):
        target = typer.Typer()
        _register(module, target)
        for name in typer.main.get_group(target).commands:
            found[name] = module
    assert found == {name: e.module for name, e in COMMANDS.items()}
    for name, entry in COMMANDS.items():
        help_text = load_command(name).help or ""
        first = " ".join(help_text.split("\n\n")[0].split())
        assert first == entry.summary, name


@pytest.mark.slow
def test_strategy_with_a_warm_cache_answers_the_same_without_numba(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sidebet strategy`` keeps its chart and exact house edge in the disk cache: the
    second run prints the same, table and JSON, without the analyser's kernels."""
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    table = ("strategy", "--decks", "2", "--h17")
    first, heavy = imported(*table)
    assert "numba" in heavy  # computed, then kept (one entry for both formats)
    again, heavy = imported(*table)
    assert again == first and heavy == {"numpy"}
    as_json, heavy = imported(*table, "--format", "json")
    assert heavy == {"numpy"} and json.loads(as_json)["house_edge"]["player_ev"] < 0
