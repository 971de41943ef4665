"""Two ``sidebet serve`` processes on one PostgreSQL: a
reading shoe's WebSocket on the process that does not own its table has its cards entered
by the owner; the read rate per address is one bucket for both processes; the count of
rounds a player sat out, and a reading shoe's socket, survive the owner's kill -9 and the
takeover (the last test: it kills a process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.sync.client import connect

from sidebet.serve.db import make_engine
from sidebet.serve.throttle import SharedBucket

from .harness import ROOT, SIX_DECK, Api, Server, database_url, running

pytestmark = pytest.mark.postgres

READ_BURST = 6
SECOND_HOST = "127.0.0.2"
"""The second process's public host (a loopback address: tests listen on no other)."""
ENV = {"SIDEBET_SIT_OUT_ROUNDS": "2", "SIDEBET_READ_BURST": str(READ_BURST),
       "SIDEBET_READ_RATE": "0.05"}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    """Two processes of one fresh database: the first takes forwarded writes at its
    public port (``SIDEBET_CLUSTER_ADDRESS``), the second listens on another loopback
    address and finds its own address for them, so the owners' addresses say which
    process owns a table."""
    if not os.environ.get("SIDEBET_TEST_POSTGRES"):
        pytest.skip("several processes need PostgreSQL (SIDEBET_TEST_POSTGRES)")
    db = database_url(tmp_path_factory.mktemp("shared"))
    pair = [Server(db, env=ENV), Server(db, env=ENV, extra=["--host", SECOND_HOST])]
    pair[0].env["SIDEBET_CLUSTER_ADDRESS"] = pair[0].url
    pair[1].url = f"http://{SECOND_HOST}:{pair[1].port}"  # advertises an address it finds
    with running(pair):
        yield pair


def owner_of(table: int, servers: list[Server], seconds: float = 30) -> Server:
    """The process that owns ``table`` (waiting for one)."""
    deadline = time.monotonic() + seconds
    with psycopg.connect(servers[0].db_url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        while True:
            row = conn.execute("SELECT address FROM table_owners WHERE table_id = %s AND "
                               "owner IS NOT NULL", (table,)).fetchone()
            conn.commit()
            found = [srv for srv in servers if row is not None
                     and httpx.URL(srv.url).host == httpx.URL(row[0]).host
                     and srv.proc is not None and srv.proc.poll() is None]
            if found:
                return found[0]
            assert time.monotonic() < deadline, f"table {table} has no live owner"
            time.sleep(0.05)


def test_a_process_finds_its_own_address(servers: list[Server]) -> None:
    """Without ``SIDEBET_CLUSTER_ADDRESS`` a process takes forwarded writes on a port of
    its own on its public socket's host, and advertises it: reachable there, not on
    another address of the host."""
    with psycopg.connect(servers[0].db_url.replace("postgresql+psycopg://",
                                                   "postgresql://")) as conn:
        members = {str(a) for (a,) in conn.execute("SELECT address FROM cluster_members")}
    address = next(a for a in members if a != servers[0].url)
    assert members == {servers[0].url, address}
    found = httpx.URL(address)
    assert found.host == SECOND_HOST and found.port != servers[1].port
    assert httpx.get(f"{address}/api/tables", timeout=10).status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{found.port}/api/tables", timeout=10)
    # a write through the first process to a table the second owns reaches it there
    op = Api.operator(servers[0].url)
    tables = [int(op.post("/api/tables", {"submission": SIX_DECK}, expect=201).json()["id"])
              for _ in range(2)]
    deadline = time.monotonic() + 30
    while {owner_of(t, servers).url for t in tables} != {srv.url for srv in servers}:
        assert time.monotonic() < deadline, "the tables did not spread over both processes"
        time.sleep(0.1)
    theirs = next(t for t in tables if owner_of(t, servers) is servers[1])
    Api.player(servers[0].url, "addr-ann").post(f"/api/tables/{theirs}/seats/1", expect=201)


def test_a_device_socket_on_either_process(servers: list[Server], tmp_path: Path) -> None:
    """A reading shoe connected to the process that does not own the table: its cards are
    entered by the owner, answered in order exactly as there (201, 200 for a card sent
    again, 409 and 422 with their rules); the example reading shoe goes on there; a
    revoked token stops it."""
    op = Api.operator(servers[0].url)
    r = op.post("/api/tables", {"submission": SIX_DECK, "seats": 1, "shoe": "physical"},
                expect=201)
    t = int(r.json()["id"])
    op.post("/api/dealer/staff", {"name": "shoe-cl", "password": "staff-password-1",
                                  "role": "device", "tables": [t]}, expect=201)
    owner = owner_of(t, servers)
    other = next(srv for srv in servers if srv is not owner)
    device = Api.login(other.url, "shoe-cl", "staff-password-1")
    with connect(other.url.replace("http", "ws") + f"/api/device/tables/{t}/ws") as ws:
        def card(message: dict[str, Any]) -> dict[str, Any]:
            ws.send(json.dumps(message))
            return dict(json.loads(ws.recv()))

        ws.send(json.dumps({"token": device.http.headers["Authorization"][7:]}))
        assert json.loads(ws.recv())["status"] == 200
        first = card({"id": "a", "position": 0, "card": "8h", "confidence": 0.99})
        assert first["status"] == 201 and first["id"] == "a", first
        assert first["card"]["card"] == "8h" and first["card"]["next_position"] == 1
        again = card({"id": "b", "position": 0, "card": "8h", "confidence": 0.99})
        assert again["status"] == 200 and again["id"] == "b"
        assert again["card"]["next_position"] == 1
        clash = card({"position": 0, "card": "9h"})
        assert clash["status"] == 409 and clash["violations"][0]["rule"].startswith("§ 633a.7")
        assert card({"position": 1, "card": "Zz"})["status"] == 422
        assert card({"position": 1, "card": "Ts"})["card"]["next_position"] == 2
        # the example reading shoe, on the same process, goes on from where the shoe is
        shoe_file = tmp_path / "cards.txt"
        shoe_file.write_text("2c 0.97\n3d\n", encoding="utf-8")
        done = subprocess.run([sys.executable, str(ROOT / "examples" / "reading_shoe.py"),
                               str(shoe_file), "--server", other.url, "--table", str(t),
                               "--name", "shoe-cl", "--start", "2"],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "SIDEBET_DEVICE_PASSWORD": "staff-password-1"})
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["2c at 2: accepted", "3d at 3: accepted"]
        assert owner_of(t, servers) is owner  # entered by the owner, not taken over
        r = op.post("/api/operator/accounts/shoe-cl/revoke")
        assert r.status_code < 300, r.text
        assert card({"position": 4, "card": "4s"})["status"] == 401
    entered = [e["payload"] for e in op.events(t) if e["kind"] == "card"]
    assert [(e["position"], e["card"], e["source"]) for e in entered] == [
        (0, "8h", "device shoe-cl"), (1, "Ts", "device shoe-cl"), (2, "2c", "device shoe-cl"),
        (3, "3d", "device shoe-cl")]


