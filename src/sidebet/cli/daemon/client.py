"""Hand a command to the resident process, when one serves this cache and interpreter.

The console script (:func:`sidebet.cli.run`) calls :func:`attempt` first.  With no
socket it costs one ``stat``; otherwise the command line, the environment, the working
folder and the three standard streams (as file descriptors) go to the resident process,
whose fork runs the command on them while this process waits, passes on the signals it
gets (Ctrl-C included) and ends as the command ended.  ``None`` means: run it here.
"""

from __future__ import annotations

import os
import sys

from sidebet.cli.daemon import wire
from sidebet.native.cachedir import cache_dir_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket
    from types import FrameType

__all__ = ["attempt", "control", "gone"]

_FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGWINCH", "SIGUSR1", "SIGUSR2")


def attempt(argv: list[str], prog_name: str | None = None) -> int | None:
    """Run ``argv`` (the program's name first) in the resident process: the command's exit
    status, or ``None`` when there is none to run it (or it declined) and it must run
    here."""
    if not wire.enabled() or not wire.served(argv):
        return None
    if (sys.stdin, sys.stdout, sys.stderr) != (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        return None  # run inside a program that caught the streams: its streams, not fd 0-2
    cache = cache_dir_name()
    if cache is None:
        return None
    path = wire.socket_path(cache)
    try:
        st = os.stat(path)
    except OSError:
        return None
    import stat

    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return None
    try:
        folder = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)  # a closed standard stream: run here, as the user started it
        conn = _connect(path)
    except OSError:
        os.close(folder)
        return None
    try:
        try:
            pid = _hand_over(conn, argv, prog_name, folder)
        except (OSError, ValueError):
            return None
        finally:
            os.close(folder)
        if pid is None:
            return None
        return _wait(conn, pid)
    finally:
        conn.close()


def _connect(path: str) -> socket:
    """A connection to the socket at ``path``, whose other end is this user's (the C
    module: :mod:`socket`'s wrapper costs a command's start its own imports)."""
    import _socket

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
    try:
        conn.connect(path)
        if not wire.peer_is_owner(conn):
            raise OSError("the resident process is not this user's (or cannot be told)")
    except OSError:
        conn.close()
        raise
    return conn


def _hand_over(conn: socket, argv: list[str], prog_name: str | None,
               folder: int) -> int | None:
    """Send the run request; the fork's process id, or ``None`` if it was declined."""
    import _socket
    import struct

    mask = os.umask(0)
    os.umask(mask)
    path0 = sys.path[0] if sys.path and not sys.flags.safe_path else ""
    message = wire.frame(b"R", wire.run_request(argv, dict(os.environ), path0, prog_name,
                                                mask, wire.limits()))
    if len(message) > wire.MAX_MESSAGE:
        return None
    fds = struct.pack("4i", 0, 1, 2, folder)
    conn.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    kind, answer = wire.read_frame(conn.recv)
    if kind == b"A":
        return int(answer)
    if kind == b"D":
        return None
    raise ValueError("an unexpected answer")


def _wait(conn: socket, pid: int) -> int:
    """Pass the signals this process gets to the fork ``pid`` until the command ends; end
    as it did.  Ctrl-Z (SIGTSTP) stops the fork, then this process; when this process is
    continued (``fg``, ``bg``), so is the fork."""
    import signal

    def forward(signum: int, frame: FrameType | None) -> None:
        _send(pid, signum)

    def suspend(signum: int, frame: FrameType | None) -> None:
        _send(pid, signal.SIGSTOP)  # SIGTSTP: ignored by the fork's (orphaned) group
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)  # stops here until continued
        signal.signal(signal.SIGTSTP, suspend)
        _send(pid, signal.SIGCONT)

    for name in _FORWARDED:
        signal.signal(getattr(signal, name), forward)
    signal.signal(signal.SIGTSTP, suspend)
    signal.signal(signal.SIGCONT, forward)
    try:
        kind, body = wire.read_frame(conn.recv)
        ended = wire.Ended.read(body) if kind == b"E" else None
    except (OSError, ValueError):
        ended = None
    if ended is None:  # the resident process ended first: wait for the command itself
        gone(pid)
        sys.stderr.write("sidebet: the resident process ended before the command's status "
                         "came back (sidebet daemon status)\n")
        return 1
    if ended.signal:
        signal.signal(ended.signal, signal.SIG_DFL)
        os.kill(os.getpid(), ended.signal)
        return 128 + ended.signal
    return ended.status


def _send(pid: int, signum: int) -> None:
    """Signal the fork ``pid`` (gone already: nothing to do)."""
    try:  # noqa: SIM105 (contextlib is not imported here)
        os.kill(pid, signum)
    except OSError:
        pass


def gone(pid: int, timeout: float | None = None) -> bool:
    """Wait until the process ``pid`` is no more (ended, or a zombie its parent has not
    collected), at most ``timeout`` seconds; whether it is."""
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            os.kill(pid, 0)
        except OSError:  # no such process (or another user's: the number was used again)
            return True
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                if stat.read().rpartition(b")")[2].split()[:1] == [b"Z"]:
                    return True
        except OSError:  # no /proc here, or it ended meanwhile: the signal tells next time
            pass
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def control(kind: bytes) -> bytes | None:
    """Send the resident process ``S`` (status: its answer's JSON) or ``Q`` (stop: an
    empty answer); ``None`` when none is serving this cache."""
    cache = cache_dir_name()
    if cache is None:
        return None
    try:
        conn = _connect(wire.socket_path(cache))
    except OSError:
        return None
    try:
        conn.settimeout(10.0)
        conn.sendall(wire.frame(kind))
        _, body = wire.read_frame(conn.recv)
    except (OSError, ValueError):
        return None
    finally:
        conn.close()
    return body
