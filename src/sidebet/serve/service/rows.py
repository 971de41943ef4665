"""A request's log rows and stored answer written together, then committed, with the
writes put off till then (:meth:`~sidebet.serve.service.core.Core.later`): on PostgreSQL
in one round trip, elsewhere as SQLAlchemy Core statements with the commit left to the
session.

On PostgreSQL the inserts go as one simple-protocol message, their values bound by
psycopg's :class:`~psycopg.ClientCursor`, sent and answered through psycopg's libpq
connection (:func:`_round_trip`). When they are the transaction's first writes the
message is sent alone (a message of several statements is one transaction, committed
before its answer); otherwise it ends with ``COMMIT``. Either way the session's own
commit then finds the connection idle and sends nothing. A database error is raised as
SQLAlchemy's (``IntegrityError`` for a key already stored, ``DBAPIError`` for the fencing
trigger, with ``connection_invalidated`` for a lost connection), as if SQLAlchemy had
executed the statements.  A read inside the table's lock (:func:`read_rows`) goes the
same way: one message, its rows loaded by psycopg's adapters."""

from __future__ import annotations

import contextlib
import select
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any, TypeVarTuple, cast

from sqlalchemy import Connection, Dialect, Executable, Insert, Select, Table, insert
from sqlalchemy.exc import DBAPIError

__all__ = ["read_rows", "write_rows"]

_Ts = TypeVarTuple("_Ts")


@cache
def _head(table: str, columns: tuple[str, ...]) -> tuple[str, str]:
    """``INSERT INTO table (columns) VALUES`` and one row's placeholders."""
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ",
            f"({', '.join(['%s'] * len(columns))})")


@cache
def _insert(table: Table) -> Insert:
    """SQLAlchemy's ``INSERT`` into ``table`` (built once)."""
    return insert(table)


def _values(cur: Any, table: Table, rows: list[dict[str, Any]]) -> str:
    """One ``INSERT`` of ``rows`` into ``table``, its values bound by ``cur``."""
    columns = tuple(rows[0])
    head, row = _head(table.name, columns)
    return head + ", ".join(cur.mogrify(row, tuple(r[c] for c in columns)) for r in rows)


@cache
def _sql_of(statement: Executable, dialect: Dialect) -> str:
    """``statement`` as SQL text with named placeholders (compiled once)."""
    return str(statement.compile(dialect=dialect))  # type: ignore[attr-defined]


def write_rows(conn: Connection, events: Table, rows: list[dict[str, Any]], answers: Table,
               answer: dict[str, Any] | None,
               later: Sequence[tuple[Executable, list[dict[str, Any]]]] = ()) -> None:
    """Execute the writes put off till now (``later``: statements and their parameters),
    insert ``rows`` into ``events`` and ``answer`` (if any) into ``answers``: the last
    writes of the transaction of ``conn``; on PostgreSQL commit it with them."""
    if conn.dialect.name != "postgresql" or not (rows or answer or later):
        for statement, params in later:
            conn.execute(statement, params)
        if rows:
            conn.execute(_insert(events), rows)
        if answer is not None:
            conn.execute(_insert(answers), answer)
        return
    import psycopg

    raw: Any = conn.connection.driver_connection
    first = raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with _as_sqlalchemy(conn) as sent:
        with psycopg.ClientCursor(raw) as cur:
            parts = [cur.mogrify(_sql_of(statement, conn.dialect), p)
                     for statement, params in later for p in params]
            if rows:
                parts.append(_values(cur, events, rows))
            if answer is not None:
                parts.append(_values(cur, answers, [answer]))
        # on an idle connection a message of several statements is one transaction
        sent.append("; ".join(parts if first else [*parts, "COMMIT"]))
        _round_trip(raw, sent[-1])


@contextlib.contextmanager
def _as_sqlalchemy(conn: Connection) -> Iterator[list[str]]:
    """Raise a database error of the block as SQLAlchemy would (``DBAPIError``), with the
    SQL it put in the list it is given; a lost connection is invalidated, as SQLAlchemy
    does for its own statements (the pool replaces it)."""
    sent: list[str] = []
    raw: Any = conn.connection.driver_connection
    try:
        yield sent
    except conn.dialect.loaded_dbapi.Error as exc:
        gone = bool(raw.closed or raw.broken)
        if gone:
            conn.invalidate(exc)
        raise DBAPIError.instance(sent[-1] if sent else "", None, exc,
                                  conn.dialect.loaded_dbapi.Error, dialect=conn.dialect,
                                  connection_invalidated=gone) from exc


def _round_trip(raw: Any, sql: str) -> Any:
    """Send ``sql`` (simple protocol) on the psycopg connection ``raw`` and wait for its
    answer, letting go of the GIL twice: as libpq sends it and while it waits for the
    reply (``poll``).  psycopg's own ``execute`` lets go of it several times a statement,
    and every time the thread must win it back from the threads running meanwhile,
    all inside the table's lock.  The first failed statement is raised as psycopg
    raises it (:func:`psycopg.errors.error_from_result`); else the last statement's
    result (libpq's)."""
    import psycopg
    from psycopg.pq import ExecStatus

    pgconn = raw.pgconn
    encoding = raw.info.encoding
    pgconn.send_query(sql.encode(encoding))
    waiting = select.poll()
    fd = pgconn.socket
    while pgconn.flush():  # a message larger than the socket's buffer: the rest when it can
        waiting.register(fd, select.POLLIN | select.POLLOUT)
        waiting.poll()
        pgconn.consume_input()
    waiting.register(fd, select.POLLIN)
    pgconn.consume_input()
    while pgconn.is_busy():
        waiting.poll()
        pgconn.consume_input()
    failed = last = None
    while (result := pgconn.get_result()) is not None:
        if failed is None and result.status == ExecStatus.FATAL_ERROR:
            failed = psycopg.errors.error_from_result(result, encoding)
        last = result
    if failed is not None:
        raise failed
    return last


def read_rows(conn: Connection, statement: Select[*_Ts]) -> list[tuple[*_Ts]]:
    """The rows of ``statement`` read in the transaction of ``conn``.  On PostgreSQL sent
    and answered through libpq as the writes are (:func:`_round_trip`), its values bound
    by psycopg and its rows loaded by psycopg's own adapters; while the transaction has
    sent nothing yet, the read is sent without opening it (no ``BEGIN`` of its own: one
    round trip, not two): under READ COMMITTED a plain ``SELECT`` sees the same committed
    rows in a transaction or out of one, and takes no lock.  A read after a write is made
    in the transaction, as usual."""
    if conn.dialect.name != "postgresql":
        return cast(list[tuple[*_Ts]], [tuple(row) for row in conn.execute(statement)])
    import psycopg
    from psycopg.adapt import Transformer

    raw: Any = conn.connection.driver_connection
    compiled = statement.compile(dialect=conn.dialect,
                                 compile_kwargs={"render_postcompile": True})
    with _as_sqlalchemy(conn) as sent:
        with psycopg.ClientCursor(raw) as cur:
            sent.append(cur.mogrify(str(compiled), compiled.params))
        result = _round_trip(raw, sent[-1])
    rows = Transformer(raw)
    rows.set_pgresult(result)
    return cast(list[tuple[*_Ts]], rows.load_rows(0, result.ntuples, tuple))
