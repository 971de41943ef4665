"""Money as an operator runs it, against a real ``sidebet serve`` in
real-money mode: no deposit or withdrawal by a player's own request, the operator's cashier
(logged with who), the payment provider's HMAC-signed callback, and the limits a player
sets (deposits, losses, the session reminder, self-exclusion at sign-in and at the table).
Play money, the default, is what every other server test runs on."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from .harness import Api, Server, database_url, make_table

pytestmark = pytest.mark.postgres

SECRET = "provider-secret-for-tests"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("money")),
                 env={"SIDEBET_MONEY_MODE": "real", "SIDEBET_PAYMENT_SECRET": SECRET}).start()
    yield srv
    srv.stop()


def signed(raw: bytes, secret: str = SECRET, at: float | None = None) -> str:
    """The provider's ``X-Signature``: a timestamp and the HMAC over it and the body."""
    stamp = str(int(time.time() if at is None else at))
    digest = hmac.new(secret.encode(), stamp.encode() + b"." + raw, hashlib.sha256)
    return f"t={stamp},sha256={digest.hexdigest()}"


def callback(server: Server, body: dict[str, str], secret: str = SECRET,
             at: float | None = None) -> httpx.Response:
    raw = json.dumps(body).encode()
    return httpx.post(server.url + "/api/payments/callback", content=raw,
                      headers={"Content-Type": "application/json",
                               "X-Signature": signed(raw, secret, at)}, timeout=60)


def test_real_money_comes_only_from_the_cashier_or_the_provider(server: Server) -> None:
    assert httpx.get(server.url + "/api/house").json()["money_mode"] == "real"
    ann = Api.player(server.url, "rm-ann", deposit=None)
    r = ann.post("/api/wallet/deposits", {"amount": "10000000000.00"})
    assert r.status_code == 403 and "cashier" in r.json()["detail"]
    assert ann.post("/api/wallet/withdrawals", {"amount": "1.00"}).status_code == 403
    op = Api.operator(server.url)
    ann.post("/api/operator/accounts/rm-ann/deposits", {"amount": "50.00"}, expect=403)
    op.post("/api/operator/accounts/rm-ann/deposits", {"amount": "50.00"}, key="d1",
            expect=201)
    op.post("/api/operator/accounts/rm-ann/deposits", {"amount": "50.00"}, key="d1",
            expect=201)  # a retry changes nothing
    assert ann.balance() == 50_00
    log = op.get("/api/operator/actions")[0]
    assert (log["action"], log["operator"], log["target"]) == ("deposit", "operator",
                                                               "account rm-ann")
    paid = {"id": "psp-1", "account": "rm-ann", "kind": "deposit", "amount": "25.00"}
    assert callback(server, paid).status_code == 201
    assert callback(server, paid).status_code == 201  # the provider retries: once only
    assert ann.balance() == 75_00
    forged = {**paid, "id": "psp-2", "amount": "9999.00"}
    assert callback(server, forged, secret="guessed").status_code == 401
    unsigned = httpx.post(server.url + "/api/payments/callback", json=forged)
    assert unsigned.status_code == 401
    raw = json.dumps(forged).encode()
    body_only = "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
    r = httpx.post(server.url + "/api/payments/callback", content=raw,
                   headers={"Content-Type": "application/json", "X-Signature": body_only})
    assert r.status_code == 401 and "t=<unix seconds>" in r.json()["detail"]
    late = callback(server, {**paid, "id": "psp-4"}, at=time.time() - 301)
    assert late.status_code == 401 and "at most 300 s" in late.json()["detail"]
    # the stamp is whole seconds, cut down: +301 could read as 300 s ahead once sent
    early = callback(server, {**paid, "id": "psp-4"}, at=time.time() + 305)
    assert early.status_code == 401
    other = callback(server, {**paid, "amount": "26.00"})  # the id used before, changed
    assert other.status_code == 422 and "psp-1" in other.json()["detail"]
    out = {"id": "psp-3", "account": "rm-ann", "kind": "withdrawal", "amount": "5.00"}
    assert callback(server, out).status_code == 201
    assert ann.balance() == 70_00
    assert op.get("/api/reconcile")["conserved"]


