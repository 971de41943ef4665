"""Running the server: one process, or (``--workers N``, PostgreSQL only) N processes
forked from one that holds the listening socket, each a member of the cluster with a
port of its own for forwarded writes (on the public socket's host:
:mod:`sidebet.serve.cluster.address`); a worker that dies is started again.
Independent ``sidebet serve`` processes on one PostgreSQL (on this host or others) join
the same cluster."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import signal
import socket
import sys
import time
from types import FrameType
from typing import TYPE_CHECKING

from sidebet.core.errors import SidebetError
from sidebet.serve.settings import Settings

if TYPE_CHECKING:
    from sidebet.serve.service.services import Services

__all__ = ["check_tls", "listen", "run", "supervise"]


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.create_server((host, port), family=family, backlog=2048)
    except OSError as exc:
        raise SidebetError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


def check_tls(settings: Settings) -> None:
    """Refuse, in one line, a certificate or key that cannot serve TLS."""
    if settings.tls_cert is None or settings.tls_key is None:
        return
    import ssl

    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
            settings.tls_cert, settings.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise SidebetError(f"TLS certificate {settings.tls_cert} with key "
                           f"{settings.tls_key}: {exc.strerror or exc}") from None


def run(settings: Settings, services: Services, public: socket.socket) -> None:
    """Serve on ``public`` (and, on PostgreSQL, as a member of the cluster, on a port of
    its own that the other processes forward writes to) until stopped."""
    import uvicorn

    from sidebet.serve.app import create_app
    from sidebet.serve.cluster.node import Node
    from sidebet.serve.coalesce import OnePieceProtocol
    from sidebet.serve.db import is_sqlite

    sockets = [public]
    node = None
    if not is_sqlite(services.core.engine):
        from sidebet.serve.cluster.address import forwarding_host, url

        host = forwarding_host(str(public.getsockname()[0]), _database_ip(services))
        private = listen(host, 0)
        sockets.append(private)
        address = url(host, private.getsockname()[1], tls=settings.tls_cert is not None)
        if settings.cluster_address and settings.workers == 1:  # workers: each its own
            address = settings.cluster_address
        node = Node(services.core, address)
    proxies = list(settings.trusted_proxies)  # only their forwarded headers are believed
    server = uvicorn.Server(uvicorn.Config(
        create_app(settings, services, node), log_level="warning", http=OnePieceProtocol,
        ssl_certfile=settings.tls_cert, ssl_keyfile=settings.tls_key,
        proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None))
    settle_heap()
    server.run(sockets=sockets)


def _database_ip(services: Services) -> str | None:
    """The PostgreSQL server's IP address as this process reaches it (``None``: a Unix
    socket, or libpq cannot say)."""
    from sidebet.serve.cluster.address import database_address

    with contextlib.suppress(Exception), services.core.engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        return database_address(str(getattr(getattr(raw, "info", None), "hostaddr", "")))
    return None


def settle_heap() -> None:
    """Move what start-up built (modules, the app, the tables loaded) out of the cyclic
    garbage collector's reach: a full collection then walks only what the requests made
    since, instead of stopping every request while it walks them all."""
    gc.collect()
    gc.freeze()


def _worker(settings: Settings, public: socket.socket) -> None:
    """One forked worker: its own database connections and services."""
    from sidebet.serve.db import make_engine
    from sidebet.serve.service.services import Services

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    run(settings, Services.open(make_engine(settings.database_url), settings), public)


def supervise(settings: Settings, public: socket.socket) -> None:
    """Run ``settings.workers`` processes serving ``public``; start again any that dies;
    stop them all on SIGTERM or SIGINT."""
    ctx = multiprocessing.get_context("fork")
    stopping = False

    def start() -> multiprocessing.process.BaseProcess:
        proc = ctx.Process(target=_worker, args=(settings, public), daemon=False)
        proc.start()
        return proc

    def stop(_sig: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    procs = [start() for _ in range(settings.workers)]
    while not stopping:
        time.sleep(0.2)
        for i, proc in enumerate(procs):
            if not proc.is_alive() and not stopping:
                print(f"worker {proc.pid} ended ({proc.exitcode}); starting another",
                      file=sys.stderr)
                procs[i] = start()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    for proc in procs:
        proc.join(timeout=10)
