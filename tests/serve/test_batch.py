"""SQLite's group commit: requests written while a commit is due share it, and each is
released (published) only once committed, in the order their work was done."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, func, insert, select
from sqlalchemy.orm import sessionmaker

from sidebet.serve.db import make_engine
from sidebet.serve.service.batch import GroupCommit, Ticket

ROWS = Table("rows", MetaData(), Column("n", Integer, primary_key=True))


def test_requests_gathered_in_one_commit_and_released_in_order(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'batch.db'}")
    ROWS.metadata.create_all(engine)
    finished: list[int] = []
    lock = threading.Lock()
    batch = GroupCommit(sessionmaker(engine), lock,
                        lambda t: finished.append(int(t.events[0]["n"])))
    tickets = []
    with lock:  # three requests' work, while the commit waits for the lock
        for n in range(3):
            s = batch.session()
            with s.begin_nested():
                s.execute(insert(ROWS), {"n": n})
            tickets.append(batch.add(Ticket(None, None, [{"n": n}])))
        with engine.connect() as other:  # nothing is visible before the commit
            assert other.scalar(select(func.count()).select_from(ROWS)) == 0
        assert not any(t.done.is_set() for t in tickets)
    for t in tickets:
        t.wait()
    assert (batch.batches, batch.commits) == (1, 3) and finished == [0, 1, 2]
    with engine.connect() as other:
        assert other.scalar(select(func.count()).select_from(ROWS)) == 3
    with lock:  # a failed request's savepoint leaves the others' writes
        s = batch.session()
        point = s.begin_nested()
        s.execute(insert(ROWS), {"n": 9})
        point.rollback()
        with s.begin_nested():
            s.execute(insert(ROWS), {"n": 4})
        batch.flush()  # a write outside the batch commits it first
    with engine.connect() as other:
        assert sorted(other.scalars(select(ROWS.c.n))) == [0, 1, 2, 4]
