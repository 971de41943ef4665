"""A transaction's reads and writes on PostgreSQL (:mod:`sidebet.serve.service.rows`): a
read before the first write opens no transaction of its own, a read after a write is made
in the transaction.  Run where ``SIDEBET_TEST_POSTGRES`` names a server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, create_engine, insert, select
from sqlalchemy.orm import Session

from sidebet.serve.service.rows import read_rows

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
            assert [tuple(r) for r in read_rows(conn, select(rows.c.id, rows.c.v))] == [(1, 10)]
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            assert not raw.autocommit
            conn.execute(insert(rows), [{"id": 2, "v": 20}])  # opens the transaction
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
            seen = read_rows(conn, select(rows.c.id).order_by(rows.c.id))
            assert [r.id for r in seen] == [1, 2]  # its own write, in the transaction
            s.rollback()
        with engine.connect() as conn:
            assert [r.id for r in conn.execute(select(rows.c.id))] == [1]
    finally:
        engine.dispose()
