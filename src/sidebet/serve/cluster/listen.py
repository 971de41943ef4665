"""The view of the tables another process owns, kept current by their log: the
``sidebet_fence`` trigger sends ``NOTIFY sidebet_events, '<table>:<seq>'`` with every event
(delivered when its transaction commits); this process then applies the new events to its
copy of the table (:meth:`~sidebet.serve.cluster.member.Member.catch_up`), which publishes the
table's view for reads and broadcasts the events to this process's WebSocket subscribers.
It also hears revocations (``NOTIFY sidebet_tokens``, from
:meth:`~sidebet.serve.service.core.Core.revoked`) and drops the tokens cached here, and
changes of limits (``NOTIFY sidebet_limits``) and drops the limits rows kept here.
"""

from __future__ import annotations

import contextlib
import logging
import threading

import psycopg

from sidebet.serve.cluster.member import Member
from sidebet.serve.cluster.ownership import conninfo
from sidebet.serve.service.core import LIMITS_CHANNEL, TOKENS_CHANNEL

__all__ = ["CHANNEL", "Listener"]

_log = logging.getLogger(__name__)

CHANNEL = "sidebet_events"
"""The channel the trigger notifies."""


class Listener:
    """A thread that listens for new events and brings the followed tables up to date
    (:meth:`start`, :meth:`stop`); after a reconnection it catches up every table."""

    def __init__(self, member: Member) -> None:
        self.member = member
        self.core = member.core
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None

    def start(self) -> None:
        """Listen (the first connection made before this returns)."""
        self._conn = self._listen()
        self._thread = threading.Thread(target=self._run, daemon=True, name="sidebet-listen")
        self._thread.start()

    def stop(self) -> None:
        """Stop listening."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _listen(self) -> psycopg.Connection[tuple[object, ...]]:
        conn = psycopg.connect(conninfo(self.core.engine), autocommit=True)
        conn.execute(f"LISTEN {CHANNEL}")
        conn.execute(f"LISTEN {TOKENS_CHANNEL}")
        conn.execute(f"LISTEN {LIMITS_CHANNEL}")
        return conn

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._conn is None:
                    self._conn = self._listen()
                    self.follow(set(self.core.tables))
                    self.core.limit_rows.forget()  # changes may have been missed
                for note in self._conn.notifies(timeout=0.5):
                    if note.channel == TOKENS_CHANNEL:  # a revocation: cached tokens go
                        account, _, session = note.payload.partition(":")
                        self.core.tokens.forget(int(account), session or None)
                        continue
                    if note.channel == LIMITS_CHANNEL:  # a player's limits changed
                        self.core.limit_rows.forget(int(note.payload))
                        continue
                    table, _, seq = note.payload.partition(":")
                    self.follow_to(int(table), int(seq))
            except Exception:
                _log.exception("listening for events failed; listening again")
                if self._conn is not None:
                    with contextlib.suppress(Exception):
                        self._conn.close()
                self._conn = None
                self._stop.wait(0.5)
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()

    def follow(self, tables: set[int]) -> None:
        """Bring these tables (those another process owns) up to their logs."""
        for table_id in sorted(tables):
            self.follow_to(table_id, None)

    def follow_to(self, table_id: int, seq: int | None) -> None:
        """Bring a table another process owns up to its log (nothing to do if its copy
        here is past event ``seq`` already)."""
        member = self.member
        if member.owns(table_id):
            return
        live = self.core.tables.get(table_id)
        if live is None:
            member.adopt(table_id)
        elif seq is None or live.seq < seq:
            member.catch_up(table_id)
