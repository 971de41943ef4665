"""How every route answers: with the keys the service set, checked against the route's
response model; a change's status as its transaction (or its first answer) gave it.  A
table's state is checked and serialised once per event (:class:`StateJson`) and that text
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

__all__ = ["ExactRoute", "StateJson", "acted", "answered", "refusal"]

_STATE = TypeAdapter(TableState)


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
