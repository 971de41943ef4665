"""The baseline of ``bench_server.py``: the least a table server can do per action.

A minimal FastAPI app on uvicorn (one process, the same thread pool as ``sidebet serve``)
whose every POST makes one durable commit: one row inserted into one table, committed
before the answer.  The database engine is ``sidebet.serve.db.make_engine``'s, so SQLite has
the same settings as the server (WAL, ``synchronous=FULL``, one writer at a time through a
lock) and PostgreSQL its defaults (``synchronous_commit=on``).  Each table's counter is kept
in memory; ``GET /api/tables/{t}/state`` answers it without the database, as a server that
keeps its state in memory would.  No authentication, no rules, no log chain: a ceiling, not a
server.

Run: ``python benchmarks/baseline_app.py DATABASE_URL PORT`` (listens on 127.0.0.1 only).
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from typing import Any

import uvicorn
from fastapi import FastAPI
from sqlalchemy import Column, Integer, MetaData, String, Table, Text, insert

from sidebet.serve.db import make_engine, write_lock

metadata = MetaData()
actions = Table("baseline_actions", metadata,
                Column("id", Integer, primary_key=True),
                Column("table_id", Integer, nullable=False),
                Column("seat", Integer, nullable=False),
                Column("action", String(32), nullable=False),
                Column("at", String(32), nullable=False),
                Column("payload", Text, nullable=False))


def create(url: str) -> FastAPI:
    """The app over the database at ``url`` (its one table created if missing)."""
    engine = make_engine(url)
    metadata.create_all(engine)
    writer = write_lock(engine)
    counters: dict[int, int] = {}
    guard = threading.Lock()
    app = FastAPI()

    @app.get("/api/tables/{table_id}/state")
    def state(table_id: int) -> dict[str, Any]:
        return {"table": table_id, "seq": counters.get(table_id, 0)}

    @app.post("/api/tables/{table_id}/seats/{seat}/{action}", status_code=201)
    def act(table_id: int, seat: int, action: str,
            body: dict[str, Any] | None = None) -> dict[str, Any]:
        return commit(table_id, seat, action, json.dumps(body or {}))

    def commit(table_id: int, seat: int, action: str, body: str) -> dict[str, Any]:
        row = {"table_id": table_id, "seat": seat, "action": action,
               "at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()), "payload": body}
        with writer if writer is not None else contextlib.nullcontext(), engine.begin() as c:
            c.execute(insert(actions), row)
        with guard:
            counters[table_id] = counters.get(table_id, 0) + 1
            return {"table": table_id, "seq": counters[table_id]}

    return app


def main() -> None:
    url, port = sys.argv[1], int(sys.argv[2])
    uvicorn.run(create(url), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
