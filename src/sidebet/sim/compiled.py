"""The simulator's kernel, compiled ahead of time when it can be, else by numba's JIT.

Loading numba's cached kernels costs a process about half a second (importing numba and
setting up its compiler), far more than simulating a million rounds.  So
:mod:`sidebet.sim.aot_build` (run by ``python -m sidebet.warm``) compiles
:func:`sidebet.sim.kernels.play_chunk` and :func:`sidebet.sim.kernels.decision_table`
ahead of time with numba's ``numba.pycc`` into a CPython extension kept in sidebet's disk
cache (:func:`sidebet.diskcache.cache_dir`), in a folder named by a digest of the package
sources, the numba, numpy and Python versions and the processor (:func:`build_key`).
When that extension is there, :func:`play_chunk` and :func:`decision_table` call it and
the process never imports numba; when it is absent, cannot be loaded, or
``SIDEBET_AOT=off``, they call the JIT kernels (:mod:`sidebet.sim.kernels`), with
identical results.  A user's command never builds it: only the warm-up does.

numba marks ``numba.pycc`` as deprecated (pending); should a numba release drop it, the
build reports one line and everything runs on the JIT kernels as before.

The compiled wrapper does not check its arguments (a wrong array would crash the
process), so every call is checked first against the types of
:mod:`sidebet.sim.layout`, the table the compiled signatures are made from; the JIT
path gets the same checks, so both fail alike.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import platform
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.diskcache import cache_dir, code_digest
from sidebet.sim.layout import (
    DECISION_TABLE_TYPES,
    MAX_ROUNDS_TYPE,
    PLAY_ARRAYS_TYPES,
    ROUND_TABLES_TYPES,
    SHOE_STREAM_TYPES,
    Outputs,
    PlayArrays,
    RoundTables,
    ShoeStream,
    check_record,
    output_types,
)

__all__ = ["EXPORTS", "aot_enabled", "build_key", "cpu_identity", "decision_table",
           "ensure_built", "extension_path", "load_extension", "play_chunk"]

EXPORTS = ("play_full", "play_side", "decision_table")
"""The functions the compiled extension exports (:mod:`sidebet.sim.aot_build`)."""


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
    return f"sidebet_sim_aot_{build_key()}"


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
        # Loading a built artifact (the compiled kernel) from the cache, not one of our
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
        print(f"sidebet: the compiled simulator {path} cannot be loaded ({exc}); "
              "using numba's JIT kernels", file=sys.stderr)
        return None
    return module


def load_extension() -> ModuleType | None:
    """The compiled extension, when enabled, built and loadable (else ``None``)."""
    if not aot_enabled():
        return None
    path = extension_path()
    return None if path is None else _load(path)


def ensure_built(report: Any = None) -> Path | None:
    """Build the extension unless it is there and loads (:func:`sidebet.sim.aot_build.build`);
    its path, or ``None`` if it cannot be built here (``report`` gets one line why)."""
    path = extension_path()
    if path is None:
        if report is not None:
            report("the disk cache is off (SIDEBET_CACHE_DIR=off): no compiled simulator")
        return None
    if path.is_file() and _load(path) is not None:
        return path
    from sidebet.sim.aot_build import build  # numba: only when building

    _LOADED.pop(path, None)  # a damaged file is replaced
    return build(path, module_name(), cpu_identity(), report)


def play_chunk(src: ShoeStream, tab: RoundTables, play: PlayArrays | None, out: Outputs,
               max_rounds: int) -> int:
    """:func:`sidebet.sim.kernels.play_chunk` (same arguments, same result), by the
    compiled extension when there is one.  Every field is checked first: a wrong dtype,
    number of dimensions, a non-contiguous array or a read-only output raises a
    :class:`TypeError` or :class:`ValueError` naming the field."""
    args = [*check_record(src, ShoeStream, SHOE_STREAM_TYPES),
            *check_record(tab, RoundTables, ROUND_TABLES_TYPES)]
    if play is not None:
        args += check_record(play, PlayArrays, PLAY_ARRAYS_TYPES)
    args += check_record(out, Outputs, output_types(play is not None))
    rounds = MAX_ROUNDS_TYPE.check("max_rounds", max_rounds)
    module = load_extension()
    if module is not None:
        fn = module.play_side if play is None else module.play_full
        return int(fn(*args, rounds))
    from sidebet.sim import kernels  # numba: only without the compiled extension

    return int(kernels.play_chunk(src, tab, play, out, max_rounds))


def decision_table(hard2: npt.NDArray[np.int8], soft2: npt.NDArray[np.int8],
                   pair: npt.NDArray[np.int8], nosplit: npt.NDArray[np.int8],
                   hs_hard: npt.NDArray[np.int8], hs_soft: npt.NDArray[np.int8],
                   rules: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
    """:func:`sidebet.sim.kernels.decision_table`, by the compiled extension when there
    is one (arguments checked as for :func:`play_chunk`)."""
    given = (hard2, soft2, pair, nosplit, hs_hard, hs_soft, rules)
    args = [t.check(name, value)
            for (name, t), value in zip(DECISION_TABLE_TYPES, given, strict=True)]
    module = load_extension()
    if module is not None:
        table: npt.NDArray[np.int8] = module.decision_table(*args)
        return table
    from sidebet.sim import kernels  # numba: only without the compiled extension

    jit_table: npt.NDArray[np.int8] = kernels.decision_table(*given)
    return jit_table
