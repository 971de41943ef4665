"""Where numba keeps compiled kernels, so a read-only install still runs.

numba caches each ``cache=True`` kernel next to its module (``__pycache__``) or, when that
folder is not writable, in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``,
then ``numba``).  When neither can be written (a system-wide install run by a user whose
home is read-only, a container with a read-only root), numba refuses to define the
kernels at all.  :func:`configure` runs when ``sidebet`` is imported (this module is its
first import), before numba: it
leaves numba alone when either place is writable or ``NUMBA_CACHE_DIR`` is set, and
otherwise points ``NUMBA_CACHE_DIR`` at a private folder in the temporary directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["configure", "fallback_dir", "writable"]

_PACKAGE = Path(__file__).resolve().parent
_KERNEL_DIRS = (_PACKAGE, _PACKAGE / "sim", _PACKAGE / "blackjack")


def writable(path: Path) -> bool:
    """Whether a folder could be created and written at ``path`` (its nearest existing
    ancestor is a writable folder)."""
    p = path
    while not p.exists():
        if p.parent == p:
            return False
        p = p.parent
    return p.is_dir() and os.access(p, os.W_OK | os.X_OK)


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".cache")
    return Path(base) / "numba"


def fallback_dir() -> Path | None:
    """A private, writable folder for the cache in the temporary directory, or ``None``."""
    try:
        folder = Path(tempfile.gettempdir()) / f"sidebet-numba-cache-{os.getuid()}"
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    ok = folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid()
    return folder if ok and writable(folder) else None


def configure() -> str | None:
    """Set ``NUMBA_CACHE_DIR`` when numba would find no writable cache folder; returns the
    folder chosen (``None``: numba's own choice stands)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    if all(writable(d / "__pycache__") for d in _KERNEL_DIRS) or writable(_user_cache()):
        return None
    folder = fallback_dir()
    if folder is None:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    return str(folder)


configure()