def test_reads_share_one_bucket_per_address(servers: list[Server]) -> None:
    """Reads of a table's events from one address, spread over both processes, meet one
    limit: the burst in all, then 429 on both (each process alone would grant the burst).
    The reads come from an address of their own (127.0.0.3), whose bucket no other test
    takes from."""
    clients = [httpx.Client(base_url=srv.url, timeout=30, transport=httpx.HTTPTransport(
        local_address="127.0.0.3")) for srv in servers]
    t = int(Api.operator(servers[0].url).post("/api/tables", {"submission": SIX_DECK},
                                              expect=201).json()["id"])
    answers = [clients[n % 2].get(f"/api/tables/{t}/events") for n in range(READ_BURST + 2)]
    codes = [a.status_code for a in answers]
    assert codes == [200] * READ_BURST + [429, 429], codes
    assert "too many reads" in answers[-1].json()["detail"]
    assert int(answers[-1].headers["Retry-After"]) >= 1


def test_shared_bucket_in_the_database(servers: list[Server]) -> None:
    """The UPSERT directly: two processes' buckets of one address take from one burst; a
    refusal says how long to wait; another address has its own; with the database out of
    reach, each process's own bucket limits alone."""
    engine = make_engine(servers[0].db_url)
    one, other = (SharedBucket(engine, rate=0.01, burst=3) for _ in range(2))
    assert [one.take("b-1"), other.take("b-1"), one.take("b-1")] == [0.0, 0.0, 0.0]
    assert 99 < other.take("b-1") <= 100  # the shared bucket is empty
    assert 99 < one.take("b-1") <= 100  # and so is one's own: refused here
    assert other.take("b-2") == 0.0
    engine.dispose()
    gone = make_engine("postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2")
    alone = SharedBucket(gone, rate=0.01, burst=2)
    first, second, third = (alone.take("b-3") for _ in range(3))
    assert first == second == 0.0 and 99 < third <= 100
    gone.dispose()


def test_a_limit_set_on_one_process_holds_on_the_other(servers: list[Server]) -> None:
    """A player's limits row, kept in memory by the table's owner since its last wager, is
    dropped there when the other process commits a change (``NOTIFY sidebet_limits``)."""
    op = Api.operator(servers[0].url)
    t = int(op.post("/api/tables", {"submission": SIX_DECK}, expect=201).json()["id"])
    owner = owner_of(t, servers)
    other = servers[1] if owner is servers[0] else servers[0]
    eve = Api.player(owner.url, "lim-eve")
    eve.post(f"/api/tables/{t}/seats/1", expect=201)
    eve.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})  # kept by the owner
    elsewhere = Api(other.url, eve.http.headers["Authorization"].split()[1])
    r = elsewhere.http.put("/api/wallet/limits", json={
        "deposit_limits": {"day": None, "week": None, "month": None},
        "loss_limits": {"day": "15.00", "week": None, "month": None}})
    assert r.status_code == 200, r.text
    time.sleep(1.0)  # the notification's way to the owner (the entry would live 10 s)
    r = eve.act(t, 1, "bets", {"wager": "trilux", "amount": "10.00"}, expect=422)
    assert "loss limit per day is 15.00" in r.text


