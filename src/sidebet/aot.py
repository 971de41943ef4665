"""sidebet's numba kernels compiled ahead of time: one extension, one loader, one check.

Loading numba's cached kernels costs a process about half a second (importing numba and
setting up its compiler), more than most commands compute.  So :mod:`sidebet.aot_build`
(run by ``python -m sidebet.warm``) compiles the simulator's kernel
(:mod:`sidebet.sim.compiled`) and the exact Blackjack analyser's kernels
(:mod:`sidebet.blackjack.compiled`) ahead of time with ``numba.pycc`` into ONE CPython
extension kept in sidebet's disk cache (:func:`sidebet.diskcache.cache_dir`), in a folder
named by a digest of the package sources, the numba, numpy and Python versions and the
processor (:func:`build_key`).  When that extension is there, the kernels' callers use it
and the process never imports numba; when it is absent, cannot be loaded, or
``SIDEBET_AOT=off``, they call the JIT kernels, with identical results.  A user's command
never builds it: only the warm-up does.

numba marks ``numba.pycc`` as deprecated (pending); should a numba release drop it, the
build reports one line and everything runs on the JIT kernels as before.

The compiled wrapper does not check its arguments (a wrong array would crash the
process), so every call is first checked against a table of :class:`ArgType`, the table
the compiled signatures are written from (:func:`signature`); the JIT path gets the same
checks, so both fail alike.

>>> signature((ArgType("uint8"), ArgType("int64", 0), ArgType("float64", 3, written=True)))
'u1[::1], i8, f8[:, :, ::1]'
>>> check_args("demo", (("x", ArgType("int64")),), (np.zeros(2),))
Traceback (most recent call last):
...
TypeError: demo.x: expected dtype int64, got float64
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import platform
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from sidebet.diskcache import cache_dir, code_digest

__all__ = ["EXPORTS", "ArgType", "aot_enabled", "build_key", "call", "check_args",
           "cpu_identity", "ensure_built", "extension_path", "load_extension", "module_name",
           "signature"]

EXPORTS = ("play_full", "play_side", "decision_table",
           "bj_no_bj", "bj_dealer_probs", "bj_play_values", "bj_final_dist")
"""The functions the compiled extension exports (:func:`sidebet.aot_build.exports`)."""


# ----- argument types --------------------------------------------------------------------

_NUMBA_CODES = {"uint8": "u1", "uint16": "u2", "uint64": "u8", "int8": "i1", "int64": "i8",
                "float64": "f8"}
_BOUNDS = {name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
           for name in ("uint8", "uint16", "uint64", "int8", "int64")}
"""Each integer dtype's range (looked up once: a kernel may be called thousands of times)."""
_DTYPES = {name: np.dtype(name) for name in _NUMBA_CODES}


@dataclass(frozen=True, slots=True)
class ArgType:
    """One argument's type: a C-contiguous array of ``dtype`` with ``ndim`` dimensions
    (``ndim`` 0: an integer scalar of ``dtype``); ``written``: the kernel writes it."""

    dtype: str
    ndim: int = 1
    written: bool = False

    @property
    def numba_code(self) -> str:
        """The type in numba's signature notation (``i8``, ``u1[:, ::1]``)."""
        code = _NUMBA_CODES[self.dtype]
        if self.ndim == 0:
            return code
        return f"{code}[{', '.join([':'] * (self.ndim - 1) + ['::1'])}]"

    def check(self, name: str, value: Any) -> Any:
        """``value`` as the kernel may receive it; a :class:`TypeError` or
        :class:`ValueError` naming ``name`` if it is not of this type."""
        if self.ndim == 0:
            if type(value) is not int and (isinstance(value, bool)
                                           or not isinstance(value, int | np.integer)):
                raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
            low, high = _BOUNDS[self.dtype]
            if not low <= int(value) <= high:
                raise ValueError(f"{name}: {int(value)} does not fit in {self.dtype}")
            return int(value)
        if not isinstance(value, np.ndarray):
            raise TypeError(f"{name}: expected a numpy array, got {type(value).__name__}")
        if value.dtype != _DTYPES[self.dtype]:
            raise TypeError(f"{name}: expected dtype {self.dtype}, got {value.dtype}")
        if value.ndim != self.ndim:
            raise ValueError(f"{name}: expected {self.ndim} dimensions, got {value.ndim}")
        if not value.flags.c_contiguous:
            raise ValueError(f"{name}: the array must be C-contiguous")
        if self.written and not value.flags.writeable:
            raise ValueError(f"{name}: the kernel writes this array; it is read-only")
        return value


def signature(types: Sequence[ArgType]) -> str:
    """The argument list of a compiled signature, in numba's notation."""
    return ", ".join(t.numba_code for t in types)


def check_args(kernel: str, params: Sequence[tuple[str, ArgType]],
               values: Sequence[Any]) -> list[Any]:
    """``values``, the arguments of ``kernel`` in the order of ``params`` (name, type),
    each checked (an error names ``kernel.param``)."""
    if len(values) != len(params):
        raise TypeError(f"{kernel}: expected {len(params)} arguments, got {len(values)}")
    return [t.check(f"{kernel}.{name}", value)
            for (name, t), value in zip(params, values, strict=True)]


