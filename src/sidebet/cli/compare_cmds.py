"""``sidebet compare A.toml B.toml ...``: tables side by side, with the differences.

Each table's figures come from the analyses below the CLI (the exact PAR sheet, the
exact Blackjack house edge under its rules, the Press chart, the exposure screen of
:mod:`sidebet.vuln.design`); ``--sweep`` makes the tables from one Rules Submission by
changing one house rule, the deck count or the penetration.
"""

import json
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist
from typing import Annotated, Any

import typer
from rich.table import Table

from sidebet.cli.common import console, err_console, fail, handle_errors
from sidebet.cli.export import DataFormat, emit_data
from sidebet.core.bounded import parse_penetration
from sidebet.core.errors import SidebetError
from sidebet.regulation.house_rules import BlackjackPays
from sidebet.regulation.submission import TableConfig, load_table_config
from sidebet.regulation.wagers import PRESSABLE, WAGERS, get_wager

__all__ = ["RULE_TOKENS", "register", "variants"]

_Z90 = NormalDist().inv_cdf(0.95)

RULE_TOKENS: dict[str, dict[str, Any]] = {
    "s17": {"dealer_hits_soft_17": False},
    "h17": {"dealer_hits_soft_17": True},
    "bj32": {"blackjack_pays": BlackjackPays("3:2")},
    "bj65": {"blackjack_pays": BlackjackPays("6:5")},
    "das": {"double_after_split": True},
    "nodas": {"double_after_split": False},
    "ls": {"late_surrender": True},
    "nols": {"late_surrender": False},
    "sp2": {"max_split_hands": 2},
    "sp3": {"max_split_hands": 3},
    "sp4": {"max_split_hands": 4},
    "rsa": {"resplit_aces": True},
    "norsa": {"resplit_aces": False},
}
"""The house rules ``--sweep rule=A:B`` sets, by token."""


@dataclass(frozen=True, slots=True)
class Figure:
    """One row: a figure of every table (``None``: not offered or not computed)."""

    name: str
    values: tuple[float | None, ...]


def variants(base: TableConfig, label: str, text: str) -> list[tuple[str, TableConfig]]:
    """The tables ``--sweep`` makes from ``base``: ``rule=h17:s17`` (tokens of
    :data:`RULE_TOKENS`), ``decks=6:8`` or ``penetration=0.5:0.75``.

    >>> [name for name, _ in variants(TableConfig(), "t", "rule=h17:s17")]
    ['t h17', 't s17']
    """
    key, sep, values = text.partition("=")
    tokens = [v.strip() for v in values.split(":") if v.strip()]
    if not sep or len(tokens) < 2 or len(tokens) > 12:
        raise SidebetError(f"--sweep takes SETTING=A:B[:C...] (rule, decks or penetration), "
                           f"not {text[:40]!r}")
    out = []
    for token in tokens:
        if key == "rule":
            if token.lower() not in RULE_TOKENS:
                raise SidebetError(f"--sweep rule: unknown rule {token[:20]!r} (rules: "
                                   f"{', '.join(RULE_TOKENS)})")
            table = replace(base, rules=replace(base.rules, **RULE_TOKENS[token.lower()]))
        elif key == "decks":
            if not token.isdigit() or not 1 <= int(token) <= 8:
                raise SidebetError(f"--sweep decks: 1 to 8 decks, not {token[:20]!r}")
            table = replace(base, decks=int(token))
        elif key == "penetration":
            table = replace(base, rules=replace(base.rules,
                                                penetration=parse_penetration(token)))
        else:
            raise SidebetError(f"--sweep: SETTING is rule, decks or penetration, not "
                               f"{key[:20]!r}")
        out.append((f"{label} {token}", table))
    return out


def _table_figures(table: TableConfig, samples: int, sd: bool) -> dict[str, float | None]:
    """Every figure of one table by name (the base game's exact SD only with ``sd``)."""
    from sidebet.exact.blackjack.house_edge import house_edge
    from sidebet.exact.par import par_sheet
    from sidebet.vuln.design import exposure

    out: dict[str, float | None] = {"decks": float(table.decks),
                                    "penetration": float(table.rules.penetration)}
    he = house_edge(table.decks, table.rules, "td")
    out["Blackjack: house edge (basic strategy)"] = he.house_edge
    if sd:
        out["Blackjack: SD per round"] = he.std_dev
    for wid, paytable in table.side_wagers.items():
        w = get_wager(wid)
        sheet = par_sheet(w, table.decks, paytable)
        name = w.name
        out[f"{name}: house edge"] = float(sheet.house_edge)
        out[f"{name}: hit frequency"] = float(sheet.hit_frequency)
        out[f"{name}: SD"] = sheet.std_dev
        out[f"{name}: volatility index (90%)"] = _Z90 * sheet.std_dev
        out[f"{name}: largest win (to 1)"] = float(max(line.pays for line in sheet.lines))
        out[f"{name}: compliant"] = float(sheet.compliant)
        screen = exposure(wid, table.decks, paytable, table.rules.penetration, samples)
        out[f"{name}: exposure, perfect play units/100"] = screen[0]
    if PRESSABLE.id in table.side_wagers and PRESSABLE.offered_with(table.decks) and \
            table.paytable_name(PRESSABLE.id) == PRESSABLE.paytable(None, table.decks).name:
        from sidebet.exact.blackjack.press import press_chart

        summary = press_chart(table.decks, table.rules).summary
        out[f"Press: value per {PRESSABLE.name} unit"] = summary.optimal
        out["Press: share of wins pressed"] = summary.press_share
        out["Press: element of risk, optimal pressing"] = summary.element_of_risk("optimal")
    return out


