"""The resident process: the command line's modules loaded once, each command run in a
fork of it (:mod:`sidebet.cli.resident.child`) on the client's own standard streams.

It serves one cache folder and one interpreter: a client whose interpreter, module path,
flags or start-up environment differ (:func:`sidebet.cli.daemon.wire.fingerprint`), or
whose limits a fork cannot take on (:mod:`sidebet.cli.resident.limits`), is declined and
runs the command itself, and so is every client once a loaded module's source or an
installed package changed; then the process ends.  It ends too on
``sidebet daemon stop``, on SIGTERM or SIGINT, and after ``idle`` seconds without a
command, each time once the commands it runs have ended.  Only its owner can connect
(the socket's mode and the peer's credentials).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from sidebet.cli.daemon import wire
from sidebet.cli.resident.child import Request
from sidebet.cli.resident.limits import Limits
from sidebet.native.cachedir import cache_dir_name

__all__ = ["Resident", "main", "preload"]

MAX_RUNNING = 64
"""Commands run at once; a client beyond them runs its command itself."""

_WARM = (
    "numpy", "zipfile", "concurrent.futures.thread", "queue", "logging",
    "encodings.cp437", "rich.table", "rich.console", "rich.progress", "rich.markup",
    "rich.markdown", "typer.rich_utils", "sidebet.sim.runner", "sidebet.sim.compiled",
    "sidebet.sim.plan", "sidebet.sim.spec", "sidebet.cli.sim_output",
    "sidebet.cli.sim_render", "sidebet.exact.par", "sidebet.exact.outcomes",
    "sidebet.exact.blackjack.strategy", "sidebet.exact.blackjack.press",
    "sidebet.exact.blackjack.house_edge", "sidebet.cli.export",
    "sidebet.regulation.submission",
)
"""Modules the commands import when they run (beside each command's module)."""


def preload() -> list[str]:
    """Import every served command's module and :data:`_WARM`, load the compiled kernels
    and draw one table to nowhere (rich loads the rest of itself then); the modules that
    failed to import."""
    from sidebet.cli.main import COMMANDS, load_command

    failed = []
    for name in sorted(set(COMMANDS) - wire.NOT_SERVED):
        try:
            load_command(name)
        except Exception:  # an optional extra missing: that command then loads it itself
            failed.append(name)
    import importlib

    for module in _WARM:
        try:
            importlib.import_module(module)
        except Exception:
            failed.append(module)
    from sidebet.native.extension import load_extension

    if load_extension() is None:  # not built: each fork looks again, then compiles
        failed.append("the compiled kernels (python -m sidebet.warm builds them)")
    import io

    from rich.console import Console
    from rich.table import Table

    table = Table("Wager", "Return", title="Warm-up")
    table.add_row("TriLux Deluxe × 1", "-1.000% … +1.000%")  # wide characters: cell widths
    Console(file=io.StringIO(), width=80, highlight=False).print(table)
    return failed


def _signature() -> tuple[tuple[str, int, int], ...]:
    """The size and time of change of every loaded module of sidebet, of its folders and
    of the folders on the module path: a changed one means other code."""
    files = {f for module in list(sys.modules.values())
             if isinstance(f := getattr(module, "__file__", None), str)
             and f.startswith(wire.PACKAGE)}
    folders = [where for where, _, _ in os.walk(wire.PACKAGE) if "__pycache__" not in where]
    out = []
    for path in sorted(files) + folders + [p for p in sys.path if p]:
        try:
            st = os.stat(path)
            out.append((path, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((path, -1, -1))
    return tuple(out)


def _threads() -> int:
    """This process's threads (the kernel's count where it tells)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


@dataclass
class Resident:
    """The serving process's state: its socket, the forks running (process id → the
    client's connection), and what ``sidebet daemon status`` reports."""

    path: str
    idle: float
    fingerprint: bytes = field(default_factory=wire.fingerprint)
    signature: tuple[tuple[str, int, int], ...] = field(default_factory=_signature)
    started: float = field(default_factory=time.time)
    last: float = field(default_factory=time.monotonic)
    served: int = 0
    declined: int = 0
    user: float = 0.0
    system: float = 0.0
    running: dict[int, socket.socket] = field(default_factory=dict)
    stopping: bool = False
    listener: socket.socket | None = None
    selector: selectors.DefaultSelector = field(default_factory=selectors.DefaultSelector)
    wake: tuple[int, int] = (-1, -1)
    spare: tuple[int, socket.socket] | None = None
    spare_ready: bool = False
    spares_lost: int = 0
    not_preloaded: list[str] = field(default_factory=list)

    def open(self) -> None:
        """Bind the socket (mode 0600) and listen; SIGCHLD, SIGTERM and SIGINT wake the
        loop."""
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)
        try:
            listener.bind(self.path)
        finally:
            os.umask(mask)
        listener.listen(64)
        self.listener = listener
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        self.wake = os.pipe()
        for fd in self.wake:
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(self.wake[1])
        self.selector.register(self.wake[0], selectors.EVENT_READ, "signal")
        for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, lambda *_: None)

    def loop(self) -> None:
        """Serve until stopped, idle or outdated, then until the running commands end."""
        while not (self.stopping and not self.running):
            if self.spare is None and not self.running and not self.stopping \
                    and self.spares_lost < 3:
                self._make_spare()
            timeout = None if self.running else max(
                0.0, self.idle - (time.monotonic() - self.last))
            events = self.selector.select(timeout)
            if not events and not self.running and (
                    time.monotonic() - self.last >= self.idle):
                self.stop("idle")
            for key, _ in events:
                if key.data == "accept":
                    self._accept()
                elif key.data == "signal":
                    self._signals()
                elif key.data == "spare":
                    self._spare_said()
                else:
                    self._client_gone(key.data, key.fileobj)  # type: ignore[arg-type]
        self.close()

    def stop(self, why: str) -> None:
        """Take no more commands (the socket is removed); the loop ends when the running
        ones have."""
        if not self.stopping:
            print(f"stopping: {why}", file=sys.stderr, flush=True)
        self.stopping = True
        if self.spare is not None:
            pid = self._drop_spare()
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        if self.listener is not None:
            self.selector.unregister(self.listener)
            self.listener.close()
            self.listener = None
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def close(self) -> None:
        """Release what the loop used."""
        self.stop("done")
        signal.set_wakeup_fd(-1)
        self.selector.close()
        for fd in self.wake:
            if fd >= 0:
                os.close(fd)

    def _signals(self) -> None:
        try:
            got = os.read(self.wake[0], 512)
        except BlockingIOError:
            got = b""
        if {signal.SIGTERM, signal.SIGINT, signal.SIGHUP} & set(got):
            self.stop("signal")
        self._reap()

    def _reap(self) -> None:
        """Collect the forks that ended (the spare too) and tell their clients how."""
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.running.pop(pid, None)
            if self.spare is not None and pid == self.spare[0]:  # it died unused
                self._drop_spare()
                self.spares_lost += 1
            self.user += usage.ru_utime
            self.system += usage.ru_stime
            self.last = time.monotonic()
            if conn is None:
                continue
            killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 0
            ended = wire.Ended(killed, code, usage.ru_utime, usage.ru_stime)
            with contextlib.suppress(OSError):
                conn.sendall(wire.frame(b"E", ended.dump()))
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(conn)
            conn.close()

    def _client_gone(self, pid: int, conn: socket.socket) -> None:
        """The client of fork ``pid`` hung up (or spoke out of turn): end its command, as
        the end of its terminal would."""
        with contextlib.suppress(OSError):
            conn.recv(1)
        self.selector.unregister(conn)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGHUP)
            os.kill(pid, signal.SIGCONT)  # a stopped command, too (as a terminal's end)

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            conn.settimeout(5.0)
            if not wire.peer_is_owner(conn):
                raise ValueError("another user")
            kind, body, fds = _receive(conn)
            self._answer(conn, kind, body, fds)
        except (OSError, ValueError):
            conn.close()
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _answer(self, conn: socket.socket, kind: bytes, body: bytes,
                fds: list[int]) -> None:
        if kind == b"S":
            conn.sendall(wire.frame(b"J", json.dumps(self.status()).encode()))
            conn.close()
        elif kind == b"Q":
            conn.sendall(wire.frame(b"K"))
            conn.close()
            self.stop("asked to")
        elif kind == b"R":
            fields = wire.unpack(body)
            why = self._refusal(fields, fds)
            if why is None:
                request = Request.read(fields[1:])
                why = request.limits.refusal(Limits.own())  # now: prlimit may change them
            if why is not None:
                self.declined += 1
                print(f"declined a command: {why}", file=sys.stderr, flush=True)
                conn.sendall(wire.frame(b"D", why.encode()))
                conn.close()
                if why == "the code changed":
                    self.stop(why)
                return
            if self.spare is None or not self._hand_to_spare(conn, body, fds):
                pid = os.fork()
                if pid == 0:
                    self._become(conn, lambda: (request, fds))
                self._started(pid, conn)
        else:
            raise ValueError("an unknown request")

    def _refusal(self, fields: list[bytes], fds: list[int]) -> str | None:
        """Why this process cannot run the request of ``fields`` (``None``: it can)."""
        if len(fds) != 4:
            return "the streams did not come"
        if not fields or fields[0] != self.fingerprint:
            return "another interpreter or environment"
        if self.stopping:
            return "stopping"
        if len(self.running) >= MAX_RUNNING:
            return "busy"
        if _signature() != self.signature:
            return "the code changed"
        if _threads() != 1:
            return "threads are running in the resident process"
        return None

    def _make_spare(self) -> None:
        """Fork a spare that warms up (:mod:`sidebet.cli.resident.warmup`) and then waits
        for the next command on a socket pair."""
        link, end = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            link.close()

            def wait() -> tuple[Request, list[int]]:
                from sidebet.cli.resident.warmup import warm_up

                try:
                    warm_up()
                except Exception:  # a cold spare still serves: the fault goes to the log
                    import traceback

                    traceback.print_exc()
                with contextlib.suppress(OSError):  # given a command already: link closed
                    end.sendall(b"W")  # warm
                _, body, fds = _receive(end)  # ValueError when the link closes
                return Request.read(wire.unpack(body)[1:]), fds

            self._become(end, wait)
        end.close()
        self.spare = (pid, link)
        self.spare_ready = False
        self.selector.register(link, selectors.EVENT_READ, "spare")

    def _spare_said(self) -> None:
        """The spare is warm (or, at the end of its link, gone: reaped with the others)."""
        assert self.spare is not None
        try:
            said = self.spare[1].recv(1)
        except OSError:
            said = b""
        self.selector.unregister(self.spare[1])
        self.spare_ready = said == b"W"

    def _drop_spare(self) -> int:
        """Let go of the spare's link; its process id."""
        assert self.spare is not None
        pid, link = self.spare
        self.spare = None
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(link)
        link.close()
        return pid

    def _hand_to_spare(self, conn: socket.socket, body: bytes, fds: list[int]) -> bool:
        """Give the run request to the spare; whether it took it."""
        assert self.spare is not None
        pid, link = self.spare
        try:
            link.sendmsg([wire.frame(b"R", body)],
                         [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                           struct.pack(f"{len(fds)}i", *fds))])
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
            return False
        finally:
            self._drop_spare()
        self._started(pid, conn)
        return True

    def _become(self, conn: socket.socket,
                get: Callable[[], tuple[Request, list[int]]]) -> NoReturn:
        """In a fork: leave the serving loop, get the command and run it; never returns."""
        status = 1
        try:
            self._forget()
            request, fds = get()
            conn.close()
            from sidebet.cli.resident import child

            status = child.run(request, fds)
        except ValueError:
            status = 0  # a spare whose link closed: the resident process is ending
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(status)

    def _started(self, pid: int, conn: socket.socket) -> None:
        """Fork ``pid`` runs the command of ``conn``'s client: tell it, and watch it."""
        self.served += 1
        self.last = time.monotonic()
        self.running[pid] = conn
        conn.settimeout(None)
        try:
            conn.sendall(wire.frame(b"A", str(pid).encode()))
        except OSError:
            os.kill(pid, signal.SIGHUP)
            return
        self.selector.register(conn, selectors.EVENT_READ, pid)

    def _forget(self) -> None:
        """In a fork: let go of the serving process's socket, connections and loop."""
        signal.set_wakeup_fd(-1)
        if self.listener is not None:
            self.listener.close()
        for other in self.running.values():
            other.close()
        self.selector.close()
        for fd in self.wake:
            os.close(fd)

    def status(self) -> dict[str, Any]:
        """What ``sidebet daemon status`` prints."""
        self._reap()
        return {
            "pid": os.getpid(),
            "socket": self.path,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "idle_limit_s": self.idle,
            "served": self.served,
            "declined": self.declined,
            "commands_running": len(self.running),
            "commands_cpu_s": round(self.user + self.system, 6),
            "own_cpu_s": round(sum(os.times()[:2]), 6),
            "python": sys.executable,
            "code": "unchanged" if _signature() == self.signature else "changed",
            "spare": "none" if self.spare is None else "ready" if self.spare_ready
            else "warming",
            "spare_pid": None if self.spare is None else self.spare[0],
            "not_preloaded": self.not_preloaded,
        }


