"""The ``sidebet`` command line (typer + rich); :func:`run` is its console script."""

from __future__ import annotations

__all__ = ["run"]


def run(prog_name: str | None = None) -> int | None:
    """Run ``sidebet`` with the process's arguments: in the resident process's fork when
    one serves this cache (:mod:`sidebet.cli.daemon.client`; the command's exit status is
    returned), else here, the garbage collector paused while the command's modules load
    (:mod:`sidebet.cli.gcpause`); a ``simulate`` whose plan is saved is played from it,
    before typer is imported (:mod:`sidebet.cli.replay`)."""
    import sys

    from sidebet.cli.daemon import client

    status = client.attempt(sys.argv, prog_name)
    if status is not None:
        return status
    from sidebet.cli import gcpause

    gcpause.pause()
    try:
        if sys.argv[1:2] == ["simulate"]:
            from sidebet.cli import replay

            if replay.attempt(sys.argv):
                return None
            replay.command_line = sys.argv[1:]
        from sidebet.cli.main import app

        app(prog_name=prog_name)
    finally:
        gcpause.resume()
    return None