def test_player_limits(server: Server) -> None:
    op = Api.operator(server.url)
    bea = Api.player(server.url, "lim-bea", deposit=None)
    limits = bea.get("/api/wallet/limits")
    assert limits["mode"] == "real" and limits["deposit_limits"] == {
        "day": None, "week": None, "month": None}
    assert limits["session_started_at"] is not None
    body = {"deposit_limits": {"day": "100.00", "week": None, "month": None},
            "loss_limits": {"day": "15.00", "week": None, "month": None},
            "session_reminder_minutes": 30}
    r = bea.http.put("/api/wallet/limits", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["deposit_limits"]["day"] == "100.00"
    assert r.json()["session_reminder_minutes"] == 30
    op.post("/api/operator/accounts/lim-bea/deposits", {"amount": "80.00"}, expect=201)
    over = op.post("/api/operator/accounts/lim-bea/deposits", {"amount": "30.00"})
    assert over.status_code == 422 and "deposit limit per day is 100.00" in over.text
    # raising a limit waits for the house's delay; lowering is at once
    raised = bea.http.put("/api/wallet/limits", json={
        **body, "deposit_limits": {"day": "500.00", "week": None, "month": None}}).json()
    assert raised["deposit_limits"]["day"] == "100.00"
    assert raised["pending"]["deposit"]["day"] == "500.00" and raised["pending_from"]
    # a bet that could lose more than the loss limit is refused at the table
    t = make_table(op, time_limit=3600)
    bea.post(f"/api/tables/{t}/seats/1", expect=201)
    bea.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    r = bea.act(t, 1, "bets", {"wager": "trilux", "amount": "10.00"}, expect=422)
    assert "loss limit per day is 15.00" in r.text
    # a double puts more at risk: refused the same way (the round's net counts)
    bea.act(t, 1, "deal")
    legal = {x["action"] for x in bea.get(f"/api/tables/{t}/state")["seats"][0]["legal"]}
    assert "double" in legal, legal
    r = bea.act(t, 1, "double", expect=422)
    assert "loss limit per day is 15.00" in r.text and "10.00 at risk" in r.text
    op.post(f"/api/operator/tables/{t}/end-round", expect=200)


def test_a_lowered_loss_limit_holds_at_the_next_bet(server: Server) -> None:
    """The limits row is kept in memory between wagers (``Core.limit_rows``); a change
    holds at the very next wager all the same."""
    op = Api.operator(server.url)
    dan = Api.player(server.url, "lim-dan", deposit=None)
    op.post("/api/operator/accounts/lim-dan/deposits", {"amount": "80.00"}, expect=201)
    t = make_table(op, time_limit=3600)
    dan.post(f"/api/tables/{t}/seats/1", expect=201)
    dan.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})  # no limits: kept
    r = dan.http.put("/api/wallet/limits", json={
        "deposit_limits": {"day": None, "week": None, "month": None},
        "loss_limits": {"day": "15.00", "week": None, "month": None}})
    assert r.status_code == 200, r.text
    r = dan.act(t, 1, "bets", {"wager": "trilux", "amount": "10.00"}, expect=422)
    assert "loss limit per day is 15.00" in r.text
    op.post(f"/api/operator/tables/{t}/end-round", expect=200)


def test_self_exclusion_at_sign_in_and_at_the_table(server: Server) -> None:
    cal = Api.player(server.url, "ex-cal", deposit=None)
    until = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    r = cal.http.put("/api/wallet/limits", json={"excluded_until": until})
    assert r.status_code == 200 and r.json()["excluded_until"].startswith(until[:19])
    cal.get("/api/me", expect=401)  # signed out everywhere
    again = httpx.post(server.url + "/api/tokens",
                       json={"name": "ex-cal", "password": "password-ex-cal"})
    assert again.status_code == 403 and "self-excluded until" in again.json()["detail"]
    wrong = httpx.post(server.url + "/api/tokens",
                       json={"name": "ex-cal", "password": "wrong-password"})
    assert wrong.status_code == 401  # the exclusion is told only to the account's owner


def _limited(server: Server, name: str) -> Api:
    """A player with a deposit limit of 50.00 a day."""
    who = Api.player(server.url, name, deposit=None)
    r = who.http.put("/api/wallet/limits", json={
        "deposit_limits": {"day": "50.00", "week": None, "month": None},
        "loss_limits": {"day": None, "week": None, "month": None}})
    assert r.status_code == 200, r.text
    return who


def _together(count: int, send: Callable[[int], httpx.Response]) -> list[int]:
    """``count`` requests sent at once from as many threads; their statuses."""
    start = threading.Barrier(count)

    def one(i: int) -> int:
        start.wait()
        return send(i).status_code

    with ThreadPoolExecutor(count) as pool:
        return sorted(pool.map(one, range(count)))


@pytest.mark.parametrize("count", [20, 100])
def test_a_deposit_limit_holds_under_parallel_cashier_deposits(server: Server,
                                                               count: int) -> None:
    """Parallel deposits of one account are counted one after the other (the account's row
    held in each deposit's transaction): exactly the limit gets through."""
    name = f"par-cash-{count}"
    who = _limited(server, name)
    op = Api.operator(server.url)
    clients = [httpx.Client(base_url=server.url, timeout=60,
                            headers=dict(op.http.headers)) for _ in range(count)]
    try:
        statuses = _together(count, lambda i: clients[i].post(
            f"/api/operator/accounts/{name}/deposits", json={"amount": "10.00"},
            headers={"Idempotency-Key": f"{name}-{i}"}))
    finally:
        for c in clients:
            c.close()
    assert statuses == [201] * 5 + [422] * (count - 5)
    assert who.balance() == 50_00


@pytest.mark.parametrize("count", [20, 100])
def test_a_deposit_limit_holds_under_parallel_callbacks(server: Server, count: int) -> None:
    name = f"par-psp-{count}"
    who = _limited(server, name)
    statuses = _together(count, lambda i: callback(server, {
        "id": f"{name}-{i}", "account": name, "kind": "deposit", "amount": "10.00"}))
    assert statuses == [201] * 5 + [422] * (count - 5)
    assert who.balance() == 50_00
    assert len(who.get("/api/wallet")["transactions"]) == 5
