"""Where a process takes the writes the others forward to it, found without being told:
a port of its own on the host its public socket listens on, so that it is reachable from
wherever the server is (and from nowhere else).  A public socket on every address
(``0.0.0.0``, ``::``) gives the address this host reaches PostgreSQL from (the database
is where every process of the cluster meets), or, on the database's own host, the
address of its default route.  The address is advertised in ``cluster_members`` and
``table_owners``, where the other processes read it.  ``SIDEBET_CLUSTER_ADDRESS``
overrides it (a proxy, a NAT: what the others must dial is not what this host sees).

>>> forwarding_host("127.0.0.1", None)
'127.0.0.1'
>>> forwarding_host("10.1.2.3", "10.9.9.9")
'10.1.2.3'
>>> forwarding_host("0.0.0.0", "127.0.0.1") == (route_source(NO_ROUTE) or "127.0.0.1")
True
>>> url("::1", 8001), url("127.0.0.1", 8001)
('http://[::1]:8001', 'http://127.0.0.1:8001')
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket

__all__ = ["NO_ROUTE", "database_address", "forwarding_host", "route_source", "url"]

NO_ROUTE = "192.0.2.1"
"""An address of TEST-NET-1 (RFC 5737), never answered: the source address of a route
to it is the address of this host's default route (no packet is sent)."""


def route_source(target: str) -> str | None:
    """The address this host sends from to ``target`` (``None``: no route); a UDP socket
    is connected, which sends nothing."""
    family = socket.AF_INET6 if ":" in target else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def forwarding_host(public: str, database: str | None) -> str:
    """The host to listen on for forwarded writes: the public socket's own, or, for a
    public socket on every address, the one this host reaches ``database`` (its IP
    address; ``None``: a Unix socket) from, else its default route's, else loopback."""
    if not ipaddress.ip_address(public.split("%")[0]).is_unspecified:
        return public
    for target in (database, NO_ROUTE):
        if target is None or ipaddress.ip_address(target.split("%")[0]).is_loopback:
            continue
        source = route_source(target)
        if source is not None:
            return source
    return "127.0.0.1"


def database_address(info_hostaddr: str) -> str | None:
    """The database server's IP address from libpq's ``hostaddr`` (``None``: a Unix
    socket, or not an IP address).

    >>> database_address(""), database_address("10.0.0.7")
    (None, '10.0.0.7')
    """
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(info_hostaddr))
    return None


def url(host: str, port: int, tls: bool = False) -> str:
    """The base URL of ``host:port`` (``https`` with ``tls``)."""
    scheme = "https" if tls else "http"
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"
