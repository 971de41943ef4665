"""The hot routes without FastAPI's per-request machinery: a player's decisions at a seat
(``POST /api/tables/{id}/seats/{n}/bets``, ``deal``, ``press``, ``insurance``, ``double``,
``hit``, ``stand``, ``split``, ``surrender``) and ``GET /api/tables/{id}/state``, answered
by a plain ASGI layer in front of FastAPI's router.

It takes only requests whose every parameter it checks as the FastAPI route would, a
strict subset (:func:`plan`): plain decimal ids and sequence numbers, one ``Bearer``
token, a JSON object with exactly the body model's keys, ``after`` and ``seat`` alone in
the query.  Anything else goes on to the FastAPI route (its answer is the contract, and
the OpenAPI schema is FastAPI's, unchanged).  The answers are the routes' own
(:func:`~sidebet.serve.api.routing.acted`, :func:`~sidebet.serve.api.routing.refusal`,
:func:`~sidebet.serve.api.tables.state_answer`); the caller and the decision share one
worker-thread trip.  ``tests/serve/test_hot.py`` compares both paths answer by answer."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlalchemy.exc import DBAPIError
from starlette.concurrency import run_in_threadpool

from sidebet.core.errors import SidebetError
from sidebet.serve.api.params import INT32, MONEY
from sidebet.serve.api.routing import acted, refusal
from sidebet.serve.api.stream import Subscribers
from sidebet.serve.api.tables import state_answer
from sidebet.serve.db import unavailable
from sidebet.serve.errors import ApiError
from sidebet.serve.middleware import replay
from sidebet.serve.security import Caller, token_hash
from sidebet.serve.service.services import Services
from sidebet.serve.service.tables import MAX_SEATS
from sidebet.serve.settings import Settings
from sidebet.table import Step

__all__ = ["DECISIONS", "Decide", "HotRoutes", "Kind", "ReadState", "plan"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class Kind(Enum):
    """The body a decision's route takes (its pydantic model in ``seats.router``)."""

    NONE = "none"
    AMOUNT = "AmountIn"
    OPTIONAL_AMOUNT = "OptionalAmountIn"
    BET = "BetIn"


DECISIONS: dict[str, tuple[Step, Kind]] = {
    "bets": (Step.BET, Kind.BET),
    "deal": (Step.CLOSE_BETS, Kind.NONE),
    "press": (Step.PRESS, Kind.AMOUNT),
    "insurance": (Step.INSURANCE, Kind.AMOUNT),
    "double": (Step.DOUBLE, Kind.OPTIONAL_AMOUNT),
    "hit": (Step.HIT, Kind.NONE),
    "stand": (Step.STAND, Kind.NONE),
    "split": (Step.SPLIT, Kind.NONE),
    "surrender": (Step.SURRENDER, Kind.NONE),
}
"""The last path segment of each decision's route (``seats.router``): its step and body."""

_ID = "([1-9][0-9]{0,9})"
_DECIDE = re.compile(f"/api/tables/{_ID}/seats/{_ID}/({'|'.join(DECISIONS)})")
_STATE = re.compile(f"/api/tables/{_ID}/state")
_NUMBER = re.compile(rb"0|[1-9][0-9]{0,9}")
_MONEY = re.compile(MONEY)
_TOKEN = re.compile(rb"Bearer ([\x21-\x7e]+)")
_JSON = (b"application/json",)
_HEADERS = (b"authorization", b"idempotency-key", b"expected-seq", b"content-type")


@dataclass(frozen=True, slots=True)
class Decide:
    """A decision the hot path answers: the route's parameters, checked."""

    table_id: int
    seat: int
    step: Step
    token: str
    amount: str | None = None
    wager: str | None = None
    key: str | None = None
    expected: int | None = None


@dataclass(frozen=True, slots=True)
class ReadState:
    """A ``GET /state`` the hot path answers."""

    table_id: int
    after: int | None = None
    seat: int | None = None


def _id(text: str) -> int | None:
    number = int(text)
    return number if number <= INT32 else None


def _headers(scope: Scope) -> dict[bytes, bytes] | None:
    """The headers the routes read, each at most once (``None``: one repeated)."""
    found: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", ()):
        if name in _HEADERS:
            if name in found:
                return None
            found[name] = value
    return found


def _amount(value: object) -> str | None:
    return value if isinstance(value, str) and _MONEY.fullmatch(value) else None


