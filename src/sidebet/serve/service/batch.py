"""Group commit (SQLite): the table requests of a moment share one write transaction.

SQLite has one writer, and each commit waits for the disk (``synchronous=FULL``).  So the
requests of every table write into one open transaction, each inside its own savepoint
(a refusal or a failure rolls back only its own writes), while holding the process's write
lock only for their own work; the table's lock is released once the work is done, so the
table's next request is checked and applied in memory while the commit is in flight.  One
thread commits whatever has gathered (one disk wait for all of it), then, in the order the
work was done (which is each table's log order), publishes each request's view, broadcasts
its events and releases its answer.  Nothing is answered before its commit.

Should a commit fail, every request of the batch is refused (503) and its tables are marked
``stale``: the next request at such a table rebuilds it from the log first.  A request
none of whose writes is kept (a refusal not stored) closes the transaction if nobody else
waits for it (:meth:`GroupCommit.idle`), so that no write transaction stays open between
requests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from sidebet.serve.live import LiveTable, Published

__all__ = ["GroupCommit", "Ticket"]


@dataclass(eq=False)
class Ticket:
    """One request's place in a batch: what to publish and broadcast once committed."""

    table: LiveTable | None
    published: Published | None
    events: list[dict[str, Any]]
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    def wait(self) -> None:
        """Until the batch is committed; raises the commit's error if it failed."""
        self.done.wait()
        if self.error is not None:
            raise self.error


class GroupCommit:
    """The open write transaction of the table requests, its write ``lock`` and the
    thread that commits it.  ``finish(ticket)`` publishes and broadcasts a committed
    request (called in the order the work was done); the tables of a failed commit are
    added to ``stale``."""

    def __init__(self, sessions: sessionmaker[Session], lock: threading.Lock,
                 finish: Callable[[Ticket], None], stale: set[int] | None = None) -> None:
        self.sessions = sessions
        self.lock = lock
        self.finish = finish
        self.stale: set[int] = set() if stale is None else stale
        """Tables whose memory ran ahead of a failed commit (rebuilt by their next request)."""
        self._session: Session | None = None
        self._pending: list[Ticket] = []
        self._gathered = threading.Condition(lock)
        self._finishing = threading.Lock()
        """Taken before the write lock is released, so batches finish in commit order."""
        self.batches = 0
        self.commits = 0
        threading.Thread(target=self._run, name="sidebet-group-commit", daemon=True).start()

    def session(self) -> Session:
        """The open transaction (held with :attr:`lock`)."""
        if self._session is None:
            session = self.sessions()
            session.begin()
            # pysqlite opens a transaction only before a DML statement: opened here, so
            # that the requests' savepoints nest in it and only the commit ends it
            session.connection().exec_driver_sql("BEGIN IMMEDIATE")
            self._session = session
        return self._session

    def add(self, ticket: Ticket) -> Ticket:
        """Queue a request whose writes are in the open transaction (held with
        :attr:`lock`)."""
        self._pending.append(ticket)
        self._gathered.notify()
        return ticket

    def idle(self) -> None:
        """Close the open transaction if no request waits for its commit (held with
        :attr:`lock`; whatever it holds was rolled back to its savepoints)."""
        if not self._pending and self._session is not None:
            session, self._session = self._session, None
            try:
                session.rollback()
            finally:
                session.close()

    def flush(self) -> None:
        """Commit what has gathered now and finish it (held with :attr:`lock`; for a write
        outside the batch, and before a table is rebuilt from the database)."""
        batch = self._commit()
        if batch:
            with self._finishing:
                self._finish(batch)

    def _commit(self) -> list[Ticket]:
        batch, self._pending = self._pending, []
        session, self._session = self._session, None
        if session is None:
            return batch
        error: BaseException | None = None
        try:
            session.commit()
        except BaseException as exc:  # every waiter is told, none hangs
            error = exc
            session.rollback()
            self.stale.update(t.table.id for t in batch if t.table is not None)
        finally:
            session.close()
        self.batches += 1
        self.commits += len(batch)
        for t in batch:
            t.error = error
        return batch

    def _finish(self, batch: list[Ticket]) -> None:
        for t in batch:
            try:
                if t.error is None:
                    self.finish(t)
            finally:
                t.done.set()

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self._pending:
                    self._gathered.wait()
                batch = self._commit()
                self._finishing.acquire()
            try:
                self._finish(batch)
            finally:
                self._finishing.release()
