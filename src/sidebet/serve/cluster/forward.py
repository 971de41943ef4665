"""Writes for a table another process owns, forwarded to the owner (pure ASGI, inside the
guard): the request runs here; if it reaches a table this process does not own
(:class:`~sidebet.serve.errors.NotOwner`, raised before anything changed), it is sent as
it came (method, path, headers, body) to the owner's address and the owner's answer is
given back.  While a table changes hands (no owner yet, or an owner that does not accept
connections) the request waits for the new owner, a few seconds at most, then gets 503.
If the owner fails after the request was sent, a request with an ``Idempotency-Key`` is
sent again (the owner answers it once); another's outcome is unknown: 503."""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import time
from pathlib import Path
from typing import Protocol

import httpx
from fastapi.concurrency import run_in_threadpool

from sidebet.serve.errors import NotOwner
from sidebet.serve.middleware import App, Message, Receive, Scope, Send

__all__ = ["HOPS", "Forwarder", "Relay", "Unanswered", "house_tls"]

HOPS = "x-sidebet-hops"
"""How many processes forwarded the request already (a request is forwarded 3 times at
most)."""

_DROP_REQUEST = {b"host", b"content-length", b"connection", b"transfer-encoding", HOPS.encode()}
_WRITE = re.compile(r"^/api/(?:operator/|dealer/|device/)?tables/(\d{1,9})/")
"""A table's routes: a POST, PUT or DELETE there is forwarded before any work here."""
ADDRESS_TTL = 1.0
"""Seconds an owner's address is used without asking the database again (a former owner
that gets a request hands it on)."""
_DROP_ANSWER = {"content-length", "connection", "transfer-encoding", "date", "server",
                "keep-alive"}


class Owners(Protocol):
    """Where each table's owner takes forwarded writes."""

    def owner_address(self, table_id: int) -> str | None:
        """The owner's base URL (``None``: none now)."""

    def forwards(self, table_id: int) -> bool:
        """Whether the table is known here and owned by another process."""

    def owns(self, table_id: int) -> bool:
        """Whether this process owns the table (now)."""


