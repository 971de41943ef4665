"""FastAPI dependencies: the services and settings of the app,
and the caller of a request (``Depends(current_caller)``, ``Depends(operator_caller)``).
They run on the event loop (no worker thread per dependency); only a token not known valid
is looked up in a worker thread."""

from typing import Annotated

from fastapi import Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.requests import HTTPConnection
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from sidebet.serve.errors import ApiError
from sidebet.serve.security import Caller, token_hash
from sidebet.serve.service.services import Services
from sidebet.serve.settings import Settings

__all__ = [
    "CurrentCaller",
    "OperatorCaller",
    "OptionalCaller",
    "ServicesDep",
    "SettingsDep",
    "current_caller",
    "get_services",
    "get_settings",
    "operator_caller",
    "optional_caller",
]

_bearer = HTTPBearer(auto_error=False)


async def get_services(conn: HTTPConnection) -> Services:
    """The app's services (``app.state.services``, set by ``create_app``)."""
    services: Services = conn.app.state.services
    return services


async def get_settings(conn: HTTPConnection) -> Settings:
    """The app's settings (``app.state.settings``, set by ``create_app``)."""
    settings: Settings = conn.app.state.settings
    return settings


ServicesDep = Annotated[Services, Depends(get_services)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


async def _caller(conn: HTTPConnection, token: str) -> Caller:
    """The account of a bearer token: on the event loop when the token is known valid
    (``Core.tokens``), else looked up in a worker thread; the app's services read from
    ``conn`` (no dependency to solve)."""
    services: Services = conn.app.state.services
    known = services.core.tokens.get(token_hash(token))
    if known is not None:
        return known
    return await run_in_threadpool(services.accounts.authenticate, token)


async def current_caller(conn: HTTPConnection,
                         cred: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
                         ) -> Caller:
    """The account of the request's bearer token (401 without a valid one)."""
    if cred is None:
        raise ApiError(401, "not signed in (a bearer token is required)")
    return await _caller(conn, cred.credentials)


CurrentCaller = Annotated[Caller, Depends(current_caller)]


async def optional_caller(conn: HTTPConnection,
                          cred: Annotated[HTTPAuthorizationCredentials | None,
                                          Depends(_bearer)]
                          ) -> Caller | None:
    """The account of the request's bearer token, or ``None`` without one (401 for a token
    that is not valid)."""
    return None if cred is None else await _caller(conn, cred.credentials)


OptionalCaller = Annotated[Caller | None, Depends(optional_caller)]


async def operator_caller(who: CurrentCaller) -> Caller:
    """The caller, if an operator (403 otherwise)."""
    if not who.operator:
        raise ApiError(403, "operators only")
    return who


OperatorCaller = Annotated[Caller, Depends(operator_caller)]
