"""sidebet's kernels compiled ahead of time: where the one extension lives, loading it, the
JIT fallback.

Loading numba's cached kernels costs a process noticeable time (importing numba and
setting up its compiler), more than most commands compute.  So the warm-up
(``python -m sidebet.warm``, :mod:`sidebet.warm.extension`) compiles the simulator's
kernel and the exact Blackjack analyser's kernels ahead of time with ``numba.pycc`` into
ONE CPython extension kept in sidebet's disk cache
(:func:`sidebet.native.diskcache.cache_dir`), in a folder named by a digest of the package
sources, the numba, numpy and Python versions and the processor (:func:`build_key`).
When that extension is there, the kernels' callers (:mod:`sidebet.sim.compiled`,
:mod:`sidebet.exact.blackjack.dispatch`) use it and the process never imports numba;
when it is absent, cannot be loaded, or ``SIDEBET_AOT=off``, they call the JIT kernels,
with identical results.  A user's command never builds it: only the warm-up does.

Every call is checked first (:mod:`sidebet.native.signatures`): the compiled wrapper
checks nothing, and a wrong array would crash the process.

>>> aot_enabled() in (True, False)
True
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from sidebet.native.diskcache import cache_dir, code_digest
from sidebet.native.signatures import ArgType, check_args

__all__ = ["EXPORTS", "aot_enabled", "build_key", "call", "cpu_identity", "extension_path",
           "forget", "load_extension", "loaded", "module_name"]

EXPORTS = ("play_full", "play_side", "decision_table",
           "bj_no_bj", "bj_dealer_probs", "bj_play_values", "bj_final_dist", "bj_split_finals",
           "bj_dealer_up", "bj_pair_keys", "bj_pair_sum")
"""The functions the compiled extension exports (:func:`sidebet.warm.extension.exports`)."""


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
    import platform  # only where /proc/cpuinfo says nothing

    return f"{platform.machine()} {platform.processor()} (generic)", False


def _version_of(package: str) -> str:
    """An installed package's version, from the name of its ``.dist-info`` folder next to it
    (found without importing the package, nor ``importlib.metadata``, which costs a process
    about as much as a small analysis); else from ``importlib.metadata``; ``none`` if it is
    not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return "none"
    if spec.origin:
        found = list(Path(spec.origin).parent.parent.glob(f"{package}-*.dist-info"))
        if len(found) == 1:
            return found[0].name[len(package) + 1:-len(".dist-info")]
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


@cache
def build_key() -> str:
    """The digest that names the extension: package sources, numba, numpy, Python and the
    processor.  Any change of them means a different extension."""
    parts = (code_digest(), _version_of("numba"), _version_of("numpy"), sys.version,
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


def loaded(path: Path) -> bool:
    """Whether the extension at ``path`` is there and loads (it is then kept loaded)."""
    return path.is_file() and _load(path) is not None


def forget(path: Path) -> None:
    """Forget what this process knew of ``path`` (before it is rebuilt)."""
    _LOADED.pop(path, None)
    _RESOLVED.clear()
