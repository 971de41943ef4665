"""Answers sent in one piece (``serve/coalesce``), on uvloop's own transport over a real
socket pair: the writes of one loop turn go to the socket in one ``os.write``; bytes the
socket cannot take yet are left to the transport, and what is written after them follows
them, in order; over TLS nothing is written to the socket directly."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator

import pytest
import uvloop

from sidebet.serve.coalesce import Joined, plain_socket


class _Quiet(asyncio.Protocol):
    """A protocol that reads nothing back (the peer only listens)."""


@pytest.fixture
def pair() -> Iterator[tuple[asyncio.AbstractEventLoop, asyncio.Transport, socket.socket]]:
    """A uvloop transport on one end of a socket pair, and the other end."""
    loop = uvloop.new_event_loop()
    ours, peer = socket.socketpair()
    transport, _ = loop.run_until_complete(
        loop.connect_accepted_socket(_Quiet, ours))
    try:
        yield loop, transport, peer
    finally:
        transport.abort()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        peer.close()


def test_one_turns_writes_go_to_the_socket_in_one_write(
        pair: tuple[asyncio.AbstractEventLoop, asyncio.Transport, socket.socket],
        monkeypatch: pytest.MonkeyPatch) -> None:
    loop, transport, peer = pair
    written: list[bytes] = []
    real = os.write

    def write(fd: int, data: bytes) -> int:
        written.append(bytes(data))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    joined = Joined(transport, loop)
    joined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
    joined.write(b"{}")
    assert written == []  # kept till the loop's next turn
    loop.run_until_complete(asyncio.sleep(0))
    assert written == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
    assert transport.get_write_buffer_size() == 0  # nothing went through the transport
    peer.settimeout(5)
    assert peer.recv(1000) == written[0]


def test_what_the_socket_cannot_take_is_sent_by_the_transport_in_order(
        pair: tuple[asyncio.AbstractEventLoop, asyncio.Transport, socket.socket]) -> None:
    loop, transport, peer = pair
    joined = Joined(transport, loop)
    big = bytes(range(256)) * 40_000  # more than the socket pair's buffers hold
    joined.write(big)
    loop.run_until_complete(asyncio.sleep(0))
    waiting = transport.get_write_buffer_size()
    assert 0 < waiting < len(big)  # part written to the socket, the rest to the transport
    joined.write(b"after")  # the transport still holds bytes: this goes behind them
    loop.run_until_complete(asyncio.sleep(0))
    assert transport.get_write_buffer_size() == waiting + len(b"after")

    async def read_all() -> bytes:
        got = bytearray()
        while len(got) < len(big) + len(b"after"):
            got += await loop.sock_recv(peer, 1 << 16)
        return bytes(got)

    peer.setblocking(False)
    assert loop.run_until_complete(asyncio.wait_for(read_all(), 30)) == big + b"after"


def test_over_tls_nothing_is_written_to_the_socket_itself() -> None:
    class Tls:
        def get_extra_info(self, name: str) -> object:
            return {"sslcontext": object()}.get(name)

    assert plain_socket(Tls()) == -1  # type: ignore[arg-type]


def test_a_plain_transport_is_written_through_its_socket(
        pair: tuple[asyncio.AbstractEventLoop, asyncio.Transport, socket.socket]) -> None:
    _, transport, _ = pair
    sock = transport.get_extra_info("socket")
    assert plain_socket(transport) == sock.fileno() >= 0
