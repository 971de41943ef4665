"""What a spare fork of the resident process does before it is given a command: it runs
``simulate`` (a few shoes, a thread per core) and ``par``, printing to nowhere, so that the
first call of each function, the first allocations and the threads' stacks are paid
before a client waits.  Nothing is saved (no plan: :data:`sidebet.cli.replay.command_line`
stays ``None``), and the consoles are made again afterwards on the client's streams.
"""

from __future__ import annotations

import contextlib
import io
import sys

__all__ = ["commands", "warm_up"]

def commands() -> list[list[str]]:
    """The commands run, each as the command line would: a short simulation on every core
    this process may use (each thread's stack is then made) and the PAR sheet of the
    wager that can be pressed."""
    import os

    from sidebet.regulation.wagers import PRESSABLE

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    return [
        ["simulate", "--rounds", "20000", "--seed", "1", "--no-progress", "--threads",
         str(min(max(1, cores), 256))],
        ["par", PRESSABLE.id],
    ]


def warm_up() -> None:
    """Run :func:`commands` with their output thrown away."""
    from sidebet.cli import consoles
    from sidebet.cli.main import app

    argv = sys.argv
    try:
        for command in commands():
            sys.argv = ["sidebet", *command]
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()), \
                    contextlib.suppress(SystemExit):
                app(prog_name="sidebet")
            consoles.forget()
    finally:
        sys.argv = argv
        consoles.forget()
