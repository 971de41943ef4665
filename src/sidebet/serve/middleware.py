"""The HTTP guard in front of every route (pure ASGI): request header and body size
limits (431, 413), the read rate per address for a table's events and stream (429: one
bucket per address, on PostgreSQL shared by every process of the database), and the
security headers on every answer (a Content-Security-Policy with ``frame-ancestors
'none'``, ``X-Frame-Options``, ``X-Content-Type-Options: nosniff``, ``Referrer-Policy``;
``Strict-Transport-Security`` over HTTPS)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from sidebet.serve.errors import ApiError
from sidebet.serve.settings import Settings
from sidebet.serve.throttle import Bucket, ReadLimit

__all__ = ["CSP", "SECURITY_HEADERS", "Guard"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The pages' policy: everything from the server itself, nothing framed."""

_DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
             "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
             "img-src 'self' data: https://fastapi.tiangolo.com; object-src 'none'; "
             "base-uri 'none'; frame-ancestors 'none'")
"""The interactive API documentation loads its script from FastAPI's CDN."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
"""Sent with every answer, with the Content-Security-Policy."""

_READS = re.compile(r"^/api/tables/[^/]+/(events|ws)$")
"""The reads limited per address: a table's events and its stream."""


def _refusal(err: ApiError) -> tuple[dict[str, Any], dict[str, Any]]:
    body = json.dumps(err.body()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in (err.headers() or {}).items()]
    return ({"type": "http.response.start", "status": err.status, "headers": headers},
            {"type": "http.response.body", "body": body})


class Guard:
    """Wraps the app: refuses what is too large or too frequent before any route runs, and
    adds the security headers to every answer."""

    def __init__(self, app: App, settings: Settings, reads: ReadLimit | None = None) -> None:
        self.app = app
        self.header_max = settings.header_max
        self.body_max = settings.body_max
        self.hsts = None if not settings.hsts_max_age else (
            b"strict-transport-security",
            f"max-age={settings.hsts_max_age}; includeSubDomains".encode())
        """Sent with every answer given over HTTPS (``None``: never)."""
        self.reads = reads or Bucket(rate=settings.read_rate, burst=settings.read_burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        size = sum(len(k) + len(v) for k, v in scope.get("headers", ()))
        path = str(scope.get("path", ""))
        refusal: ApiError | None = None
        if size > self.header_max:
            refusal = ApiError(431, f"the request's headers are {size} bytes; the server "
                                    f"accepts {self.header_max} at most")
        elif _READS.match(path):
            client = scope.get("client")
            address = str(client[0]) if client else ""
            wait = self.reads.take(address) if isinstance(self.reads, Bucket) else \
                await asyncio.to_thread(self.reads.take, address)  # the database's
            if wait:
                refusal = ApiError.too_many("too many reads of the table's events from this "
                                            "address", wait)
        if refusal is not None:
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008,
                            "reason": refusal.message})
                return
            start, body = _refusal(refusal)
            await self._secured(send)(start)
            await send(body)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        https = scope.get("scheme") == "https"  # the server's TLS, or a trusted proxy's
        whole = await self._read_body(scope, receive, send)
        if whole is None:
            return
        await self.app(scope, whole, self._secured(send, path, self.hsts if https else None))

    async def _read_body(self, scope: Scope, receive: Receive, send: Send
                         ) -> Receive | None:
        """The request's body read whole (refused with 413 above the limit, by its
        ``Content-Length`` before any byte is read), handed to the app as one message."""
        declared = next((v for k, v in scope.get("headers", ()) if k == b"content-length"),
                        None)
        too_big = f"the request's body is larger than the {self.body_max} bytes accepted"
        if declared is not None and (not declared.isdigit() or int(declared) > self.body_max):
            start, body = _refusal(ApiError(413, too_big))
            await self._secured(send)(start)
            await send(body)
            return None
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                chunks = []
                first: Message = message
                break
            total += len(message.get("body", b""))
            if total > self.body_max:
                start, body = _refusal(ApiError(413, too_big))
                await self._secured(send)(start)
                await send(body)
                return None
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                first = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
                break
        return _buffered(first, receive)

    @staticmethod
    def _secured(send: Send, path: str = "", hsts: tuple[bytes, bytes] | None = None
                 ) -> Send:
        csp = (_DOCS_CSP if path in ("/docs", "/redoc") else CSP).encode()
        always = SECURITY_HEADERS if hsts is None else (*SECURITY_HEADERS, hsts)

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                extra = [(k, v) for k, v in always if k not in have]
                if b"content-security-policy" not in have:
                    extra.append((b"content-security-policy", csp))
                message = {**message, "headers": headers + extra}
            await send(message)

        return secured


def _buffered(first: Message, receive: Receive) -> Receive:
    """``receive`` with ``first`` given back first (a request's body read ahead)."""
    given = False

    async def buffered() -> Message:
        nonlocal given
        if not given:
            given = True
            return first
        return await receive()

    return buffered
