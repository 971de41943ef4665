"""The cyclic garbage collector paused while a command's modules load.

What imports allocate lives as long as the process, so collecting it again and again
while the modules load is wasted start-up: :func:`sidebet.cli.run` pauses the collector
first, and :func:`resume` restarts it before the command runs.
"""

from __future__ import annotations

import gc

__all__ = ["pause", "resume"]

_paused = False
"""Whether :func:`pause` stopped the collector and :func:`resume` has not restarted it."""


def pause() -> None:
    """Stop the collector, unless something else already has."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Restart the collector if :func:`pause` stopped it, first moving what the imports
    made out of its reach (``gc.freeze``) so that no later collection walks it again."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
