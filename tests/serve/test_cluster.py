"""Three ``sidebet serve`` processes on one PostgreSQL (``serve --workers 2``
and a plain ``serve``): actions at random through all of them, the owner of a table
killed (SIGKILL) in the middle of a round, its table taken over by the others; every acknowledged action is in the log, no action is
refused (each is chosen from the table's state as of the player's last answer), money is
conserved, wallets equal the logged moves, and each table's export passes the audit; a
sign-out on one process holds on the others at once.
Also: ``--workers`` on SQLite is refused with one line."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import func, select, update

from sidebet.serve.cluster.member import Member
from sidebet.serve.db import make_engine
from sidebet.serve.errors import NotOwner
from sidebet.serve.log_audit import audit_lines
from sidebet.serve.models import Event, TableOwner
from sidebet.serve.service.services import Services
from sidebet.serve.settings import load_settings

from .harness import ONE_DECK_SHORT, SIX_DECK, Api, Server, database_url, make_table
from .test_recovery import money_in_log, random_request

ACTIONS = 10
"""Actions per table before the kill, and again after it."""


def _owners(db: str) -> dict[int, str]:
    with psycopg.connect(db.replace("postgresql+psycopg://", "postgresql://")) as conn:
        return {int(t): str(a) for t, a in conn.execute(
            "SELECT table_id, address FROM table_owners WHERE owner IS NOT NULL")}


def _wait(what: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


class Player:
    """The players of one table, acting through a random live process, retrying an
    unanswered request with its key through another."""

    def __init__(self, seats: dict[int, Api], servers: list[Server], rng: random.Random
                 ) -> None:
        self.seats = seats
        self.servers = servers
        self.rng = rng
        self.seq = 0
        self.acked: list[tuple[int, dict[str, Any]]] = []
        self.refused: list[str] = []
        self.retries = 0

    def _live(self) -> Server:
        return self.rng.choice([s for s in self.servers
                                if s.proc is not None and s.proc.poll() is None])

    def state(self, table: int) -> dict[str, Any]:
        """The table's state as of this player's last answer at least."""
        for _ in range(40):
            url = self._live().url
            try:
                r = httpx.get(f"{url}/api/tables/{table}/state",
                              params={"after": self.seq - 1} if self.seq else {}, timeout=15)
            except httpx.HTTPError:
                continue
            assert r.status_code == 200, r.text
            return dict(r.json())
        raise AssertionError("no state")

    def act(self, table: int) -> None:
        api, path, body = random_request(self.rng, self.state(table), self.seats)
        key = f"c-{self.rng.random()}"
        for _ in range(40):
            url = self._live().url
            try:
                r = api.http.post(url + path, json=body, headers={"Idempotency-Key": key},
                                  timeout=15)
            except httpx.HTTPError:
                self.retries += 1
                continue
            if r.status_code == 503:
                self.retries += 1
                time.sleep(0.1)
                continue
            if r.status_code != 201:
                self.refused.append(f"{r.status_code} {path} {r.text}")
                return
            answer = r.json()
            self.seq = answer["seq"]
            self.acked.append((answer["event"], answer["record"]))
            return
        raise AssertionError(f"{path} was not answered")


@pytest.mark.postgres
@pytest.mark.slow
def test_three_processes_and_a_takeover(tmp_path: Path) -> None:
    if not os.environ.get("SIDEBET_TEST_POSTGRES"):
        pytest.skip("several processes need PostgreSQL (SIDEBET_TEST_POSTGRES)")
    rng = random.Random(int(os.environ.get("SIDEBET_TEST_SEED_CLUSTER", "19")))
    db = database_url(tmp_path)
    # three processes: `serve --workers 2` and a plain `serve`, whose forwarded writes go to
    # its public port (so the test knows which tables it owns)
    servers = [Server(db, extra=["--workers", "2"]), Server(db)]
    servers[1].env["SIDEBET_CLUSTER_ADDRESS"] = servers[1].url
    starting = [threading.Thread(target=srv.start) for srv in servers]
    for thread in starting:
        thread.start()
    for thread in starting:
        thread.join()
    began = time.monotonic()
    try:
        op = Api.operator(servers[0].url)
        tables = [make_table(op, ONE_DECK_SHORT), make_table(op, ONE_DECK_SHORT),
                  make_table(op, SIX_DECK)]
        _wait(lambda: len(set(_owners(db).values())) == 3 and len(_owners(db)) == 3)
        _revocation_reaches_every_process(servers)
        players: dict[int, Player] = {}
        accounts: dict[int, Api] = {}
        for i, t in enumerate(tables):
            seats = {}
            for seat in (1, 3):
                api = Api.player(servers[(i + seat) % 2].url, f"c{t}-{seat}")
                api.post(f"/api/tables/{t}/seats/{seat}", expect=201)
                seats[seat] = api
                accounts[api.get("/api/me")["id"]] = api
            players[t] = Player(seats, servers, random.Random(rng.random()))

        def play(count: int) -> None:
            threads = [threading.Thread(target=lambda p=p, t=t: [p.act(t) for _ in range(count)])
                       for t, p in players.items()]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        play(ACTIONS)
        print(f"first actions at {time.monotonic() - began:.1f} s")  # shown with -s
        # the owner of a table in the middle of a round: killed while actions are in flight
        victim, victim_url = servers[1], servers[1].url
        assert victim_url in _owners(db).values()
        during = threading.Thread(target=play, args=(ACTIONS,))
        during.start()
        time.sleep(0.3)
        killed_at = time.monotonic()
        victim.kill()
        _wait(lambda: victim_url not in _owners(db).values() and len(_owners(db)) == 3)
        print(f"takeover after {time.monotonic() - killed_at:.2f} s")  # shown with -s
        during.join()

        alive = servers[0]
        op = Api.operator(alive.url)
        for t, p in players.items():
            assert not p.refused, p.refused  # none a single process would not give
            assert len(p.acked) == 2 * ACTIONS
            for seq, record in p.acked:  # every acknowledged action, in the log
                events = op.get(f"/api/tables/{t}/events", since=seq - 1, limit=1)
                if record["step"] == "ready":  # done betting, the others awaited
                    assert events[0]["kind"] == "ready", events
                else:
                    assert events[0]["payload"]["decision"] == record
            while op.get(f"/api/tables/{t}/state")["round_open"]:
                p.act(t)
        log_moves = money_in_log(op, tables)
        for acct, api in accounts.items():
            api.http.base_url = httpx.URL(alive.url)
            assert api.balance() == 1000_00 + log_moves.get(acct, 0)
        reconcile = op.get("/api/reconcile")
        assert reconcile["conserved"] and reconcile["negative_balances"] == 0, reconcile
        for t in tables:
            report = audit_lines(op.http.get(f"/api/tables/{t}/export").text.splitlines())
            assert report.actions_replayed > 0
        print("retries:", {t: p.retries for t, p in players.items()},
              f"done at {time.monotonic() - began:.1f} s")
    finally:
        for srv in servers:
            srv.stop()


def _revocation_reaches_every_process(servers: list[Server]) -> None:
    """A sign-out everywhere on one process holds on the others at once (their cached
    tokens dropped by ``NOTIFY sidebet_tokens``), well inside the 10 s after which a
    cached token is checked again anyway."""
    ann = Api.player(servers[1].url, "c-revoked", deposit=None)
    bearer = {"Authorization": ann.http.headers["Authorization"]}
    for srv in servers:
        for _ in range(6):  # both workers of `--workers 2` cache it
            assert httpx.get(srv.url + "/api/me", headers=bearer).status_code == 200
    assert ann.http.delete("/api/tokens").status_code == 200
    revoked_at = time.monotonic()
    _wait(lambda: all(httpx.get(srv.url + "/api/me", headers=bearer).status_code == 401
                      for srv in servers for _ in range(6)), seconds=3)
    assert time.monotonic() - revoked_at < 3


@pytest.mark.slow
def test_workers_need_postgresql(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sidebet", "serve", "--workers", "2",
                           "--database-url", f"sqlite:///{tmp_path / 'one.db'}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--workers 2 needs PostgreSQL" in done.stderr
    assert not (tmp_path / "one.db").exists()


@pytest.mark.postgres
def test_a_stale_owner_write_is_refused(tmp_path: Path) -> None:
    """A process whose table was taken over (a higher fencing number in ``table_owners``)
    has its next write refused by the database: nothing is logged, the process stops
    owning the table and the request is handed on (:class:`NotOwner`)."""
    if not os.environ.get("SIDEBET_TEST_POSTGRES"):
        pytest.skip("the fence is PostgreSQL's (SIDEBET_TEST_POSTGRES)")
    url = database_url(tmp_path)
    sv = Services.open(make_engine(url), load_settings(
        database_url=url, operator_password="operator-secret-1", test_stack=True))
    t = sv.tables.ensure(sv.accounts.operator(), SIX_DECK)
    core = sv.core
    with core.sessions.begin() as s:
        s.add(TableOwner(table_id=t, epoch=1, owner="a", address="http://a", at="now"))
    Member(core).epochs[t] = 1
    sv.tables.stack_shoe(t, "Ah Kh")  # the owner writes
    seq = core.live(t).seq
    with core.sessions.begin() as s:  # another process takes the table over
        s.execute(update(TableOwner).where(TableOwner.table_id == t).values(epoch=2, owner="b"))
    with pytest.raises(NotOwner):
        sv.tables.stack_shoe(t, "Qs Qd")
    assert not core.owns(t)
    assert core.live(t).seq == seq
    with core.sessions() as s:
        assert s.scalar(select(func.max(Event.seq)).where(Event.table_id == t)) == seq
        assert s.scalar(select(Event.epoch).where(Event.table_id == t, Event.seq == seq)) == 1
    with pytest.raises(NotOwner):  # and it writes no more
        sv.tables.stack_shoe(t, "Qs Qd")
