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

__all__ = ["show"]


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
