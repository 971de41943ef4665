"""The hot path (``serve/api/hot.py``) against FastAPI's routes: two real servers on the
same test seed, one with ``SIDEBET_HOT_ROUTES=false``, sent the same requests; every
answer (status, headers but the date, body bytes) must be the same, and the OpenAPI
document too.  Which requests the hot path takes is checked by :func:`plan` itself, so
both paths are compared."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import pytest
from fastapi.routing import APIRoute
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field, TypeAdapter

from sidebet.core.cards import Card, Rank
from sidebet.serve.api import seats
from sidebet.serve.api.hot import DECISIONS, Decide, ReadState, plan
from sidebet.serve.api.params import INT32
from sidebet.serve.settings import Settings
from sidebet.table import Step

from .harness import Api, Server, choose_client_seed, database_url, make_table

pytestmark = pytest.mark.postgres

Request = tuple[str, str, str, dict[str, str], bytes | None, bool]
"""(who, method, path, headers, body, whether the hot path takes it)."""

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    hot = Server(database_url(tmp_path_factory.mktemp("hot"))).start()
    plain = Server(database_url(tmp_path_factory.mktemp("plain")),
                   env={"SIDEBET_HOT_ROUTES": "false"}).start()
    yield hot, plain
    hot.stop()
    plain.stop()


class Side:
    """One server's table, players and clients."""

    def __init__(self, server: Server) -> None:
        op = Api.operator(server.url)
        self.table = make_table(op)
        self.other = make_table(op)
        alice = Api.player(server.url, "alice")
        alice.post(f"/api/tables/{self.table}/seats/1", expect=201)
        bob = Api.player(server.url, "bob")
        bob.post(f"/api/tables/{self.other}/seats/1", expect=201)
        seed = choose_client_seed(self.table, 0, 6, _splittable)
        alice.act(self.table, 1, "client-seed", {"seed": seed})
        self.tokens = {"alice": alice.http.headers["Authorization"], "anon": "",
                       "bad": "Bearer not-a-token"}
        self.http = httpx.Client(base_url=server.url, timeout=30)

    def send(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        who, method, path, headers, body, _hot = req
        headers = dict(headers)
        if self.tokens[who]:
            headers["Authorization"] = self.tokens[who]
        r = self.http.request(method, path, headers=headers, content=body)
        return r.status_code, {k: v for k, v in r.headers.items() if k != "date"}, r.content


def value(c: Card) -> int:
    return c.rank.blackjack_value if c.rank is not Rank.ACE else 11


def _splittable(c: list[Card]) -> bool:
    return (c[0].rank is Rank.EIGHT and c[2].rank is Rank.EIGHT and 2 <= value(c[1]) <= 6
            and value(c[4]) + 8 < 21 and value(c[5]) + 8 < 21)


def _scope(req: Request, token: str) -> tuple[dict[str, Any], bytes]:
    _who, method, target, headers, body, _hot = req
    path, _, query = target.partition("?")
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    if token:
        raw.append((b"authorization", token.encode()))
    return ({"type": "http", "method": method, "path": path, "query_string": query.encode(),
             "headers": raw}, body or b"")


def _bet(amount: str = "10.00", wager: str = "blackjack") -> bytes:
    return json.dumps({"wager": wager, "amount": amount}).encode()


def _opening(t: int, other: int) -> list[Request]:
    seat = f"/api/tables/{t}/seats/1"
    key = {**JSON, "Idempotency-Key": "same-key"}
    return [
        ("anon", "GET", f"/api/tables/{t}/state", {}, None, True),
        ("anon", "GET", f"/api/tables/{t}/state?after=0&seat=1", {}, None, True),
        ("anon", "GET", f"/api/tables/{t}/state?after=-1", {}, None, False),
        ("anon", "GET", f"/api/tables/{t}/state?after=0&seat=9", {}, None, False),
        ("anon", "GET", f"/api/tables/{t}/state?cache=1", {}, None, False),
        ("anon", "GET", "/api/tables/999/state", {}, None, True),
        ("anon", "GET", "/api/tables/0/state", {}, None, False),
        ("anon", "POST", seat + "/bets", JSON, _bet(), False),
        ("bad", "POST", seat + "/bets", JSON, _bet(), True),
        ("alice", "POST", seat + "/hit", {}, None, True),
        ("alice", "POST", seat + "/bets", JSON, _bet("10.001"), False),
        ("alice", "POST", seat + "/bets", JSON, _bet("10.00\n"), False),
        ("alice", "POST", seat + "/bets", {"Content-Type": "text/plain"}, _bet(), False),
        ("alice", "POST", seat + "/bets", JSON, b'{"wager": "blackjack"}', False),
        ("alice", "POST", seat + "/bets", JSON, b"[1]", False),
        ("alice", "POST", seat + "/bets", JSON, b"{", False),
        ("alice", "POST", seat + "/bets", JSON, _bet(wager="no-such-wager"), True),
        ("alice", "POST", seat + "/bets", JSON, _bet("100000.00"), True),
        ("alice", "POST", seat + "/bets", JSON, _bet("-5.00"), True),
        ("alice", "POST", f"/api/tables/{other}/seats/1/bets", JSON, _bet(), True),
        ("alice", "POST", f"/api/tables/{t}/seats/9/bets", JSON, _bet(), True),
        ("alice", "POST", "/api/tables/999/seats/1/bets", JSON, _bet(), True),
        ("alice", "POST", seat + "/bets", {**JSON, "Expected-Seq": "1"}, _bet(), True),
        ("alice", "POST", seat + "/bets", {**JSON, "Expected-Seq": "x"}, _bet(), False),
        ("alice", "POST", seat + "/bets", {**JSON, "Idempotency-Key": "k" * 500}, _bet(),
         False),
        ("alice", "POST", seat + "/bets", key, _bet(), True),
        ("alice", "POST", seat + "/bets", key, _bet(), True),
        ("alice", "POST", seat + "/bets", key, _bet("20.00"), True),
        ("alice", "POST", seat + "/press", JSON, b'{"amount": "0"}', True),
        ("alice", "POST", seat + "/double", {}, None, True),
        ("alice", "POST", seat + "/bets", JSON, _bet("5.00", "upcard-luck"), True),
    ]


def _next(state: dict[str, Any], t: int) -> Request | None:
    """Seat 1's next decision: a Blackjack wager when none is placed, split, double on 11,
    hit below 12, collect, decline, deal, stand."""
    legal = [x["action"] for x in state["seats"][0]["legal"]]
    if "bet" in legal and (not state["round_open"]
                           or "blackjack" not in (state["seats"][0].get("bets") or {})):
        return ("alice", "POST", f"/api/tables/{t}/seats/1/bets", JSON, _bet(), True)
    current, hands = state["current"], state["seats"][0].get("hands") or []
    total = 0
    if current and current["hand"] is not None and current["hand"] < len(hands):
        total = int(hands[current["hand"]]["total"]["total"])
    seat = f"/api/tables/{t}/seats/1/"
    for action, body, hot in (("split", None, True), ("double", b"{}", False),
                              ("hit", None, True), ("press", b'{"amount": "0"}', True),
                              ("insurance", b'{"amount": "0"}', True),
                              ("deal", None, True), ("stand", None, True)):
        wanted = (action != "double" or total == 11) and (action != "hit" or total < 12)
        if action in legal and wanted:
            return ("alice", "POST", seat + action, JSON, body, hot)
    return None


def test_the_hot_path_answers_as_fastapi_does(pair: tuple[Server, Server]) -> None:
    hot, plain = Side(pair[0]), Side(pair[1])
    assert (hot.table, hot.other) == (plain.table, plain.other)
    settings = Settings()
    compared = taken = 0

    def both(req: Request) -> bytes:
        nonlocal compared, taken
        todo = plan(*_scope(req, hot.tokens[req[0]]), settings)
        assert (todo is not None) == req[5], req
        taken += todo is not None
        a, b = hot.send(req), plain.send(req)
        assert a == b, req
        compared += 1
        return a[2]

    for req in _opening(hot.table, hot.other):
        both(req)
    state = json.loads(both(("anon", "GET", f"/api/tables/{hot.table}/state", {}, None,
                             True)))
    rounds = state["round"] + 3
    for _ in range(80):
        step = _next(state, hot.table)
        assert step is not None, state
        state = json.loads(both(step))["state"]
        if state["round"] == rounds and not state["round_open"]:
            break
    assert not state["round_open"], state
    both(("anon", "GET", f"/api/tables/{hot.table}/state?after={state['seq'] - 1}&seat=1",
          {}, None, True))
    assert compared > 40 and taken > 25
    assert hot.http.get("/openapi.json").content == plain.http.get("/openapi.json").content


def test_plan_reads_the_parameters_as_the_routes_do() -> None:
    settings = Settings()
    token = "Bearer " + uuid.uuid4().hex
    req: Request = ("alice", "POST", "/api/tables/3/seats/2/bets",
                    {**JSON, "Idempotency-Key": "k", "Expected-Seq": "17"},
                    _bet("12.50", "trilux"), True)
    assert plan(*_scope(req, token), settings) == Decide(
        3, 2, Step.BET, token.removeprefix("Bearer "), "12.50", "trilux", "k", 17)
    double: Request = ("alice", "POST", "/api/tables/3/seats/2/double", {}, None, True)
    assert plan(*_scope(double, token), settings) == Decide(
        3, 2, Step.DOUBLE, token.removeprefix("Bearer "))
    read: Request = ("anon", "GET", "/api/tables/3/state?seat=2&after=0", {}, None, True)
    assert plan(*_scope(read, ""), settings) == ReadState(3, 0, 2)
    for odd in ("/api/tables/3/state?after=2147483648", "/api/tables/2147483648/state",
                "/api/tables/03/state", "/api/tables/3/state?after=1&after=2"):
        assert plan(*_scope(("anon", "GET", odd, {}, None, False), ""), settings) is None
    twice = {"type": "http", "method": "POST", "path": "/api/tables/3/seats/2/hit",
             "query_string": b"", "headers": [(b"authorization", token.encode())] * 2}
    assert plan(twice, b"", settings) is None
    lower: Request = ("alice", "POST", "/api/tables/3/seats/2/hit", {}, None, False)
    assert plan(*_scope(lower, "bearer x"), settings) is None


SETTINGS = Settings()
MODELS: dict[str, Any] = {
    route.path.rsplit("/", 1)[-1]: route.dependant.body_params[0].field_info.annotation
    for route in seats.router(SETTINGS).routes
    if isinstance(route, APIRoute) and route.path.rsplit("/", 1)[-1] in DECISIONS
    and route.dependant.body_params}
"""Each decision's body model, as ``seats.router`` declares it."""

TEXTS = st.one_of(st.sampled_from(["10.00", "0", "-5", "1.5", "12.345", "10.00\n", " 1",
                                   "1e3", "blackjack", "trilux", "", "\u0661"]),
                  st.text(max_size=8))
VALUES = st.one_of(st.from_regex(r"-?[0-9]{0,15}(\.[0-9]{0,3})?\n?", fullmatch=True), TEXTS,
                   st.integers(-10, 10**15), st.none(), st.booleans(),
                   st.floats(allow_nan=False))


@given(name=st.sampled_from(sorted(MODELS)), amount=VALUES, wager=VALUES,
       extra=st.dictionaries(st.sampled_from(["wager", "other"]), VALUES, max_size=1))
def test_a_body_the_hot_path_takes_reads_as_its_model(name: str, amount: object,
                                                       wager: object, extra: dict[str, Any]
                                                       ) -> None:
    """Whatever body ``plan`` takes, the route's pydantic model takes too, with the same
    amount and wager (``plan`` may leave a valid one to FastAPI, never the reverse)."""
    body = {"amount": amount, **({"wager": wager} if name == "bets" else {}), **extra}
    req: Request = ("alice", "POST", f"/api/tables/1/seats/1/{name}", JSON,
                    json.dumps(body).encode(), True)
    todo = plan(*_scope(req, "Bearer t"), SETTINGS)
    if todo is None:
        return
    assert isinstance(todo, Decide)
    parsed = TypeAdapter(MODELS[name]).validate_python(body)
    assert (todo.amount, todo.wager) == (parsed.amount, getattr(parsed, "wager", None))


NUMBERS = st.one_of(st.integers(-3, 9).map(str), st.integers(INT32 - 2, INT32 + 2).map(str),
                    st.integers(-3, INT32 + 3).map(str),
                    st.text(alphabet="0123456789+-_ x.", max_size=12))


@given(after=NUMBERS, seat=NUMBERS)
def test_a_query_the_hot_path_takes_reads_as_the_route_does(after: str, seat: str) -> None:
    """``after`` and ``seat`` as ``plan`` reads them are what the route's validation reads."""
    req: Request = ("anon", "GET", f"/api/tables/1/state?after={after}&seat={seat}", {}, None,
                    True)
    todo = plan(*_scope(req, ""), SETTINGS)
    if todo is None:
        return
    assert isinstance(todo, ReadState)
    assert todo.after == TypeAdapter(Annotated[int, Field(ge=0, le=INT32)]).validate_python(
        after)
    assert todo.seat == TypeAdapter(Annotated[int, Field(ge=1, le=7)]).validate_python(seat)
