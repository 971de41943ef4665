"""The routes FastAPI's per-request machinery can be skipped for, served straight from the
app's own route table: a route is *direct* when its endpoint answers a ``Response`` itself
and its every dependency has a direct resolver (:data:`RESOLVERS`); these are the round's
decisions at a seat and a table's state, the requests a table's players send the most.

For such a route the request is matched by the route's own path pattern and its
parameters and body checked by FastAPI's own functions over the route's own fields
(``request_params_to_args``, ``request_body_to_args``; the body read by the routes' own
:func:`~sidebet.serve.api.routing.strict_json`): the same pydantic models and
constraints, not a second parser.  Whatever they would not accept as it stands (a field
in error, a body that is not JSON, a token not known valid, a path under a root path)
goes on to FastAPI unchanged, whose answer is then the contract.  The endpoint runs as
FastAPI would run it (a plain function in the worker threads), its exceptions answered by
the app's exception handlers.  ``tests/serve/test_direct.py`` shows which routes are
direct and that their answers are FastAPI's."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, params
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import request_body_to_args, request_params_to_args
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic_core import PydanticUndefined
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, compile_path

from sidebet.serve.api.deps import current_caller, get_services, get_settings
from sidebet.serve.api.routing import strict_json
from sidebet.serve.errors import ApiError
from sidebet.serve.middleware import _buffered
from sidebet.serve.security import token_hash

__all__ = ["RESOLVERS", "Direct", "DirectRoutes", "Entry", "chosen", "direct_routes"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_PASS = object()
"""A resolver's answer when the request must go on to FastAPI."""


