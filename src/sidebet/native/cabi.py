"""The simulator's kernel as a plain shared library, called through ``ctypes``: no numpy.

The compiled extension (:mod:`sidebet.native.extension`) is a CPython module made by
``numba.pycc``, whose loading imports numpy, a large share of a short command's time.
So the warm-up (:mod:`sidebet.warm.cabi_build`) also builds, in the extension's folder, a
shared library of the same numba kernel with C entry points, and a process that has no
other use for numpy calls it through ``ctypes`` (:mod:`sidebet.sim.plain_kernel`).

Each entry point takes the address of one *argument block*: 64-bit words holding the
kernel's arguments in order, a scalar as its value (an unsigned one as the same 64 bits)
and an array as its address followed by its shape (:func:`block`).  The arguments are
checked first against the same :class:`~sidebet.native.signatures.ArgType` tables as every
other call (the compiled code checks nothing).  ``ctypes`` releases the interpreter's lock
around the call, so threads play chunks side by side.

>>> view = block((("n", ArgType("int64", 0)), ("key", ArgType("uint64", 0))), (3, 2**64 - 1))
>>> view.words.tolist()
[3, -1]
"""

from __future__ import annotations

import array
import ctypes
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidebet.native.extension import aot_enabled, build_key, extension_path
from sidebet.native.signatures import ArgType

__all__ = ["ENTRY_POINTS", "Block", "KernelFailed", "Library", "block", "library",
           "library_path"]

ENTRY_POINTS = ("sidebet_play_full", "sidebet_play_side")
"""The kernels the library exports (:mod:`sidebet.warm.cabi_build`)."""
INIT = "sidebet_runtime_init"
"""Sets up numba's runtime in the library (its memory allocator) once, when it is loaded."""


class KernelFailed(RuntimeError):
    """A kernel in the library reported an error (numba's status code, not 0)."""


@dataclass(frozen=True, slots=True)
class Block:
    """An argument block: the words, and the buffers whose addresses it holds (kept alive
    and exported until the call is over)."""

    words: array.array[int]
    keep: tuple[Any, ...]


def block(params: Sequence[tuple[str, ArgType]], values: Sequence[Any]) -> Block:
    """The argument block of ``values``, each checked against its ``(name, type)`` in
    ``params`` (an error names it): arrays are any writable buffers
    (:meth:`ArgType.check_buffer`), scalars integers (:meth:`ArgType.check_int`)."""
    if len(values) != len(params):
        raise TypeError(f"expected {len(params)} arguments, got {len(values)}")
    words = array.array("q")
    keep: list[Any] = []
    for (name, kind), value in zip(params, values, strict=True):
        if kind.ndim == 0:
            number = kind.check_int(name, value)
            words.append(number - (1 << 64) if number >= 1 << 63 else number)
            continue
        view = kind.check_buffer(name, value)
        if view.nbytes == 0:
            words.append(0)
            words.extend(view.shape or () if view.ndim == kind.ndim else (0,) * kind.ndim)
            continue
        anchor = _pointed(view)
        keep.append(anchor)
        words.append(ctypes.addressof(anchor))
        words.extend(view.shape or ())
    return Block(words, tuple(keep))


def _pointed(view: memoryview) -> Any:
    """A ``ctypes`` array over the bytes of the (C-contiguous, not empty) ``view``, whose
    address the kernel is given; it holds the buffer exported while it lives.  An input
    the kernel only reads may be read-only: it then points at a private copy."""
    raw = bytearray(view) if view.readonly else view.cast("B")
    return (ctypes.c_char * view.nbytes).from_buffer(raw)


class Library:
    """The loaded library: :meth:`call` one of its :data:`ENTRY_POINTS`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._dll = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        getattr(self._dll, INIT)()
        self._entries: dict[str, Any] = {}
        for name in ENTRY_POINTS:
            entry = getattr(self._dll, name)
            # numba's calling convention: status = f(&result, &exception, arguments...)
            entry.restype = ctypes.c_int32
            entry.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_void_p),
                              ctypes.c_int64, ctypes.c_int64]
            self._entries[name] = entry

    def call(self, name: str, args: Block, extra: Any | None = None) -> int:
        """Run entry point ``name`` on the block ``args``; ``extra``: a writable int64
        buffer the entry point may also fill (the histogram's non-zero entries), or
        ``None``.  The kernel's integer result; :class:`KernelFailed` if it fails."""
        result = ctypes.c_int64(0)
        error = ctypes.c_void_p(0)
        anchor = None
        if extra is not None:
            view = ArgType("int64", 1, written=True).check_buffer(f"{name}.extra", extra)
            anchor = _pointed(view)
        here = args.words.buffer_info()[0]
        status = self._entries[name](ctypes.byref(result), ctypes.byref(error), here,
                                     ctypes.addressof(anchor) if anchor is not None else 0)
        del anchor
        if status != 0:
            raise KernelFailed(f"the compiled kernel {name} failed (status {status})")
        return int(result.value)


def library_path() -> Path | None:
    """Where the library for this process's :func:`~sidebet.native.extension.build_key`
    lives, beside the extension (``None``: the disk cache is off)."""
    ext = extension_path()
    if ext is None:
        return None
    return ext.parent / f"sidebet_plain_{build_key()}.so"


_LOADED: dict[Path, Library | None] = {}


def library() -> Library | None:
    """The library, when enabled (``SIDEBET_AOT``), built and loadable; else ``None`` (a
    damaged file is reported once, on standard error)."""
    path = library_path() if aot_enabled() else None
    if path is None:
        return None
    if path in _LOADED:
        return _LOADED[path]
    if not path.is_file():
        return None  # not remembered: the warm-up may build it later
    try:
        loaded: Library | None = Library(path)
    except (OSError, AttributeError) as exc:
        print(f"sidebet: the compiled kernels {path} cannot be loaded ({exc})", file=sys.stderr)
        loaded = None
    _LOADED[path] = loaded
    return loaded


def forget(path: Path) -> None:
    """Forget what this process knew of the library at ``path`` (before it is rebuilt)."""
    _LOADED.pop(path, None)
