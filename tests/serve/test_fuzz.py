"""Property-based fuzzing of the whole API from its OpenAPI schema (schemathesis): no
request gets a 5xx, every answer's status, content type and body are those the schema
documents for it, and afterwards no money has been created (balances plus chips on the
layout equal deposits less withdrawals, no wallet below zero)."""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .harness import Api, Server, make_table

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

EXAMPLES = int(os.environ.get("SIDEBET_FUZZ_EXAMPLES", "30"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
"""What every answer is checked for, beyond its status below 500."""
_tokens: dict[str, str] = {}


@pytest.fixture(scope="module")
def api_schema(server: Server, op: Api) -> Any:
    """The served OpenAPI schema, with a table in mid-round so fuzzed actions reach the
    engine (table 1, seats 1 and 2 taken by the fuzzing player and another)."""
    t = make_table(op)
    fuzzer = Api.player(server.url, "fuzzer")
    other = Api.player(server.url, "other")
    fuzzer.post(f"/api/tables/{t}/seats/1", expect=201)
    other.post(f"/api/tables/{t}/seats/2", expect=201)
    fuzzer.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    _tokens["player"] = str(fuzzer.http.headers["Authorization"])
    _tokens["operator"] = str(op.http.headers["Authorization"])
    return schemathesis.openapi.from_url(server.url + "/openapi.json")


def test_no_server_error(api_schema: Any) -> None:
    """Every operation of the schema, with generated paths, queries, headers and bodies; each
    answer conforms to the schema (its status documented, its body valid against the
    documented response schema, refusals included).  (Driven operation by operation
    through ``as_strategy``: schemathesis' pytest plugin does not load under this pytest.)"""
    checked = 0
    for result in api_schema.get_all_operations():
        operation = result.ok()
        who = "operator" if operation.path in ("/api/tables", "/api/reconcile",
                                               "/api/surveillance") else "player"
        headers = {"Authorization": _tokens[who]}

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        def call(case: Any) -> None:
            response = case.call(headers=headers, timeout=30)  # noqa: B023
            assert response.status_code < 500, (case.operation.path, response.text)
            case.validate_response(response, checks=CHECKS, headers=headers)  # noqa: B023

        call()
        checked += 1
    assert checked >= 25  # every route of the API


def test_no_money_created(op: Api) -> None:
    rec = op.get("/api/reconcile")
    assert rec["conserved"] and rec["negative_balances"] == 0, rec
