"""The operator's account controls through a real ``sidebet serve``: exclude, suspend,
reinstate and close with a reason (logged), the player signed out and unseated at once;
a regulator's self-exclusion list imported, enforced at sign-up and sign-in; the same from
the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .harness import OPERATOR_PASSWORD, SIGNING_KEY, Api, Server, database_url, make_table

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


def test_a_barred_player_with_wagers_leaves_at_the_round_end(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    bo = Api.player(server.url, "ctl-bo")
    bo.post(f"/api/tables/{t}/seats/1", expect=201)
    bo.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    assert control(op, "ctl-bo", "exclude", "problem gambling").status_code == 200
    bo.get("/api/me", expect=401)
    assert seated(op, t)[0] == "ctl-bo"  # her wager is in the round in progress
    op.post(f"/api/operator/tables/{t}/end-round", expect=200)
    assert seated(op, t)[0] is None
    leave = [e for e in op.events(t) if e["kind"] == "leave"][-1]
    assert leave["payload"]["reason"] == "the account is excluded by the operator"
    assert op.get("/api/reconcile")["conserved"]


def test_the_self_exclusion_list(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    cy = Api.player(server.url, "ctl-cy")
    cy.post(f"/api/tables/{t}/seats/2", expect=201)
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
    Api.player(server.url, "ctl-eve", deposit=None)
    env = {**os.environ, "SIDEBET_OPERATOR_PASSWORD": OPERATOR_PASSWORD,
           "SIDEBET_SIGNING_KEY": str(SIGNING_KEY)}  # the house's key, as every process
    run = [sys.executable, "-m", "sidebet"]
    r = subprocess.run([*run, "account", "suspend", "ctl-eve", "--reason", "KYC expired",
                        "--database-url", server.db_url], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "ctl-eve: suspended (KYC expired)" in r.stdout, r.stderr
    assert sign_in(server, "ctl-eve").status_code == 403
    listing = tmp_path / "list.csv"
    listing.write_text("name,from\nctl-eve,2020-01-01\n")
    r = subprocess.run([*run, "import-exclusions", str(listing), "--database-url",
                        server.db_url], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "error: self-exclusion list, line 1: the header must be name,from,until"]
