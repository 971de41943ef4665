"""Compile sidebet's kernels ahead of time with ``numba.pycc`` (imported only to build).

:func:`ensure_built` (run by ``python -m sidebet.warm``) builds the extension that
:mod:`sidebet.native.extension` loads, unless it is there and loads already.
One extension holds the simulator's kernel (:func:`sidebet.warm.sim_exports.exports`) and
the exact analyser's kernels (:mod:`sidebet.exact.blackjack._kernels`, exported as ``bj_<name>``
with the signatures of :data:`sidebet.exact.blackjack.dispatch.KERNEL_TYPES`; pycc compiles the
kernels' own Python bodies).  :mod:`sidebet.native.extension` loads it and every call is
checked against the same type tables (:mod:`sidebet.native.signatures`).  The extension is built in a temporary folder next to its place
and renamed into place, so a concurrent process finds either no file or a whole one.

``numba.pycc`` is deprecated (pending) upstream; if it is gone or fails, :func:`build`
reports one line and sidebet keeps using numba's JIT kernels.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sidebet.exact.blackjack import _kernels
from sidebet.exact.blackjack.dispatch import KERNEL_TYPES
from sidebet.native.extension import cpu_identity, extension_path, forget, loaded, module_name
from sidebet.native.signatures import signature
from sidebet.warm import sim_exports

__all__ = ["analyser_exports", "build", "ensure_built", "exports"]


def analyser_exports() -> dict[str, tuple[Callable[..., Any], str]]:
    """The exact analyser's kernels, as ``bj_<name>``: each kernel's Python function (the
    numba dispatcher's ``py_func``) with its signature from the type table."""
    out: dict[str, tuple[Callable[..., Any], str]] = {}
    for name, (returns, params) in KERNEL_TYPES.items():
        func = getattr(_kernels, name).py_func
        out[f"bj_{name}"] = (func, f"{returns}({signature([t for _, t in params])})")
    return out


def exports() -> dict[str, tuple[Callable[..., Any], str]]:
    """Every exported function with its signature in numba's notation."""
    return {**sim_exports.exports(), **analyser_exports()}


def build(path: Path, module: str, cpu: tuple[str, bool],
          report: Callable[[str], object] | None = None) -> Path | None:
    """Compile the extension ``module`` to ``path`` (tuned for this processor when
    ``cpu[1]``); ``None`` with one line to ``report`` if it cannot be built here."""
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), contextlib.ExitStack() as stack:
            warnings.simplefilter("ignore")  # numba.pycc's pending deprecation
            import numba.pycc

            pycc: Any = numba.pycc  # untyped

            cc = pycc.CC(module)
            stack.enter_context(_gil_released())
            if cpu[1]:
                cc.target_cpu = "host"
            cc.verbose = False
            for name, (func, sig) in exports().items():
                cc.export(name, sig)(func)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".build-"))
            try:
                cc.output_dir = str(tmp)
                cc.compile()
                _write_info(path.parent / "build.json", cpu, time.perf_counter() - start)
                os.replace(tmp / cc.output_file, path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    except Exception as exc:  # any failure: one line, then the JIT kernels
        if report is not None:
            report(f"the compiled kernels cannot be built here ({type(exc).__name__}: "
                   f"{exc}); sidebet uses numba's JIT kernels")
        return None
    return path


@contextlib.contextmanager
def _gil_released() -> Iterator[None]:
    """While pycc compiles, every exported function's wrapper releases the interpreter's
    lock around the kernel (as ``njit(nogil=True)`` does), so that threads can run kernels
    side by side: pycc has no option for it, so the ``Flags`` it compiles with are given
    ``release_gil``.  A numba without that flag builds as before (the kernels then hold
    the lock; results are the same)."""
    compiler: Any = importlib.import_module("numba.pycc.compiler")  # untyped
    base = getattr(compiler, "Flags", None)
    if base is None or not hasattr(base(), "release_gil"):
        yield
        return

    class Released(base):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compiler.Flags = Released
    try:
        yield
    finally:
        compiler.Flags = base


def _write_info(where: Path, cpu: tuple[str, bool], seconds: float) -> None:
    """What the extension was built for, for people (the digest in its name decides)."""
    import numba
    import numpy

    llvm: Any = importlib.import_module("llvmlite.binding")  # untyped
    info = {"numba": numba.__version__, "numpy": numpy.__version__, "python": sys.version,
            "target_cpu": llvm.get_host_cpu_name() if cpu[1] else "generic",
            "cpu": cpu[0][:200], "seconds": round(seconds, 1)}
    where.write_text(json.dumps(info, indent=1) + "\n")


def ensure_built(report: Callable[[str], object] | None = None) -> Path | None:
    """Build the extension unless it is there and loads (:func:`build`); the extension's
    path, or ``None`` if it cannot be built here (``report`` gets one line why)."""
    path = extension_path()
    if path is None:
        if report is not None:
            report("the disk cache is off (SIDEBET_CACHE_DIR=off): no compiled kernels")
        return None
    if not loaded(path):
        forget(path)  # a damaged file is replaced
        if build(path, module_name(), cpu_identity(), report) is None:
            return None
    return path
