"""Answers sent in one piece: uvicorn's HTTP/1.1 protocol (httptools) with the writes of
one turn of the event loop joined into one.

uvicorn writes an answer's head (status line and headers) and its body with two writes, so
each answer costs two ``send`` calls and wakes the client twice; on a busy server these
sends are a tenth of the event loop's time.  :class:`OnePieceProtocol` gives uvicorn a
transport (:class:`Joined`) that keeps what is written until the loop's next turn, then
writes it at once: the head and body of an answer (and whatever else was written
meanwhile, in order) go out in one ``send``.  Closing the connection or handing it to
another protocol sends what is kept first; aborting it drops it, as aborting drops the
transport's own buffer."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["Joined", "OnePieceProtocol"]


class Joined:
    """An ``asyncio`` transport's stand-in whose writes of one loop turn go out as one.

    >>> class Sink:
    ...     sent: list[bytes] = []
    ...     def write(self, data: bytes) -> None: self.sent.append(data)
    ...     def is_closing(self) -> bool: return False
    ...     def close(self) -> None: self.sent.append(b"<closed>")
    >>> loop = asyncio.new_event_loop()
    >>> sink = Sink(); joined = Joined(sink, loop)  # type: ignore[arg-type]
    >>> joined.write(b"HTTP/1.1 200 OK\\r\\n\\r\\n"); joined.write(b"{}")
    >>> sink.sent
    []
    >>> loop.run_until_complete(asyncio.sleep(0)); sink.sent
    [b'HTTP/1.1 200 OK\\r\\n\\r\\n{}']
    >>> joined.write(b"bye"); joined.close(); sink.sent[1:]
    [b'bye', b'<closed>']
    >>> loop.close()
    """

    __slots__ = ("_kept", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._kept: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        """Keep ``data`` to send with the rest of this loop turn's writes."""
        if self._kept is None:
            self._kept = [data]
            self._loop.call_soon(self.flush)
        else:
            self._kept.append(data)

    def flush(self) -> None:
        """Send what is kept, in one write."""
        kept, self._kept = self._kept, None
        if kept and not self._transport.is_closing():
            self._transport.write(kept[0] if len(kept) == 1 else b"".join(kept))

    def close(self) -> None:
        """Send what is kept, then close."""
        self.flush()
        self._transport.close()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Send what is kept, then hand the connection over (a WebSocket upgrade)."""
        self.flush()
        self._transport.set_protocol(protocol)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class OnePieceProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol writing through :class:`Joined`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = Joined(transport, self.loop)  # type: ignore[assignment]
