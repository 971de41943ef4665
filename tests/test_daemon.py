"""The resident ``sidebet`` (``sidebet daemon``, :mod:`sidebet.cli.daemon`, issue 25 item 2):
a command handed to it prints, writes and ends exactly as it does run alone; signals
reach it; a client or resident process killed leaves nothing running and nothing
broken; another interpreter, environment or code is declined; only its owner connects.

Real processes throughout, in a copy of the session's cache folder (the kernels built,
``tests/conftest.py``), under a short name so that the socket lies in it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sidebet.cli import daemon_cmds
from sidebet.cli.daemon import wire
from sidebet.cli.daemon.client import gone
from sidebet.cli.resident.limits import HISTORY, Limits
from sidebet.cli.resident.server import Resident

REPO = Path(__file__).resolve().parents[1]
LAUNCH = daemon_cmds._LAUNCH
TIMING = re.compile(r"; [0-9.]+ s, [0-9,]+ rounds/s|\"(elapsed_s|rounds_per_s)\": [0-9.e+-]+")


def run(*args: str, env: dict[str, str], daemon: bool = True, cwd: Path = REPO,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m sidebet ARGS``, handed to the resident process or not."""
    extra = {} if daemon else {"SIDEBET_DAEMON": "off"}
    return subprocess.run([sys.executable, "-m", "sidebet", *args], capture_output=True,
                          text=True, env={**env, **extra}, cwd=cwd, timeout=timeout,
                          check=False)


def status(env: dict[str, str]) -> dict[str, object]:
    done = run("daemon", "status", "--json", env=env)
    state: dict[str, object] = json.loads(done.stdout)
    assert (done.returncode == 0) == bool(state["running"])
    return state


def served(env: dict[str, str]) -> int:
    count = status(env)["served"]
    assert isinstance(count, int)
    return count


def same(text: str) -> str:
    """Output with the seconds and rate of a simulation taken out, words single-spaced."""
    return TIMING.sub("", " ".join(text.split()))


