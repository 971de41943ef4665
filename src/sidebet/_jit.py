"""A typed wrapper around numba's ``njit(cache=True)`` for module-level kernels.

Kernels compile on first call and are cached on disk next to the module, so later
processes load them without compiling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit as _njit

__all__ = ["kernel"]

F = TypeVar("F", bound=Callable[..., Any])


def kernel(func: F) -> F:
    """Compile ``func`` with ``numba.njit(cache=True)``, keeping its type for mypy."""
    return cast(F, _njit(cache=True, nogil=True)(func))
