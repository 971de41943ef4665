"""A file replaced whole: written to a temporary file of this process and thread beside it,
then renamed over it, so that a reader (another process) finds the old file or the new
one, never half of one.  Plain standard library: the numba cache's stamps use it before
numba or numpy can be imported.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as d:
...     target = Path(d) / "note.txt"
...     replace_file(target, lambda f: f.write(b"one"))
...     replace_file(target, lambda f: f.write(b"two"))
...     target.read_bytes(), sorted(p.name for p in Path(d).iterdir())
(b'two', ['note.txt'])
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["replace_file"]


def replace_file(path: Path, write: Callable[[IO[bytes]], object], mode: int = 0o644) -> None:
    """Replace ``path`` by what ``write`` writes to the open file (``mode``, less the
    umask); an ``OSError`` leaves ``path`` as it was and no temporary file behind.

    The temporary file's name is this process's and thread's, created new (``tempfile``'s
    import, with its random names, costs a short command more than the write); one left
    by a process that had the same number and died writing is removed first."""
    tmp = path.parent / f".{path.name}-{os.getpid()}-{threading.get_ident()}"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