@pytest.fixture(scope="module")
def cache(aot_built: Path) -> Iterator[Path]:
    """A copy of the session's cache folder under a short name (no daemon's socket in the
    session's folder, which other tests share)."""
    root = Path(tempfile.mkdtemp(prefix="sbd-"))
    shutil.copytree(aot_built, root, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("plans", "daemon.*"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture()
def env(cache: Path) -> Iterator[dict[str, str]]:
    """The environment of the commands, with a resident process started for it, which is
    stopped (or killed) afterwards."""
    environ = {**os.environ, "SIDEBET_CACHE_DIR": str(cache), "COLUMNS": "100"}
    for name in ("SIDEBET_AOT", "SIDEBET_REPLAY", "SIDEBET_DAEMON"):
        environ.pop(name, None)
    started = run("daemon", "start", "--idle", "120", env=environ)
    assert started.returncode == 0, started.stderr
    pid = status(environ)["pid"]
    assert isinstance(pid, int)
    _warm(environ)
    yield environ
    run("daemon", "stop", env=environ, timeout=60)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    Path(wire.socket_path(str(cache))).unlink(missing_ok=True)


def _warm(env: dict[str, str]) -> None:
    """Wait until the spare fork is warm."""
    deadline = time.monotonic() + 120
    while status(env)["spare"] == "warming" and time.monotonic() < deadline:
        time.sleep(0.05)


COMMANDS = [
    ["simulate", "--rounds", "3e4", "--seed", "11", "--no-progress"],
    ["simulate", "--rounds", "2e4", "--seed", "3", "--format", "json", "--decks", "2",
     "--threads", "2"],
    ["par", "trilux"],
    ["par", "blazing7s", "--format", "csv"],
    ["settle", "trilux", "--player", "7h 7h 7h"],
    ["rules"],
    ["--help"],
    ["simulate", "--rounds", "-5"],
    ["par", "no-such-wager"],
    ["check-table", "examples/table-2deck-bad.toml"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a)[:40])
def test_a_command_handed_over_prints_and_ends_as_alone(env: dict[str, str],
                                                         args: list[str]) -> None:
    before = served(env)
    alone = run(*args, env=env, daemon=False)
    handed = run(*args, env=env)
    assert served(env) == before + 1
    assert handed.returncode == alone.returncode
    assert same(handed.stdout) == same(alone.stdout)
    assert handed.stderr == alone.stderr
    if alone.returncode == 2:
        assert len(handed.stderr.strip().splitlines()) == 1, handed.stderr


def test_the_working_folder_and_standard_input_are_the_clients(
        env: dict[str, str], tmp_path: Path) -> None:
    shutil.copy(REPO / "examples" / "table-6deck.toml", tmp_path / "mine.toml")
    handed = run("check-table", "mine.toml", env=env, cwd=tmp_path)
    alone = run("check-table", "mine.toml", env=env, cwd=tmp_path, daemon=False)
    assert (handed.returncode, handed.stdout) == (alone.returncode, alone.stdout)
    assert "mine.toml" in handed.stdout + handed.stderr
    out = tmp_path / "out.csv"
    with out.open("w") as sink:
        done = subprocess.run([sys.executable, "-m", "sidebet", "par", "trilux", "--format",
                               "csv"], stdout=sink, stdin=subprocess.DEVNULL, env=env,
                              check=False, timeout=60)
    assert done.returncode == 0
    assert out.read_text().startswith(run("par", "trilux", "--format", "csv", env=env,
                                          daemon=False).stdout[:40])


def on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run ``python -m sidebet ARGS`` on a pseudo-terminal: its status and what it drew."""
    import pty

    main, side = pty.openpty()
    done = subprocess.Popen([sys.executable, "-m", "sidebet", *args], stdin=side,
                            stdout=side, stderr=side, env={**env, "TERM": "xterm"},
                            close_fds=True)
    os.close(side)
    drawn = bytearray()
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's last writer left
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    return done.wait(timeout=120), drawn.decode("utf-8", "replace")


@pytest.mark.parametrize("daemon", [True, False], ids=["handed", "alone"])
def test_a_progress_bar_and_colours_on_a_terminal(env: dict[str, str], daemon: bool) -> None:
    before = served(env)
    status_, drawn = on_a_terminal(["simulate", "--rounds", "3e6", "--seed", "3"],
                                   {**env, **({} if daemon else {"SIDEBET_DAEMON": "off"})})
    assert status_ == 0, drawn[-2000:]
    assert "simulating" in drawn and "/3000000" in drawn  # the bar, drawn and redrawn
    assert "\x1b[1m" in drawn and "Return per unit bet" in drawn
    assert served(env) == before + daemon


def test_a_simulation_handed_over_saves_its_plan(env: dict[str, str], cache: Path) -> None:
    args = ["simulate", "--rounds", "1e4", "--seed", "77", "--no-progress", "--seats", "2"]
    before = set(cache.glob("aot-*/plans/*.plan"))  # its spec, not another command's
    assert run(*args, env=env).returncode == 0
    assert len(set(cache.glob("aot-*/plans/*.plan")) - before) == 1


def test_play_serve_and_daemon_are_never_handed_over(env: dict[str, str]) -> None:
    before = served(env)
    assert run("play", "--help", env=env).returncode == 0
    assert run("serve", "--help", env=env).returncode == 0
    assert served(env) == before


def test_another_environment_is_declined_and_runs_alone(env: dict[str, str]) -> None:
    before = status(env)
    args = ["par", "trilux"]
    other = run(*args, env={**env, "PYTHONHASHSEED": "7"})
    assert other.returncode == 0 and other.stdout == run(*args, env=env,
                                                         daemon=False).stdout
    after = status(env)
    assert after["served"] == before["served"]
    assert after["declined"] == int(str(before["declined"])) + 1


def test_ctrl_c_reaches_the_command(env: dict[str, str]) -> None:
    args = [sys.executable, "-m", "sidebet", "simulate", "--rounds", "1e10", "--seed", "1",
            "--no-progress", "--threads", "1"]
    client = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    _until_running(env, 1)
    time.sleep(1.0)
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=60)
    assert "interrupted: reporting the" in err
    assert "Return per unit bet" in out
    assert status(env)["commands_running"] == 0


def test_a_killed_client_ends_its_command(env: dict[str, str]) -> None:
    args = [sys.executable, "-m", "sidebet", "simulate", "--rounds", "1e10", "--no-progress",
            "--threads", "1"]
    client = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    _until_running(env, 1)
    client.kill()
    client.wait(timeout=10)
    _until_running(env, 0)


def test_a_killed_resident_process_leaves_the_commands_alone(env: dict[str, str]) -> None:
    pid = status(env)["pid"]
    assert isinstance(pid, int)
    os.kill(pid, signal.SIGKILL)
    assert gone(pid, timeout=10)
    done = run("par", "trilux", env=env)  # the socket is left behind, nobody answers
    assert done.returncode == 0 and done.stdout == run("par", "trilux", env=env,
                                                       daemon=False).stdout
    assert run("daemon", "status", env=env).returncode == 3
    again = run("daemon", "start", "--idle", "60", env=env)
    assert again.returncode == 0, again.stderr
    assert status(env)["served"] == 0


def test_a_command_given_to_a_spare_still_warming_runs(env: dict[str, str],
                                                       cache: Path) -> None:
    assert run("daemon", "stop", env=env).returncode == 0
    path = Path(wire.socket_path(str(cache)))
    server = subprocess.Popen([sys.executable, "-P", "-c", LAUNCH, "--idle", "60"], env=env,
                              cwd=cache, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not path.exists():  # bound: its spare is forked now and warms up
        assert time.monotonic() < deadline and server.poll() is None
        time.sleep(0.002)
    handed = run("par", "trilux", env=env)
    assert (handed.returncode, handed.stdout) == (0, run("par", "trilux", env=env,
                                                         daemon=False).stdout)
    assert status(env)["served"] == 1
    assert run("daemon", "stop", env=env).returncode == 0
    assert server.wait(timeout=30) == 0


def test_a_spare_that_dies_is_replaced(env: dict[str, str]) -> None:
    first = status(env)["spare_pid"]
    assert isinstance(first, int)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while status(env)["spare_pid"] in (first, None):
        assert time.monotonic() < deadline, "no new spare"
        time.sleep(0.05)
    _warm(env)
    assert status(env)["spare"] == "ready"
    before = served(env)
    assert run("par", "trilux", env=env).returncode == 0
    assert served(env) == before + 1


def test_the_kernels_are_loaded_once(env: dict[str, str]) -> None:
    assert status(env)["not_preloaded"] == []
    assert "not preloaded" not in run("daemon", "status", env=env).stdout


def test_the_socket_is_its_owners_alone(env: dict[str, str], cache: Path) -> None:
    path = Path(wire.socket_path(str(cache)))
    assert path.is_socket()
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_malformed_or_oversized_request_changes_nothing(env: dict[str, str],
                                                          cache: Path) -> None:
    path = wire.socket_path(str(cache))
    for message in (struct.pack("!I", wire.MAX_MESSAGE + 1) + b"R",
                    wire.frame(b"R", b"\x00\x00\x00\x09garbage"),
                    wire.frame(b"X"), b"\x00\x00"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(10)
            conn.connect(path)
            conn.sendall(message)
            conn.shutdown(socket.SHUT_WR)
            answer = conn.recv(100)
            assert answer == b"" or answer[4:5] == b"D", answer
    before = served(env)
    assert run("par", "trilux", env=env).returncode == 0
    assert served(env) == before + 1


def test_stop_and_idle_end_it(env: dict[str, str], cache: Path) -> None:
    stopped = run("daemon", "stop", env=env)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert run("daemon", "status", env=env).returncode == 3
    assert not Path(wire.socket_path(str(cache))).exists()
    assert run("daemon", "start", "--idle", "1", env=env).returncode == 0
    deadline = time.monotonic() + 30
    while run("daemon", "status", env=env).returncode == 0:
        assert time.monotonic() < deadline, "the idle resident process did not end"
        time.sleep(0.2)


@pytest.mark.parametrize("idle", ["0", "nan", "1e9", "-5"])
def test_a_bad_idle_limit_is_one_line(env: dict[str, str], idle: str) -> None:
    done = run("daemon", "start", "--idle", idle, env=env, daemon=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--idle" in done.stderr


def test_an_unwritable_cache_folder_is_one_line(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    environ = {**os.environ, "SIDEBET_CACHE_DIR": str(blocked / "cache")}
    done = run("daemon", "start", env=environ, daemon=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "cannot start the resident process" in done.stderr
    off = run("daemon", "start", env={**os.environ, "SIDEBET_CACHE_DIR": "off"})
    assert off.returncode == 2 and "SIDEBET_CACHE_DIR=off" in off.stderr
    assert run("daemon", "status", env={**os.environ, "SIDEBET_CACHE_DIR": "off"}
               ).returncode == 3


def test_changed_code_is_declined(tmp_path: Path) -> None:
    resident = Resident(str(tmp_path / "s.sock"), 60.0)
    env = dict(os.environ)
    fields = wire.unpack(wire.run_request(["sidebet", "rules"], env, "", None, 0o22,
                                          wire.limits()))
    assert resident._refusal(fields, [5]) == "the streams did not come"
    resident.signature = (("elsewhere", 0, 0),)
    assert resident._refusal(fields, [5, 6, 7, 8]) == "the code changed"
    other = wire.unpack(wire.run_request(["sidebet", "rules"], {**env, "NUMBA_OPT": "0"},
                                         "", None, 0o22, wire.limits()))
    assert resident._refusal(other, [5, 6, 7, 8]) == "another interpreter or environment"
    resident.selector.close()


def _until_running(env: dict[str, str], count: int) -> None:
    deadline = time.monotonic() + 60
    while status(env)["commands_running"] != count:
        assert time.monotonic() < deadline, f"not {count} commands running"
        time.sleep(0.05)


def test_a_run_request_reads_back_as_it_was_written() -> None:
    from sidebet.cli.resident.child import Request

    env = {"SIDEBET_CACHE_DIR": "/c\udcff", "EMPTY": "", "EQ": "a=b"}
    fields = wire.unpack(wire.run_request(["sidebet", "par", "tri\udcfflux", ""], env,
                                          "bin", "sidebet", 0o27, wire.limits()))
    assert fields[0] == wire.fingerprint(env)
    assert Request.read(fields[1:]) == Request(["sidebet", "par", "tri\udcfflux", ""], env,
                                               "bin", "sidebet", 0o27, Limits.own())


def test_the_commands_not_handed_over_are_commands() -> None:
    from sidebet.cli.main import COMMANDS

    assert wire.NOT_SERVED.issubset(COMMANDS)
    assert not wire.served(["sidebet", *sorted(wire.NOT_SERVED)[:1]])


def test_a_fork_forgets_what_the_resident_process_read(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile as tempfile_module

    import numpy.random

    from sidebet.cli.resident import child

    seeded: list[object] = []
    monkeypatch.setattr(tempfile_module, "tempdir", "/resident/tmp")
    monkeypatch.setattr(numpy.random, "seed", lambda *a: seeded.append(a))
    child._fresh()
    assert tempfile_module.tempdir is None and seeded == [()]


def test_a_program_that_caught_the_streams_runs_the_command_itself(
        env: dict[str, str]) -> None:
    program = ("import io, sys\n"
               "from sidebet.cli import run\n"
               "sys.argv = ['sidebet', 'par', 'trilux']\n"
               "sys.stdout = caught = io.StringIO()\n"
               "try:\n    run()\nexcept SystemExit:\n    pass\n"
               "sys.stderr.write(f'caught {\"TriLux Deluxe\" in caught.getvalue()}')\n")
    before = served(env)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert (done.stdout, done.stderr) == ("", "caught True")
    assert served(env) == before


def _fork_of(env: dict[str, str]) -> int:
    """The process id of the one fork running a command."""
    _until_running(env, 1)
    state = status(env)
    forks = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != state["spare_pid"]:
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_bytes().rpartition(b")")[2].split()
                if int(stat[1]) == state["pid"]:
                    forks.append(int(entry))
    assert len(forks) == 1, forks
    return forks[0]


def _state(pid: int) -> str:
    """A process's state letter (``T``: stopped)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


def _until_state(pid: int, want: str) -> None:
    deadline = time.monotonic() + 30
    while _state(pid) != want:
        assert time.monotonic() < deadline, f"process {pid} is {_state(pid)}, not {want}"
        time.sleep(0.01)


LONG = [sys.executable, "-m", "sidebet", "simulate", "--rounds", "1e10", "--seed", "1",
        "--no-progress", "--threads", "1"]


def test_ctrl_z_stops_the_command_and_fg_continues_it(env: dict[str, str]) -> None:
    """SIGTSTP (Ctrl-Z) stops the fork and the client; SIGCONT (``fg``) continues both.
    The client is a process group of its own whose parent is in another (a shell's job):
    an orphaned group, as the test runner's may be, ignores SIGTSTP, alone or not."""
    client = subprocess.Popen(LONG, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, process_group=0)  # a job of its own, as a shell's
    try:
        fork = _fork_of(env)
        client.send_signal(signal.SIGTSTP)
        _until_state(client.pid, "T")
        _until_state(fork, "T")
        ticks = Path(f"/proc/{fork}/stat").read_text().rpartition(")")[2].split()[11:13]
        time.sleep(0.3)
        assert Path(f"/proc/{fork}/stat").read_text().rpartition(")")[2].split()[11:13] \
            == ticks  # no CPU time while stopped
        client.send_signal(signal.SIGCONT)
        _until_state(client.pid, "S")
        _until_state(fork, "R")
        client.send_signal(signal.SIGINT)
        out, err = client.communicate(timeout=60)
    finally:
        client.kill()
    assert "interrupted: reporting the" in err
    assert "Return per unit bet" in out


def test_a_stopped_command_ends_with_its_killed_client(env: dict[str, str]) -> None:
    client = subprocess.Popen(LONG, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, process_group=0)
    fork = _fork_of(env)
    client.send_signal(signal.SIGTSTP)
    _until_state(fork, "T")
    client.kill()
    client.wait(timeout=10)
    assert gone(fork, timeout=30)
    _until_running(env, 0)


def _bounded(nice: int, cpus: set[int], nofile: int) -> None:
    os.nice(nice)
    os.sched_setaffinity(0, cpus)
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))


