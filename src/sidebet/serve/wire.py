"""The HTTP connections' socket writes: uvicorn's httptools protocol over a transport
whose writes of one event-loop step (an answer's head and body) leave as one ``write``
system call, made without holding the GIL (uvloop's own write holds it through the
system call, so every answer stopped the worker threads' Python).  Whatever the socket
does not take at once goes to the event loop's transport, after what it already holds,
so the bytes keep their order; a WebSocket gets the loop's transport itself."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["Coalesced", "Protocol"]


class Coalesced(asyncio.Transport):
    """A TCP transport whose writes are gathered until the loop's next step, then written
    to the socket with ``os.write`` (the GIL released) when the transport holds nothing
    unsent, the rest (or everything, else) by the transport."""

    def __init__(self, real: asyncio.Transport, loop: asyncio.AbstractEventLoop,
                 fd: int) -> None:
        super().__init__()
        self.real = real
        self._loop = loop
        self._fd = fd
        self._pending: list[bytes | bytearray | memoryview] = []
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        self._pending.append(data)
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Write what was gathered: to the socket directly when nothing waits before it."""
        self._scheduled = False
        if not self._pending:
            return
        data: bytes | memoryview = b"".join(self._pending)
        self._pending.clear()
        real = self.real
        if real.is_closing():
            return
        if real.get_write_buffer_size() == 0:
            try:
                sent = os.write(self._fd, data)
            except OSError:  # full, or broken: the transport meets it and reports it
                sent = 0
            data = memoryview(data)[sent:]
        if data:
            real.write(data)

    def close(self) -> None:
        self.flush()
        self.real.close()

    def abort(self) -> None:
        self._pending.clear()
        self.real.abort()

    def write_eof(self) -> None:
        self.flush()
        self.real.write_eof()

    def can_write_eof(self) -> bool:
        return self.real.can_write_eof()

    def is_closing(self) -> bool:
        return self.real.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.real.get_extra_info(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.real.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.real.get_protocol()

    def is_reading(self) -> bool:
        return self.real.is_reading()

    def pause_reading(self) -> None:
        self.real.pause_reading()

    def resume_reading(self) -> None:
        self.real.resume_reading()

    def get_write_buffer_size(self) -> int:
        return self.real.get_write_buffer_size() + sum(len(d) for d in self._pending)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None
                                ) -> None:
        self.real.set_write_buffer_limits(high, low)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self.real.get_write_buffer_limits()


class Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol over a :class:`Coalesced` transport (plain TCP only:
    a TLS transport is left as it is)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and transport.get_extra_info("sslcontext") is None:
            transport = Coalesced(transport, self.loop, sock.fileno())
        super().connection_made(transport)

    def handle_websocket_upgrade(self) -> None:
        if isinstance(self.transport, Coalesced):
            self.transport.flush()
            self.transport = self.transport.real
            self.flow = FlowControl(self.transport)
        super().handle_websocket_upgrade()
