"""A typed wrapper around numba's ``njit(cache=True)`` for module-level kernels.

Kernels compile on first call and are cached on disk next to the module, so later
processes load them without compiling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

# first, before numba is imported: numba's caches are checked (a read-only install still
# runs); ``import sidebet`` does not, so a command that compiles nothing skips it
from sidebet.native import numba_cache  # noqa: F401

# isort: split
from numba import njit as _njit

__all__ = ["inline", "kernel", "step"]

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


def kernel(func: F) -> F:
    """Compile ``func`` with ``numba.njit(cache=True)``, keeping its type for mypy.  (Never
    forced inline: numba would inherit that from a :func:`step` calling it.)"""
    return cast(F, _njit(cache=True, nogil=True, forceinline=False)(func))


def inline(func: Callable[..., R]) -> Callable[..., R]:
    """Compile a small helper of scalars for the kernels to inline at numba IR level
    (``numba.njit(inline="always")``); the plain function stays plain Python for
    everyone else.  (Helpers that take arrays are not inlined this way: numba would add
    reference counting to the kernel's hot loop.)"""
    return cast(Callable[..., R], _njit(inline="always", cache=True, nogil=True)(func))


_STEP: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False, "forceinline": True}
"""numba's options of a :func:`step` (``_nrt`` is not in numba's stubs)."""


def step(func: F) -> F:
    """Compile a step of a kernel's round, a function of scalars and the arrays it reads
    and writes (never a record), that makes no arrays: ``numba.njit`` without reference
    counting (``_nrt=False``) and always inlined by LLVM (``forceinline``), so that it
    adds no reference counting and no call to the kernel's hot loop.  (Keep a step's
    call under 31 arguments: above, Python passes them as one tuple, whose arrays numba
    then counts at every call.)"""
    return cast(F, _njit(**_STEP)(func))