def test_the_command_runs_under_the_clients_limits(env: dict[str, str]) -> None:
    """``nice``, ``taskset`` and ``ulimit -n`` bound the fork as they bound a command run
    alone."""
    before = served(env)
    client = subprocess.Popen(LONG, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              preexec_fn=lambda: _bounded(7, {0}, 256))
    try:
        fork = _fork_of(env)
        limits = Path(f"/proc/{fork}/limits").read_text()
        assert re.search(r"Max open files\s+256\s+256", limits), limits
        assert os.sched_getaffinity(fork) == {0}
        assert os.getpriority(os.PRIO_PROCESS, fork) == os.getpriority(
            os.PRIO_PROCESS, 0) + 7
    finally:
        client.send_signal(signal.SIGINT)
        client.wait(timeout=60)
    assert served(env) == before + 1


@pytest.mark.parametrize("why", ["nice", "nofile", "stack"])
def test_limits_a_fork_cannot_take_on_are_declined(env: dict[str, str], why: str) -> None:
    """A client with a higher priority, a hard limit above the resident process's or
    another stack limit runs the command itself, with the same output."""
    import resource

    stack = resource.getrlimit(resource.RLIMIT_STACK)
    smaller = (stack[0] // 2, stack[1]) if stack[0] > 0 else (8 << 20, stack[1])
    assert "RLIMIT_STACK" in HISTORY
    run("daemon", "stop", env=env)
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def lower() -> None:  # the resident process: nicer, fewer files
        os.nice(3)
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    daemon = subprocess.run([sys.executable, "-m", "sidebet", "daemon", "start", "--idle",
                             "60"], env=env, preexec_fn=lower, capture_output=True,
                            check=False, timeout=300)
    assert daemon.returncode == 0, daemon.stderr
    _warm(env)
    client_bounds = {
        "nice": lambda: None,  # niceness 0, below the resident process's 3
        "nofile": lambda: (os.nice(3), resource.setrlimit(resource.RLIMIT_NOFILE,
                                                          (64, min(nofile, 128)))),
        "stack": lambda: (os.nice(3), resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)),
                          resource.setrlimit(resource.RLIMIT_STACK, smaller)),
    }[why]
    before = status(env)
    args = [sys.executable, "-m", "sidebet", "par", "trilux"]
    done = subprocess.run(args, env=env, preexec_fn=client_bounds, capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0 and done.stdout == run("par", "trilux", env=env,
                                                       daemon=False).stdout
    after = status(env)
    assert (after["served"], after["declined"]) == (before["served"],
                                                     int(str(before["declined"])) + 1)
    same_bounds = subprocess.run(args, env=env, capture_output=True, text=True, check=False,
                                 timeout=300, preexec_fn=lambda: (
                                     os.nice(3),
                                     resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))))
    assert same_bounds.returncode == 0
    assert served(env) == int(str(before["served"])) + 1


