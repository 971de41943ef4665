"""How every route answers: with the keys the service set, checked against the route's
response model; a change's status as its transaction (or its first answer) gave it.  A
table's state is checked and serialised once per event (:func:`state_json`) and that text
is spliced into every answer that carries it (:func:`acted`)."""

import json
from collections.abc import Callable
from typing import Any

from fastapi import Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import TypeAdapter

from sidebet.serve.api.schemas import TableState
from sidebet.serve.errors import ApiError

__all__ = ["ExactRoute", "acted", "answered", "refusal", "state_json"]

_STATE = TypeAdapter(TableState)
_states: dict[int, tuple[object, bytes]] = {}
"""Per table: the view last serialised (a view is computed once per event and shared) and
its JSON."""


class ExactRoute(APIRoute):
    """A route whose answer holds only the keys the service set: an optional key of the
    response model that the service left out stays out (no ``null`` added)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        kwargs["response_model_exclude_unset"] = True
        super().__init__(path, endpoint, **kwargs)


def answered(result: tuple[int, Any], response: Response) -> Any:
    """The body of a change's answer, its status set on ``response`` (a retry's is the
    first answer's)."""
    status, body = result
    response.status_code = status
    return body


def state_json(view: dict[str, Any]) -> bytes:
    """A table's state (``LiveTable.view()``) as the ``TableState`` schema serialises it,
    computed once per view."""
    table = int(view["table"])
    done = _states.get(table)
    if done is None or done[0] is not view:
        done = view, _STATE.dump_json(_STATE.validate_python(view), exclude_unset=True)
        _states[table] = done
    return done[1]


def acted(result: tuple[int, Any]) -> Response:
    """The answer to a decision (``ActionOut``): its record and sequence numbers, then the
    table's state as :func:`state_json` serialised it once for every reader."""
    status, body = result
    rest = {k: v for k, v in body.items() if k != "state"}
    head = json.dumps(rest, separators=(",", ":"), ensure_ascii=False).encode()
    if "state" in body:
        head = head[:-1] + b',"state":' + state_json(body["state"]) + b"}"
    return Response(head, status_code=status, media_type="application/json")


def refusal(err: ApiError) -> JSONResponse:
    """The answer to a refused request: its body, a 401's ``WWW-Authenticate`` and a 429's
    ``Retry-After``."""
    headers = {"WWW-Authenticate": "Bearer"} if err.status == 401 else None
    if err.status == 429:
        wait = next((w for w in err.message.split() if w.isdigit()), "1")
        headers = {"Retry-After": wait}
    return JSONResponse(err.body(), status_code=err.status, headers=headers)
