"""A transaction's reads and writes on PostgreSQL (:mod:`sidebet.serve.service.rows`): a
read before the first write opens no transaction of its own, a read after a write is made
in the transaction; the last writes go as one message, one transaction.  Run where
``SIDEBET_TEST_POSTGRES`` names a server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import (
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    func,
    insert,
    select,
)
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from sidebet.serve.service.rows import read_rows, write_rows

from .harness import database_url

pytestmark = [pytest.mark.postgres, pytest.mark.skipif(
    not os.environ.get("SIDEBET_TEST_POSTGRES"), reason="needs SIDEBET_TEST_POSTGRES")]


def test_a_read_before_any_write_opens_no_transaction(tmp_path: Path) -> None:
    import psycopg

    engine = create_engine(database_url(tmp_path))
    rows = Table("rows_probe", MetaData(), Column("id", Integer, primary_key=True),
                 Column("v", Integer))
    rows.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(rows), [{"id": 1, "v": 10}])
    try:
        with Session(engine) as s, s.begin():
            conn = s.connection()
            raw = conn.connection.driver_connection
            assert raw is not None
            assert read_rows(conn, select(rows.c.id, rows.c.v)) == [(1, 10)]
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            assert not raw.autocommit
            conn.execute(insert(rows), [{"id": 2, "v": 20}])  # opens the transaction
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
            seen = read_rows(conn, select(rows.c.id).order_by(rows.c.id))
            assert seen == [(1,), (2,)]  # its own write, in the transaction
            s.rollback()
        with engine.connect() as conn:
            assert [r.id for r in conn.execute(select(rows.c.id))] == [1]
    finally:
        engine.dispose()


def test_a_read_binds_its_values_and_loads_its_columns_types(tmp_path: Path) -> None:
    """A list of values (``IN``) and a text bound by psycopg, a quote in it kept; the
    rows' integers, text and nulls loaded as Python's; a failed read raised as
    SQLAlchemy's error, and the session goes on after its rollback."""
    engine = create_engine(database_url(tmp_path))
    rows = Table("typed_probe", MetaData(), Column("id", Integer, primary_key=True),
                 Column("name", String), Column("v", Integer))
    rows.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(rows), [{"id": 1, "name": "o'brien", "v": None},
                                    {"id": 2, "name": "pia", "v": 7},
                                    {"id": 3, "name": "x", "v": 9}])
    missing = Table("no_such_table", MetaData(), Column("id", Integer))
    try:
        with Session(engine) as s, s.begin():
            conn = s.connection()
            assert read_rows(conn, select(rows.c.id, rows.c.name, rows.c.v).where(
                rows.c.id.in_([1, 2]), rows.c.name != "x").order_by(rows.c.id)) == [
                (1, "o'brien", None), (2, "pia", 7)]
            assert read_rows(conn, select(rows.c.id).where(rows.c.name == "o'brien")) == [(1,)]
            assert read_rows(conn, select(rows.c.id).where(rows.c.id.in_([]))) == []
            with pytest.raises(DBAPIError, match="no_such_table"):
                read_rows(conn, select(missing.c.id))
            s.rollback()
        with Session(engine) as s, s.begin():
            assert read_rows(s.connection(), select(rows.c.id).where(rows.c.id == 3)) == [(3,)]
    finally:
        engine.dispose()


def _probe(tmp_path: Path) -> tuple[Engine, Table, Table]:
    engine = create_engine(database_url(tmp_path))
    meta = MetaData()
    events = Table("events_probe", meta, Column("id", Integer, primary_key=True),
                   Column("note", String))
    answers = Table("answers_probe", meta, Column("id", Integer, primary_key=True))
    meta.create_all(engine)
    return engine, events, answers


def test_the_last_writes_are_one_transaction_on_an_idle_connection(tmp_path: Path) -> None:
    """The writes of a transaction that has sent nothing yet go as one message, all or
    none: a key already stored refuses the whole (``IntegrityError``, psycopg's unique
    violation within) and leaves the connection idle and usable."""
    import psycopg

    engine, events, answers = _probe(tmp_path)
    try:
        with engine.begin() as conn:
            conn.execute(insert(answers), [{"id": 7}])
        with Session(engine) as s, s.begin():
            conn = s.connection()
            raw = conn.connection.driver_connection
            assert raw is not None
            with pytest.raises(IntegrityError) as refused:
                write_rows(conn, events, [{"id": 1, "note": "kept?"}], answers, {"id": 7})
            assert isinstance(refused.value.orig, psycopg.errors.UniqueViolation)
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            write_rows(conn, events, [{"id": 2, "note": "it's kept"}], answers, {"id": 8})
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with engine.connect() as conn:
            assert [tuple(r) for r in conn.execute(select(events))] == [(2, "it's kept")]
            assert sorted(r.id for r in conn.execute(select(answers))) == [7, 8]
    finally:
        engine.dispose()


def test_the_last_writes_commit_a_transaction_in_progress(tmp_path: Path) -> None:
    """After a write the message ends with ``COMMIT``: everything is committed, however
    long the message (larger than the socket's buffer), and a failure rolls back the
    transaction's earlier writes too."""
    engine, events, answers = _probe(tmp_path)
    long = [{"id": i, "note": "x" * 1000} for i in range(10, 3010)]  # about 3 MB
    try:
        with Session(engine) as s, s.begin():
            conn = s.connection()
            conn.execute(insert(answers), [{"id": 1}])
            write_rows(conn, events, long, answers, {"id": 2})
        with Session(engine) as s, s.begin():
            conn = s.connection()
            conn.execute(insert(answers), [{"id": 3}])
            with pytest.raises(IntegrityError):
                write_rows(conn, events, [{"id": 5, "note": ""}], answers, {"id": 2})
            s.rollback()
        with engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(events)).scalar() == 3000
            assert sorted(r.id for r in conn.execute(select(answers))) == [1, 2]
    finally:
        engine.dispose()
