"""The ``sidebet`` command line (typer + rich); :func:`run` is its console script."""

from __future__ import annotations

__all__ = ["run"]


def run(prog_name: str | None = None) -> None:
    """Run ``sidebet`` with the process's arguments (:data:`sidebet.cli.main.app`); it
    exits with the command's status."""
    from sidebet.cli.main import app

    app(prog_name=prog_name)
