"""The answers to requests sent with an ``Idempotency-Key``: stored in the database with
the request's writes (a refusal on its own), the newest kept in memory too, and repeated to
a retry of the same request under the same key (:func:`repeat`)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sidebet.core.errors import Violation
from sidebet.serve.errors import ApiError

__all__ = ["ANSWERS_KEPT", "PURGE_EVERY", "STATE_REF", "Answers", "Slot", "Stored", "repeat",
           "row"]

Stored = tuple[str, int, str, str]
"""An answer to a keyed request: its request's fingerprint, status, JSON text and time."""
Slot = tuple[int, str]
"""Where an answer is stored: the caller's account and the request's key."""
PURGE_EVERY = 10_000
"""Keyed requests between two purges of expired answers."""
ANSWERS_KEPT = 20_000
"""How many answers to keyed requests a process keeps in memory (the newest)."""
STATE_REF = "state@"
"""Stored in an answer in place of the table's state (which a retry reads anew)."""


class Answers:
    """The newest :data:`ANSWERS_KEPT` committed answers, by :data:`Slot`."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Slot, Stored] = OrderedDict()
        self._lock = threading.Lock()
        self._count = 0

    def get(self, slot: Slot) -> Stored | None:
        """The answer kept for ``slot``, if any."""
        return self._kept.get(slot)

    def keep(self, slot: Slot, answer: Stored) -> bool:
        """Keep a committed answer; whether a purge of the expired ones is due (every
        :data:`PURGE_EVERY` answers)."""
        with self._lock:
            self._kept[slot] = answer
            while len(self._kept) > ANSWERS_KEPT:
                self._kept.popitem(last=False)
            self._count += 1
            return self._count % PURGE_EVERY == 0

    def drop_before(self, cutoff: str) -> None:
        """Forget the answers stored before ``cutoff`` (a UTC time as stored)."""
        with self._lock:
            for slot in [k for k, v in self._kept.items() if v[3] < cutoff]:
                del self._kept[slot]

    def clear(self) -> None:
        """Forget every answer (as after a restart: they come from the database)."""
        with self._lock:
            self._kept.clear()


def row(slot: Slot, answer: Stored) -> dict[str, Any]:
    """The ``idempotent_requests`` row of an answer."""
    fingerprint, status, text, at = answer
    return {"account_id": slot[0], "key": slot[1], "fingerprint": fingerprint,
            "status": status, "response": text, "at": at}


def repeat(first: Stored, fingerprint: str, key: str,
           state: Callable[[], Any]) -> tuple[int, Any]:
    """The stored answer to a request, given again (422 for another request under the same
    key; a refusal raised again); a stored state reference is replaced by ``state()``, the
    table's view now."""
    stored_print, status, text, _ = first
    if stored_print != fingerprint:
        raise ApiError(422, f"Idempotency-Key {key!r} was used for a different request")
    body = json.loads(text)
    if status >= 400:
        raise ApiError(status, body["detail"], tuple(
            Violation(v["rule"], v["message"]) for v in body["violations"]))
    if body.pop(STATE_REF, False):
        body["state"] = state()
    return status, body
