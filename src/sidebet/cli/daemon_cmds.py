"""``sidebet daemon start|stop|status``: the resident process that runs commands in forks
of itself, their modules already loaded (:mod:`sidebet.cli.daemon`)."""

import json
import os
import subprocess
import sys
import time
from enum import StrEnum
from typing import Annotated

import typer

from sidebet.cli.common import console, fail, handle_errors

__all__ = ["register"]

_MAX_IDLE = 7 * 24 * 3600.0

_LAUNCH = "import sys; from sidebet.cli.resident.server import main; sys.exit(main(sys.argv[1:]))"


class Action(StrEnum):
    """What ``sidebet daemon`` does."""

    start = "start"
    stop = "stop"
    status = "status"


def register(app: typer.Typer) -> None:
    """Add ``daemon`` to the ``sidebet`` command."""

    @app.command()
    @handle_errors
    def daemon(
        action: Annotated[Action, typer.Argument(help="start, stop or status")],
        idle: Annotated[float, typer.Option(
            help="start: seconds without a command after which it ends (1 to 604800, "
                 "a week)")] = 1800.0,
        as_json: Annotated[bool, typer.Option("--json", help="status: as JSON")] = False,
    ) -> None:
        """Keep sidebet loaded in a resident process that runs each command in a fork
        of itself (the command line's start-up saved).

        While it runs, every command but play, serve and daemon is handed to it by the
        console script, with its arguments, environment, working folder and standard
        streams; output and exit status are the command's own.  It serves this cache
        folder and this interpreter with the same start-up environment, and ends on
        stop, after --idle seconds without a command, or when sidebet's code or the
        installed packages change.  SIDEBET_DAEMON=off runs a command without it.
        """
        from sidebet.cli.daemon import client

        if not 1.0 <= idle <= _MAX_IDLE:  # also refuses nan
            raise fail(f"--idle is seconds from 1 to {_MAX_IDLE:g} (a week), not {idle:g}")
        if action is Action.status:
            _status(client.control(b"S"), as_json)
        elif action is Action.stop:
            _stop()
        else:
            _start(idle)


def _status(answer: bytes | None, as_json: bool) -> None:
    if answer is None:
        if as_json:
            print(json.dumps({"running": False}))
        else:
            console.print("sidebet daemon: not running")
        raise typer.Exit(3)
    state = json.loads(answer)
    if as_json:
        print(json.dumps({"running": True, **state}, indent=2))
        return
    console.print(
        f"sidebet daemon: running (pid {state['pid']}) on {state['socket']} since "
        f"{state['started']}; commands run: {state['served']} ({state['commands_running']} "
        f"now, {state['commands_cpu_s']:.3f} s of CPU), declined: {state['declined']}; "
        f"code {state['code']}; ends after {state['idle_limit_s']:g} s idle")
    _missing(state)


def _missing(state: dict[str, object]) -> None:
    """A line naming what the resident process could not load, if anything."""
    missing = state.get("not_preloaded")
    if isinstance(missing, list) and missing:
        console.print(f"not preloaded (loaded by each command instead): "
                      f"{', '.join(map(str, missing))}")


def _stop() -> None:
    from sidebet.cli.daemon import client as link

    answer = link.control(b"S")
    if answer is None:
        console.print("sidebet daemon: not running")
        return
    pid = int(json.loads(answer)["pid"])
    link.control(b"Q")
    if not link.gone(pid, timeout=30.0):
        raise fail(f"the resident process (pid {pid}) is still ending its commands")
    console.print(f"sidebet daemon: stopped (pid {pid})")


def _start(idle: float) -> None:
    from sidebet.cli.daemon import client as link
    from sidebet.cli.daemon import wire
    from sidebet.native.cachedir import cache_dir_name

    cache = cache_dir_name()
    if cache is None:
        raise fail("the disk cache is off (SIDEBET_CACHE_DIR=off): the resident process "
                   "keeps its socket there")
    answer = link.control(b"S")
    if answer is not None:
        console.print(f"sidebet daemon: already running (pid {json.loads(answer)['pid']})")
        return
    log = os.path.join(cache, "daemon.log")
    try:
        os.makedirs(cache, exist_ok=True)
        big = os.path.exists(log) and os.path.getsize(log) > 1 << 20
        with open(log, "wb" if big else "ab") as out:  # begun again past 1 MiB
            process = subprocess.Popen(
                [sys.executable, "-P", "-c", _LAUNCH, "--idle", repr(idle)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True, cwd=cache)
    except OSError as exc:
        raise fail(f"cannot start the resident process in the cache folder {cache}: "
                   f"{exc.strerror or exc}") from None
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline:
        if process.poll() is not None and link.control(b"S") is None:
            raise fail(f"the resident process ended at start (status {process.returncode}); "
                       f"its log: {log}")
        answer = link.control(b"S")
        if answer is not None:
            state = json.loads(answer)
            console.print(
                f"sidebet daemon: running (pid {state['pid']}) on {wire.socket_path(cache)}; "
                f"commands are handed to it until `sidebet daemon stop` or "
                f"{idle:g} s without one")
            _missing(state)
            return
        time.sleep(0.05)
    process.terminate()
    raise fail(f"the resident process did not answer within 120 s; its log: {log}")
