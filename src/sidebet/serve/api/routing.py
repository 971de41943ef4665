"""How every route answers: with the keys the service set, checked against the route's
response model; a change's status as its transaction (or its first answer) gave it.  A
table's state is checked and serialised once per event (:class:`StateJson`) and that text
is spliced into every answer that carries it (:func:`acted`).  A JSON body is read once,
strictly (:func:`strict_json`): nested at most :data:`JSON_DEPTH_MAX` deep, no key twice
in one object, else 422."""

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import TypeAdapter

from sidebet.serve.api.schemas import TableState
from sidebet.serve.errors import ApiError

__all__ = ["JSON_DEPTH_MAX", "ExactRoute", "StateJson", "acted", "answered", "refusal",
           "strict_json"]

_STATE = TypeAdapter(TableState)

JSON_DEPTH_MAX = 32
"""The deepest nesting of arrays and objects a request body may have."""


def _depth(body: bytes) -> int:
    """The deepest nesting of arrays and objects in the JSON text ``body`` (strings read
    over)."""
    depth = deepest = 0
    quoted = escaped = False
    for byte in body:
        if quoted:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                quoted = False
        elif byte == 0x22:
            quoted = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ApiError(422, f"the JSON body gives the key {key!r} twice in one "
                                    "object")
            seen.add(key)
    return out


def strict_json(body: bytes) -> Any:
    """A request's JSON body parsed, or 422: nested deeper than :data:`JSON_DEPTH_MAX`, a
    key twice in one object, or not JSON.

    >>> strict_json(b'{"amount": "1.00", "wager": "blackjack"}')["wager"]
    'blackjack'
    >>> strict_json(b'{"amount": "1.00", "amount": "9.00"}')
    Traceback (most recent call last):
    ...
    sidebet.serve.errors.ApiError: the JSON body gives the key 'amount' twice in one object
    >>> strict_json(b"[" * 5000 + b"]" * 5000)
    Traceback (most recent call last):
    ...
    sidebet.serve.errors.ApiError: the JSON body is nested 5000 deep; at most 32 is accepted
    """
    if body.count(b"[") + body.count(b"{") > JSON_DEPTH_MAX:  # else it cannot be too deep
        deepest = _depth(body)
        if deepest > JSON_DEPTH_MAX:
            raise ApiError(422, f"the JSON body is nested {deepest} deep; at most "
                                f"{JSON_DEPTH_MAX} is accepted")
    try:
        return json.loads(body, object_pairs_hook=_no_repeats)
    except ValueError as exc:  # UnicodeDecodeError included
        raise ApiError(422, f"the body is not JSON ({exc})") from None


class ExactRoute(APIRoute):
    """A route whose answer holds only the keys the service set: an optional key of the
    response model that the service left out stays out (no ``null`` added); its JSON body
    read by :func:`strict_json`."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        kwargs["response_model_exclude_unset"] = True
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, given the body already parsed strictly (Starlette's
        ``Request.json`` answers what it finds in ``_json``)."""
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            if "json" in request.headers.get("content-type", ""):
                body = await request.body()
                if body:
                    request._json = strict_json(body)
            return await handler(request)

        return strict


def answered(result: tuple[int, Any], response: Response) -> Any:
    """The body of a change's answer, its status set on ``response`` (a retry's is the
    first answer's)."""
    status, body = result
    response.status_code = status
    return body


class StateJson:
    """The tables' states as the ``TableState`` schema serialises them, one app's (kept on
    ``app.state.state_json`` by ``create_app``): per table, the view last serialised (a
    view is computed once per event and shared by every reader) and its JSON."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[int, tuple[object, bytes]] = {}

    def __call__(self, view: dict[str, Any]) -> bytes:
        """A table's state (``LiveTable.view()``) as JSON, computed once per view."""
        table = int(view["table"])
        done = self._last.get(table)
        if done is None or done[0] is not view:
            done = view, _STATE.dump_json(_STATE.validate_python(view), exclude_unset=True)
            self._last[table] = done
        return done[1]


def acted(result: tuple[int, Any], state_json: StateJson) -> Response:
    """The answer to a decision (``ActionOut``): its record and sequence numbers, then the
    table's state as ``state_json`` serialised it once for every reader."""
    status, body = result
    rest = {k: v for k, v in body.items() if k != "state"}
    head = json.dumps(rest, separators=(",", ":"), ensure_ascii=False).encode()
    if "state" in body:
        head = head[:-1] + b',"state":' + state_json(body["state"]) + b"}"
    return Response(head, status_code=status, media_type="application/json")


def refusal(err: ApiError) -> JSONResponse:
    """The answer to a refused request: its body and headers (:meth:`ApiError.headers`)."""
    return JSONResponse(err.body(), status_code=err.status, headers=err.headers())
