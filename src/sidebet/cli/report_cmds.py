"""``sidebet report`` (the game-math report) and ``sidebet rng-test`` (the shuffle's battery).

Nothing heavy is imported at module level: ``sidebet --help`` must not load matplotlib,
scipy or numba; each command imports what it computes with when it runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sidebet.cli.common import TableOrJson as Format
from sidebet.cli.common import console, handle_errors, parse_count

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
    fmt: Annotated[Format, typer.Option("--format", help="table or json.")] = Format.table,
) -> None:
    """Statistical battery on the shuffle (§ 810a.5: chi-square card-by-position, gap,
    poker, runs, serial correlation) with each test's statistic and p-value, 95% level."""
    from sidebet.report.rng import history_shoes, run_battery, shuffled_shoes

    if history is not None:
        from sidebet.table.history import load_history

        orders, n_decks = history_shoes(load_history(history))
        result = run_battery(orders, n_decks, source=f"revealed shoes of {history}")
    else:
        n = parse_count("--shoes", shoes)
        source = "shuffled_order, seed S+k" if seed is not None else (
            "shuffled_order, unseeded (secrets.SystemRandom)")
        result = run_battery(shuffled_shoes(decks, n, seed), decks, seed=seed, source=source)
    if fmt is Format.json:
        print(json.dumps(result.to_json(), indent=2))
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


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``rng-test`` to ``app``."""
    app.command("rng-test")(rng_test)
