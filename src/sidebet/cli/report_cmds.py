"""``sidebet report`` (the game-math report) and ``sidebet rng-test`` (the shuffle's battery).

Nothing heavy is imported at module level: ``sidebet --help`` must not load matplotlib,
scipy or numba; each command imports what it computes with when it runs.
"""

import contextlib
import json
import shlex
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from sidebet.cli.common import console, err_console, fail, handle_errors
from sidebet.cli.export import DataFormat as Format
from sidebet.cli.export import emit_data
from sidebet.core.bounded import MAX_ROUNDS, parse_count

MAX_SHOES = 10**9
"""The most shuffled shoes the RNG battery may ask for."""


class ShuffleName(StrEnum):
    """The shuffles ``sidebet rng-test --shuffle`` tests."""

    table = "table"
    live = "live"
    simulator = "simulator"
    server = "server"


def _server_shoes(decks: int, shoes: int, seed: int) -> Any:
    """Shoes from the server's HMAC-SHA256 Fisher–Yates (``sidebet.serve.fair.shuffle``),
    shoe ``k`` with the test server seed of ``("rng-<seed>", 0, k)`` and nonce ``"0:<k>"``."""
    import numpy as np

    from sidebet.core.errors import SidebetError
    from sidebet.serve.fair import shuffle, test_server_seed

    if shoes < 1:
        raise SidebetError("the battery needs at least 1 shoe (--shoes)")
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    return np.array([shuffle(test_server_seed(f"rng-{seed}", 0, k), [], f"0:{k}", decks)
                     for k in range(shoes)], dtype=np.int64)


SERVER = ("server", ("the server's shuffle (sidebet.serve.fair: HMAC-SHA256 Fisher–Yates; "
                     "shoe k with the test server seed of (rng-S, 0, k), no client seed)",
                     _server_shoes))

__all__ = ["register"]


