"""A request's log rows and stored answer written together, then committed: on PostgreSQL
in one round trip (psycopg's pipeline mode: the inserts and the ``COMMIT``, the SQL text
built once per table and set of columns), elsewhere as two SQLAlchemy Core statements with
the commit left to the session.  A database error is raised as SQLAlchemy's
(``IntegrityError`` for a key already stored, ``DBAPIError`` for the fencing trigger, with
``connection_invalidated`` for a lost connection), as if SQLAlchemy had executed the
statements."""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Connection, Insert, Table, insert
from sqlalchemy.exc import DBAPIError

__all__ = ["write_rows"]


@cache
def _sql(table: str, columns: tuple[str, ...]) -> str:
    """``INSERT`` of one row of ``columns`` into ``table``, in psycopg's named style."""
    return (f"INSERT INTO {table} ({', '.join(columns)}) "
            f"VALUES ({', '.join(f'%({c})s' for c in columns)})")


@cache
def _insert(table: Table) -> Insert:
    """SQLAlchemy's ``INSERT`` into ``table`` (built once)."""
    return insert(table)


def write_rows(conn: Connection, events: Table, rows: list[dict[str, Any]], answers: Table,
               answer: dict[str, Any] | None) -> None:
    """Insert ``rows`` into ``events`` and ``answer`` (if any) into ``answers``, the last
    writes of the transaction of ``conn``; on PostgreSQL commit it with them (the
    session's own commit then has nothing left to do)."""
    if conn.dialect.name != "postgresql" or not (rows or answer):
        if rows:
            conn.execute(_insert(events), rows)
        if answer is not None:
            conn.execute(_insert(answers), answer)
        return
    raw: Any = conn.connection.driver_connection
    sql = [_sql(events.name, tuple(rows[0]))] if rows else []
    if answer is not None:
        sql.append(_sql(answers.name, tuple(answer)))
    try:
        with raw.pipeline():
            with raw.cursor() as cur:
                if rows:
                    cur.executemany(sql[0], rows)
                if answer is not None:
                    cur.execute(sql[-1], answer)
            raw.commit()
    except conn.dialect.loaded_dbapi.Error as exc:
        gone = bool(raw.closed or raw.broken)
        if gone:  # as SQLAlchemy does for its own statements: the connection is replaced
            conn.invalidate(exc)
        raise DBAPIError.instance("; ".join(sql), None, exc,
                                  conn.dialect.loaded_dbapi.Error, dialect=conn.dialect,
                                  connection_invalidated=gone) from exc
