"""The command line's two rich consoles, made on first use (no typer, no rich at import).

:mod:`sidebet.cli.common` re-exports them for the commands; the replay of a simulation
(:mod:`sidebet.cli.replay`), which runs before typer is imported, prints through them too,
so both paths print alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

__all__ = ["console", "err_console", "forget"]

if TYPE_CHECKING:
    from rich.console import Console


class _LazyConsole:
    """A rich ``Console`` made on first use: a command that prints JSON (or nothing)
    does not import rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._made: Console | None = None

    def forget(self) -> None:
        """Make the console again at its next use (on the streams of that time)."""
        self._made = None

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


def forget() -> None:
    """Make both consoles again at their next use: a resident process's fork prints on
    its client's streams, not on those its warm-up printed on
    (:mod:`sidebet.cli.resident.warmup`)."""
    for made in (console, err_console):
        cast("_LazyConsole", made).forget()
