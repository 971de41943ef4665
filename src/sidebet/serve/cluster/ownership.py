"""Who owns each table: a PostgreSQL advisory lock per table, held on a connection of the
owning process (released by PostgreSQL as soon as that connection ends: a killed process
loses its tables at once), and a fencing number (``table_owners.epoch``), one more at
each takeover, written into every event the owner appends.  The ``sidebet_fence`` trigger
(migration ``0004_cluster``) refuses an event whose number is not the owner's, so a
process that lost a table (a stalled process, a broken connection) cannot write to it.

Each process holds an advisory lock of its own while it runs, so the live processes are
counted by their locks.  Each process claims tables nobody holds until it holds its share
(the tables divided by the live processes, rounded up) and hands back one table per beat above its share, so the
tables spread over the processes and a dead process's tables are taken over within a
beat or two.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import threading

import psycopg
from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError

from sidebet.serve.chain import utc_now
from sidebet.serve.cluster.member import Member
from sidebet.serve.db import lost
from sidebet.serve.models import GameTable

__all__ = ["LOCK_SPACE", "Ownership", "conninfo"]

_log = logging.getLogger(__name__)

LOCK_SPACE = 0x5B1D
"""The first key of the tables' advisory locks (the second is the table id)."""

MEMBER_SPACE = 0x5B1E
"""The first key of the processes' own advisory locks: a process is live while it holds
one (the second key is its own), so a killed process stops counting at once."""