@handle_errors
def rng_test(
    shoes: Annotated[str, typer.Option(help="Shoes to shuffle and test (e.g. 1e5).")] = "20000",
    decks: Annotated[int, typer.Option(help="Decks per shoe (1-8).")] = 6,
    seed: Annotated[int | None, typer.Option(
        help="Seed: shoe k is shuffled with seed S+k, as a table seeded S deals them "
        "(default: the unseeded cryptographic shuffle).")] = None,
    history: Annotated[Path | None, typer.Option(
        help="Test the revealed shoes of a session history (sidebet play --save) "
        "instead, after auditing them.")] = None,
    shuffle: Annotated[ShuffleName | None, typer.Option(
        help="The shuffle to test: table (seeded as a table deals), live (the table's "
        "unseeded shuffle), simulator (SplitMix64) or server (HMAC Fisher–Yates); needs "
        "--seed but for live.")] = None,
    fmt: Annotated[Format, typer.Option("--format", help="table, json, csv or xlsx.")
                   ] = Format.table,
) -> None:
    """Statistical battery on the shuffle (§ 810a.5: chi-square card-by-position, gap,
    poker, runs, serial correlation, coupon collector, Kolmogorov–Smirnov, permutation) with
    each test's statistic and p-value, 95% level, and the battery's verdict."""
    from sidebet.report.rng import SHUFFLES, history_shoes, run_battery, shuffled_shoes

    if history is not None:
        from sidebet.table.history import load_history

        orders, n_decks = history_shoes(load_history(history))
        result = run_battery(orders, n_decks, source=f"revealed shoes of {history}")
    elif shuffle is not None:
        if shuffle is not ShuffleName.live and seed is None:
            raise fail(f"--shuffle {shuffle.value} needs a --seed")
        n = parse_count(shoes, "--shoes", high=MAX_SHOES)
        text, make = dict([SERVER]).get(shuffle.value) or SHUFFLES[shuffle.value]
        result = run_battery(make(decks, n, seed or 0), decks, seed=seed, source=text)
    else:
        n = parse_count(shoes, "--shoes", high=MAX_SHOES)
        source = "shuffled_order, seed S+k" if seed is not None else (
            "shuffled_order, unseeded (secrets.SystemRandom)")
        result = run_battery(shuffled_shoes(decks, n, seed), decks, seed=seed, source=source)
    if fmt is Format.json:
        print(json.dumps(result.to_json(), indent=2))
        return
    if emit_data(result.to_json(), "rng-test", fmt.value):
        return
    from rich.table import Table

    table = Table(
        title=f"RNG battery: {result.shoes:,} shoes of {result.decks} deck(s) "
        f"({result.source}), 95% level",
        title_justify="left",
    )
    for col, justify in (("Test", "left"), ("Statistic", "right"), ("df", "right"),
                         ("p-value", "right"), ("Result", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for t in result.tests:
        if t.p_value is None or t.statistic is None:
            table.add_row(t.name, "", "", "", t.note)
            continue
        table.add_row(
            t.name,
            f"{t.statistic:.4f}",
            "" if t.dof is None else str(t.dof),
            f"{t.p_value:.4f}",
            "[green]pass[/]" if t.passed else "[red]FAIL[/]",
        )
    console.print(table)
    console.print(f"Battery: {result.summary}")


@contextlib.contextmanager
def _stages(show: bool) -> Iterator[Callable[[str, int, int], None]]:
    """The report's stages on stderr (when ``show``): a line for each, and for each stage
    that reports its parts a bar with the time left; yields ``progress(stage, done, whole)``."""
    if not show:
        yield lambda stage, done, whole: None
        return
    if not err_console.is_terminal:  # a log: one line as each stage starts
        seen: set[str] = set()

        def line(stage: str, done: int, whole: int) -> None:
            if stage not in seen:
                seen.add(stage)
                err_console.print(f"report: {stage}" + (f" ({whole:,})" if whole else ""))

        yield line
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TaskID,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("report: {task.description}"), BarColumn(), TaskProgressColumn(),
                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                  console=err_console) as bar:
        tasks: dict[str, tuple[TaskID, int]] = {}

        def finish() -> None:
            for task, whole in tasks.values():
                bar.update(task, completed=whole or 1, total=whole or 1)

        def progress(stage: str, done: int, whole: int) -> None:
            if stage not in tasks:
                finish()  # a new stage: those before it are done
                tasks[stage] = (bar.add_task(stage, total=whole or None), whole)
            tasks[stage] = (tasks[stage][0], whole)
            bar.update(tasks[stage][0], completed=done, total=whole or None)

        yield progress
        finish()


PAR_LINES = "PAR lines"
"""The report's table of every wager's PAR lines (wager, paytable, then each line)."""


def report_tables(data: dict[str, Any]) -> tuple[list[Any], dict[tuple[str, str], str]]:
    """The PAR lines, then every other table of the report's JSON, money as numbers, and
    the money columns' number format."""
    from sidebet.cli.export import numeric_money
    from sidebet.core.tabular import sheets

    lines = [{"wager": w["wager"], "paytable": w["paytable"], **line}
             for w in data["wagers"] for line in w["par"]["outcomes"]]
    tables = sheets(lines, PAR_LINES)[:1] if lines else []
    tables += [t for t in sheets(data, "report") if t.name != "report wagers par_outcomes"]
    return numeric_money(tables)


def _emit_tables(data: dict[str, Any], fmt: "ReportFormat") -> None:
    """``--format csv``: every table as a section, the PAR lines first; ``xlsx``: a sheet
    each, money with a number format."""
    import sys

    from sidebet.cli.export import sections_csv, xlsx_bytes

    tables, formats = report_tables(data)
    if fmt is ReportFormat.csv:
        print(sections_csv(tables), end="")
        return
    if sys.stdout.isatty():
        raise fail("--format xlsx writes a workbook: redirect it to a file "
                   "(... --format xlsx > report.xlsx)")
    sys.stdout.flush()
    sys.stdout.buffer.write(xlsx_bytes(tables, formats))
    sys.stdout.buffer.flush()


def _check_target(path: Path) -> None:
    """Refuse, before any work, a file the report could not write: a folder, a file in a
    folder that does not exist, or one this user may not write in."""
    import os

    if path.is_dir():
        raise fail(f"{path} is a folder: name the file to write")
    parent = path.parent
    if not parent.is_dir():
        raise fail(f"cannot write {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise fail(f"cannot write {path}: permission denied")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror or exc}") from None


class ReportFormat(StrEnum):
    """What ``sidebet report`` writes."""

    html = "html"
    json = "json"
    csv = "csv"
    xlsx = "xlsx"


@handle_errors
def report(
    config: Annotated[Path, typer.Argument(help="The table's Rules Submission (TOML).")],
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Write the report here (HTML, or JSON with --format json); "
        "default: standard output.")] = None,
    pdf: Annotated[Path | None, typer.Option(
        help="Also print the report to this PDF (headless Chromium).")] = None,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="Also write every number of the report to this JSON file.")] = None,
    rounds: Annotated[str, typer.Option(
        help="Rounds of the confirming simulation (one round per shoe).")] = "1e7",
    rng_shoes: Annotated[str, typer.Option(help="Shoes for the RNG battery.")] = "20000",
    vuln_rounds: Annotated[str, typer.Option(
        help="Rounds of each counter simulation (per wager and penetration).")] = "1e6",
    confirm_rounds: Annotated[str, typer.Option(
        help="The most rounds of the independent confirmation per wager (cards dealt and "
        "classified; each wager is dealt what its 0.1-point target needs, up to this).")
        ] = "1e8",
    rounds_per_hour: Annotated[str, typer.Option(
        help="Rounds dealt per hour (theoretical win, counters' money per hour).")] = "80",
    seed: Annotated[int | None, typer.Option(
        help="Seed of the simulation; RNG shoe k uses seed+k (default: a fresh one, "
        "recorded in the report).")] = None,
    fmt: Annotated[ReportFormat, typer.Option(
        "--format", help="html (the report), json (every number in it), or its tables to "
        "standard output: csv (every table a section, the PAR lines first) or xlsx (a sheet "
        "each).")] = ReportFormat.html,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress lines on stderr.")
                     ] = False,
    revision: Annotated[str, typer.Option(help="The document's revision number.")] = "1",
    prepared_by: Annotated[str, typer.Option(
        help="Who prepared the document (default: a blank line to sign).")] = "",
    approved_by: Annotated[str, typer.Option(
        help="Who approved the document (default: a blank line to sign).")] = "",
) -> None:
    """The game-math report of a table as one self-contained HTML file (and PDF).

    Configuration and compliance, every wager's PAR sheet, volatility and hold ranges, the
    Press, the base game, a confirming simulation, the RNG battery and how to reproduce it."""
    from sidebet.report.build import ReportOptions, build_report

    n_rounds = parse_count(rounds, "--rounds", high=MAX_ROUNDS)
    n_shoes = parse_count(rng_shoes, "--rng-shoes", high=MAX_SHOES)
    n_vuln = parse_count(vuln_rounds, "--vuln-rounds", high=MAX_ROUNDS)
    n_confirm = parse_count(confirm_rounds, "--confirm-rounds", high=MAX_ROUNDS)
    n_hour = parse_count(rounds_per_hour, "--rounds-per-hour", high=10_000)
    n_revision = parse_count(revision, "--revision", high=10_000)
    for flag, name in (("--prepared-by", prepared_by), ("--approved-by", approved_by)):
        if len(name) > 200 or not name.isprintable():
            raise fail(f"{flag} must be one printable line of at most 200 characters")
    if fmt in (ReportFormat.csv, ReportFormat.xlsx) and (output is not None or pdf is not None):
        raise fail(f"--format {fmt.value} goes to standard output: no -o or --pdf")
    for target in (output, pdf, json_out):
        if target is not None:
            _check_target(target)
    if pdf is not None:
        from sidebet.report.render import chromium_path

        chromium_path()
    words = ["sidebet", "report", str(config)]
    if output is not None:
        words += ["-o", str(output)]
    if pdf is not None:
        words += ["--pdf", str(pdf)]
    if json_out is not None:
        words += ["--json", str(json_out)]
    if fmt is ReportFormat.json:
        words += ["--format", "json"]

    options = ReportOptions(rounds=n_rounds, rng_shoes=n_shoes, vuln_rounds=n_vuln,
                            confirm_rounds=n_confirm, rounds_per_hour=n_hour, seed=seed,
                            revision=n_revision, prepared_by=prepared_by.strip(),
                            approved_by=approved_by.strip())
    with _stages(not quiet) as progress:
        data = build_report(config, options, progress=progress, shuffles=dict([SERVER]))
    seed_used = data["reproducibility"]["seed"]
    words += ["--rounds", str(n_rounds), "--rng-shoes", str(n_shoes), "--vuln-rounds",
              str(n_vuln), "--confirm-rounds", str(n_confirm), "--rounds-per-hour",
              str(n_hour), "--seed", str(seed_used), "--revision", str(n_revision)]
    words += [w for flag, name in (("--prepared-by", prepared_by), ("--approved-by", approved_by))
              if name.strip() for w in (flag, shlex.quote(name.strip()))]
    data["reproducibility"]["command"] = " ".join(words)
    as_json = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if json_out is not None:
        _write(json_out, as_json)
    if fmt in (ReportFormat.csv, ReportFormat.xlsx):
        _emit_tables(data, fmt)
        return
    if fmt is ReportFormat.json:
        text = as_json
    else:
        from sidebet.report.render import render_html

        if not quiet:
            err_console.print("report: plots and HTML")
        text = render_html(data)
    if output is None:
        print(text, end="")
    else:
        _write(output, text)
    if pdf is not None:
        from sidebet.report.render import render_html, write_pdf

        if not quiet:
            err_console.print("report: PDF")
        write_pdf(text if fmt is ReportFormat.html else render_html(data), pdf)


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``rng-test`` to ``app``."""
    app.command("report")(report)
    app.command("rng-test")(rng_test)
