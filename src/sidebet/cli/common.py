"""Shared CLI plumbing: one clear line and exit status 2 for bad input, consoles."""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

import typer
from typer.core import TyperGroup

from sidebet.core.errors import SidebetError

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "BackendName",
    "DeviceName",
    "OneLineErrors",
    "TableOrJson",
    "TextFormat",
    "console",
    "err_console",
    "fail",
    "handle_errors",
    "rounds_progress",
]

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
    xlsx = "xlsx"


class DeviceName(StrEnum):
    """Where a simulation's rounds are played."""

    cpu = "cpu"
    gpu = "gpu"
    auto = "auto"


class BackendName(StrEnum):
    """Where a simulation's chunks run."""

    local = "local"
    ray = "ray"


class _LazyConsole:
    """A rich ``Console`` made on first use: a command that prints JSON (or nothing)
    does not import rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._made: Console | None = None

    def __enter__(self) -> Console:  # rich's Live draws a progress bar inside ``with console``
        return cast("Console", self.__getattr__("__enter__")())

    def __exit__(self, *exc: object) -> None:
        self.__getattr__("__exit__")(*exc)

    def __getattr__(self, name: str) -> Any:
        if self._made is None:
            from rich.console import Console

            self._made = Console(**self._options)
        return getattr(self._made, name)


console = cast("Console", _LazyConsole(highlight=False))
err_console = cast("Console", _LazyConsole(stderr=True, highlight=False, soft_wrap=True))


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


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """The click exception ``name`` from typer's vendored click and/or click itself (when
    typer brought it: a typer without its own click imports click first)."""
    out: list[type[BaseException]] = []
    for module in ("typer._click.exceptions", "click.exceptions", "typer.exceptions"):
        if module.startswith("click.") and "click" not in sys.modules:
            continue
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
        if cls not in out:
            out.append(cls)
    return tuple(out)


_NO_ARGS = _click_classes("NoArgsIsHelpError")
_CLICK_ERROR = _click_classes("ClickException")
_ABORT = _click_classes("Abort")


class OneLineErrors(TyperGroup):
    """The ``sidebet`` group: a usage error (unknown option, bad value, missing argument)
    is one ``error:`` line on stderr and exit status 2, like every other bad input."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode,
                                windows_expand_args, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args,
                              **extra)
        except _NO_ARGS as exc:
            print(exc.format_message())  # type: ignore[attr-defined]
            sys.exit(0)
        except _CLICK_ERROR as exc:
            where = ""
            ctx = getattr(exc, "ctx", None)
            if ctx is not None:
                where = f"{ctx.command_path}: "
            message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
            # typer reads options through pydantic, which puts this before the message
            # of a choice that typer checked
            message = message.replace("Value error, ", "")
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            print(f"error: {where}{message}{hint}", file=sys.stderr)
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]
        except _ABORT:
            print("error: aborted", file=sys.stderr)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


@contextlib.contextmanager
def rounds_progress(label: str, total: int, show: bool, unit: str = "rounds"
                    ) -> Iterator[Callable[[int], None]]:
    """A transient progress bar on stderr (when ``show``); yields ``progress(done)``."""
    if not show:  # nothing to draw: rich is not imported
        yield lambda done: None
        return
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
