"""Where the disk cache lives, as a string, with nothing but :mod:`os` imported.

``$SIDEBET_CACHE_DIR``, else ``$XDG_CACHE_HOME/sidebet``, else ``~/.cache/sidebet``;
``SIDEBET_CACHE_DIR=off`` (or empty, ``0``, ``none``) turns the cache off.
:func:`sidebet.native.diskcache.cache_dir` gives it as a path; the resident command's
client (:mod:`sidebet.cli.daemon.client`), which runs before anything else is imported,
reads it from here.

>>> import os
>>> os.environ["SIDEBET_CACHE_DIR"] = "off"
>>> cache_dir_name() is None
True
>>> os.environ["SIDEBET_CACHE_DIR"] = "/srv/cache"
>>> cache_dir_name()
'/srv/cache'
>>> del os.environ["SIDEBET_CACHE_DIR"]
"""

from __future__ import annotations

import os

__all__ = ["cache_dir_name"]


def cache_dir_name() -> str | None:
    """The cache's folder (``None``: the cache is off)."""
    env = os.environ.get("SIDEBET_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else env
    xdg = os.environ.get("XDG_CACHE_HOME")
    return os.path.join(xdg or os.path.join(os.path.expanduser("~"), ".cache"), "sidebet")
