"""A request that meets a database which cannot serve it now (a connection PostgreSQL has
just closed, outside the transactions of :meth:`Core.run`: a token lookup, a read) is
answered 503 in words a player understands, a decision's route as every other; any other
database fault stays the server's error (500)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError

from sidebet.serve.app import create_app
from sidebet.serve.db import UNAVAILABLE
from sidebet.serve.settings import Settings

with warnings.catch_warnings():  # starlette's notice that it prefers another httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

LOST = OperationalError("SELECT accounts", {}, Exception(
    "server closed the connection unexpectedly"))
BROKEN = IntegrityError("INSERT accounts", {}, Exception("duplicate key"))


def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: Exception) -> TestClient:
    """An app on a fresh SQLite database whose token lookups raise ``fault``."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'lost.db'}")
    app = create_app(settings)

    def lookup(_token: str) -> None:
        raise fault

    monkeypatch.setattr(app.state.services.accounts, "authenticate", lookup)
    return TestClient(app, raise_server_exceptions=False)


def test_a_lost_connection_is_a_503_on_every_path(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    c = client(tmp_path, monkeypatch, LOST)
    auth = {"Authorization": "Bearer not-cached"}
    for r in (c.get("/api/me", headers=auth),
              c.post("/api/tables/1/seats/1/hit", headers={**auth, "Idempotency-Key": "k1"})):
        assert r.status_code == 503, (r.status_code, r.text)
        assert r.json()["detail"] == UNAVAILABLE


def test_another_database_fault_stays_a_500(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    c = client(tmp_path, monkeypatch, BROKEN)
    auth = {"Authorization": "Bearer not-cached"}
    assert c.get("/api/me", headers=auth).status_code == 500
    assert c.post("/api/tables/1/seats/1/hit", headers=auth).status_code == 500