def _receive(conn: socket.socket) -> tuple[bytes, bytes, list[int]]:
    """One request: its kind, body and the descriptors that came with it."""
    fds: list[int] = []
    space = socket.CMSG_SPACE(8 * 4)
    data, ancillary, flags, _ = conn.recvmsg(65536, space)
    for level, type_, payload in ancillary:
        if level == socket.SOL_SOCKET and type_ == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            fds += list(struct.unpack(f"{usable // 4}i", payload[:usable]))
    try:
        if flags & socket.MSG_CTRUNC or not data:
            raise ValueError("a damaged request")
        kind, body = wire.read_frame(conn.recv, data)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return kind, body, fds


def main(args: list[str]) -> int:
    """``python -c ... --idle SECONDS``: load, bind and serve (what ``sidebet daemon
    start`` runs, detached)."""
    idle = 1800.0
    if args[:1] == ["--idle"] and len(args) == 2:
        idle = float(args[1])
    cache = cache_dir_name()
    if cache is None:
        print("the disk cache is off (SIDEBET_CACHE_DIR=off): no resident process",
              file=sys.stderr)
        return 2
    os.makedirs(cache, exist_ok=True)
    path = wire.socket_path(cache)
    from sidebet.cli.daemon.client import control

    if control(b"S") is not None:
        print(f"another resident process already serves {path}", file=sys.stderr)
        return 1
    failed = preload()
    if failed:
        print(f"not preloaded: {', '.join(failed)}", file=sys.stderr, flush=True)
    import gc

    gc.collect()
    gc.freeze()  # what is loaded stays shared with the forks
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # left by a process that ended without removing it
    resident = Resident(path, idle, not_preloaded=failed)
    resident.open()
    print(f"serving on {path} (pid {os.getpid()})", file=sys.stderr, flush=True)
    resident.loop()
    return 0
