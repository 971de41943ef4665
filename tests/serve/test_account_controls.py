"""The operator's account controls through a real ``sidebet serve``: exclude, suspend,
reinstate and close with a reason (logged), the player signed out, her wagers withdrawn
(returned while bets are open, her hands standing after the deal) and unseated; a
regulator's self-exclusion list imported, enforced at sign-up and sign-in; the same from
the command line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sidebet.core.cards import Card

from .harness import (
    OPERATOR_PASSWORD,
    SIGNING_KEY,
    Api,
    Server,
    choose_client_seed,
    database_url,
    finish_round,
    make_table,
)

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("controls"))).start()
    yield srv
    srv.stop()


def sign_in(server: Server, name: str) -> httpx.Response:
    return httpx.post(server.url + "/api/tokens",
                      json={"name": name, "password": "password-" + name})


def control(op: Api, name: str, action: str, reason: str = "a reason") -> httpx.Response:
    return op.http.post(f"/api/operator/accounts/{name}/controls",
                        json={"action": action, "reason": reason})


def seated(op: Api, t: int) -> list[str | None]:
    return [s["player"] for s in op.get(f"/api/tables/{t}/state")["seats"]]


def test_suspend_reinstate_and_close(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    ann = Api.player(server.url, "ctl-ann")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    assert seated(op, t)[0] == "ctl-ann"
    assert control(op, "ctl-ann", "suspend", " ").status_code == 422  # a reason is needed
    assert control(op, "ctl-nobody", "suspend").status_code == 404
    assert ann.http.post("/api/operator/accounts/ctl-ann/controls",
                         json={"action": "close", "reason": "x"}).status_code == 403
    r = control(op, "ctl-ann", "suspend", "chargeback under review")
    assert r.status_code == 200 and r.json() == {
        "name": "ctl-ann", "status": "suspended", "reason": "chargeback under review"}
    ann.get("/api/me", expect=401)  # signed out everywhere, at once
    assert seated(op, t)[0] is None  # and out of her seat
    leave = [e for e in op.events(t) if e["kind"] == "leave"][-1]
    assert leave["payload"]["reason"] == "the account is suspended by the operator"
    refused = sign_in(server, "ctl-ann")
    assert refused.status_code == 403 and "suspended by the operator" in refused.text
    log = op.get("/api/operator/actions")[0]
    assert (log["action"], log["target"], log["detail"]) == (
        "suspend", "account ctl-ann", {"reason": "chargeback under review"})
    assert control(op, "ctl-ann", "reinstate", "cleared").json()["status"] == "active"
    assert sign_in(server, "ctl-ann").status_code == 201
    assert control(op, "ctl-ann", "close", "asked by the player").status_code == 200
    assert "closed by the operator" in sign_in(server, "ctl-ann").text
    again = control(op, "ctl-ann", "reinstate", "changed her mind")
    assert again.status_code == 409 and "stays closed" in again.text


def audited(op: Api, t: int, tmp_path: Path) -> str:
    """``sidebet audit`` of the table's exported log: its output (exit 0 asserted)."""
    log = tmp_path / f"table-{t}.jsonl"
    log.write_text(op.http.get(f"/api/tables/{t}/export").text)
    r = subprocess.run([sys.executable, "-m", "sidebet", "audit", str(log)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def withdrawals(op: Api, t: int) -> list[dict[str, Any]]:
    return [e["payload"] for e in op.events(t) if e["kind"] == "action"
            and e["payload"]["decision"]["step"] == "withdraw"]


def test_barred_while_bets_are_open_her_wagers_are_returned(server: Server,
                                                            tmp_path: Path) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    bo, al = Api.player(server.url, "ctl-bo"), Api.player(server.url, "ctl-al")
    bo.post(f"/api/tables/{t}/seats/1", expect=201)
    al.post(f"/api/tables/{t}/seats/2", expect=201)
    before = bo.balance()
    bo.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.37"})
    al.act(t, 2, "bets", {"wager": "blackjack", "amount": "10.00"})
    assert bo.balance() == before - 10_37
    assert control(op, "ctl-bo", "exclude", "problem gambling").status_code == 200
    bo.get("/api/me", expect=401)
    assert seated(op, t)[:2] == [None, "ctl-al"]  # out of her seat at once
    [out] = withdrawals(op, t)
    assert out["decision"] == {"step": "withdraw", "seat": 1, "citation":
                               "house rule: the account is excluded by the operator",
                               "note": "problem gambling"}
    assert out["auto"] is False and [(e["move"], e["amount"]) for e in out["ledger"]] == [
        ("return", "10.37")]
    leave = [e for e in op.events(t) if e["kind"] == "leave"][-1]
    assert leave["payload"]["reason"] == "the account is excluded by the operator"
    finish_round({2: al}, t)  # the others play on
    [game] = op.get("/api/games", table=t)
    assert [p["player"] for p in game["players"]] == ["ctl-al"]
    assert op.get("/api/reconcile")["conserved"]
    assert control(op, "ctl-bo", "reinstate", "cleared").status_code == 200
    assert Api.login(server.url, "ctl-bo", "password-ctl-bo").balance() == before  # exact
    audited(op, t, tmp_path)


def test_barred_mid_hand_her_hands_stand_and_the_others_play_on(server: Server,
                                                                tmp_path: Path) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    names = {1: "ctl-fay", 2: "ctl-gus", 3: "ctl-hal"}
    players = {seat: Api.player(server.url, name) for seat, name in names.items()}

    def plain(cards: list[Card]) -> bool:  # three two-card hands, no ace or ten up
        hands = [(cards[i], cards[i + 4]) for i in range(3)]
        return 2 <= cards[3].rank.blackjack_value <= 9 and all(
            sum(c.rank.blackjack_value for c in h) < 12 for h in hands)

    players[1].act(t, 1, "client-seed", {"seed": choose_client_seed(t, 1, 6, plain)},
                   expect=None)
    for seat, api in players.items():
        api.post(f"/api/tables/{t}/seats/{seat}", expect=201)
    start = {seat: api.balance() for seat, api in players.items()}
    for seat, api in players.items():
        api.act(t, seat, "bets", {"wager": "blackjack", "amount": "10.00"})
    for seat in (2, 3, 1):  # the betting round closes when all are done: seat 1 deals
        players[seat].act(t, seat, "deal")
    state = op.get(f"/api/tables/{t}/state")
    assert state["phase"] == "play" and state["current"]["seat"] == 1
    players[1].act(t, 1, "hit")  # her hand has a decision of hers, then she is barred
    assert control(op, "ctl-fay", "suspend", "chargeback").status_code == 200
    state = op.get(f"/api/tables/{t}/state")
    assert state["current"]["seat"] == 2  # her hand stands at once; the others play on
    mine = state["seats"][0]
    assert mine["player"] == "ctl-fay" and mine["hands"][0]["done"]  # seated till the end
    [out] = withdrawals(op, t)
    assert out["actor"] is not None and out["auto"] is False and out["ledger"] == []
    finish_round({2: players[2], 3: players[3]}, t)
    assert seated(op, t)[:3] == [None, "ctl-gus", "ctl-hal"]  # freed at the round's end
    seat1 = [e["payload"] for e in op.events(t) if e["kind"] == "action"
             and e["payload"]["seat"] == 1]
    assert [p["decision"]["step"] for p in seat1] == ["bet", "no-more-bets", "hit",
                                                          "withdraw"]
    assert not any(p["auto"] for e in op.events(t) if e["kind"] == "action"
                   for p in [e["payload"]])
    [game] = op.get("/api/games", table=t)
    hers = next(p for p in game["players"] if p["player"] == "ctl-fay")
    hand = next(h for h in game["outcome"]["hands"] if h["seat"] == 1)
    assert hers["total_bet"] == "10.00" and len(hand["cards"].split()) == 3
    assert hand["result"] in ("win", "push", "lose")  # settled by the rules
    rec = op.get("/api/reconcile")
    assert rec["conserved"], rec
    assert control(op, "ctl-fay", "reinstate", "cleared").status_code == 200
    net = {int(p["seat"]): p["net"] for p in game["players"]}
    for seat in players:
        api = players[seat] if seat != 1 else Api.login(server.url, "ctl-fay",
                                                         "password-ctl-fay")
        whole, frac = net[seat].lstrip("-").split(".")
        sign = -1 if net[seat].startswith("-") else 1
        assert api.balance() == start[seat] + sign * (int(whole) * 100 + int(frac))
    assert "rounds verified (replay, cards, totals): 1" in audited(op, t, tmp_path)


def test_the_self_exclusion_list(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    cy = Api.player(server.url, "ctl-cy")
    cy.post(f"/api/tables/{t}/seats/2", expect=201)
    cy.act(t, 2, "bets", {"wager": "blackjack", "amount": "12.50"})
    csv_text = "name,from,until\nCTL-CY,2020-01-01,\nctl-dee,2020-01-01,2999-12-31\n" \
               "ctl-old,2020-01-01,2020-12-31\n"
    bad = op.http.post("/api/operator/exclusion-list", content="name,from,until\nx,soon,\n",
                       headers={"Content-Type": "text/csv"})
    assert bad.status_code == 422 and "line 2: 'soon' is not a date" in bad.text
    cy.get("/api/me")  # the bad list changed nothing
    r = op.http.post("/api/operator/exclusion-list", content=csv_text,
                     headers={"Content-Type": "text/csv"})
    assert r.status_code == 200 and r.json() == {"entries": 3, "accounts": 1}
    cy.get("/api/me", expect=401)
    assert seated(op, t)[1] is None
    [out] = withdrawals(op, t)  # her wager returned at once
    assert out["decision"]["note"] == "on the self-exclusion list until further notice"
    assert [(e["move"], e["amount"]) for e in out["ledger"]] == [("return", "12.50")]
    assert sign_in(server, "ctl-cy").status_code == 403
    for name in ("ctl-dee", "Ctl-Dee"):
        up = httpx.post(server.url + "/api/accounts",
                        json={"name": name, "password": "password-" + name})
        assert up.status_code == 403 and "self-exclusion list" in up.text
    Api.player(server.url, "ctl-old", deposit=None)  # the listing has ended


@pytest.mark.slow
def test_controls_from_the_command_line(server: Server, tmp_path: Path) -> None:
    if not server.db_url.startswith("sqlite"):
        pytest.skip("the command runs beside a server on its SQLite file here")
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    eve = Api.player(server.url, "ctl-eve")
    eve.post(f"/api/tables/{t}/seats/1", expect=201)
    eve.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    env = {**os.environ, "SIDEBET_OPERATOR_PASSWORD": OPERATOR_PASSWORD,
           "SIDEBET_SIGNING_KEY": str(SIGNING_KEY)}  # the house's key, as every process
    run = [sys.executable, "-m", "sidebet"]
    r = subprocess.run([*run, "account", "suspend", "ctl-eve", "--reason", "KYC expired",
                        "--database-url", server.db_url], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "ctl-eve: suspended (KYC expired)" in r.stdout, r.stderr
    assert sign_in(server, "ctl-eve").status_code == 403
    deadline = time.monotonic() + 30  # the server's clock takes her out of the round
    while seated(op, t)[0] is not None:
        assert time.monotonic() < deadline, "a barred player still seated after 30 s"
        time.sleep(0.1)
    [out] = withdrawals(op, t)
    assert out["actor"] is None and out["decision"]["note"] == "KYC expired"
    assert [(e["move"], e["amount"]) for e in out["ledger"]] == [("return", "10.00")]
    assert op.get("/api/reconcile")["conserved"]
    listing = tmp_path / "list.csv"
    listing.write_text("name,from\nctl-eve,2020-01-01\n")
    r = subprocess.run([*run, "import-exclusions", str(listing), "--database-url",
                        server.db_url], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "error: self-exclusion list, line 1: the header must be name,from,until"]
