"""``--format csv`` and ``--format xlsx``: a command's JSON figures as spreadsheets.

The tables come from :func:`sidebet.core.tabular.sheets` (numbers and labels only: exact
fractions, units and intervals in columns of their own).  CSV holds the command's main
table; an XLSX workbook (openpyxl, imported only here and only when asked for) holds
every table, one sheet each, with number formats and the header row frozen.  The
workbook goes to standard output, which must then be a file or a pipe.
"""

from __future__ import annotations

import io
import re
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sidebet.core.errors import SidebetError

if TYPE_CHECKING:  # the writers import them when a spreadsheet is asked for
    from sidebet.core.tabular import Cell, Sheet

__all__ = ["MONEY_FORMAT", "DataFormat", "csv_text", "emit_data", "numeric_money", "sections_csv",
           "xlsx_bytes"]

MONEY_FORMAT = "#,##0.00"
"""The number format of an amount of money in a workbook."""

_EXCEL_DIGITS = 10**15
"""Whole numbers from here up lose digits in a spreadsheet: written as text."""


class DataFormat(StrEnum):
    """The ``--format`` choices of commands whose figures also go to spreadsheets."""

    table = "table"
    json = "json"
    csv = "csv"
    xlsx = "xlsx"


def _csv_cell(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(table: Sheet) -> str:
    """One table as CSV: a header row, then numbers as Python writes them exactly."""
    import csv

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([_csv_cell(v) for v in row])
    return buf.getvalue()


def _sheet_title(name: str, taken: set[str]) -> str:
    base = "".join(ch if ch not in "[]:*?/\\" else " " for ch in name)[:31] or "sheet"
    title, n = base, 2
    while title.lower() in taken:
        suffix = f" {n}"
        title, n = base[: 31 - len(suffix)] + suffix, n + 1
    taken.add(title.lower())
    return title


def xlsx_bytes(tables: list[Sheet], formats: dict[tuple[str, str], str] | None = None
               ) -> bytes:
    """Every table as a sheet of one workbook: bold frozen header, number formats
    (``formats``: a number format by table and column name, e.g. money)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    book.remove(book.active)
    taken: set[str] = set()
    bold = Font(bold=True)
    for table in tables:
        ws = book.create_sheet(_sheet_title(table.name, taken))
        ws.append(list(table.columns))
        for cell in ws[1]:
            cell.font = bold
        for row in table.rows:
            ws.append([str(v) if isinstance(v, int) and abs(v) >= _EXCEL_DIGITS else v
                       for v in row])
        for n, column in enumerate(table.columns, start=1):
            letter = get_column_letter(n)
            whole = column.endswith(("_numerator", "_denominator"))
            given = (formats or {}).get((table.name, column))
            for (cell,) in ws.iter_rows(min_row=2, min_col=n, max_col=n):
                if isinstance(cell.value, bool):
                    continue
                if given is not None and isinstance(cell.value, int | float):
                    cell.number_format = given
                elif isinstance(cell.value, int):
                    cell.number_format = "0" if whole else "#,##0"
                elif isinstance(cell.value, float):
                    cell.number_format = "0.000000"
            ws.column_dimensions[letter].width = min(max(len(column) + 2, 10), 40)
        ws.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


_MONEY = re.compile(r"-?\d+\.\d\d")


def numeric_money(tables: list[Sheet]) -> tuple[list[Sheet], dict[tuple[str, str], str]]:
    """``tables`` with every amount of money (a decimal string of whole cents, as the JSON
    writes money) as a number, and the money columns' number format by table and column."""
    from decimal import Decimal

    from sidebet.core.tabular import Sheet

    out, formats = [], {}
    for t in tables:
        rows = []
        for row in t.rows:
            new: list[Cell] = []
            for column, v in zip(t.columns, row, strict=True):
                if isinstance(v, str) and _MONEY.fullmatch(v):
                    formats[(t.name, column)] = MONEY_FORMAT
                    new.append(float(Decimal(v)))
                else:
                    new.append(v)
            rows.append(tuple(new))
        out.append(Sheet(t.name, t.columns, tuple(rows)))
    return out, formats


def sections_csv(tables: list[Sheet]) -> str:
    """Several tables in one CSV text, each a section: a line ``# <table name>``, its
    header row and its rows, then a blank line."""
    return "\n".join(f"# {t.name}\n{csv_text(t)}" for t in tables)


def emit_data(data: Any, name: str, fmt: str, main: Any = None) -> bool:
    """Write ``data`` (a JSON document) as CSV or XLSX when ``fmt`` asks for one; ``False``
    for any other format (the command prints it).  CSV holds the table of ``main`` (a
    list of objects; default: the largest table of ``data``)."""
    if fmt not in (DataFormat.csv, DataFormat.xlsx):
        return False
    from sidebet.core.tabular import principal, sheets

    tables = sheets(data, name)
    if not tables:
        raise SidebetError("nothing to write: the result has no figures")
    if fmt == DataFormat.csv:
        print(csv_text(principal(tables if main is None else sheets(main, name))), end="")
        return True
    if sys.stdout.isatty():
        raise SidebetError("--format xlsx writes a workbook: redirect it to a file "
                           "(... --format xlsx > figures.xlsx)")
    sys.stdout.flush()
    sys.stdout.buffer.write(xlsx_bytes(tables))
    sys.stdout.buffer.flush()
    return True