def test_reads_on_the_process_that_does_not_own_a_table_are_current(
        servers: list[Server]) -> None:
    """A state read on the other process reads the table's log first: it shows every event
    the owner has acknowledged, however quickly it comes after."""
    op = Api.operator(servers[0].url)
    t = int(op.post("/api/tables", {"submission": SIX_DECK}, expect=201).json()["id"])
    owner = owner_of(t, servers)
    other = servers[1] if owner is servers[0] else servers[0]
    fay = Api.player(owner.url, "cur-fay")
    reader = httpx.Client(base_url=other.url, timeout=30)
    for _ in range(10):
        sat = fay.post(f"/api/tables/{t}/seats/1", expect=201).json()["state"]["seq"]
        assert reader.get(f"/api/tables/{t}/state").json()["seq"] >= sat
        assert reader.get(f"/api/tables/{t}").json()["state"]["seq"] >= sat
        left = fay.post(f"/api/tables/{t}/seats/1/leave", expect=201).json()["state"]["seq"]
        assert reader.get(f"/api/tables/{t}/state").json()["seq"] >= left
    reader.close()


def test_a_takeover_keeps_sit_outs_and_the_device_socket(servers: list[Server]) -> None:
    """A player sits out a round at a table, and a reading shoe on the other process
    enters a card at a dealer-assist table of the same owner; the owner is killed
    (SIGKILL).  The next round, under the new owner, is the player's second in a row sat
    out, and his seat is freed then (two rounds is this module's house setting): the count
    came through the takeover.  The shoe's next card, on the same socket, is entered by
    the process that took the table over."""
    op = Api.operator(servers[0].url)
    t = int(op.post("/api/tables", {"submission": SIX_DECK, "seats": 2}, expect=201
                    ).json()["id"])
    owner = owner_of(t, servers)
    other = next(srv for srv in servers if srv is not owner)
    for _ in range(6):  # new tables go to the process below its share: soon the owner
        physical = int(op.post("/api/tables", {"submission": SIX_DECK, "seats": 1,
                                               "shoe": "physical"}, expect=201).json()["id"])
        if owner_of(physical, servers) is owner:
            break
    else:
        raise AssertionError("no dealer-assist table went to the owner")
    op.post("/api/dealer/staff", {"name": "shoe-tk", "password": "staff-password-1",
                                  "role": "device", "tables": [physical]}, expect=201)
    token = Api.login(other.url, "shoe-tk", "staff-password-1").http.headers["Authorization"]
    ann, bob = Api.player(other.url, "sit-ann"), Api.player(other.url, "sit-bob")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/2", expect=201)

    def round_by_ann() -> dict[str, Any]:
        """Bet, deal, the simplest choices to the end; each state read as of the last
        answer at least (the process answering may be a follower)."""
        ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        seq = bob.act(t, 2, "deal").json()["seq"]  # bob sits it out: the deal, no wager
        for _ in range(20):
            state = ann.get(f"/api/tables/{t}/state", after=seq - 1)
            if not state["round_open"]:
                return dict(state)
            legal = {x["action"] for x in state["seats"][0]["legal"]}
            action, body = next((a, b) for a, b in (
                ("deal", None), ("press", {"amount": "0"}), ("insurance", {"amount": "0"}),
                ("stand", None)) if a in legal)
            seq = ann.act(t, 1, action, body).json()["seq"]
        raise AssertionError("the round did not end")

    with connect(other.url.replace("http", "ws") + f"/api/device/tables/{physical}/ws") as ws:
        ws.send(json.dumps({"token": token[7:]}))
        assert json.loads(ws.recv())["status"] == 200
        ws.send(json.dumps({"position": 0, "card": "Ah"}))
        assert json.loads(ws.recv())["status"] == 201  # entered by the owner
        state = round_by_ann()
        assert state["seats"][1]["player"] == "sit-bob"  # one round sat out: still seated
        owner.kill()
        ws.send(json.dumps({"position": 1, "card": "Kh"}))
        answer = json.loads(ws.recv())
        assert answer["status"] == 201 and answer["card"]["next_position"] == 2, answer
    assert owner_of(t, servers) is other and owner_of(physical, servers) is other
    state = round_by_ann()
    assert state["seats"][0]["player"] == "sit-ann"
    assert state["seats"][1]["player"] is None, state["seats"][1]
    op.http.base_url = httpx.URL(other.url)
    leave = [e["payload"] for e in op.events(t) if e["kind"] == "leave"]
    assert leave == [{"seat": 2, "account": leave[0]["account"],
                      "reason": "sat out 2 rounds in a row"}]
    assert [(e["payload"]["position"], e["payload"]["card"]) for e in op.events(physical)
            if e["kind"] == "card"] == [(0, "Ah"), (1, "Kh")]
