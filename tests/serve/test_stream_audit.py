"""The WebSocket stream (order, catch-up, hidden hole card), the time limit's default
action, and the audit of an exported log (verified, and tampering detected)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.sync.client import connect

from sidebet.core.errors import SidebetError
from sidebet.serve.anchor import load_key, sign_head
from sidebet.serve.chain import GENESIS, canonical, chain_hash
from sidebet.serve.log_audit import audit_lines

from .harness import ONE_DECK_SHORT, SIGNING_KEY, Api, Server, finish_round, make_table

pytestmark = pytest.mark.postgres


def ws_url(server: Server, t: int, since: int) -> str:
    return f"ws://127.0.0.1:{server.port}/api/tables/{t}/ws?since={since}"


def receive(ws: object, n: int) -> list[dict[str, object]]:
    return [json.loads(ws.recv(timeout=10)) for _ in range(n)]  # type: ignore[attr-defined]


def test_stream_in_order_with_catch_up(server: Server, op: Api) -> None:
    t = make_table(op)
    ann = Api.player(server.url, "ws-a")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    head = ann.get(f"/api/tables/{t}/state")["seq"]
    with connect(ws_url(server, t, 0)) as ws:
        backlog = receive(ws, head)
        assert [e["seq"] for e in backlog] == list(range(1, head + 1))
        assert [e["kind"] for e in backlog[:2]] == ["table", "shoe-commit"]
        ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        live = receive(ws, 2)
        assert [e["seq"] for e in live] == [head + 1, head + 2]
        assert [e["kind"] for e in live] == ["round-open", "action"]
    ann.act(t, 1, "deal")  # while nobody listens
    state = ann.get(f"/api/tables/{t}/state")
    with connect(ws_url(server, t, head + 2)) as ws:
        missed = receive(ws, state["seq"] - head - 2)
        assert missed[0]["seq"] == head + 3
        deal = next(e for e in missed if e["kind"] == "action")
        if state["round_open"]:  # hole card still hidden
            assert deal["redacted"] is True
            cards = next(r for r in deal["payload"]["records"] if r["step"] == "deal")["cards"]
            assert cards.split()[-1] == "??"
        finish_round({1: ann}, t)
        tail = receive(ws, ann.get(f"/api/tables/{t}/state")["seq"] - state["seq"])
        assert tail[-1]["seq"] == ann.get(f"/api/tables/{t}/state")["seq"]
        assert any(e["kind"] == "round-end" for e in tail)


def test_time_limit_gives_the_default_action(server: Server, op: Api) -> None:
    t = make_table(op, time_limit=1)
    ann = Api.player(server.url, "slow")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    ann.act(t, 1, "deal")  # the bets close; then nobody acts
    deadline = time.monotonic() + 30
    while ann.get(f"/api/tables/{t}/state")["round_open"]:
        assert time.monotonic() < deadline, "no default action within 30 s"
        time.sleep(0.2)
    autos = [e["payload"]["decision"]["step"] for e in ann.get(f"/api/tables/{t}/events")
             if e["kind"] == "action" and e["payload"]["auto"]]
    assert autos and set(autos) <= {"stand", "press", "insurance"}, autos
    game = ann.get("/api/games", table=t)[0]
    assert game["players"][0]["total_bet"] == "10.00"


def audit(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidebet", "audit", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_export_and_audit(server: Server, op: Api, tmp_path: Path) -> None:
    t = make_table(op, ONE_DECK_SHORT)
    ann, bob = Api.player(server.url, "aud-a"), Api.player(server.url, "aud-b")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/3", expect=201)
    ann.act(t, 1, "client-seed", {"seed": "ann's seed"})
    players = {1: ann, 3: bob}
    for _ in range(12):
        for seat, api in players.items():
            api.act(t, seat, "bets", {"wager": "blackjack", "amount": "10.00"})
        finish_round(players, t)
        if any(s["revealed"] for s in ann.get(f"/api/tables/{t}/shoes")):
            break
    shoes = ann.get(f"/api/tables/{t}/shoes")
    assert shoes[0]["revealed"] and shoes[0]["client_seeds"] == ["ann's seed"]
    assert len(shoes[0]["server_seed"]) == 64
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    ann.act(t, 1, "deal")
    bob.act(t, 3, "deal")  # bob sits it out: a round in progress on an unrevealed shoe
    Api.player(server.url, "aud-c", deposit=None).get(f"/api/tables/{t}/export", expect=403)
    text = op.http.get(f"/api/tables/{t}/export").text
    actions = text.count('"kind":"action"')
    log = tmp_path / "table.jsonl"
    log.write_text(text)
    ok = audit(log)
    assert ok.returncode == 0, ok.stderr
    games = op.get("/api/games", table=t)
    assert [g["status"] for g in games][-1] == "in-progress"
    assert f"rounds verified (replay, cards, totals): {len(games) - 1}" in ok.stdout
    assert "shoes verified (commitment, client seeds, shuffle): 1" in ok.stdout
    assert f"actions replayed through the engine: {actions}" in ok.stdout
    assert "NOT verified: shoe 1's shuffle" in ok.stdout

    lines = text.splitlines()
    action = next(i for i, ln in enumerate(lines) if '"kind":"action"' in ln and i > 5)

    def tampered(name: str, new: list[str]) -> str:
        with pytest.raises(SidebetError) as err:
            audit_lines(new)
        return str(err.value)

    path = tmp_path / "removed.jsonl"  # the command: one line, exit status 2
    path.write_text("\n".join(lines[:action] + lines[action + 1:]) + "\n")
    r = audit(path)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and "removed" in r.stderr

    edited = lines.copy()
    edited[action] = edited[action].replace('"amount":"10.00"', '"amount":"100.00"', 1)
    assert edited != lines
    assert "edited" in tampered("edited.jsonl", edited)
    assert "removed" in tampered("removed.jsonl", lines[:action] + lines[action + 1:])
    assert "at the end" in tampered("truncated.jsonl", lines[:-1])
    assert "not JSON" in tampered("garbage.jsonl", [*lines[:3], "{nope"])
    # a forger who recomputes the whole chain is caught by the engine's replay
    forged = [json.loads(x) for x in lines]
    event = forged[action]
    event["payload"]["moves"] = {k: v + 100 for k, v in event["payload"]["moves"].items()}
    prev = GENESIS
    for ev in forged[1:]:
        ev["prev"] = prev
        ev["hash"] = prev = chain_hash(prev, ev["table"], ev["seq"], ev["kind"], ev["at"],
                                       canonical(ev["payload"]))
    forged[0]["head"] = prev
    if event["payload"]["moves"]:
        # without the operator's key the rewritten chain's signed heads no longer verify
        assert "not valid" in tampered("forged.jsonl", [json.dumps(x) for x in forged])
        # one who holds the key and signs again is still caught by the engine's replay
        key = load_key(SIGNING_KEY)
        for ev in forged[1:]:
            if ev["kind"] == "head":
                before = forged[ev["seq"] - 1]
                ev["payload"] = sign_head(key, ev["table"], before["seq"], before["hash"])
            ev["prev"] = prev = forged[ev["seq"] - 1]["hash"] if ev["seq"] > 1 else GENESIS
            ev["hash"] = chain_hash(prev, ev["table"], ev["seq"], ev["kind"], ev["at"],
                                    canonical(ev["payload"]))
        forged[0]["head"] = forged[-1]["hash"]
        forged[0]["signature"] = sign_head(key, forged[0]["table"], len(forged) - 1,
                                           forged[-1]["hash"])["signature"]
        assert "wallet moves" in tampered("forged.jsonl", [json.dumps(x) for x in forged])
