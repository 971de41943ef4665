"""Rows read lately, kept in memory for a few seconds: a hot read (a player's limits row,
read for every wager; a bearer token's caller, read for every request) answered without a
round trip to the database.  A change forgets its keys once committed (here, and in the
other processes of a PostgreSQL database through ``NOTIFY``), and a read that began before
a :meth:`Recent.forget` is not kept, so a change holds from the moment its transaction
has committed; ``ttl`` bounds the age of an entry should a notification be lost."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Recent"]

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Values by key, each kept ``ttl`` seconds at most (the ``size`` newest entries at
    most), and never past ``valid``'s verdict when one is given."""

    def __init__(self, size: int = 50_000, ttl: float = 10.0,
                 valid: Callable[[V], bool] | None = None) -> None:
        self.size = size
        self.ttl = ttl
        self.valid = valid
        """Asked at every read: an entry it refuses (a token past its expiry) is dropped."""
        self._entries: OrderedDict[K, tuple[V, float]] = OrderedDict()
        self._lock = threading.Lock()
        self.generation = 0
        """Bumped by every forget: a read that began before it is not kept."""

    def get(self, key: K) -> tuple[V] | None:
        """``(value,)`` if ``key`` was read lately and is still valid, else ``None``.

        >>> r: Recent[int, str | None] = Recent()
        >>> g = r.generation; r.put(1, None, g); r.get(1), r.get(2)
        ((None,), None)
        >>> g = r.generation; r.forget(1); r.put(1, "stale", g); r.get(1)
        >>> short: Recent[int, str] = Recent(valid=lambda v: v != "expired")
        >>> g = short.generation; short.put(1, "expired", g); short.get(1), len(short)
        (None, 0)
        """
        entry = self._entries.get(key)
        if entry is None:
            return None
        value, read_at = entry
        if time.monotonic() - read_at > self.ttl or (
                self.valid is not None and not self.valid(value)):
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
            return None
        return (value,)

    def put(self, key: K, value: V, generation: int) -> None:
        """Keep ``value``, read by a read that began at ``generation`` (the oldest entry
        goes when ``size`` is reached)."""
        with self._lock:
            if generation != self.generation:
                return
            self._entries[key] = (value, time.monotonic())
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def forget(self, key: K | None = None) -> None:
        """Drop ``key``'s entry (every entry, with ``None``)."""
        with self._lock:
            self.generation += 1
            if key is None:
                self._entries.clear()
            else:
                self._entries.pop(key, None)

    def forget_where(self, match: Callable[[V], bool]) -> None:
        """Drop every entry whose value ``match`` accepts.

        >>> r: Recent[str, int] = Recent()
        >>> g = r.generation; r.put("a", 1, g); r.put("b", 2, g); r.forget_where(lambda v: v > 1)
        >>> r.get("a"), r.get("b")
        ((1,), None)
        """
        with self._lock:
            self.generation += 1
            for key in [k for k, (v, _) in self._entries.items() if match(v)]:
                del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