def _figures(tables: list[tuple[str, TableConfig]], samples: int, sd: bool) -> list[Figure]:
    per = []
    for label, table in tables:
        err_console.print(f"compare: {label}")
        per.append(_table_figures(table, samples, sd))
    names: list[str] = []
    for figures in per:
        names += [n for n in figures if n not in names]
    order = {w.name: n for n, w in enumerate(WAGERS.values())}

    first = {"Blackjack": 1, "Press": 2}

    def key(name: str) -> tuple[int, int]:
        head = name.split(":")[0]
        group = first.get(head, 3 + order.get(head, len(order)))
        return (0 if ":" not in name else group, names.index(name))

    return [Figure(n, tuple(f.get(n) for f in per)) for n in sorted(names, key=key)]


def _json(labels: list[str], figures: list[Figure]) -> dict[str, Any]:
    rows = []
    for f in figures:
        first = f.values[0]
        diffs = [None if v is None or first is None else v - first for v in f.values[1:]]
        rows.append({"figure": f.name, **dict(zip(labels, f.values, strict=True)),
                     **{f"{lab} - {labels[0]}": d
                        for lab, d in zip(labels[1:], diffs, strict=True)}})
    return {"tables": labels, "figures": rows}


def _show(value: float | None, name: str, diff: bool = False) -> str:
    if value is None:
        return "—"
    sign = "+" if diff else ""
    if any(k in name for k in ("house edge", "hit frequency", "share", "element of risk")):
        return f"{value:{sign}.4%}"
    if "compliant" in name and not diff:
        return "yes" if value else "NO"
    return f"{value:{sign},.4f}"


@handle_errors
def compare_cmd(
    configs: Annotated[list[Path] | None, typer.Argument(
        help="Rules Submission files (TOML); with --sweep, one (or none: a 6-deck table "
        "offering every regulated wager).")] = None,
    sweep: Annotated[str | None, typer.Option(
        help="Tables from one: rule=h17:s17 (rules: s17 h17 bj32 bj65 das nodas ls nols "
        "sp2 sp3 sp4 rsa norsa), decks=6:8 or penetration=0.5:0.75.")] = None,
    samples: Annotated[int, typer.Option(help="Depleted shoes of the exposure screen.")
                       ] = 2000,
    sd: Annotated[bool, typer.Option(
        "--sd", help="Also the base game's exact SD per round (splits' hands valued jointly: "
                     "seconds more per table).")] = False,
    fmt: Annotated[DataFormat, typer.Option("--format", help="table, json, csv or xlsx.")
                   ] = DataFormat.table,
) -> None:
    """Every figure of two or more tables side by side, with the differences from the
    first: each wager's house edge, hit frequency, SD, volatility, largest win and
    counting exposure, the Press and the base game's edge under its rules."""
    files = configs or []
    if not 10 <= samples <= 100_000:
        raise fail(f"--samples must be 10 to 100,000, not {samples}")
    if sweep is None:
        if len(files) < 2:
            raise fail("name two or more Rules Submissions to compare, or one with --sweep")
        tables = [(p.stem, load_table_config(p)) for p in files]
    else:
        if len(files) > 1:
            raise fail("--sweep makes the tables from one Rules Submission: name one or none")
        base = load_table_config(files[0]) if files else _regulated_table()
        tables = variants(base, files[0].stem if files else "table", sweep)
    labels = [t[0] for t in tables]
    if len(set(labels)) != len(labels):
        labels = [f"{n + 1}:{lab}" for n, lab in enumerate(labels)]
    figures = _figures(tables, samples, sd)
    data = _json(labels, figures)
    if fmt is DataFormat.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    if emit_data(data, "compare", fmt.value, main=data["figures"]):
        return
    out = Table(title="compare: " + " | ".join(labels), title_justify="left")
    out.add_column("figure")
    for lab in labels:
        out.add_column(lab, justify="right")
    for lab in labels[1:]:
        out.add_column(f"{lab} - {labels[0]}", justify="right")
    for f in figures:
        first = f.values[0]
        diffs = [None if v is None or first is None else v - first for v in f.values[1:]]
        out.add_row(f.name, *(_show(v, f.name) for v in f.values),
                    *(_show(d, f.name, diff=True) for d in diffs))
    target = console
    if not console.is_terminal:
        from rich.console import Console

        target = Console(highlight=False, width=200)
    target.print(out)


def _regulated_table() -> TableConfig:
    """A 6-deck table offering every regulated wager with its paytable."""
    from sidebet.sim import default_sides, resolve_sides

    return TableConfig(decks=6, side_wagers=dict(resolve_sides(list(default_sides(6)), 6)))


def register(app: typer.Typer) -> None:
    """Add ``compare`` to ``app``."""
    app.command("compare")(compare_cmd)