def test_limits_read_back_and_refuse_damage() -> None:
    own = Limits.own()
    assert own == Limits.read(wire.limits())
    assert own.refusal(own) is None
    for bad in (b"", b"nice=0", b"nice=x\0cgroup=", b"nice=0\0cgroup=\0RLIMIT_AS=1",
                b"nice=0\0cgroup=\0RLIMIT_AS=-2,5", b"nice=0\0cgroup=\0odd=1",
                b"nice=0\0nice=0\0cgroup="):
        with pytest.raises(ValueError):
            Limits.read(bad)


def test_a_fork_that_cannot_take_on_the_limits_says_so_and_runs_nothing() -> None:
    """Should the system refuse a limit the resident process accepted (a soft limit above
    its hard one here), the fork prints one line and ends with status 1."""
    from sidebet.cli.resident import child

    own = Limits.own()
    bad = Limits(own.nice, own.cpus, own.cgroup, {**own.rlimits, "RLIMIT_NOFILE": (64, 32)})
    request = child.Request(["sidebet", "rules"], dict(os.environ), "", None, 0o22, bad)
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    folder = os.open(".", os.O_RDONLY)
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the fork)
        status = 3
        try:
            status = child.run(request, [null, write_out, write_err, folder])
        finally:
            os._exit(status)
    for fd in (write_out, write_err, null, folder):
        os.close(fd)
    with os.fdopen(read_out, "rb") as out, os.fdopen(read_err, "rb") as err:
        printed, said = out.read(), err.read().decode()
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 1
    assert printed == b""
    assert said.count("\n") == 1 and "could not take on this process's limits" in said