class Unanswered(Exception):
    """The owner could not take the request (a 503 to give): ``detail`` says why;
    ``sent``: the request reached an owner that failed before answering (it may have
    been applied)."""

    def __init__(self, detail: str, sent: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.sent = sent


def house_tls(cert: Path) -> ssl.SSLContext:
    """How a process checks the TLS of the others' forwarding ports: their certificate
    must be the house's (``Settings.tls_cert``, trusted as its own authority); the name is
    not checked, since the others are dialled by address."""
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = False
    return context


class Relay:
    """Sends a request for a table to the process that owns it (the HTTP forwarder's, and
    the device WebSocket's, one way there): waits while the table changes hands, resends a
    keyed request whose owner failed after it was sent."""

    def __init__(self, owners: Owners, wait: float = 8.0,
                 verify: ssl.SSLContext | bool = True) -> None:
        self.owners = owners
        self.wait = wait
        self.verify = verify
        """How the owners' TLS is checked (:func:`house_tls`)."""
        self._client: httpx.AsyncClient | None = None
        self._addresses: dict[int, tuple[str, float]] = {}

    async def send(self, table_id: int, method: str, target: str,
                   headers: list[tuple[bytes, bytes]], body: bytes) -> httpx.Response | None:
        """The owner's answer to the request (``target``: path and query; ``headers``
        without hop-by-hop ones), or ``None`` once this process owns the table (it
        answers); :class:`Unanswered` when no owner took it in time."""
        hops = next((int(v) for k, v in headers if k.lower() == HOPS.encode()
                     and v.isdigit()), 0)
        if hops >= 3:
            raise Unanswered(f"table {table_id} is changing hands; try again")
        headers = [(k, v) for k, v in headers if k.lower() != HOPS.encode()]
        headers.append((HOPS.encode(), str(hops + 1).encode()))
        keyed = any(k.lower() == b"idempotency-key" for k, _ in headers)
        # pooled connections dropped before the owner's idle timeout (uvicorn: 5 s)
        client = self._client or httpx.AsyncClient(
            timeout=30.0, limits=httpx.Limits(keepalive_expiry=2.0), verify=self.verify)
        self._client = client
        deadline = asyncio.get_running_loop().time() + self.wait
        while True:
            if self.owners.owns(table_id):  # taken here meanwhile: this process answers
                return None
            address = await self._address(table_id)
            if address is not None:
                try:
                    return await client.request(method, address + target, headers=headers,
                                                content=body)
                except httpx.ConnectError:
                    self._addresses.pop(table_id, None)  # gone before it read a byte
                except httpx.TransportError:
                    # the owner failed with the request sent: a keyed request is sent
                    # again (the owner answers it once); another's outcome is unknown
                    self._addresses.pop(table_id, None)
                    if not keyed:
                        raise Unanswered(f"the owner of table {table_id} did not answer; "
                                         "the request may have been applied: retry it with "
                                         "the same Idempotency-Key", sent=True) from None
            if asyncio.get_running_loop().time() > deadline:
                raise Unanswered(f"table {table_id} is changing hands; try again")
            await asyncio.sleep(0.05)

    async def _address(self, table_id: int) -> str | None:
        """The owner's address, from memory for :data:`ADDRESS_TTL` seconds."""
        known = self._addresses.get(table_id)
        if known is not None and time.monotonic() - known[1] < ADDRESS_TTL:
            return known[0]
        address = await run_in_threadpool(self.owners.owner_address, table_id)
        if address is None:
            self._addresses.pop(table_id, None)
        else:
            self._addresses[table_id] = (address, time.monotonic())
        return address

    async def aclose(self) -> None:
        """Close the connections to the other processes."""
        if self._client is not None:
            await self._client.aclose()


class Forwarder:
    """Runs each HTTP request here, or, for a table another process owns, at its owner
    (through ``relay``)."""

    def __init__(self, app: App, relay: Relay) -> None:
        self.app = app
        self.relay = relay

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(chunks)
        write = _WRITE.match(str(scope.get("path", "")))
        if write and scope["method"] != "GET" and self.relay.owners.forwards(
                int(write.group(1))):
            await self._forward(scope, body, int(write.group(1)), receive, send)
            return
        table = await self._here(scope, body, receive, send)
        if table is not None:
            await self._forward(scope, body, table, receive, send)

    async def _here(self, scope: Scope, body: bytes, receive: Receive, send: Send
                    ) -> int | None:
        """Run the request here; the table it must be forwarded to, if any."""
        started = given = False

        async def buffered() -> Message:  # the body read above, then the rest as it comes
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def tracked(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, buffered, tracked)
        except NotOwner as exc:
            if started:
                raise
            return exc.table_id
        return None

    async def _forward(self, scope: Scope, body: bytes, table_id: int, receive: Receive,
                       send: Send) -> None:
        headers = [(k, v) for k, v in scope.get("headers", ()) if k.lower() not in _DROP_REQUEST
                   or k.lower() == HOPS.encode()]
        path = scope.get("raw_path") or scope["path"].encode()
        query = scope.get("query_string", b"")
        target = path.decode("latin-1") + (("?" + query.decode("latin-1")) if query else "")
        for _ in range(3):  # the table taken here, then lost again: at most so often
            try:
                answer = await self.relay.send(table_id, scope["method"], target, headers,
                                               body)
            except Unanswered as exc:
                await _answer(send, 503, exc.detail, 1)
                return
            if answer is not None:
                await _relay(send, answer)
                return
            if await self._here(scope, body, receive, send) is None:
                return
        await _answer(send, 503, f"table {table_id} is changing hands; try again", 1)


async def _relay(send: Send, answer: httpx.Response) -> None:
    content = answer.content
    headers = [(k.encode("latin-1"), v.encode("latin-1"))
               for k, v in answer.headers.multi_items() if k.lower() not in _DROP_ANSWER]
    headers.append((b"content-length", str(len(content)).encode()))
    await send({"type": "http.response.start", "status": answer.status_code,
                "headers": headers})
    await send({"type": "http.response.body", "body": content})


async def _answer(send: Send, status: int, detail: str, retry: int) -> None:
    body = json.dumps({"detail": detail, "violations": [{"rule": "", "message": detail}]}
                      ).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry).encode())]})
    await send({"type": "http.response.body", "body": body})

