"""Rate limits: failed sign-ins per name and per address with a lockout that always
expires, and a token bucket per address for reads; in the process's memory, or on
PostgreSQL in the database, shared by every process of it (:class:`SharedFailures`,
:class:`SharedBucket`).

>>> clock = [0.0]
>>> f = Failures(limit=2, window=60, lockout=30, clock=lambda: clock[0])
>>> f.locked("ann"), f.fail("ann"), f.fail("ann"), f.locked("ann")
(0.0, False, True, 30.0)
>>> clock[0] = 31.0
>>> f.locked("ann")
0.0
>>> b = Bucket(rate=1, burst=2, clock=lambda: clock[0])
>>> [b.take("1.2.3.4") for _ in range(3)]
[0.0, 0.0, 1.0]
>>> b.ready("1.2.3.4"), b.ready("5.6.7.8")
(1.0, 0.0)
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

__all__ = ["Bucket", "FailureCount", "Failures", "ReadLimit", "SharedBucket", "SharedFailures",
           "failures_for", "reads_for"]

_log = logging.getLogger(__name__)

_MAX_KEYS = 100_000
"""Keys kept at most; the oldest are forgotten beyond (memory stays bounded)."""


class Failures:
    """Failures per key (a name, an address) within ``window`` seconds; ``limit`` of them
    lock the key for ``lockout`` seconds, after which it starts afresh."""

    def __init__(self, *, limit: int, window: float, lockout: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.lockout, self.clock = limit, window, lockout, clock
        self._seen: dict[str, deque[float]] = {}
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def locked(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        with self._lock:
            until = self._until.get(key)
            if until is None:
                return 0.0
            left = until - self.clock()
            if left <= 0:
                del self._until[key]
                return 0.0
            return left

    def fail(self, key: str) -> bool:
        """Count a failure; whether it locks ``key``."""
        with self._lock:
            now = self.clock()
            seen = self._seen.setdefault(key, deque())
            seen.append(now)
            while seen and seen[0] <= now - self.window:
                seen.popleft()
            if len(self._seen) > _MAX_KEYS:
                self._seen.pop(next(iter(self._seen)))
            if len(seen) >= self.limit:
                seen.clear()
                self._until[key] = now + self.lockout
                if len(self._until) > _MAX_KEYS:
                    self._until.pop(next(iter(self._until)))
                return True
            return False

    def clear(self, key: str) -> None:
        """Forget ``key``'s failures (after a good sign-in)."""
        with self._lock:
            self._seen.pop(key, None)


class FailureCount(Protocol):
    """What the sign-in needs of a failure count: :class:`Failures` or
    :class:`SharedFailures`."""

    def locked(self, key: str) -> float: ...  # pragma: no cover

    def fail(self, key: str) -> bool: ...  # pragma: no cover

    def clear(self, key: str) -> None: ...  # pragma: no cover


_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"
"""The database's clock in seconds: the same for every process and host of the database."""

_COUNT = ("(CASE WHEN f.window_start <= EXCLUDED.window_start - :window THEN 1 "
          "ELSE f.failures + 1 END)")
"""A failure's count within the window (``EXCLUDED.window_start`` is the clock now)."""

_FAIL = f"""
INSERT INTO signin_failures AS f (key, failures, window_start, locked_until)
SELECT :key, CASE WHEN 1 >= :limit THEN 0 ELSE 1 END, t.now,
       CASE WHEN 1 >= :limit THEN t.now + :lockout ELSE 0 END
FROM (SELECT {_NOW} AS now) AS t
ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN {_COUNT} >= :limit THEN 0 ELSE {_COUNT} END,
    window_start = CASE WHEN {_COUNT} = 1 OR {_COUNT} >= :limit
                        THEN EXCLUDED.window_start ELSE f.window_start END,
    locked_until = CASE WHEN {_COUNT} >= :limit THEN EXCLUDED.window_start + :lockout
                        ELSE f.locked_until END
RETURNING f.failures = 0
"""


