"""What the resident process and its clients share: the socket's place, the messages and
the fingerprint of an interpreter.  Only :mod:`os`, :mod:`sys` and :mod:`struct` are
imported: the client runs this before anything else.

A message is a 4-byte length and a body whose first byte says its kind:

* ``R`` run: the fields of :func:`run_request` (its standard streams and working folder
  travel beside it as file descriptors);
* ``S`` status, ``Q`` stop: no fields;
* answers: ``A`` accepted (the fork's process id), ``D`` declined (why, one line), ``E``
  ended (how: 0 exited or 1 killed by a signal; the status or signal; its CPU seconds),
  ``J`` the status as JSON, ``K`` stopping.

>>> pack([b"simulate", b""])
b'\\x00\\x00\\x00\\x02\\x00\\x00\\x00\\x08simulate\\x00\\x00\\x00\\x00'
>>> unpack(pack([b"simulate", b""]))
[b'simulate', b'']
>>> unpack(b"\\x00\\x00\\x00\\x02")
Traceback (most recent call last):
...
ValueError: a truncated message
"""

from __future__ import annotations

import os
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "MAX_MESSAGE",
    "NOT_SERVED",
    "PACKAGE",
    "Ended",
    "enabled",
    "fingerprint",
    "frame",
    "limits",
    "pack",
    "peer_is_owner",
    "read_frame",
    "run_request",
    "served",
    "socket_path",
    "unpack",
]

MAX_MESSAGE = 1 << 20
"""The largest message either side reads (arguments and environment included)."""

NOT_SERVED = frozenset({"play", "serve", "daemon"})
"""The commands a resident process does not run: the interactive game, the table server
and ``daemon`` itself.  It runs every other command line (a mistyped one prints its
usage error there as it would here)."""

PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The folder of the ``sidebet`` package this interpreter imports."""

_ENV_PREFIXES = ("PYTHON", "SIDEBET_", "NUMBA_", "LC_", "OPENBLAS_", "OMP_", "MKL_", "RAY_")
_ENV_NAMES = ("LANG", "LANGUAGE", "HOME", "XDG_CACHE_HOME")
_ENV_FREE = ("SIDEBET_DAEMON",)
_FLAGS = ("debug", "inspect", "interactive", "optimize", "dont_write_bytecode",
          "no_user_site", "no_site", "ignore_environment", "verbose", "bytes_warning",
          "quiet", "hash_randomization", "isolated", "dev_mode", "utf8_mode",
          "warn_default_encoding")


def enabled() -> bool:
    """Whether a command may be handed to a resident process (``SIDEBET_DAEMON=off``
    forbids it)."""
    return os.environ.get("SIDEBET_DAEMON", "").strip().lower() not in ("off", "0", "no",
                                                                        "false")


def served(argv: list[str]) -> bool:
    """Whether the command line ``argv`` (the program's name first) is one a resident
    process runs: any but those of :data:`NOT_SERVED`.

    >>> served(["sidebet", "simulate", "--rounds", "1e6"]), served(["sidebet", "play"])
    (True, False)
    >>> served(["sidebet"]), served(["sidebet", "--help"]), served(["sidebet", "daemon"])
    (True, True, False)
    """
    return len(argv) < 2 or argv[1] not in NOT_SERVED


def socket_path(cache: str) -> str:
    """The resident process's socket for the cache folder ``cache``: in it, unless that
    name is too long for a socket; then in the temporary folder, named by the user and a
    checksum of the folder (the client checks its owner either way).

    >>> socket_path("srv/cache")
    'srv/cache/daemon.sock'
    >>> import tempfile
    >>> far = socket_path("x" * 120)
    >>> far.startswith(os.path.join(tempfile.gettempdir(), "sidebet-")), len(far) <= 100
    (True, True)
    """
    path = os.path.join(cache, "daemon.sock")
    if len(os.fsencode(path)) <= 100:
        return path
    import tempfile
    import zlib

    tag = zlib.crc32(os.fsencode(os.path.abspath(cache)))
    return os.path.join(tempfile.gettempdir(), f"sidebet-{os.getuid()}-{tag:08x}.sock")


def fingerprint(environ: dict[str, str] | None = None) -> bytes:
    """What must be equal for a fork of the resident process to behave as a fresh
    interpreter would: the interpreter, its module path (less the first entry, the
    script's folder), its flags, where ``sidebet`` is, and the environment variables read
    while modules load (Python's, sidebet's, numba's, the locale's, the math libraries'),
    with the command line's own defaults (:mod:`sidebet.cli.startenv`)."""
    from sidebet.cli.startenv import with_defaults

    env = with_defaults(dict(os.environ if environ is None else environ))
    path = sys.path if sys.flags.safe_path else sys.path[1:]
    names = sorted(name for name in env
                   if (name.startswith(_ENV_PREFIXES) or name in _ENV_NAMES)
                   and name not in _ENV_FREE)
    return repr((
        sys.executable, sys.prefix, path, [getattr(sys.flags, f) for f in _FLAGS],
        sys._xoptions, sys.warnoptions, PACKAGE, [(name, env[name]) for name in names],
    )).encode("utf-8", "surrogateescape")


def run_request(argv: list[str], environ: dict[str, str], path0: str,
                prog_name: str | None, umask: int, bounds: bytes) -> bytes:
    """The ``R`` message's body: the fingerprint, then the arguments (the program's name
    first) and the environment as ``NAME=value``, each joined by NUL bytes, the first
    entry of the module path, the program's name (empty: none given), the umask and
    ``bounds``, the process's :func:`limits`
    (:meth:`sidebet.cli.resident.child.Request.read` reads the fields after the
    fingerprint)."""
    return pack([
        fingerprint(environ),
        b"\0".join(os.fsencode(arg) for arg in argv),
        b"\0".join(os.fsencode(f"{k}={v}") for k, v in environ.items()),
        os.fsencode(path0),
        b"" if prog_name is None else os.fsencode(prog_name),
        str(umask).encode(),
        bounds,
    ])


def limits() -> bytes:
    """What bounds this process, as ``name=value`` items joined by NUL bytes: its
    niceness (``nice``), the processors it may run on (``cpus``, numbers joined by
    commas), its control groups (``cgroup``, ``/proc/self/cgroup``; empty where there
    is none) and each resource limit (``RLIMIT_...=soft,hard``, ``-1`` unlimited).  A
    fork that runs the command takes them on, or the resident process declines it
    (:mod:`sidebet.cli.resident.limits`).

    >>> items = dict(item.split(b"=", 1) for item in limits().split(b"\\0"))
    >>> int(items[b"nice"]) == os.getpriority(os.PRIO_PROCESS, 0)
    True
    >>> import resource
    >>> items[b"RLIMIT_NOFILE"] == b"%d,%d" % resource.getrlimit(resource.RLIMIT_NOFILE)
    True
    """
    import resource

    items = [b"nice=%d" % os.getpriority(os.PRIO_PROCESS, 0)]
    if hasattr(os, "sched_getaffinity"):
        items.append(b"cpus=" + b",".join(b"%d" % cpu for cpu in sorted(os.sched_getaffinity(0))))
    try:
        with open("/proc/self/cgroup", "rb") as groups:
            items.append(b"cgroup=" + groups.read().replace(b"\0", b""))
    except OSError:
        items.append(b"cgroup=")
    for name in sorted(dir(resource)):
        if name.startswith("RLIMIT_") and name != "RLIMIT_OFILE":  # OFILE: NOFILE again
            soft, hard = resource.getrlimit(getattr(resource, name))
            items.append(b"%s=%d,%d" % (name.encode(), soft, hard))
    return b"\0".join(items)


def read_frame(recv: Callable[[int], bytes], start: bytes = b"") -> tuple[bytes, bytes]:
    """One message, its first bytes ``start`` already read and the rest from ``recv``: its
    kind and body (``ValueError`` when it is cut short, too long, or followed by more).

    >>> message = frame(b"D", b"busy")
    >>> read_frame(lambda n: b"", message)
    (b'D', b'busy')
    >>> pieces = [message[3:4], message[4:]]
    >>> read_frame(lambda n: pieces.pop(0), message[:3])
    (b'D', b'busy')
    >>> read_frame(lambda n: b"", message[:6])
    Traceback (most recent call last):
    ...
    ValueError: the connection ended within a message
    """
    data = start
    while len(data) < 4:
        data += _more(recv, 4 - len(data))
    (size,) = struct.unpack("!I", data[:4])
    if not 1 <= size <= MAX_MESSAGE:
        raise ValueError("a message of a wrong size")
    while len(data) < 4 + size:
        data += _more(recv, min(1 << 16, 4 + size - len(data)))
    if len(data) != 4 + size:
        raise ValueError("bytes after the message")
    return data[4:5], data[5:]


def _more(recv: Callable[[int], bytes], size: int) -> bytes:
    chunk = recv(size)
    if not chunk:
        raise ValueError("the connection ended within a message")
    return chunk


def peer_is_owner(conn: Any) -> bool:
    """Whether the process at the other end of the Unix socket ``conn`` is this user's
    (``False`` where the system does not tell)."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return False
    creds = conn.getsockopt(_socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return bool(struct.unpack("3i", creds)[1] == os.getuid())


def pack(fields: list[bytes]) -> bytes:
    """Fields as one body: their count, then each one's length and bytes."""
    out = [struct.pack("!I", len(fields))]
    for field in fields:
        out += (struct.pack("!I", len(field)), field)
    return b"".join(out)


def unpack(body: bytes) -> list[bytes]:
    """The fields of :func:`pack` (``ValueError`` when the body is not one)."""
    try:
        (count,), at = struct.unpack_from("!I", body), 4
        fields = []
        for _ in range(count):
            (size,) = struct.unpack_from("!I", body, at)
            at += 4
            if at + size > len(body):
                raise ValueError("a truncated message")
            fields.append(body[at:at + size])
            at += size
    except struct.error:
        raise ValueError("a truncated message") from None
    if at != len(body):
        raise ValueError("bytes after the message's fields")
    return fields


def frame(kind: bytes, body: bytes = b"") -> bytes:
    """A message: its length, its kind's byte and its body."""
    return struct.pack("!I", 1 + len(body)) + kind + body


class Ended:
    """How a command run by a resident process ended: ``signal`` (0: it exited with
    ``status``) and the CPU seconds its process used, user and system.  (A plain slotted
    class: the client, which reads it, imports no :mod:`dataclasses`.)

    >>> Ended.read(Ended(0, 2, 0.5, 0.25).dump())
    Ended(status=2, signal=0, cpu=0.75)
    """

    __slots__ = ("signal", "status", "system", "user")

    def __init__(self, signal: int, status: int, user: float, system: float) -> None:
        self.signal, self.status, self.user, self.system = signal, status, user, system

    def dump(self) -> bytes:
        """The ``E`` message's body."""
        return struct.pack("!iidd", self.signal, self.status, self.user, self.system)

    @classmethod
    def read(cls, body: bytes) -> Ended:
        """An ``E`` message's body read (``ValueError`` when it is not one)."""
        try:
            signal, status, user, system = struct.unpack("!iidd", body)
        except struct.error:
            raise ValueError("not an end of a command") from None
        return cls(signal, status, user, system)

    def __repr__(self) -> str:
        return f"Ended(status={self.status}, signal={self.signal}, cpu={self.user + self.system})"
