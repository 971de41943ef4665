"""Shared CLI plumbing: one clear line and exit status 2 for bad input, consoles."""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console

from sidebet.errors import SidebetError

__all__ = [
    "BackendName",
    "TableOrJson",
    "TextFormat",
    "console",
    "err_console",
    "fail",
    "handle_errors",
    "rounds_progress",
]

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)



class TableOrJson(StrEnum):
    """The ``--format`` choices of commands that print a rich table or JSON."""

    table = "table"
    json = "json"


class TextFormat(StrEnum):
    """The ``--format`` choices of commands that also write CSV and Markdown."""

    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


class BackendName(StrEnum):
    """Where a simulation's chunks run."""

    local = "local"
    ray = "ray"


P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr and return the exit (status 2) to raise."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(2)


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a command: a :class:`SidebetError` becomes one stderr line and status 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except SidebetError as exc:
            raise fail(str(exc)) from None

    return wrapper


@contextlib.contextmanager
def rounds_progress(label: str, total: int, show: bool, unit: str = "rounds"
                    ) -> Iterator[Callable[[int], None]]:
    """A transient progress bar on stderr (when ``show``); yields ``progress(done)``."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=not show,
    ) as bar:
        task = bar.add_task(unit, total=total, rate="")
        started = time.perf_counter()

        def progress(done: int) -> None:
            elapsed = time.perf_counter() - started
            rate = f"{done / elapsed:,.0f} {unit}/s" if elapsed > 0 else ""
            bar.update(task, completed=done, rate=rate)

        yield progress
