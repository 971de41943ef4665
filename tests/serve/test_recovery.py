"""SIGKILL the server at random points of rounds, restart it on the same database, and
check that every round continues exactly where it was and every balance is what the
acknowledged actions imply.

Each cycle plays a few random legal actions at two tables, then sends one more request and
kills the server (SIGKILL) after a random delay of 0 to 60 ms (more often short), before,
during or after that request's transaction.  After the restart:

* the table's state is exactly the state before the request (it was not committed) or the
  state its first answer reported (it was), nothing in between;
* retrying the request with the same Idempotency-Key applies it exactly once;
* each wallet equals its deposits plus the money moves of the actions in the log, the
  money is conserved, and every action acknowledged before the kill is in the log.

At the end each table's exported log passes ``sidebet audit``'s checks.
``SIDEBET_TEST_KILLS`` sets the number of kills (default 8).
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sidebet.serve.log_audit import audit_lines

from .harness import ONE_DECK_SHORT, Api, Server, database_url, make_table

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

KILLS = int(os.environ.get("SIDEBET_TEST_KILLS", "8"))


def cents(text: str) -> int:
    whole, frac = text.lstrip("-").split(".")
    return (-1 if text.startswith("-") else 1) * (int(whole) * 100 + int(frac))


def random_request(rng: random.Random, state: dict[str, Any], seats: dict[int, Api]
                   ) -> tuple[Api, str, dict[str, Any] | None]:
    """A random request among the legal actions of the seated players."""
    options: list[tuple[Api, str, dict[str, Any] | None]] = []
    for seat, api in seats.items():
        base = f"/api/tables/{state['table']}/seats/{seat}"
        for item in state["seats"][seat - 1]["legal"]:
            action = item["action"]
            if action == "bet" and "blackjack" in item["wagers"]:
                options.append((api, base + "/bets",
                                {"wager": "blackjack", "amount": f"{rng.choice([10, 15, 25])}.00"}))
            elif action == "bet" and "trilux" in item["wagers"]:
                options.append((api, base + "/bets", {"wager": "trilux", "amount": "5.00"}))
            elif action in ("press", "insurance"):
                amount = rng.choice(["0", item["max"].split(".")[0] + ".00"])
                options.append((api, f"{base}/{action}", {"amount": amount}))
            elif action in ("deal", "hit", "stand", "double", "split", "surrender"):
                options.append((api, f"{base}/{action}", None))
    assert options, state
    return rng.choice(options)


def money_in_log(api: Api, tables: list[int]) -> dict[int, int]:
    moves: dict[int, int] = {}
    for t in tables:
        for ev in api.events(t):
            if ev["kind"] == "action":
                for acct, delta in ev["payload"]["moves"].items():
                    moves[int(acct)] = moves.get(int(acct), 0) + delta
    return moves


def test_sigkill_at_random_points(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("SIDEBET_TEST_SEED_KILL", "810")))
    db = database_url(tmp_path)
    server = Server(db).start()
    try:
        op = Api.operator(server.url)
        tables = [make_table(op, ONE_DECK_SHORT), make_table(op)]
        names = {(tables[0], 1): "k-a", (tables[0], 2): "k-b", (tables[1], 4): "k-c"}
        seats: dict[int, dict[int, Api]] = {t: {} for t in tables}
        accounts: dict[str, int] = {}
        by_name: dict[str, Api] = {}
        for (t, seat), name in names.items():
            api = Api.player(server.url, name)
            api.post(f"/api/tables/{t}/seats/{seat}", expect=201)
            seats[t][seat] = api
            accounts[name] = api.get("/api/me")["id"]
            by_name[name] = api
        acknowledged: list[tuple[int, int, dict[str, Any]]] = []
        outcomes = {"committed": 0, "not committed": 0}
        for _ in range(KILLS):
            for _step in range(rng.randint(0, 5)):
                t = rng.choice(tables)
                api, path, body = random_request(rng, op.get(f"/api/tables/{t}/state"),
                                                 seats[t])
                r = api.post(path, body, expect=201)
                acknowledged.append((t, r.json()["event"], r.json()["record"]))
            t = rng.choice(tables)
            before = op.get(f"/api/tables/{t}/state")
            api, path, body = random_request(rng, before, seats[t])
            key = f"kill-{rng.random()}"
            answer: dict[str, Any] = {}

            def send(api: Api = api, path: str = path, body: Any = body, key: str = key,
                     answer: dict[str, Any] = answer) -> None:
                with contextlib.suppress(httpx.HTTPError):
                    answer["r"] = api.http.post(path, json=body,
                                                headers={"Idempotency-Key": key}, timeout=10)

            thread = threading.Thread(target=send)
            thread.start()
            time.sleep(rng.choice([0.0, rng.uniform(0, 0.005), rng.uniform(0, 0.02),
                                   rng.uniform(0.02, 0.06)]))
            server.kill()
            thread.join()
            server = Server(db).start()
            for apis in seats.values():
                for a in apis.values():
                    a.http.base_url = httpx.URL(server.url)
            op.http.base_url = httpx.URL(server.url)

            after = op.get(f"/api/tables/{t}/state")
            retry = api.post(path, body, key=key, expect=201).json()
            if after["seq"] == before["seq"]:
                outcomes["not committed"] += 1
                assert after == before  # exactly where it was
                assert "r" not in answer or answer["r"].status_code != 201
            else:
                outcomes["committed"] += 1
                assert after == retry["state"]  # exactly what the first answer said
                assert op.get(f"/api/tables/{t}/state")["seq"] == after["seq"]  # once
                if "r" in answer:
                    assert answer["r"].json() == retry
            acknowledged.append((t, retry["event"], retry["record"]))

            log_moves = money_in_log(op, tables)
            for name, acct in accounts.items():
                wallet = by_name[name].balance()  # its token survived the kill
                assert wallet == 1000_00 + log_moves.get(acct, 0), name
            reconcile = op.get("/api/reconcile")
            assert reconcile["conserved"] and reconcile["negative_balances"] == 0
            for t_ack, seq, record in acknowledged:
                events = op.get(f"/api/tables/{t_ack}/events", since=seq - 1, limit=1)
                if record["step"] == "ready":  # done betting: the betting round waits on
                    assert events[0]["kind"] == "ready"  # others (no decision yet)
                    assert events[0]["payload"]["seat"] == record["seat"]
                else:
                    assert events[0]["payload"]["decision"] == record
        for t in tables:
            while op.get(f"/api/tables/{t}/state")["round_open"]:
                api, path, body = random_request(rng, op.get(f"/api/tables/{t}/state"),
                                                 seats[t])
                api.post(path, body, expect=201)
            report = audit_lines(op.http.get(f"/api/tables/{t}/export").text.splitlines())
            assert report.actions_replayed > 0
        assert sum(outcomes.values()) == KILLS
        print(f"kills: {outcomes}")  # shown with -s
    finally:
        server.stop()
