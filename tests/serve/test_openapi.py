"""The served OpenAPI document: every JSON operation documents its answer's schema and the
refusals' body, and the limits it shows are the server's settings."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .harness import Server, database_url

METHODS = ("get", "post", "put", "patch", "delete")


def described(schema: dict[str, Any], components: dict[str, Any]) -> bool:
    """Whether a response schema says what the answer holds: a model (``$ref`` to a
    component with properties, or one of several such), an object with properties, or an
    array of such items or of a scalar type."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return described(components[name], components)
    if "oneOf" in schema or "anyOf" in schema:
        options = schema.get("oneOf") or schema.get("anyOf")
        return bool(options) and all(described(o, components) for o in options)
    if schema.get("type") == "array":
        items = schema.get("items", {})
        return items.get("type") in ("string", "integer", "number", "boolean") or described(
            items, components)
    return bool(schema.get("properties"))


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in doc["paths"].items()
            for method, op in item.items() if method in METHODS]


def test_every_json_operation_documents_its_answer(server: Server) -> None:
    doc = httpx.get(server.url + "/openapi.json").json()
    components = doc["components"]["schemas"]
    checked = 0
    for path, method, op in operations(doc):
        ok = {code: r for code, r in op["responses"].items() if code.startswith("2")}
        assert ok, (method, path)
        for code, response in ok.items():
            content = response.get("content", {})
            assert content, (method, path, code)
            if "application/json" not in content:
                continue  # the export: JSON lines, documented as text
            schema = content["application/json"].get("schema", {})
            assert described(schema, components), (method, path, code, schema)
            checked += 1
        for code in ("401", "403", "404", "409", "422"):
            refusal = op["responses"][code]["content"]["application/json"]["schema"]
            assert refusal == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)
    assert checked >= 30
    assert set(components["ErrorBody"]["properties"]) == {"detail", "violations"}


def test_limits_come_from_the_settings(tmp_path_factory: pytest.TempPathFactory,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``SIDEBET_PASSWORD_MIN`` and ``SIDEBET_GAMES_PAGE(_MAX)`` reach the served document
    and the refusals; ``--port`` overrides ``SIDEBET_PORT``."""
    monkeypatch.setenv("SIDEBET_PASSWORD_MIN", "12")
    monkeypatch.setenv("SIDEBET_GAMES_PAGE_MAX", "50")
    monkeypatch.setenv("SIDEBET_GAMES_PAGE", "20")
    monkeypatch.setenv("SIDEBET_PORT", "1")  # privileged: serving there would fail
    srv = Server(database_url(tmp_path_factory.mktemp("limits"))).start()
    try:
        doc = httpx.get(srv.url + "/openapi.json").json()
        credentials = doc["components"]["schemas"]["Credentials"]["properties"]
        assert credentials["password"]["minLength"] == 12
        limit = next(p for p in doc["paths"]["/api/games"]["get"]["parameters"]
                     if p["name"] == "limit")
        assert limit["schema"]["maximum"] == 50
        r = httpx.post(srv.url + "/api/accounts", json={"name": "lim", "password": "elevenchars"})
        assert r.status_code == 422 and "password" in r.json()["detail"]
        r = httpx.post(srv.url + "/api/accounts", json={"name": "lim", "password": "twelve chars"})
        assert r.status_code == 201
    finally:
        srv.stop()
