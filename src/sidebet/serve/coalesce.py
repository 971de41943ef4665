"""Answers sent in one piece, without holding the GIL: uvicorn's HTTP/1.1 protocol
(httptools) with the writes of one turn of the event loop joined into one, written to the
socket by ``os.write``.

uvicorn writes an answer's head (status line and headers) and its body with two writes,
so each answer costs two ``send`` calls and wakes the client twice.  And uvloop's
transport makes its ``send`` holding the GIL: for as long as the kernel takes over the
call (on a loopback, delivering the bytes to the client and waking it), no other thread of
the server runs, a table's request holding the table's lock among them.
:class:`OnePieceProtocol` gives uvicorn a transport (:class:`Joined`) that keeps what is
written until the loop's next turn, then writes it at once: the head and body of an answer
(and whatever else was written meanwhile, in order) go out in one ``os.write``, which lets
go of the GIL during the call, whenever the transport has nothing of its own waiting to be
sent (so the order of the bytes is kept); what the socket does not take now is left to the
transport.  Over TLS everything goes through the transport, which encrypts it.

Closing the connection, ending its sending side or handing it to another protocol (a
WebSocket's, which then writes through it too) sends what is kept first;
aborting it drops it, as aborting drops the transport's own buffer."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["Joined", "OnePieceProtocol", "plain_socket"]


class Joined:
    """An ``asyncio`` transport's stand-in whose writes of one loop turn go out as one.

    >>> class Sink:  # a transport with no socket of its own
    ...     sent: list[bytes] = []
    ...     def write(self, data: bytes) -> None: self.sent.append(data)
    ...     def is_closing(self) -> bool: return False
    ...     def close(self) -> None: self.sent.append(b"<closed>")
    ...     def get_extra_info(self, name: str) -> None: return None
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

    __slots__ = ("_fd", "_kept", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._kept: list[bytes] | None = None
        self._fd = plain_socket(transport)

    def write(self, data: bytes) -> None:
        """Keep ``data`` to send with the rest of this loop turn's writes."""
        if self._kept is None:
            self._kept = [data]
            self._loop.call_soon(self.flush)
        else:
            self._kept.append(data)

    def flush(self) -> None:
        """Send what is kept, in one write: to the socket itself while the transport has
        nothing waiting, the rest (or all, over TLS) through the transport."""
        kept, self._kept = self._kept, None
        if not kept or self._transport.is_closing():
            return
        data = kept[0] if len(kept) == 1 else b"".join(kept)
        if self._fd >= 0 and not self._transport.get_write_buffer_size():
            # full (the transport waits for room) or gone (the transport finds out)
            with contextlib.suppress(OSError):
                data = data[os.write(self._fd, data):]
            if not data:
                return
        self._transport.write(data)

    def writelines(self, parts: Iterable[bytes]) -> None:
        """Keep ``parts``, as :meth:`write` does."""
        self.write(b"".join(parts))

    def write_eof(self) -> None:
        """Send what is kept, then end the sending side."""
        self.flush()
        self._transport.write_eof()

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


def plain_socket(transport: asyncio.BaseTransport) -> int:
    """The file descriptor of ``transport``'s socket when what is written to it goes to
    the peer as it is (no TLS), else -1."""
    if (transport.get_extra_info("sslcontext") is not None
            or transport.get_extra_info("ssl_object") is not None):
        return -1
    sock = transport.get_extra_info("socket")
    return -1 if sock is None else int(sock.fileno())


class OnePieceProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol writing through :class:`Joined`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = Joined(transport, self.loop)  # type: ignore[assignment]
