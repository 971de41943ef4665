"""Rows read lately, kept in memory for a few seconds: a hot read (a player's limits row,
read for every wager) answered without a round trip to the database.  A change forgets
its key once committed (here, and in the other processes of a PostgreSQL database through
``NOTIFY``), and a read that began before a :meth:`Recent.forget` is not kept, so a change
holds from the moment its transaction has committed; ``ttl`` bounds the age of an entry
should a notification be lost."""

from __future__ import annotations

import threading
import time
from typing import Generic, TypeVar

__all__ = ["Recent"]

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Values by key, each kept ``ttl`` seconds at most (``size`` entries at most)."""

    def __init__(self, size: int = 50_000, ttl: float = 10.0) -> None:
        self.size = size
        self.ttl = ttl
        self._entries: dict[K, tuple[V, float]] = {}
        self._lock = threading.Lock()
        self.generation = 0
        """Bumped by every :meth:`forget`: a read that began before it is not kept."""

    def get(self, key: K) -> tuple[V] | None:
        """``(value,)`` if ``key`` was read lately, else ``None``.

        >>> r: Recent[int, str | None] = Recent()
        >>> g = r.generation; r.put(1, None, g); r.get(1), r.get(2)
        ((None,), None)
        >>> g = r.generation; r.forget(1); r.put(1, "stale", g); r.get(1)
        """
        entry = self._entries.get(key)
        if entry is None or time.monotonic() - entry[1] > self.ttl:
            return None
        return (entry[0],)

    def put(self, key: K, value: V, generation: int) -> None:
        """Keep ``value``, read by a read that began at ``generation``."""
        with self._lock:
            if generation != self.generation:
                return
            if len(self._entries) >= self.size:
                self._entries.clear()
            self._entries[key] = (value, time.monotonic())

    def forget(self, key: K | None = None) -> None:
        """Drop ``key``'s entry (every entry, with ``None``)."""
        with self._lock:
            self.generation += 1
            if key is None:
                self._entries.clear()
            else:
                self._entries.pop(key, None)