def conninfo(engine: Engine) -> str:
    """The psycopg connection string of a SQLAlchemy ``postgresql+psycopg`` engine."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


def _connect(engine: Engine) -> psycopg.Connection[tuple[object, ...]]:
    """An autocommit connection whose death PostgreSQL notices within seconds (TCP
    keepalives on both ends)."""
    conn = psycopg.connect(conninfo(engine), autocommit=True, keepalives=1,
                           keepalives_idle=2, keepalives_interval=1, keepalives_count=3)
    conn.execute("SET tcp_keepalives_idle = 2")
    conn.execute("SET tcp_keepalives_interval = 1")
    conn.execute("SET tcp_keepalives_count = 3")
    return conn


class Ownership:
    """This process's tables: claimed, taken over and handed back on a heartbeat thread
    (:meth:`start`, :meth:`stop`); ``address`` is where other processes forward writes."""

    def __init__(self, member: Member, address: str, beat: float = 0.5) -> None:
        self.member = member
        self.core = member.core
        self.address = address
        self.beat = beat
        self.member_id = secrets.token_hex(8)
        self.key = int.from_bytes(bytes.fromhex(self.member_id)[:4], "big") >> 1
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._mutex = threading.RLock()
        self._members = 1
        member.offer = self.offer

    # ----- the heartbeat ----------------------------------------------------------------

    def start(self) -> None:
        """Claim tables now, then on every beat."""
        self.step()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="sidebet-ownership")
        self._thread.start()

    def stop(self) -> None:
        """Hand every table back (others take them at once) and leave."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for table_id in list(self.member.epochs):
            with contextlib.suppress(Exception):
                self.release(table_id)
        with contextlib.suppress(Exception):
            if self._conn is not None:
                self._conn.execute("DELETE FROM cluster_members WHERE id = %s", (self.member_id,))
                self._conn.close()

    def _run(self) -> None:
        while not self._stop.wait(self.beat):
            try:
                self.step()
            except Exception:
                _log.exception("ownership beat failed")
                self._drop_connection()

    def _drop_connection(self) -> None:
        """The lock connection is gone or in doubt: so are its locks, and every table."""
        for table_id in list(self.member.epochs):
            self.member.give_up(table_id)
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
        self._conn = None

    def _connection(self) -> psycopg.Connection[tuple[object, ...]]:
        if self._conn is None or self._conn.closed:
            self._drop_connection()
            self._conn = _connect(self.core.engine)
            self._conn.execute("SELECT pg_advisory_lock(%s, %s)", (MEMBER_SPACE, self.key))
        return self._conn

    def step(self) -> None:
        """One beat: say this process is live, follow new tables, claim unheld tables up
        to this process's share, hand back one above it."""
        with self._mutex:
            self._step()

    def offer(self, table_id: int) -> None:
        """A table newly served here: claim it now if this process is below its share
        (so a new table's owner is its creator, without waiting for the next beat)."""
        mine = self.member.epochs
        if table_id in mine or self._stop.is_set():
            return
        with self._mutex:
            if len(mine) < math.ceil(len(self.core.tables) / self._members):
                with contextlib.suppress(Exception):
                    self.claim(table_id)

    def _step(self) -> None:
        conn = self._connection()
        conn.execute("INSERT INTO cluster_members (id, address, seen_at) VALUES (%s, %s, %s) "
                     "ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at, "
                     "address = EXCLUDED.address", (self.member_id, self.address, utc_now()))
        with self.core.sessions() as s:
            ids = list(s.scalars(select(GameTable.id).order_by(GameTable.id)))
        for table_id in ids:
            if table_id not in self.core.tables:
                self.member.adopt(table_id)
        locks = conn.execute(
            "SELECT classid, objid FROM pg_locks WHERE locktype = 'advisory' "
            "AND classid IN (%s, %s) AND objsubid = 2 AND granted AND database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database())",
            (LOCK_SPACE, MEMBER_SPACE)).fetchall()
        held = {int(str(objid)) for space, objid in locks if int(str(space)) == LOCK_SPACE}
        members = max(1, sum(1 for space, _ in locks if int(str(space)) == MEMBER_SPACE))
        self._members = members
        mine = self.member.epochs
        share = math.ceil(len(ids) / members)
        for table_id in ids:
            if len(mine) >= share:
                break
            if table_id not in held and table_id not in mine:
                self._claim(table_id)
        if len(mine) > share:
            self._release(max(mine))

    # ----- one table --------------------------------------------------------------------

    def claim(self, table_id: int) -> bool:
        """Take the table's lock if free, raise its fencing number (waiting for a write
        of the former owner in flight) and own it from its log; whether it was taken."""
        with self._mutex:
            return self._claim(table_id)

    def _claim(self, table_id: int) -> bool:
        conn = self._connection()
        got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)",
                           (LOCK_SPACE, table_id)).fetchone()
        if not got or not got[0]:
            return False
        row = conn.execute(
            "INSERT INTO table_owners (table_id, epoch, owner, address, at) "
            "VALUES (%s, 1, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE SET "
            "epoch = table_owners.epoch + 1, owner = EXCLUDED.owner, "
            "address = EXCLUDED.address, at = EXCLUDED.at RETURNING epoch",
            (table_id, self.member_id, self.address, utc_now())).fetchone()
        assert row is not None
        try:
            self.member.take(table_id, int(row[0]))  # type: ignore[call-overload]
        except Exception:
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_SPACE, table_id))
            raise
        _log.info("table %s: owned under epoch %s", table_id, row[0])
        return True

    def release(self, table_id: int) -> None:
        """Stop writing the table and free its lock (another process takes it over)."""
        with self._mutex:
            self._release(table_id)

    def _release(self, table_id: int) -> None:
        self.member.give_up(table_id)
        conn = self._connection()
        conn.execute("UPDATE table_owners SET owner = NULL, address = NULL "
                     "WHERE table_id = %s AND owner = %s", (table_id, self.member_id))
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_SPACE, table_id))

    def owner_address(self, table_id: int) -> str | None:
        """Where the table's owner takes forwarded writes (``None``: nobody, or this
        process, owns it now: a takeover is under way; or the database cannot say now, a
        connection lost: asked again)."""
        try:
            with self.core.engine.connect() as c:
                row = c.exec_driver_sql(
                    "SELECT owner, address FROM table_owners WHERE table_id = %(t)s",
                    {"t": table_id}).first()
        except DBAPIError as exc:
            if not lost(exc):
                raise
            return None
        if row is None or row[0] is None or row[0] == self.member_id:
            return None
        return str(row[1])
