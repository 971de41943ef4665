"""``--format csv`` and ``--format xlsx``: numbers in cells, the same numbers as the JSON."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import openpyxl
import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.core.tabular import sheets, to_dataframes

runner = CliRunner()

COMMANDS = [
    ["par", "blazing7s"],
    ["par", "--all", "--decks", "6"],
    ["eor", "top3"],
    ["vulnerability", "blazing7s", "--rounds", "2000", "--seed", "1", "--no-progress"],
    ["simulate", "--rounds", "500", "--seed", "2", "--no-progress"],
    ["press", "--decks", "1"],
    ["rng-test", "--shoes", "30", "--seed", "1"],
]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _columns(text: str) -> dict[str, list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    return {name: [r[n] for r in rows[1:]] for n, name in enumerate(rows[0])}


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_csv_cells_are_numbers_or_labels(args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--format", "csv"])
    assert result.exit_code == 0, result.output
    columns = _columns(result.stdout)
    assert len(columns) > 2
    numeric = 0
    for name, cells in columns.items():
        filled = [c for c in cells if c]
        numeric += bool(filled) and all(_is_number(c) for c in filled)
        # labels are names (a card rank may be "2"), never a formatted number
        for cell in filled:
            assert not any(mark in cell for mark in ("%", " to ", "≥", "±", "—")), (name, cell)
    assert numeric >= 2, columns.keys()


def test_vulnerability_csv_keeps_intervals_in_their_own_columns() -> None:
    result = runner.invoke(app, ["vulnerability", "blazing7s", "--rounds", "2000", "--seed",
                                 "1", "--no-progress", "--format", "csv"])
    columns = _columns(result.stdout)
    assert {"units_per_100", "units_per_100_ci_low", "units_per_100_ci_high",
            "frequency", "trigger"} <= columns.keys()
    assert columns["count"][-2:] == ["perfect play", "every round"]


def _xlsx(args: list[str]) -> openpyxl.Workbook:
    result = runner.invoke(app, [*args, "--format", "xlsx"])
    assert result.exit_code == 0, result.output
    return openpyxl.load_workbook(io.BytesIO(result.stdout_bytes))


def _sheet_records(book: openpyxl.Workbook, title: str) -> list[dict[str, object]]:
    rows = list(book[title].iter_rows(values_only=True))
    return [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]


def test_xlsx_holds_the_json_numbers_with_frozen_headers() -> None:
    data = json.loads(runner.invoke(app, ["par", "blazing7s", "--format", "json"]).stdout)
    book = _xlsx(["par", "blazing7s"])
    assert book.sheetnames == ["par", "par outcomes"]
    assert all(ws.freeze_panes == "A2" for ws in book)
    (top,) = _sheet_records(book, "par")
    assert top["house_edge"] == pytest.approx(data["house_edge"], rel=1e-15)
    assert f"{top['exact_house_edge_numerator']}/{top['exact_house_edge_denominator']}" == \
        data["exact"]["house_edge"]
    lines = _sheet_records(book, "par outcomes")
    assert [r["combinations"] for r in lines] == [o["combinations"] for o in data["outcomes"]]
    # a workbook keeps 16 significant digits (openpyxl writes %.16g)
    assert [r["probability"] for r in lines] == pytest.approx(
        [o["probability"] for o in data["outcomes"]], rel=1e-15)
    assert book["par outcomes"]["E2"].number_format in ("#,##0", "0.000000", "General")


def test_xlsx_of_eor_and_vulnerability_match_their_json() -> None:
    data = json.loads(runner.invoke(app, ["eor", "top3", "--format", "json"]).stdout)
    effects = _sheet_records(_xlsx(["eor", "top3"]), "eor effects")
    assert [e["effect"] for e in effects] == pytest.approx(
        [e["effect"] for e in data["effects"]], rel=1e-15)
    args = ["vulnerability", "blazing7s", "--rounds", "2000", "--seed", "1", "--no-progress"]
    vj = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    rows = _sheet_records(_xlsx(args), "vulnerability rows")
    assert [r["units_per_100_ci_low"] for r in rows] == pytest.approx(
        [r["units_per_100_ci"][0] for r in vj["rows"]], rel=1e-15)


def test_xlsx_refuses_a_terminal_and_openpyxl_is_imported_only_for_xlsx() -> None:
    code = ("import sys, sidebet.cli.main as m\n"
            "def run(fmt, tty):\n"
            "    sys.argv = ['sidebet', 'par', 'trilux', '--format', fmt]\n"
            "    sys.stdout.isatty = lambda: tty\n"
            "    try: m.app()\n"
            "    except SystemExit as e: print('rc', e.code, 'openpyxl' in sys.modules,"
            " file=sys.stderr)\n"
            "run('csv', False)\nrun('xlsx', True)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "rc 0 False", proc.stderr  # CSV: no openpyxl
    assert "redirect it to a file" in lines[1] and lines[2] == "rc 2 False", proc.stderr


def test_tables_and_dataframes() -> None:
    doc = {"wager": "w", "exact": {"edge": "1/3"}, "lines": [{"o": "a", "ci": [1, 2]}]}
    main, lines = sheets(doc, "x")
    assert main.numeric_columns() == ("exact_edge", "exact_edge_numerator",
                                      "exact_edge_denominator")
    assert math.isclose(main.rows[0][1], 1 / 3) and lines.rows == (("w", "a", 1, 2),)
    pytest.importorskip("pandas")
    frames = to_dataframes(doc, "x")
    assert list(frames["x lines"].columns) == ["wager", "o", "ci_low", "ci_high"]
