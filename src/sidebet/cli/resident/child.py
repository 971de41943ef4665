"""The fork of the resident process that runs one command: it takes on the client's
standard streams, working folder, umask, environment and arguments, runs the command as
the console script would, and leaves as an interpreter leaves (its threads joined, the
``atexit`` functions run, the streams flushed) with the command's status.
"""

from __future__ import annotations

import atexit
import io
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

from sidebet.cli import startenv
from sidebet.cli.resident.limits import Limits

__all__ = ["Request", "run"]


@dataclass(frozen=True, slots=True)
class Request:
    """A run request as the resident process read it: the arguments (the program's name
    first), the environment, the first entry of the client's module path, the program's
    name if the client gave one, its umask and what bounds its process."""

    argv: list[str]
    env: dict[str, str]
    path0: str
    prog_name: str | None
    umask: int
    limits: Limits

    @classmethod
    def read(cls, fields: list[bytes]) -> Request:
        """The fields after the fingerprint (``ValueError`` when they are not a run's)."""
        if len(fields) != 6:
            raise ValueError("a run request has seven fields")
        argv = [os.fsdecode(arg) for arg in fields[0].split(b"\0")]
        env: dict[str, str] = {}
        for item in fields[1].split(b"\0") if fields[1] else []:
            name, sep, value = os.fsdecode(item).partition("=")
            if not sep or not name:
                raise ValueError("an environment variable without a name")
            env[name] = value
        umask = int(fields[4].decode("ascii"))
        if not 0 <= umask <= 0o777:
            raise ValueError("an umask out of range")
        return cls(argv, env, os.fsdecode(fields[2]),
                   os.fsdecode(fields[3]) if fields[3] else None, umask,
                   Limits.read(fields[5]))


def run(request: Request, fds: list[int]) -> int:
    """Become the client's process and run its command; the exit status.  ``fds`` are the
    client's standard input, output and error and its working folder.  Its limits are
    taken on first (the resident process checked that they can be): if the system
    refuses, the command does not run (one line, status 1)."""
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGWINCH,
                   signal.SIGCHLD, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.set_wakeup_fd(-1)
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    os.fchdir(fds[3])
    for fd in fds:
        if fd > 2:
            os.close(fd)
    try:
        request.limits.apply()
    except (OSError, ValueError) as exc:  # resource.setrlimit says EPERM as ValueError
        os.write(2, f"sidebet: the resident process could not take on this process's "
                    f"limits ({exc}); run it with SIDEBET_DAEMON=off\n".encode())
        return 1
    os.umask(request.umask)
    os.environ.clear()
    os.environ.update(request.env)
    startenv.apply()
    _fresh()
    sys.argv = list(request.argv)
    if sys.path and not sys.flags.safe_path:
        sys.path[0] = request.path0
    _streams()
    return _command(request)


def _fresh() -> None:
    """Forget what the resident process's modules read of its own environment or drew at
    random, as a fresh interpreter would not know it: the time zone, the temporary
    folder, numpy's global random state (Python's ``random`` reseeds itself in a fork)."""
    time.tzset()
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None  # type: ignore[attr-defined]
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def _streams() -> None:
    """New ``sys.stdin``, ``stdout`` and ``stderr`` over descriptors 0, 1 and 2, made as
    the interpreter makes them (line-buffered on a terminal; standard error always)."""
    made = []
    for fd, old, mode in ((0, sys.__stdin__, "rb"), (1, sys.__stdout__, "wb"),
                          (2, sys.__stderr__, "wb")):
        raw = open(fd, mode, buffering=-1, closefd=False)  # noqa: SIM115
        encoding = old.encoding if old is not None else "utf-8"
        errors = old.errors if old is not None else "strict"
        tty = os.isatty(fd)
        made.append(io.TextIOWrapper(raw, encoding=encoding, errors=errors,
                                     line_buffering=tty or fd == 2))
    sys.stdin, sys.stdout, sys.stderr = made
    for name, stream in zip(("__stdin__", "__stdout__", "__stderr__"), made, strict=True):
        setattr(sys, name, stream)


def _command(request: Request) -> int:
    """Run the command and leave as the interpreter would; the exit status."""
    from sidebet.cli import replay
    from sidebet.cli.main import app

    if request.argv[1:2] == ["simulate"]:
        replay.command_line = request.argv[1:]
    status = 0
    try:
        app(prog_name=request.prog_name)
    except SystemExit as exc:
        status = _status_of(exc)
    except KeyboardInterrupt:
        _finish()
        sys.excepthook(*sys.exc_info())
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    _finish()
    if not _flush() and status == 0:
        status = 120
    return status


def _status_of(exc: SystemExit) -> int:
    """The exit status ``sys.exit`` gives (text is printed to standard error)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def _finish() -> None:
    """What the interpreter does at exit: join the threads, run the ``atexit`` functions."""
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()


def _flush() -> bool:
    """Flush standard output and error; whether that worked (a closed pipe fails)."""
    done = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            done = False
    return done