class SharedFailures:
    """:class:`Failures` kept in the database's ``signin_failures`` (PostgreSQL), so that
    every process of the database counts them and honours one lockout: each failure is one
    atomic UPSERT.  The window is fixed: it starts at the first failure counted, and a
    lock starts a new one.  Keys are stored as SHA-256 digests (any length, no address in
    clear)."""

    PURGE_EVERY = 1000
    """Failures counted here between two purges of the rows no longer of use."""

    def __init__(self, engine: Engine, kind: str, *, limit: int, window: float,
                 lockout: float) -> None:
        self.engine, self.kind = engine, kind
        self.limit, self.window, self.lockout = limit, window, lockout
        self._failed = 0

    def _key(self, key: str) -> str:
        return hashlib.sha256(f"{self.kind}\0{key}".encode()).hexdigest()

    def locked(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        with self.engine.connect() as conn:
            left = conn.execute(text(f"SELECT locked_until - {_NOW} FROM signin_failures "
                                     "WHERE key = :key"), {"key": self._key(key)}).scalar()
        return max(0.0, float(left or 0.0))

    def fail(self, key: str) -> bool:
        """Count a failure; whether it locks ``key``."""
        params = {"key": self._key(key), "limit": self.limit, "window": self.window,
                  "lockout": self.lockout}
        with self.engine.begin() as conn:
            locks = bool(conn.execute(text(_FAIL), params).scalar())
            self._failed += 1
            if self._failed % self.PURGE_EVERY == 0:
                conn.execute(text(f"DELETE FROM signin_failures WHERE locked_until < {_NOW} "
                                  f"AND window_start <= {_NOW} - :window"),
                             {"window": self.window})
        return locks

    def clear(self, key: str) -> None:
        """Forget ``key``'s failures (after a good sign-in), not a lock another process
        has just set."""
        with self.engine.begin() as conn:
            conn.execute(text(f"DELETE FROM signin_failures WHERE key = :key "
                              f"AND locked_until < {_NOW}"), {"key": self._key(key)})


def failures_for(engine: Engine, kind: str, *, limit: int, window: float,
                 lockout: float) -> FailureCount:
    """The failure count of ``kind`` (``name``, ``address``): in the database on
    PostgreSQL (several processes), else in this process's memory (SQLite: one process)."""
    if engine.dialect.name == "postgresql":
        return SharedFailures(engine, kind, limit=limit, window=window, lockout=lockout)
    return Failures(limit=limit, window=window, lockout=lockout)


class Bucket:
    """A token bucket per key: ``burst`` requests at once, then ``rate`` a second."""

    def __init__(self, *, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self._state: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def ready(self, key: str) -> float:
        """0 if a token is there for ``key`` (none taken), else the seconds until one is."""
        with self._lock:
            now = self.clock()
            tokens, then = self._state.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def take(self, key: str) -> float:
        """Take one request's token: 0 if granted, else the seconds until one is."""
        with self._lock:
            now = self.clock()
            tokens, then = self._state.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens < 1:
                self._state[key] = (tokens, now)
                return (1 - tokens) / self.rate
            self._state[key] = (tokens - 1, now)
            if len(self._state) > _MAX_KEYS:
                self._state.pop(next(iter(self._state)))
            return 0.0


class ReadLimit(Protocol):
    """What the guard needs of a read rate: :class:`Bucket` or :class:`SharedBucket`."""

    def take(self, key: str) -> float: ...  # pragma: no cover


_REFILL = "LEAST(:burst, b.tokens + (EXCLUDED.at - b.at) * :rate)"
"""A bucket's tokens now (``EXCLUDED.at`` is the clock now)."""

_TAKE = f"""
INSERT INTO read_buckets AS b (key, tokens, at, granted)
SELECT :key, :burst - 1, t.now, true FROM (SELECT {_NOW} AS now) AS t
ON CONFLICT (key) DO UPDATE SET
    tokens = CASE WHEN {_REFILL} >= 1 THEN {_REFILL} - 1 ELSE {_REFILL} END,
    at = EXCLUDED.at,
    granted = {_REFILL} >= 1
RETURNING b.granted, b.tokens
"""


class SharedBucket:
    """:class:`Bucket` kept in the database's ``read_buckets`` (PostgreSQL), so that every
    process of the database takes an address's reads from one bucket: each read is one
    atomic UPSERT on the database's clock.  A bucket of this process's own, taken from
    only when the shared one grants, holds at least as many tokens as the shared one
    (both fill at the same rate; the shared one is also taken from by the others), so
    when it is empty the read is refused without asking the database; while the
    database is out of reach it alone limits the reads (logged).  Keys are stored as
    SHA-256 digests."""

    PURGE_EVERY = 1000
    """Reads granted here between two purges of the full buckets (as good as none)."""

    def __init__(self, engine: Engine, *, rate: float, burst: int) -> None:
        self.engine, self.rate, self.burst = engine, rate, burst
        self.local = Bucket(rate=rate, burst=burst)
        self._granted = 0

    def take(self, key: str) -> float:
        """Take one request's token: 0 if granted, else the seconds until one is."""
        wait = self.local.ready(key)
        if wait:
            return wait
        digest = hashlib.sha256(f"read\0{key}".encode()).hexdigest()
        params = {"key": digest, "rate": self.rate, "burst": self.burst}
        try:
            with self.engine.begin() as conn:
                row = conn.execute(text(_TAKE), params).one()
                granted, tokens = bool(row[0]), float(row[1])
                if granted:
                    self._granted += 1
                    if self._granted % self.PURGE_EVERY == 0:
                        conn.execute(text(f"DELETE FROM read_buckets WHERE tokens + ({_NOW} "
                                          "- at) * :rate >= :burst"), params)
        except SQLAlchemyError:  # the database unreachable: this process's bucket alone
            _log.warning("the shared read bucket is out of reach; limiting reads per process")
            return self.local.take(key)
        if not granted:
            return (1 - tokens) / self.rate
        self.local.take(key)
        return 0.0


def reads_for(engine: Engine, *, rate: float, burst: int) -> ReadLimit:
    """The read rate per address: in the database on PostgreSQL (several processes), else
    in this process's memory (SQLite: one process)."""
    if engine.dialect.name == "postgresql":
        return SharedBucket(engine, rate=rate, burst=burst)
    return Bucket(rate=rate, burst=burst)
