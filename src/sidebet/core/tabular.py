"""JSON figures as flat tables of numbers, for spreadsheets and data frames.

Every analysis gives its figures as JSON (``to_json()``); :func:`sheets` lays one such
document out as named tables whose cells are numbers or labels, never formatted text:
an exact fraction ``"3632/125333"`` becomes two integer columns (``_numerator``,
``_denominator``), an interval ``[low, high]`` two columns (``_low``, ``_high``), a
boolean 1 or 0, and a nested object its own columns (``exact_house_edge_...``).  A list
of objects becomes a table of its own whose rows repeat the labels of the row they
belong to (the wager, the count), so each table reads alone.

>>> for s in sheets({"wager": "top3", "edge": "1/8", "ci": [0.1, 0.2],
...                  "lines": [{"outcome": "x", "pays": 3}]}, "par"):
...     print(s.name, s.columns, s.rows)
par ('wager', 'edge', 'edge_numerator', 'edge_denominator', 'ci_low', 'ci_high') (('top3', 0.125, 1, 8, 0.1, 0.2),)
par lines ('wager', 'outcome', 'pays') (('top3', 'x', 3),)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Cell", "Sheet", "principal", "sheets", "to_dataframes"]

Cell = int | float | str | None
"""A number, a label, or nothing."""

_FRACTION = re.compile(r"-?\d+/\d+")
_MAX_LABELS = 3


@dataclass(frozen=True, slots=True)
class Sheet:
    """One table: a name, its columns, its rows (numbers and labels)."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def numeric_columns(self) -> tuple[str, ...]:
        """Columns holding numbers (every cell a number or empty)."""
        return tuple(c for n, c in enumerate(self.columns)
                     if all(r[n] is None or isinstance(r[n], int | float) for r in self.rows))


def _cells(key: str, value: Any, out: dict[str, Cell]) -> list[tuple[str, list[Any]]]:
    """Put ``value``'s cells under ``key`` into ``out``; return its lists of objects."""
    children: list[tuple[str, list[Any]]] = []
    if isinstance(value, bool):
        out[key] = int(value)
    elif isinstance(value, int | float) or value is None:
        out[key] = value
    elif isinstance(value, str):
        if _FRACTION.fullmatch(value):
            exact = Fraction(value)
            out[key] = float(exact)
            out[f"{key}_numerator"] = exact.numerator
            out[f"{key}_denominator"] = exact.denominator
        else:
            out[key] = value
    elif (isinstance(value, Mapping) and len(value) >= 3 and key
          and all(isinstance(v, Mapping) for v in value.values())):
        name = key.rsplit("_", 1)[-1]  # a table keyed by name: one row per key
        children.append((key, [{name: str(k), **v} for k, v in value.items()]))
    elif isinstance(value, Mapping):
        for k, v in value.items():
            children += _cells(f"{key}_{k}" if key else str(k), v, out)
    elif isinstance(value, Sequence):
        items = list(value)
        if len(items) == 2 and all(isinstance(x, int | float) and not isinstance(x, bool)
                                   for x in items):
            out[f"{key}_low"], out[f"{key}_high"] = items
        elif items and all(isinstance(x, Mapping) for x in items):
            children.append((key, items))
        elif items and all(isinstance(x, int | float | str) for x in items):
            for n, x in enumerate(items):
                _cells(f"{key}_{n + 1}", x, out)
    return children


def _table(name: str, records: list[Any], labels: list[dict[str, Cell]],
           acc: list[Sheet]) -> None:
    """``records`` as the table ``name`` (each row after its ``labels``), then their lists
    of objects as tables of their own."""
    rows: list[dict[str, Cell]] = []
    nested: dict[str, tuple[list[Any], list[dict[str, Cell]]]] = {}
    for record, label in zip(records, labels, strict=True):
        row: dict[str, Cell] = dict(label)
        kids = _cells("" if isinstance(record, Mapping) else "value", record, row)
        rows.append(row)
        keep: dict[str, Cell] = dict(
            [(k, v) for k, v in row.items() if isinstance(v, str)][:_MAX_LABELS])
        for key, items in kids:
            got = nested.setdefault(key, ([], []))
            got[0].extend(items)
            got[1].extend([keep] * len(items))
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    if columns:
        acc.append(Sheet(name, tuple(columns),
                         tuple(tuple(row.get(c) for c in columns) for row in rows)))
    for key, (items, item_labels) in nested.items():
        _table(f"{name} {key}", items, item_labels, acc)


def sheets(data: Any, name: str) -> list[Sheet]:
    """``data`` (a JSON document: an object or a list of objects) as tables, the first
    named ``name``."""
    acc: list[Sheet] = []
    records = list(data) if isinstance(data, list) else [data]
    _table(name, records, [{}] * len(records), acc)
    return acc


def principal(tables: list[Sheet]) -> Sheet:
    """The table a CSV file holds: the one with the most rows (the first among equals)."""
    return max(tables, key=lambda s: len(s.rows))


def to_dataframes(data: Any, name: str = "data") -> dict[str, Any]:
    """The tables of ``data`` (or of ``data.to_json()``) as pandas DataFrames, by name;
    pandas is an optional extra (``pip install sidebet[frames]``)."""
    try:
        import pandas as pd
    except ImportError:
        from sidebet.core.errors import SidebetError

        raise SidebetError("DataFrames need pandas: pip install 'sidebet[frames]'") from None
    doc = data.to_json() if hasattr(data, "to_json") else data
    return {s.name: pd.DataFrame(list(s.rows), columns=list(s.columns))
            for s in sheets(doc, name)}
