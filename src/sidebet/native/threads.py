"""How many threads a kernel's work may be shared among in this process.

The compiled kernels release the interpreter's lock while they run
(:mod:`sidebet.warm.extension`; numba's JIT kernels are ``nogil``), so threads of one
process run them side by side, one per core.

>>> usable_cores() >= 1
True
"""

from __future__ import annotations

import os

__all__ = ["usable_cores"]


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every system
        return max(1, os.cpu_count() or 1)
