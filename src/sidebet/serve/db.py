"""Database engine and migrations."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError

from sidebet.core.errors import SidebetError
from sidebet.serve.errors import ApiError

__all__ = ["UNAVAILABLE", "is_sqlite", "lost", "make_engine", "migrate", "startup_lock",
           "unavailable", "write_lock"]

_SQLITE_WRITE = threading.Lock()


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine; SQLite gets WAL, a busy timeout and foreign keys, and its
    folder is created if missing."""
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy.exc.ArgumentError
        raise SidebetError(f"--database-url {url!r} is not a database URL ({exc})") from None
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               pool_size=20, max_overflow=20)

        @event.listens_for(engine, "connect")
        def _pragmas(conn: Any, _record: Any) -> None:
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    if parsed.get_backend_name() != "postgresql":
        raise SidebetError(f"--database-url: only sqlite:/// and postgresql+psycopg:// are "
                           f"supported, not {parsed.get_backend_name()}")
    engine = create_engine(url, pool_size=20, max_overflow=20)
    event.listen(engine, "checkout", _alive)
    return engine


def _alive(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
    """A pooled PostgreSQL connection checked as it leaves the pool, with no round trip
    (``pool_pre_ping`` costs one per checkout) and without letting go of the GIL (a wait
    for it again, inside the table's lock, costs a loaded server more than the check): one
    the server has closed while it sat idle is replaced by a new one (SQLAlchemy retries
    the checkout on :class:`~sqlalchemy.exc.DisconnectionError`).  libpq's non-blocking
    read (:meth:`psycopg.pq.PGconn.consume_input`), twice: a restart ends each backend with
    "terminating connection", which the first read takes in, then closes the stream,
    which the second finds.  A connection lost while in use fails its statement, which
    SQLAlchemy reports as a disconnect (:func:`lost`) and which invalidates every
    connection of the pool opened before it."""
    if dbapi_conn.closed or dbapi_conn.broken:
        raise DisconnectionError("the connection is closed")
    pgconn = dbapi_conn.pgconn
    try:
        pgconn.consume_input()
        pgconn.consume_input()
    except dbapi_conn.OperationalError as exc:
        raise DisconnectionError(f"the server closed an idle connection: {exc}") from None


def lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot serve the request now: a connection lost
    (the server restarted or is down) or another operational refusal (a try again)."""
    return isinstance(exc, OperationalError) or (
        isinstance(exc, DBAPIError) and bool(exc.connection_invalidated))


UNAVAILABLE = ("the database is unavailable for the moment; the request was not "
               "acknowledged; try again")
"""The 503's words when :func:`lost` says the database cannot serve a request now."""


def unavailable(exc: DBAPIError) -> ApiError:
    """The refusal (503, :data:`UNAVAILABLE`) of a request whose database :func:`lost` its
    connection; any other database fault is raised again (the server's error)."""
    if not lost(exc):
        raise exc
    return ApiError(503, UNAVAILABLE)


def is_sqlite(engine: Engine) -> bool:
    """Whether the engine is SQLite (one writer at a time)."""
    return engine.dialect.name == "sqlite"


def write_lock(engine: Engine) -> threading.Lock | None:
    """SQLite allows one writer: the server serialises its write transactions through
    this lock instead of retrying on "database is locked".  ``None`` on PostgreSQL."""
    return _SQLITE_WRITE if is_sqlite(engine) else None


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (creates it on first start)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


STARTUP_LOCK = 0x5B1D0000
"""The advisory lock that serialises the start of processes on one PostgreSQL."""


@contextlib.contextmanager
def startup_lock(engine: Engine) -> Iterator[None]:
    """Hold PostgreSQL's advisory lock for a start (migrations, the house and operator
    accounts), so that processes started together do it one after the other (SQLite:
    one process, nothing to hold)."""
    if is_sqlite(engine):
        yield
        return
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": STARTUP_LOCK})
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": STARTUP_LOCK})
            conn.commit()
