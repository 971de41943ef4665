"""Commands that do not compute answer without importing numba or Ray; ``--help``,
``rules``, ``settle`` and ``check-table`` load no numpy either.

Each command runs in a fresh interpreter with ``-X importtime``, which lists every module
imported; the command list of ``sidebet --help`` is checked against the commands' own help.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from sidebet.cli.main import COMMANDS, _register, load_command

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "table-6deck.toml"
HEAVY = re.compile(r"\|\s+(numba|ray|llvmlite|openpyxl|pandas|numpy)(\.|$)",
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
    assert "numba" in heavy


@pytest.mark.slow
def test_par_with_a_warm_cache_imports_no_numba(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A full shoe's PAR counts come from the disk cache (``sidebet.native.diskcache``, as
    JSON text): the second ``par`` loads no kernel, nor numpy."""
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    first, heavy = imported("par", "trilux", "--decks", "6", "--format", "json")
    assert {"numba", "numpy"} <= heavy  # computed, then kept
    again, heavy = imported("par", "trilux", "--decks", "6", "--format", "json")
    assert again == first and heavy == set()
    found = modules("par", "trilux", "--decks", "6",
                    env={**os.environ, "SIDEBET_CACHE_DIR": str(tmp_path)})
    assert "sidebet.exact.par" in found  # settle's and check-table's modules are not:
    assert _under(found, "sidebet.regulation.submission", "tomllib") == set()


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
    """``sidebet strategy`` keeps its chart and exact house edge in the disk cache (as
    JSON text): the second run prints the same, table and JSON, without the analyser's
    kernels or numpy."""
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    table = ("strategy", "--decks", "2", "--h17")
    first, heavy = imported(*table)
    assert {"numba", "numpy"} <= heavy  # computed, then kept (one entry for both formats)
    again, heavy = imported(*table)
    assert again == first and heavy == set()
    as_json, heavy = imported(*table, "--format", "json")
    assert heavy == set() and json.loads(as_json)["house_edge"]["player_ev"] < 0
    found = modules(*table, env={**os.environ, "SIDEBET_CACHE_DIR": str(tmp_path)})
    assert "sidebet.regulation.house_rules" in found
    assert "sidebet.regulation.wagers" not in found  # the side wagers: ``press`` only


def modules(*args: str, env: dict[str, str] | None = None) -> set[str]:
    """Every module ``sidebet ARGS`` imports (it must succeed)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sidebet", *args],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line} - {"imported package"}


HELP_ONLY = ("typer.rich_utils", "rich.markdown", "markdown_it", "rich.traceback", "pygments")
"""What typer loads to draw help and tracebacks: no command's answer needs it."""


def _under(found: set[str], *prefixes: str) -> set[str]:
    return {m for m in found if any(m == p or m.startswith(p + ".") for p in prefixes)}


@pytest.mark.slow
def test_help_loads_only_the_command_line_of_sidebet() -> None:
    """``import sidebet`` imports nothing of its own (the facade's names load on first use),
    so ``sidebet --help`` loads the CLI's plumbing and no wager, shoe or cache digest."""
    found = modules("--help")
    ours = {m for m in found if m.split(".")[0] == "sidebet"}
    assert ours <= {"sidebet", "sidebet.cli", "sidebet.cli.main", "sidebet.cli.common",
                    "sidebet.core", "sidebet.core.errors"}, ours
    assert "sidebet.regulation.wagers" not in found and "hashlib" not in found


@pytest.mark.slow
def test_settle_loads_neither_the_kernels_digest_nor_typers_help() -> None:
    found = modules("settle", "trilux", "--player", "7h 8h", "--up", "9h", "--bet", "10",
                    "--blackjack-bet", "10")
    assert _under(found, "sidebet.native", "sidebet.exact", "sidebet.sim", "numpy") == set()
    assert _under(found, *HELP_ONLY) == set()


@pytest.mark.slow
def test_simulate_loads_rich_for_its_table_but_not_typers_help(tmp_path: Path) -> None:
    env = {**os.environ, "SIDEBET_CACHE_DIR": str(tmp_path)}
    found = modules("simulate", "--rounds", "1000", "--seed", "1", "--no-progress",
                    "--side", "none", "--strategy", "chart", env=env)
    assert "rich.table" in found  # the check can fail: the table is drawn by rich
    assert _under(found, *HELP_ONLY) == set()


def test_commands_options_are_read_without_evaluating_strings() -> None:
    """The command modules keep real annotations (no ``from __future__ import
    annotations``): typer reads each option as built at import instead of compiling and
    evaluating its annotation string whenever it builds the command."""
    import inspect

    for name in COMMANDS:
        callback = load_command(name).callback
        assert callback is not None, name
        found = inspect.get_annotations(inspect.unwrap(callback))
        assert found and not any(isinstance(v, str) for v in found.values()), name
