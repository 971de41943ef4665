"""A running server whose PostgreSQL connections are all cut (what a restart of PostgreSQL
does to them: each backend ends with "terminating connection", then closes): the pool has
no ``pool_pre_ping`` round trip, so a dead idle connection must be found as it leaves the
pool (``serve.db._alive``) and one cut mid-request must fail cleanly (503, nothing
acknowledged, its table rebuilt).  Players keep playing through the cuts: every answer is
201 or 503, a 503 retried under its key gets the first answer if it was committed, every
acknowledged action is in the log, money is conserved and the audit is clean."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from sidebet.serve.log_audit import audit_lines

from .harness import Api, Server, database_url, make_table, running, simple_action

pytestmark = pytest.mark.postgres

TABLES = 3
ACTIONS = 60


def cut_connections(db_url: str, wait: bool = False) -> int:
    """Terminate every backend of the database ``db_url`` names: how many.  With ``wait``,
    once they have ended (``pg_terminate_backend`` only signals them), so that their
    connections are closed, not closing, when the server next takes one."""
    base = os.environ["SIDEBET_TEST_POSTGRES"].replace("postgresql+psycopg://",
                                                       "postgresql://")
    name = db_url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(base, autocommit=True) as conn:
        rows = conn.execute("SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        cut = [pid for pid, done in rows if done]
        deadline = time.monotonic() + 30
        while wait and conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = "
                                    "ANY(%s)", (cut,)).fetchone() != (0,):
            assert time.monotonic() < deadline, f"backends {cut} did not end"
            time.sleep(0.01)
        return len(cut)


def play(api: Api, t: int, acked: list[dict[str, Any]], statuses: list[int],
         stop: threading.Event) -> None:
    """Play the table's one seat with simple choices until ``ACTIONS`` are acknowledged
    (or ``stop``); a 503 is retried under the same key."""
    state = api.get(f"/api/tables/{t}/state")
    while len(acked) < ACTIONS and not stop.is_set():
        chosen = simple_action(state, 1)
        assert chosen is not None, state
        key = f"k{t}-{len(acked)}"
        for _ in range(100):
            r = api.act(t, 1, chosen[0], chosen[1], expect=None, key=key)
            statuses.append(r.status_code)
            if r.status_code != 503:
                break
            time.sleep(0.02)
        assert r.status_code == 201, (r.status_code, r.text)
        body = r.json()
        acked.append({"seq": body["event"], "record": body["record"]})
        state = body["state"]


def test_cut_connections_under_a_running_server(tmp_path: Path) -> None:
    if not os.environ.get("SIDEBET_TEST_POSTGRES"):
        pytest.skip("needs PostgreSQL (SIDEBET_TEST_POSTGRES)")
    url = database_url(tmp_path)
    with running([Server(url)]) as (srv,):
        op = Api.operator(srv.url)
        tables = [make_table(op) for _ in range(TABLES)]
        players = [Api.player(srv.url, f"cut{i}") for i in range(TABLES)]
        for api, t in zip(players, tables, strict=True):
            api.post(f"/api/tables/{t}/seats/1", expect=201)

        # idle connections cut: the next requests all succeed (replaced at checkout)
        assert cut_connections(url, wait=True) >= 1
        for api, t in zip(players, tables, strict=True):
            state = api.get(f"/api/tables/{t}/state")
            chosen = simple_action(state, 1)
            assert chosen is not None
            api.act(t, 1, chosen[0], chosen[1], expect=201)

        # connections cut while the players play: 201 or 503, never anything else
        acked: list[list[dict[str, Any]]] = [[] for _ in tables]
        statuses: list[int] = []
        stop = threading.Event()
        threads = [threading.Thread(target=play, args=(api, t, done, statuses, stop))
                   for api, t, done in zip(players, tables, acked, strict=True)]
        for thread in threads:
            thread.start()
        try:
            for _ in range(4):
                time.sleep(0.3)
                cut_connections(url)
        finally:
            for thread in threads:
                thread.join(timeout=120)
            stop.set()
        assert all(len(done) == ACTIONS for done in acked), [len(d) for d in acked]
        assert set(statuses) <= {201, 503}, set(statuses)

        for t, done in zip(tables, acked, strict=True):
            log = {ev["seq"]: ev for ev in op.events(t)}
            for answer in done:  # every acknowledged action is in the log, as answered
                assert log[answer["seq"]]["payload"]["decision"] == answer["record"]
            report = audit_lines(op.http.get(f"/api/tables/{t}/export").text.splitlines())
            assert report.actions_replayed > 0
        reconcile = op.get("/api/reconcile")
        assert reconcile["conserved"] and reconcile["negative_balances"] == 0, reconcile
        print("answers:", {s: statuses.count(s) for s in set(statuses)})


def test_an_idle_connection_the_server_closed_is_found_as_it_leaves_the_pool() -> None:
    """``serve.db._alive`` with no round trip: a live idle connection passes, again and
    again; once its backend is terminated (its "terminating connection", then the end of
    the stream), it is refused, which makes the pool replace it."""
    from sqlalchemy.exc import DisconnectionError

    from sidebet.serve.db import _alive

    base = os.environ.get("SIDEBET_TEST_POSTGRES")
    if not base:
        pytest.skip("needs PostgreSQL (SIDEBET_TEST_POSTGRES)")
    url = base.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as idle, psycopg.connect(url, autocommit=True) as admin:
        for _ in range(3):
            _alive(idle, None, None)
        assert idle.execute("SELECT 1").fetchone() == (1,)
        idle.rollback()
        _alive(idle, None, None)
        admin.execute("SELECT pg_terminate_backend(%s)", (idle.info.backend_pid,))
        deadline = time.monotonic() + 10
        with pytest.raises(DisconnectionError, match="closed an idle connection"):
            while time.monotonic() < deadline:  # till the stream's end reaches this side
                _alive(idle, None, None)
                time.sleep(0.001)