def _caller(scope: Scope, headers: Headers) -> object:
    """The caller of a bearer token already known valid (``Core.tokens``), else
    :data:`_PASS` (FastAPI's ``current_caller`` looks it up, or refuses)."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return _PASS
    known = scope["app"].state.services.core.tokens.get(token_hash(token))
    return _PASS if known is None else known


RESOLVERS: Mapping[Callable[..., Any], Callable[[Scope, Headers], object]] = {
    current_caller: _caller,
    get_services: lambda scope, _headers: scope["app"].state.services,
    get_settings: lambda scope, _headers: scope["app"].state.settings,
}
"""The dependencies resolved without FastAPI's dependency solver: each a function of the
request's scope and headers giving the dependency's value, or :data:`_PASS`."""


@dataclass(frozen=True, slots=True)
class Direct:
    """One direct route: its FastAPI route, and what its endpoint is called with."""

    route: APIRoute
    dependant: Dependant
    resolvers: tuple[tuple[str, Callable[[Scope, Headers], object]], ...]
    is_async: bool

    def params(self, scope: Scope, headers: Headers
               ) -> tuple[dict[str, Any], bool] | None:
        """The path, query and header values by FastAPI's own checks, and whether a body
        is read; ``None`` when a value is not accepted (FastAPI answers)."""
        found = self.route.path_regex.match(scope["path"])
        if found is None:
            return None
        d = self.dependant
        values: dict[str, Any] = {}
        for fields, given in ((d.path_params, found.groupdict()),
                              (d.query_params, QueryParams(scope.get("query_string", b""))),
                              (d.header_params, headers)):
            got, errors = request_params_to_args(fields, given)
            if errors:
                return None
            values.update(got)
        for name, resolve in self.resolvers:
            value = resolve(scope, headers)
            if value is _PASS:
                return None
            values[name] = value
        return values, bool(d.body_params)


def _eligible(route: APIRoute) -> Direct | None:
    """``route`` as a direct route, if it is one (see the module's text)."""
    d = route.dependant
    call = d.call
    if (call is None or d.cookie_params or d.response_param_name
            or d.background_tasks_param_name or d.security_scopes_param_name
            or d.websocket_param_name or d.http_connection_param_name
            or any(isinstance(f.field_info, params.Form) for f in d.body_params)):
        return None
    if inspect.signature(call).return_annotation not in (Response, "Response"):
        return None
    resolvers = []
    for sub in d.dependencies:
        resolve = RESOLVERS.get(sub.call) if sub.call is not None else None
        if resolve is None or sub.name is None:
            return None
        resolvers.append((sub.name, resolve))
    return Direct(route, d, tuple(resolvers), inspect.iscoroutinefunction(call))


Entry = tuple[re.Pattern[str], frozenset[str] | None, Direct | None]
"""A route of the app: its path pattern, its methods (``None``: any) and, if it is
direct, how to serve it."""


def direct_routes(app: FastAPI) -> list[Entry]:
    """The app's routes in the order the router tries them, the direct ones marked."""
    out: list[Entry] = []
    for context in iter_route_contexts(app.routes):
        route, path = context.original_route, context.path
        if path is None:
            continue
        methods = getattr(route, "methods", None)
        direct = _eligible(route) if isinstance(route, APIRoute) and route.path == path \
            else None  # a route under a prefix: FastAPI's
        pattern = direct.route.path_regex if direct is not None else compile_path(path)[0]
        if isinstance(route, Mount):
            pattern = re.compile("^" + re.escape(path.rstrip("/")) + "(/.*)?$")
        out.append((pattern, None if methods is None else frozenset(methods), direct))
    return out


def chosen(table: list[Entry], method: str, path: str) -> Direct | None:
    """The direct route the router would choose for ``method`` and ``path``: the first
    route whose pattern and method match, if it is direct."""
    for pattern, methods, direct in table:
        if (methods is None or method in methods) and pattern.match(path):
            return direct
    return None


class DirectRoutes:
    """ASGI layer: a request for a direct route served from the route's own fields and
    endpoint; any other request, or one they would not accept as it stands, to ``app``."""

    def __init__(self, app: App, fastapi: FastAPI) -> None:
        self.app = app
        self.fastapi = fastapi
        self._table: list[Entry] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("root_path"):
            await self.app(scope, receive, send)
            return
        if self._table is None:
            self._table = direct_routes(self.fastapi)
        direct = chosen(self._table, scope["method"], scope["path"])
        if direct is not None:
            headers = Headers(scope=scope)
            got = direct.params(scope, headers)
            if got is not None:
                receive, accepted = await self._read_body(direct, got, receive, headers)
                if accepted:
                    await self._serve(direct, got[0], scope, receive, send)
                    return
        await self.app(scope, receive, send)

    @staticmethod
    async def _read_body(direct: Direct, got: tuple[dict[str, Any], bool], receive: Receive,
                         headers: Headers) -> tuple[Receive, bool]:
        """The body's values put in ``got`` by FastAPI's own check of the route's body
        fields; ``receive`` with the body given back, and whether they accept it."""
        values, takes_body = got
        if not takes_body:
            return receive, True
        message = await receive()
        receive = _buffered(message, receive)
        raw = message.get("body", b"") if message["type"] == "http.request" else b""
        body: Any = PydanticUndefined
        if raw:
            if headers.get("content-type", "application/json") != "application/json":
                return receive, False
            try:
                body = strict_json(raw)
            except ApiError:  # FastAPI's route refuses it in its words
                return receive, False
        got_body, errors = await request_body_to_args(
            direct.dependant.body_params, body, direct.route._embed_body_fields)
        if errors:
            return receive, False
        values.update(got_body)
        return receive, True

    async def _serve(self, direct: Direct, values: dict[str, Any], scope: Scope,
                     receive: Receive, send: Send) -> None:
        """The endpoint called with ``values`` as FastAPI would call it, its exceptions
        answered by the app's handlers."""
        request = Request(scope, receive)
        if direct.dependant.request_param_name:
            values[direct.dependant.request_param_name] = request
        call = direct.dependant.call
        assert call is not None
        try:
            response: Response = (await call(**values) if direct.is_async
                                  else await run_in_threadpool(call, **values))
        except Exception as exc:
            handler = next((h for c in type(exc).__mro__
                            if (h := self.fastapi.exception_handlers.get(c)) is not None),
                           None)
            if handler is None:
                raise
            answer = handler(request, exc)
            response = await answer if inspect.isawaitable(answer) else answer
        await response(scope, receive, send)
