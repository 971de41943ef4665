"""The direct routes (:mod:`sidebet.serve.api.direct`): which routes they are, that the
router's order decides as FastAPI's does, that a request their fields accept is served
without FastAPI's machinery, and that every other one gets FastAPI's own answer."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request, Response

from sidebet.serve.api import direct
from sidebet.serve.api.direct import DirectRoutes, chosen, direct_routes
from sidebet.serve.app import create_app
from sidebet.serve.settings import Settings

from .harness import OPERATOR_PASSWORD, SIX_DECK

with warnings.catch_warnings():  # starlette's notice that it prefers another httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

SEAT = "/api/tables/{table_id}/seats/{seat}"


def app_at(tmp_path: Path) -> FastAPI:
    return create_app(Settings(database_url=f"sqlite:///{tmp_path / 'direct.db'}",
                               operator_password=OPERATOR_PASSWORD,
                               signing_key=tmp_path / "key"))


def test_the_direct_routes_are_the_decisions_and_the_state(tmp_path: Path) -> None:
    found = {(m, d.route.path) for _, methods, d in direct_routes(app_at(tmp_path))
             if d is not None for m in methods or ()}
    decisions = ("bets", "deal", "press", "insurance", "double", "hit", "stand", "split",
                 "surrender")
    assert found == {("POST", f"{SEAT}/{d}") for d in decisions} | {
        ("GET", "/api/tables/{table_id}/state")}


def test_the_first_route_that_matches_decides() -> None:
    app = FastAPI()

    @app.post("/x/{name}")
    def first(name: str) -> dict[str, str]:  # not direct: FastAPI serialises its answer
        return {"name": name}

    @app.post("/x/y")
    def shadowed(request: Request) -> Response:
        return Response(b"{}")

    @app.post("/z")
    def alone(request: Request) -> Response:
        return Response(b"{}")

    table = direct_routes(app)
    assert chosen(table, "POST", "/x/y") is None  # FastAPI would call `first`
    hit = chosen(table, "POST", "/z")
    assert hit is not None and hit.route.endpoint is alone
    assert chosen(table, "GET", "/z") is None


@pytest.fixture()
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[TestClient, list[str]]:
    """A client of an app whose direct layer records the paths it served itself."""
    served: list[str] = []
    serve = DirectRoutes._serve

    async def recorded(self: DirectRoutes, d: direct.Direct, *args: Any) -> None:
        served.append(d.route.path)
        await serve(self, d, *args)

    monkeypatch.setattr(DirectRoutes, "_serve", recorded)
    return TestClient(app_at(tmp_path)), served


def signed_in(c: TestClient, name: str) -> dict[str, str]:
    assert c.post("/api/accounts", json={"name": name, "password": "pw-" + name * 3}
                  ).status_code == 201
    token = c.post("/api/tokens", json={"name": name, "password": "pw-" + name * 3}
                   ).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_accepted_requests_are_served_directly_others_by_fastapi(
        client: tuple[TestClient, list[str]]) -> None:
    c, served = client
    with c:
        op = {"Authorization": "Bearer " + c.post("/api/tokens", json={
            "name": "operator", "password": OPERATOR_PASSWORD}).json()["token"]}
        t = c.post("/api/tables", json={"submission": SIX_DECK}, headers=op).json()["id"]
        pia = signed_in(c, "pia")
        c.post("/api/wallet/deposits", json={"amount": "100.00"},
               headers={**pia, "Idempotency-Key": "d1"})
        assert c.post(f"/api/tables/{t}/seats/1", headers=pia).status_code == 201
        bets = f"/api/tables/{t}/seats/1/bets"
        served.clear()

        r = c.post(bets, json={"wager": "blackjack", "amount": "10.00"}, headers=pia)
        assert r.status_code == 201, r.text
        assert r.json()["state"]["seats"][0]["player"] == "pia"
        assert served == [f"{SEAT}/bets"]
        assert c.get(f"/api/tables/{t}/state").json()["seq"] == r.json()["seq"]
        assert served[-1] == "/api/tables/{table_id}/state"

        served.clear()
        refusals = [
            c.post(bets, json={"wager": "blackjack", "amount": "ten"}, headers=pia),
            c.post(bets, content=b"{", headers={**pia, "content-type": "application/json"}),
            c.post(bets, content=b"wager=blackjack", headers={
                **pia, "content-type": "application/x-www-form-urlencoded"}),
            c.post(bets, json={"wager": "blackjack", "amount": "1.00"},
                   headers={"Authorization": "Bearer not-a-token"}),
            c.post(f"/api/tables/{t}/seats/0/bets", json={"wager": "blackjack",
                                                          "amount": "1.00"}, headers=pia),
            c.post(bets, json={"wager": "blackjack", "amount": "1.00"},
                   headers={**pia, "Expected-Seq": "-1"}),
            c.post(bets, content=b'{"wager": "blackjack", "amount": "1.00", "amount": "9.00"}',
                   headers={**pia, "content-type": "application/json"}),
        ]
        assert [r.status_code for r in refusals] == [422, 422, 422, 401, 422, 422, 422]
        assert served == []  # each answered by FastAPI, in its words
        assert "body.amount" in refusals[0].json()["detail"]
        assert "not JSON" in refusals[1].json()["detail"]
        assert "twice" in refusals[-1].json()["detail"]

        r = c.post(f"/api/tables/{t}/seats/1/hit", headers=pia)  # the engine refuses
        assert r.status_code == 409 and r.json()["violations"][0]["rule"], r.text
        assert served == [f"{SEAT}/hit"]
