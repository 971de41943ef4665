"""The HTTP and WebSocket API (FastAPI): one router per resource over the services.

Every POST takes an optional ``Idempotency-Key`` header (required for deposits and
withdrawals): a retry with the same key and body gets the first answer and changes nothing.
A refusal answers 4xx with ``{"detail": ..., "violations": [{"rule": ..., "message": ...}]}``:
401 not signed in, 403 not yours (another seat, an operator's task), 404 no such thing,
409 not open now (wrong phase or turn; the engine's rule cited), 422 the amount or wager
breaks a rule (cited) or the request is malformed.
"""

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.telemetry import TelemetryConfig
from sqlalchemy.exc import DBAPIError

import sidebet
from sidebet.core.errors import SidebetError, Violation
from sidebet.serve.api import (
    accounts,
    dealer,
    device,
    games,
    house,
    operator,
    seats,
    stream,
    surveillance,
    tables,
    wallet,
    web,
)
from sidebet.serve.api.direct import DirectRoutes
from sidebet.serve.api.routing import StateJson, refusal
from sidebet.serve.api.schemas import REFUSALS
from sidebet.serve.db import make_engine, unavailable
from sidebet.serve.errors import ApiError
from sidebet.serve.middleware import Guard
from sidebet.serve.service.services import Services
from sidebet.serve.service.timing import run_clock
from sidebet.serve.settings import Settings
from sidebet.serve.throttle import reads_for

if TYPE_CHECKING:
    from sidebet.serve.cluster.node import Node

__all__ = ["TELEMETRY_OFF", "create_app", "telemetry"]


TELEMETRY_OFF: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}
"""FastAPI's OpenTelemetry spans, metrics and logs, all off."""


def telemetry(environ: Mapping[str, str] = os.environ) -> TelemetryConfig | None:
    """FastAPI's OpenTelemetry as the environment asks for it: on (FastAPI's defaults)
    when an ``OTEL_`` variable or ``FASTAPI_OTEL_AUTO_CONFIGURE`` is set, else off
    (FastAPI otherwise looks up three providers in the environment on every request).

    >>> telemetry({}) == TELEMETRY_OFF, telemetry({"OTEL_SERVICE_NAME": "tables"})
    (True, None)
    """
    wanted = any(k.startswith("OTEL_") for k in environ) or "FASTAPI_OTEL_AUTO_CONFIGURE" in environ
    return None if wanted else TELEMETRY_OFF


def create_app(settings: Settings, services: Services | None = None,
               node: "Node | None" = None) -> FastAPI:
    """The FastAPI application under ``settings``, over ``services`` (by default opened on
    the settings' database): every router, the static files, the refusals' handlers, and
    the time limit's clock while the app runs; with ``node`` (one of several processes on
    one PostgreSQL) its tables claimed and followed while it runs, and writes for the
    others' tables forwarded to them."""
    if services is None:
        services = Services.open(make_engine(settings.database_url), settings)
    subscribers = stream.Subscribers()
    stop = threading.Event()
    timing = services.timing
    core = services.core
    relay = None
    if node is not None:  # writes for another process's table go to its owner
        from sidebet.serve.cluster.forward import Relay, house_tls
        relay = Relay(node, verify=True if settings.tls_cert is None
                      else house_tls(settings.tls_cert))

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        core.broadcast = subscribers.broadcaster(asyncio.get_running_loop())
        timer = threading.Thread(target=run_clock, args=(timing, stop, settings.clock_interval),
                                 daemon=True, name="sidebet-time-limit")
        timer.start()
        if node is not None:
            await asyncio.to_thread(node.start)
        yield
        if node is not None:
            await asyncio.to_thread(node.stop)
        if relay is not None:
            await relay.aclose()
        stop.set()
        timer.join(timeout=5)

    app = FastAPI(title="sidebet table server", version=sidebet.__version__,
                  description=__doc__ or "", lifespan=lifespan, responses=REFUSALS,
                  telemetry=telemetry())
    app.state.services = services
    app.state.settings = settings
    app.state.subscribers = subscribers
    app.state.state_json = StateJson()
    app.state.relay = relay

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, err: ApiError) -> JSONResponse:
        return refusal(err)

    @app.exception_handler(RequestValidationError)
    async def _malformed(_request: Request, err: RequestValidationError) -> JSONResponse:
        found = tuple(
            Violation("", f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}")
            for e in err.errors())
        return refusal(ApiError(422, "; ".join(v.message for v in found) or "malformed",
                                 found))

    @app.exception_handler(DBAPIError)
    async def _database(_request: Request, err: DBAPIError) -> JSONResponse:
        return refusal(unavailable(err))  # a lost connection; any other fault: a 500

    @app.exception_handler(SidebetError)
    async def _sidebet_error(_request: Request, err: SidebetError) -> JSONResponse:
        return refusal(ApiError(422, str(err)))

    # FastAPI tries the routes in this order (twice: to match, then to handle): the round's
    # decisions and the tables' state first, the requests a table's players send the most
    # (no path of one router is a path of another: the order changes no answer).
    for router in (seats.router(settings), tables.router(settings), accounts.router(settings),
                   wallet.router(settings), games.router(settings), operator.router(settings),
                   house.router(),
                   web.router(settings), stream.router(settings), dealer.router(settings),
                   device.router(settings), surveillance.router(settings, services)):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=web.STATIC), name="static")
    app.add_middleware(DirectRoutes, fastapi=app)  # innermost: after forwarding and the guard
    if relay is not None:
        from sidebet.serve.cluster.forward import Forwarder
        app.add_middleware(Forwarder, relay=relay)
    app.add_middleware(Guard, settings=settings, reads=reads_for(
        core.engine, rate=settings.read_rate, burst=settings.read_burst))
    return app