def _body(kind: Kind, body: bytes, content_type: bytes | None, settings: Settings
          ) -> tuple[str | None, str | None] | None:
    """(amount, wager) of a decision's body as its model reads it (``None``: not one the
    hot path takes)."""
    if kind is Kind.NONE:
        return None, None  # the route reads no body
    if kind is Kind.OPTIONAL_AMOUNT and not body:
        return None, None
    if content_type not in _JSON:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if kind is Kind.BET:
        wager = data.get("wager")
        if (data.keys() != {"wager", "amount"} or not isinstance(wager, str)
                or not wager.isascii() or not 1 <= len(wager) <= settings.wager_id_max):
            return None
        amount = _amount(data["amount"])
        return None if amount is None else (amount, wager)
    amount = _amount(data.get("amount")) if data.keys() == {"amount"} else None
    return None if amount is None else (amount, None)


def _query(text: bytes) -> dict[bytes, int] | None:
    """``after`` and ``seat`` of a query string, each at most once (``None``: anything
    else)."""
    found: dict[bytes, int] = {}
    for part in text.split(b"&") if text else ():
        name, eq, value = part.partition(b"=")
        if not eq or name not in (b"after", b"seat") or name in found \
                or not _NUMBER.fullmatch(value):
            return None
        found[name] = int(value)
    return found


def plan(scope: Scope, body: bytes, settings: Settings) -> Decide | ReadState | None:
    """What the hot path answers for this request (``None``: FastAPI's route does)."""
    path, method = scope.get("path", ""), scope.get("method")
    if method == "GET":
        read = _STATE.fullmatch(path)
        query = _query(scope.get("query_string", b"")) if read else None
        if read is None or query is None:
            return None
        table_id, after, seat = _id(read.group(1)), query.get(b"after"), query.get(b"seat")
        if table_id is None or (after is not None and after > INT32) or (
                seat is not None and not 1 <= seat <= MAX_SEATS):
            return None
        return ReadState(table_id, after, seat)
    decide = _DECIDE.fullmatch(path) if method == "POST" else None
    headers = _headers(scope) if decide else None
    if decide is None or headers is None:
        return None
    table_id, seat = _id(decide.group(1)), _id(decide.group(2))
    token = _TOKEN.fullmatch(headers.get(b"authorization", b""))
    key, expected = headers.get(b"idempotency-key"), headers.get(b"expected-seq")
    step, kind = DECISIONS[decide.group(3)]
    given = _body(kind, body, headers.get(b"content-type"), settings)
    if (table_id is None or seat is None or token is None or given is None
            or (key is not None and not 1 <= len(key) <= settings.idempotency_key_max)
            or (expected is not None and (not _NUMBER.fullmatch(expected)
                                          or int(expected) > INT32))):
        return None
    return Decide(table_id, seat, step, token.group(1).decode("ascii"), given[0], given[1],
                  None if key is None else key.decode("latin-1"),
                  None if expected is None else int(expected))


class HotRoutes:
    """The ASGI layer in front of FastAPI's router that answers :func:`plan`'s requests
    and passes every other request on, untouched."""

    def __init__(self, app: App, settings: Settings, services: Services,
                 subscribers: Subscribers) -> None:
        self.app = app
        self.settings = settings
        self.services = services
        self.subscribers = subscribers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "POST"):
            await self.app(scope, receive, send)
            return
        body, first = b"", None
        if scope["method"] == "POST":
            first = await receive()  # the Guard's replay: the whole body, one message
            if first["type"] != "http.request" or first.get("more_body", False):
                await self.app(scope, replay(first, receive), send)
                return
            body = first.get("body", b"")
        todo = plan(scope, body, self.settings)
        if todo is None:
            await self.app(scope, receive if first is None else replay(first, receive), send)
            return
        try:
            if isinstance(todo, ReadState):
                answer = await state_answer(self.services, self.subscribers, todo.table_id,
                                            todo.after, todo.seat)
            else:
                answer = acted(await run_in_threadpool(self._decide, todo,
                                                       self._known(todo.token)))
        except ApiError as err:
            answer = refusal(err)
        except SidebetError as err:
            answer = refusal(ApiError(422, str(err)))
        except DBAPIError as err:  # a token lookup's lost connection, as the app answers it
            answer = refusal(unavailable(err))
        await answer(scope, receive, send)

    def _known(self, token: str) -> Caller | None:
        """The caller of a token known valid, found on the event loop."""
        return self.services.core.tokens.get(token_hash(token))

    def _decide(self, todo: Decide, known: Caller | None) -> tuple[int, Any]:
        """In a worker thread: the caller (looked up unless known), then the decision."""
        services = self.services
        who = known if known is not None else services.accounts.authenticate(todo.token)
        return services.rounds.act(who, todo.table_id, todo.seat, todo.step, todo.amount,
                                   todo.wager, key=todo.key, expected=todo.expected)