# ----- where the extension lives and how it is loaded -------------------------------------

def aot_enabled() -> bool:
    """Whether the compiled extension may be used (``SIDEBET_AOT=off`` forbids it)."""
    return os.environ.get("SIDEBET_AOT", "").strip().lower() not in ("off", "0", "no", "false")


@cache
def cpu_identity() -> tuple[str, bool]:
    """The processor, as a text, and whether the extension may be tuned for it: from
    ``/proc/cpuinfo`` (model name and feature flags) where there is one; elsewhere the
    machine's name, and the extension is built for the generic processor of its
    architecture."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        text = ""
    wanted = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "flags", "Features", "CPU part") and key not in wanted:
            wanted[key] = value.strip()
    if "model name" in wanted or "CPU part" in wanted:
        return "; ".join(f"{k}: {v}" for k, v in sorted(wanted.items())), True
    return f"{platform.machine()} {platform.processor()} (generic)", False


def _numba_version() -> str:
    try:
        return importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        return "none"


@cache
def build_key() -> str:
    """The digest that names the extension: package sources, numba, numpy, Python and the
    processor.  Any change of them means a different extension."""
    parts = (code_digest(), _numba_version(), np.__version__, sys.version,
             sys.implementation.cache_tag or "", cpu_identity()[0])
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def module_name() -> str:
    """The extension's module name (unique per :func:`build_key`)."""
    return f"sidebet_aot_{build_key()}"


def extension_path() -> Path | None:
    """Where the extension for this process's :func:`build_key` lives (``None``: the disk
    cache is off)."""
    root = cache_dir()
    if root is None:
        return None
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return root / f"aot-{build_key()}" / f"{module_name()}{suffix}"


_LOADED: dict[Path, ModuleType | None] = {}
"""Extensions loaded (or found damaged, ``None``: reported once) by this process."""


def _load(path: Path) -> ModuleType | None:
    if path in _LOADED:
        return _LOADED[path]
    if not path.is_file():
        return None  # not remembered: it may be built later in this process
    _LOADED[path] = module = _load_file(path)
    return module


def _load_file(path: Path) -> ModuleType | None:
    try:
        # Loading a built artifact (the compiled kernels) from the cache, not one of our
        # own modules: an extension module is loaded from its file like this.
        loader = importlib.machinery.ExtensionFileLoader(module_name(), str(path))
        spec = importlib.util.spec_from_file_location(module_name(), path, loader=loader)
        if spec is None:
            raise ImportError("no module spec")
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        missing = [name for name in EXPORTS if not hasattr(module, name)]
        if missing:
            raise ImportError(f"it lacks {', '.join(missing)}")
    except (ImportError, OSError) as exc:
        print(f"sidebet: the compiled kernels {path} cannot be loaded ({exc}); "
              "using numba's JIT kernels", file=sys.stderr)
        return None
    return module


_RESOLVED: dict[tuple[str | None, ...], ModuleType | None] = {}
""":func:`load_extension`'s answer per environment (the variables that decide it), once it
is settled: the extension turned off, the cache off, or its file loaded or found damaged.
An absent file is not settled (it may be built later in this process)."""


def load_extension() -> ModuleType | None:
    """The compiled extension, when enabled, built and loadable (else ``None``).  Called
    before every kernel call, so a settled answer is a dictionary lookup."""
    env = os.environ
    key = (env.get("SIDEBET_AOT"), env.get("SIDEBET_CACHE_DIR"), env.get("XDG_CACHE_HOME"),
           env.get("HOME"))
    if key in _RESOLVED:
        return _RESOLVED[key]
    path = extension_path() if aot_enabled() else None
    module = None if path is None else _load(path)
    if path is None or path in _LOADED:
        _RESOLVED[key] = module
    return module


def call(kernel: str, export: str, params: Sequence[tuple[str, ArgType]],
         values: Sequence[Any], jit: Callable[[], Callable[..., Any]]) -> Any:
    """Call ``kernel``: ``values`` checked against ``params`` (:func:`check_args`), then
    the extension's ``export`` when it is loaded, else the JIT kernel ``jit()`` returns
    (a callable that imports numba only when asked)."""
    args = check_args(kernel, params, values)
    module = load_extension()
    if module is not None:
        return getattr(module, export)(*args)
    return jit()(*args)


def ensure_built(report: Any = None) -> Path | None:
    """Build the extension unless it is there and loads (:func:`sidebet.aot_build.build`);
    its path, or ``None`` if it cannot be built here (``report`` gets one line why)."""
    path = extension_path()
    if path is None:
        if report is not None:
            report("the disk cache is off (SIDEBET_CACHE_DIR=off): no compiled kernels")
        return None
    if path.is_file() and _load(path) is not None:
        return path
    from sidebet.aot_build import build  # numba: only when building

    _LOADED.pop(path, None)  # a damaged file is replaced
    _RESOLVED.clear()
    return build(path, module_name(), cpu_identity(), report)
