"""The ``sidebet`` command line (typer + rich); :func:`run` is its console script."""

from __future__ import annotations

__all__ = ["run"]


def run(prog_name: str | None = None) -> None:
    """Run ``sidebet`` with the process's arguments, the garbage collector paused while
    the command's modules load (:mod:`sidebet.cli.gcpause`)."""
    from sidebet.cli import gcpause

    gcpause.pause()
    try:
        from sidebet.cli.main import app

        app(prog_name=prog_name)
    finally:
        gcpause.resume()
