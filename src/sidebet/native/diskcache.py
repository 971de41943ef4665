"""Results worth keeping between processes: arrays cached on disk.

A simulation needs the exact analyser's strategy for its house rules and deck count (a
whole exact analysis) but only a few kilobytes of it; :func:`cached_arrays` keeps such
arrays in ``.npz`` files named by a hash of what they depend on: a *kind*, a *key* (e.g.
the house rules and the deck count) and the code that computed them (the package version
and a digest of the package's source files, so any change of the code invalidates them).

The directory is ``$SIDEBET_CACHE_DIR``, else ``$XDG_CACHE_HOME/sidebet``, else
``~/.cache/sidebet``.  ``SIDEBET_CACHE_DIR=off`` (or an unwritable or unreadable
directory) turns the cache off: results are then computed each time, as without it.
Files are written atomically (a temporary file renamed), so concurrent processes never
read half a file; a damaged file is recomputed.

>>> import tempfile, os
>>> import numpy as np
>>> with tempfile.TemporaryDirectory() as d:
...     os.environ["SIDEBET_CACHE_DIR"] = d
...     calls = []
...     build = lambda: calls.append(1) or {"x": np.arange(3)}
...     a = cached_arrays("demo", "k", build)
...     b = cached_arrays("demo", "k", build)
...     del os.environ["SIDEBET_CACHE_DIR"]
>>> a["x"].tolist(), b["x"].tolist(), len(calls)
([0, 1, 2], [0, 1, 2], 1)
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from sidebet.native.atomic import replace_file

if TYPE_CHECKING:  # numpy is imported by what reads or writes arrays, not by cached_json
    import numpy as np
    import numpy.typing as npt

__all__ = ["cache_dir", "cache_path", "cached_arrays", "cached_json", "code_digest"]

Arrays = dict[str, "npt.NDArray[np.generic]"]


def cache_dir() -> Path | None:
    """Where cached results live (``None``: the cache is off)."""
    env = os.environ.get("SIDEBET_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "sidebet"


@cache
def code_digest() -> str:
    """The package version and a digest of its source files."""
    from sidebet.native.numba_cache import source_digest

    return hashlib.sha256(f"{_version()}\0{source_digest()}".encode()).hexdigest()[:16]


def _version() -> str:
    """The package's version: ``sidebet.__version__`` (the package is imported before any
    of its modules), else the installed distribution's (``unknown`` from a bare source
    tree)."""
    version = getattr(sys.modules.get("sidebet"), "__version__", None)
    if isinstance(version, str):
        return version
    from importlib import metadata

    try:
        return metadata.version("sidebet")
    except metadata.PackageNotFoundError:
        return "unknown"


def cache_path(kind: str, key: str, suffix: str = ".npz") -> Path | None:
    """The file that holds ``kind`` results for ``key`` (``None``: the cache is off)."""
    directory = cache_dir()
    if directory is None:
        return None
    digest = hashlib.sha256(f"{kind}\0{key}\0{code_digest()}".encode()).hexdigest()[:24]
    return directory / f"{kind}-{digest}{suffix}"


def cached_arrays(kind: str, key: str, build: Callable[[], Arrays]) -> Arrays:
    """The arrays ``build()`` returns for ``key``, from the disk cache when there (and
    written there when computed)."""
    import numpy as np

    path = cache_path(kind, key)
    if path is not None and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                return {name: data[name] for name in data.files}
        except (OSError, ValueError, KeyError, EOFError):
            pass  # damaged or unreadable: compute again
    arrays = build()
    if path is not None:
        _keep(path, lambda f: np.savez(f, **cast(dict[str, Any], arrays)))
    return arrays


def cached_json(kind: str, key: str, build: Callable[[], Any]) -> Any:
    """The JSON document ``build()`` returns for ``key`` (as :func:`json.loads` reads it
    back, computed or not), from the disk cache when there and written there when
    computed: for results that are text, read without numpy.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.environ["SIDEBET_CACHE_DIR"] = d
    ...     calls = []
    ...     build = lambda: calls.append(1) or {"x": (1, 0.1)}
    ...     a = cached_json("demo", "k", build)
    ...     b = cached_json("demo", "k", build)
    ...     del os.environ["SIDEBET_CACHE_DIR"]
    >>> a, b == a, len(calls)
    ({'x': [1, 0.1]}, True, 1)
    """
    import json

    path = cache_path(kind, key, ".json")
    if path is not None and path.is_file():
        try:
            return json.loads(path.read_bytes())
        except (OSError, ValueError):
            pass  # damaged or unreadable: compute again
    text = json.dumps(build(), ensure_ascii=False).encode()
    if path is not None:
        _keep(path, lambda f: f.write(text))
    return json.loads(text)


def _keep(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write ``path`` whole (:func:`~sidebet.native.atomic.replace_file`); an unwritable
    cache keeps nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, write, 0o600)
    except OSError:
        pass  # unwritable: the results are simply not kept
