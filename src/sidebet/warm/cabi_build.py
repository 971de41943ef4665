"""Build the simulator's kernel as a plain shared library (:mod:`sidebet.native.cabi`).

The library holds :func:`sidebet.sim.kernels.play_chunk` compiled by numba's ahead-of-time
compiler (``numba.pycc``'s :class:`ModuleCompiler`, as for the extension, but exporting C
functions instead of a CPython module) and numba's own runtime (its helper library and its
memory manager, compiled from the sources numba ships, as ``numba.pycc`` does), so loading it
needs neither numba nor numpy.  Each entry point reads its arguments from one block of
64-bit words laid out by :func:`sidebet.sim.layout.kernel_params`; its Python source is
written from that table (:func:`entry_source`), so the block's layout has one definition.

``sidebet_play_full`` also writes, when given a second buffer, the histogram's non-zero
entries (``[count, index, value, index, value, ...]``), so that its caller need not scan
all of it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidebet.native.cabi import ENTRY_POINTS, INIT, forget, library, library_path
from sidebet.sim import kernels, layout

__all__ = ["build", "ensure_built", "entry_source"]

RUNTIME = Path(__file__).with_name("cabi_runtime.c")
"""The C glue: numba's helper library and the exported :data:`sidebet.native.cabi.INIT`."""


def entry_source(full: bool) -> str:
    """The Python source of one entry point (compiled by numba): it rebuilds the kernel's
    records from the argument block, in :func:`sidebet.sim.layout.kernel_params`'s order.

    >>> print(entry_source(False).splitlines()[1])
        b = carray(ptr_int64(block), (53,))
    """
    params = layout.kernel_params(full)
    words = sum(1 + kind.ndim if kind.ndim else 1 for _, kind in params)
    lines = ["def entry(block, extra):", f"    b = carray(ptr_int64(block), ({words},))"]
    at = 0
    fields: dict[str, list[str]] = {}
    for name, kind in params:
        record = name.split(".")[0]
        if kind.ndim == 0:
            value = f"b[{at}]" if kind.dtype == "int64" else f"np.{kind.dtype}(b[{at}])"
            at += 1
        else:
            shape = "".join(f"b[{at + 1 + d}], " for d in range(kind.ndim))
            value = f"carray(ptr_{kind.dtype}(b[{at}]), ({shape}))"
            at += 1 + kind.ndim
        fields.setdefault(record, []).append(value)
    max_rounds = fields.pop("max_rounds")[0]
    for record, values in fields.items():
        lines.append(f"    {record.lower()} = {record}({', '.join(values)})")
    play = "playarrays" if full else "None"
    lines.append(f"    rounds = play_chunk(shoestream, roundtables, {play}, outputs, {max_rounds})")
    if full:
        lines += [
            "    if extra != 0:",
            "        hist = outputs.hist",
            "        out = carray(ptr_int64(extra), (1 + 2 * hist.size,))",
            "        n = 0",
            "        for i in range(hist.size):",
            "            if hist[i] != 0:",
            "                out[1 + 2 * n] = i",
            "                out[2 + 2 * n] = hist[i]",
            "                n += 1",
            "        out[0] = n",
        ]
    lines.append("    return rounds")
    return "\n".join(lines) + "\n"


def _untyped(module: str) -> Any:
    """A module of numba's (untyped: mypy sees ``Any``)."""
    return importlib.import_module(module)


def _pointer(dtype: str) -> Any:
    """A numba intrinsic turning an address (int64) into a typed pointer for ``carray``."""
    types = _untyped("numba.core.types")
    target = getattr(types, dtype)

    def ptr(typingctx: Any, addr: Any) -> Any:
        sig = types.CPointer(target)(types.int64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return sig, codegen

    return _untyped("numba.extending").intrinsic(ptr)


def _entries() -> dict[str, Callable[..., int]]:
    """The entry points' Python functions, compiled from :func:`entry_source`."""
    import numpy as np

    names = {"carray": _untyped("numba").carray, "np": np, "play_chunk": kernels.play_chunk,
             **{f"ptr_{d}": _pointer(d) for d in ("int64", "uint8", "uint16", "int8")},
             **{cls.__name__: cls for cls in (layout.ShoeStream, layout.RoundTables,
                                              layout.PlayArrays, layout.Outputs)}}
    out: dict[str, Callable[..., int]] = {}
    for export, full in zip(ENTRY_POINTS, (True, False), strict=True):
        scope = dict(names)
        exec(compile(entry_source(full), f"<{export}>", "exec"), scope)
        out[export] = scope["entry"]
    return out


def build(path: Path, target_cpu: str, report: Callable[[str], object] | None = None
          ) -> Path | None:
    """Compile the library to ``path`` for ``target_cpu`` (``host`` or ``generic``);
    ``None`` with one line to ``report`` if it cannot be built here."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba.pycc's pending deprecation
            import numpy as np

            numba = _untyped("numba")
            types = _untyped("numba.core.types")
            pycc = _untyped("numba.pycc.compiler")
            entries = [pycc.ExportEntry(name, types.int64(types.int64, types.int64), func)
                       for name, func in _entries().items()]
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".plain-"))
            try:
                compiler = pycc.ModuleCompiler(entries, "sidebet_plain", use_nrt=True,
                                          cpu_name=target_cpu)
                kernel = tmp / "kernel.o"
                compiler.write_native_object(str(kernel), wrap=False)
                here = Path(numba.__file__).parent
                toolchain = _untyped("numba.pycc.platform").Toolchain()
                toolchain.verbose = False
                objects = toolchain.compile_objects(
                    [str(RUNTIME), str(here / "core" / "runtime" / "nrt.cpp")], str(tmp),
                    include_dirs=[*toolchain.get_python_include_dirs(), np.get_include(),
                                  str(here)])
                out = tmp / path.name
                toolchain.link_shared(str(out), [str(kernel), *objects], libraries=["m"],
                                      export_symbols=[*ENTRY_POINTS, INIT],
                                      extra_ldflags=["-pthread"])
                os.replace(out, path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    except Exception as exc:  # any failure: one line; the extension still serves
        if report is not None:
            report(f"the plain kernel library cannot be built here ({type(exc).__name__}: "
                   f"{exc}); short simulations load numpy")
        return None
    return path


def ensure_built(target_cpu: str, report: Callable[[str], object] | None = None
                 ) -> Path | None:
    """Build the library unless it is there and loads (:func:`build`)."""
    path = library_path()
    if path is None:
        return None
    if library() is not None:
        return path
    forget(path)
    with contextlib.suppress(OSError):
        path.unlink()
    return build(path, target_cpu, report)
