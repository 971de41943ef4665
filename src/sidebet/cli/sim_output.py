"""What ``sidebet simulate`` prints once its result is in, in the format asked for: the
JSON document, a CSV or XLSX table, or the rich tables followed by the paytables that are
not compliant.  No numpy and no typer: a result computed elsewhere (a replayed run) prints
through the same function as the command's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sidebet.cli.export import emit_data

if TYPE_CHECKING:
    from rich.console import Console

    from sidebet.sim.results import SimResult

__all__ = ["report", "show"]


def show(result: SimResult, flags: Sequence[str], fmt: str, console: Console) -> None:
    """Print ``result`` as ``fmt`` (``table``, ``json``, ``csv`` or ``xlsx``) with the
    table's ``flags`` (each a custom paytable the regulation does not allow, as text):
    JSON and spreadsheets to standard output, the tables to ``console``."""
    data = {**result.to_json(), "violations": list(flags)}
    if fmt == "json":
        import json

        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif emit_data(data, "simulate", fmt, main=data["side_wagers"]):
        pass
    else:
        from sidebet.cli.sim_render import render  # rich: only for the tables

        console.print(render(result))
        for flag in flags:
            console.print(f"[red]not compliant:[/] {flag}")


def report(result: SimResult, flags: Sequence[str], fmt: str) -> None:
    """All the command prints once its result is in: a line on standard error if Ctrl-C
    cut the run short, then :func:`show` on the command line's console."""
    from sidebet.cli.consoles import console, err_console

    if result.interrupted:
        err_console.print(f"interrupted: reporting the {result.rounds:,} rounds played")
    show(result, flags, fmt, console)
