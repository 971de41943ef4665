"""Rate limits kept in the process's memory: failed sign-ins per name and per address with
a lockout that always expires, and a token bucket per address for reads.

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
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

__all__ = ["Bucket", "Failures"]

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


class Bucket:
    """A token bucket per key: ``burst`` requests at once, then ``rate`` a second."""

    def __init__(self, *, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self._state: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

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
