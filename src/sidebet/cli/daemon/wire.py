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

__all__ = [
    "MAX_MESSAGE",
    "SERVED",
    "Ended",
    "enabled",
    "fingerprint",
    "frame",
    "pack",
    "served",
    "socket_path",
    "unpack",
]

MAX_MESSAGE = 1 << 20
"""The largest message either side reads (arguments and environment included)."""

SERVED = frozenset({
    "rules", "par", "settle", "check-table", "simulate", "strategy", "press", "eor",
    "vulnerability", "audit", "report", "rng-test", "surveil", "advantage", "design",
    "compare",
})
"""The commands a resident process runs: every command but the interactive game
(``play``), the table server (``serve``) and ``daemon`` itself."""

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
    process runs: a command of :data:`SERVED`, or the command list.

    >>> served(["sidebet", "simulate", "--rounds", "1e6"]), served(["sidebet", "play"])
    (True, False)
    >>> served(["sidebet"]), served(["sidebet", "--help"]), served(["sidebet", "daemon"])
    (True, True, False)
    """
    return len(argv) < 2 or argv[1] in SERVED or argv[1] == "--help"


def socket_path(cache: str) -> str:
    """The resident process's socket for the cache folder ``cache``: in it, unless that
    name is too long for a socket; then in the temporary folder, named by the user and a
    checksum of the folder (the client checks its owner either way).

    >>> socket_path("/srv/cache")
    '/srv/cache/daemon.sock'
    >>> socket_path("/" + "x" * 120).startswith("/tmp/sidebet-")
    True
    """
    path = os.path.join(cache, "daemon.sock")
    if len(os.fsencode(path)) <= 100:
        return path
    import zlib

    tag = zlib.crc32(os.fsencode(os.path.abspath(cache)))
    return os.path.join("/tmp", f"sidebet-{os.getuid()}-{tag:08x}.sock")


def fingerprint(environ: dict[str, str] | None = None) -> bytes:
    """What must be equal for a fork of the resident process to behave as a fresh
    interpreter would: the interpreter, its module path (less the first entry, the
    script's folder), its flags, where ``sidebet`` is, and the environment variables read
    while modules load (Python's, sidebet's, numba's, the locale's, the math libraries'),
    with the command line's own defaults (:mod:`sidebet.cli.startenv`)."""
    from sidebet.cli.startenv import with_defaults

    env = with_defaults(dict(os.environ if environ is None else environ))
    path = sys.path if sys.flags.safe_path else sys.path[1:]
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    names = sorted(name for name in env
                   if (name.startswith(_ENV_PREFIXES) or name in _ENV_NAMES)
                   and name not in _ENV_FREE)
    return repr((
        sys.executable, sys.prefix, path, [getattr(sys.flags, f) for f in _FLAGS],
        sys._xoptions, sys.warnoptions, package, [(name, env[name]) for name in names],
    )).encode("utf-8", "surrogateescape")


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
