"""A typed wrapper around numba's ``njit(cache=True)`` for module-level kernels.

Kernels compile on first call and are cached on disk next to the module, so later
processes load them without compiling.  The same Python source compiles again for a CUDA
device (:func:`device`, :func:`device_kernel`; ``numba.cuda`` is imported only then).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from importlib import import_module
from typing import Any, TypeVar, cast

# first, before numba is imported: numba's caches are checked (a read-only install still
# runs); ``import sidebet`` does not, so a command that compiles nothing skips it
from sidebet.native import numba_cache  # noqa: F401

# isort: split
from numba import njit as _njit

__all__ = ["device", "device_kernel", "inline", "kernel", "step", "twin"]

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


# ----- the same functions on a CUDA device ---------------------------------------------

_TWINS: dict[int, Callable[..., Any]] = {}
_DEVICE: dict[tuple[int, tuple[tuple[str, Any], ...]], Any] = {}


def twin(compiled: Callable[..., Any], source: Callable[..., Any]) -> None:
    """On a device, a call of ``compiled`` (a :func:`step`) compiles to ``source``
    instead: a plain function written with ``numba.cuda``'s API (an atomic add for an
    output that many threads share)."""
    _TWINS[id(compiled)] = source


def _device_clone(func: Callable[..., Any], constants: dict[str, Any]) -> Callable[..., Any]:
    """``func``'s Python source with each compiled function it calls replaced by its
    device function (:func:`device`) and the names in ``constants`` bound to them."""
    from numba.core.dispatcher import Dispatcher

    py = getattr(func, "py_func", func)
    names = dict(py.__globals__)
    for name in py.__code__.co_names:
        value = names.get(name)
        if value is not None and (isinstance(value, Dispatcher) or id(value) in _TWINS):
            names[name] = device(value)
    names.update(constants)
    clone = types.FunctionType(py.__code__, names, py.__name__, py.__defaults__,
                               py.__closure__)
    clone.__kwdefaults__ = py.__kwdefaults__
    return clone


def device(func: Callable[..., Any]) -> Any:
    """The CUDA device function of a :func:`step`, :func:`inline` helper or :func:`kernel`
    (one that makes no array): ``numba.cuda.jit(device=True)`` of the same Python source,
    every compiled function it calls replaced by its own device function (or its
    :func:`twin`).  Imports ``numba.cuda`` (its simulator under
    ``NUMBA_ENABLE_CUDASIM=1``)."""
    key = (id(func), ())
    got = _DEVICE.get(key)
    if got is None:
        cuda: Any = import_module("numba.cuda")
        source = _TWINS.get(id(func))
        got = cuda.jit(device=True)(source if source is not None
                                    else _device_clone(func, {}))
        _DEVICE[key] = got
    return got


def device_kernel(func: Callable[..., Any], **constants: Any) -> Any:
    """A CUDA kernel (``numba.cuda.jit``) of the plain function ``func``, its compiled
    callees as device functions (:func:`device`) and the global names in ``constants``
    bound to the values given (compile-time constants: a local array's size)."""
    key = (id(func), tuple(sorted(constants.items())))
    got = _DEVICE.get(key)
    if got is None:
        cuda: Any = import_module("numba.cuda")
        got = cuda.jit(_device_clone(func, constants))
        _DEVICE[key] = got
    return got
