"""Where numba keeps compiled kernels: never stale, and a read-only install still runs.

numba caches each ``cache=True`` kernel next to its module (``__pycache__``), keyed on
that module's own file only: a kernel that compiles helpers from other modules (the hand
rules, the simulator's shuffle in the counting kernels) would keep running the old copy
of an edited helper.  So :func:`configure`, which runs when ``sidebet`` is imported (this
module is its first import), before numba, compares a digest of all the package's
sources (:func:`source_digest`) with the one the caches were made from (a stamp in the
package's ``__pycache__``) and, when they differ, deletes numba's cache files in the
package first.

When the package's folders cannot be written (a system-wide install run by a user, a
container with a read-only root), numba would write to the user's cache folder, still
keyed per file, or refuse to define the kernels at all when that is read-only too; then
``NUMBA_CACHE_DIR`` is pointed at a folder named by the digest, in the user's cache
folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``sidebet-numba``) or, failing that, in
a private folder in the temporary directory.  A ``NUMBA_CACHE_DIR`` set by the user is
left alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from functools import cache
from pathlib import Path

from sidebet.native.atomic import replace_file

__all__ = ["MEMO", "configure", "digest_of", "drop_stale", "fallback_dir", "source_digest",
           "writable"]

_PACKAGE = Path(__file__).resolve().parent.parent
"""The ``sidebet`` package folder."""
_KERNEL_DIRS = (_PACKAGE / "exact", _PACKAGE / "exact" / "blackjack", _PACKAGE / "sim",
                _PACKAGE / "vuln")
"""The folders whose modules define numba kernels (numba caches next to them)."""
STAMP = "numba-sources.stamp"
"""The file in the package's ``__pycache__`` naming the sources numba's caches were made
from."""


def writable(path: Path) -> bool:
    """Whether a folder could be created and written at ``path`` (its nearest existing
    ancestor is a writable folder)."""
    p = path
    while not p.exists():
        if p.parent == p:
            return False
        p = p.parent
    return p.is_dir() and os.access(p, os.W_OK | os.X_OK)


MEMO = "sources.digest"
"""The file in the package's ``__pycache__`` that remembers :func:`source_digest` for the
sources' sizes and modification times."""


def _sources(root: Path) -> list[tuple[str, Path, os.stat_result]]:
    """The package's ``.py`` files under ``root``: relative path, path and status, in the
    order of their path's parts."""
    found: list[tuple[tuple[str, ...], Path, os.stat_result]] = []
    folders: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    while folders:
        folder, parts = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        folders.append((Path(entry.path), (*parts, entry.name)))
                elif entry.name.endswith(".py"):
                    found.append(((*parts, entry.name), Path(entry.path), entry.stat()))
    found.sort(key=lambda item: item[0])
    return [("/".join(parts), path, stat) for parts, path, stat in found]


@cache
def source_digest() -> str:
    """A digest of the package's source files (their paths and contents).

    Reading every source costs each process more than the rest of a small command, so the
    digest is remembered in :data:`MEMO` beside the files' sizes and modification times
    (to the nanosecond) and read again only when one of them changed, as Python trusts
    its bytecode caches."""
    return digest_of(_PACKAGE)


def digest_of(package: Path) -> str:
    """:func:`source_digest` of the package folder ``package`` (not kept in memory)."""
    files = _sources(package)
    stats = hashlib.sha256()
    for rel, _path, st in files:
        stats.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    seen = stats.hexdigest()
    memo = package / "__pycache__" / MEMO
    with contextlib.suppress(OSError, ValueError):
        known, digest = memo.read_text(encoding="ascii").split()
        if known == seen:
            return digest
    h = hashlib.sha256()
    for rel, path, _st in files:
        h.update(rel.encode())
        h.update(path.read_bytes())
    digest = h.hexdigest()[:16]
    with contextlib.suppress(OSError):  # an unwritable install reads the sources each time
        replace_file(memo, lambda f: f.write(f"{seen} {digest}\n".encode("ascii")),
                     0o666)
    return digest


def drop_stale(package: Path = _PACKAGE) -> bool:
    """Delete numba's cache files in ``package`` unless its stamp names the current
    sources (:func:`source_digest`), then write the stamp; returns whether it deleted.
    Files that cannot be deleted or written are left as they are."""
    digest = source_digest()
    stamp = package / "__pycache__" / STAMP
    try:
        if stamp.read_text(encoding="ascii") == digest:
            return False
    except (OSError, ValueError):
        pass
    for pattern in ("*.nbi", "*.nbc"):
        for path in package.rglob(f"__pycache__/{pattern}"):
            with contextlib.suppress(OSError):
                path.unlink()
    try:
        stamp.parent.mkdir(exist_ok=True)
        replace_file(stamp, lambda f: f.write(digest.encode("ascii")), 0o600)
    except OSError:
        pass
    return True


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".cache")
    return Path(base) / "sidebet-numba"


def fallback_dir() -> Path | None:
    """A private, writable folder for the cache in the temporary directory, or ``None``."""
    try:
        import tempfile

        folder = Path(tempfile.gettempdir()) / f"sidebet-numba-cache-{os.getuid()}"
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    ok = folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid()
    return folder if ok and writable(folder) else None


def configure() -> str | None:
    """Drop stale kernels (:func:`drop_stale`), or set ``NUMBA_CACHE_DIR`` to a folder
    named by the sources when the package cannot be written; returns the folder chosen
    (``None``: numba's own choice, next to the modules, stands)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    if all(writable(d / "__pycache__") for d in _KERNEL_DIRS):
        drop_stale()
        return None
    user = _user_cache()
    if writable(user):
        folder: Path | None = user / source_digest()
    else:
        base = fallback_dir()
        folder = None if base is None else base / source_digest()
    if folder is None:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    return str(folder)

configure()
