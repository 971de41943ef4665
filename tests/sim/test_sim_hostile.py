"""Worker processes exit when their parent dies, however it dies; simulate refuses
combinations that make no sense; an unreachable Ray address fails fast."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

SIDEBET = str(Path(sys.executable).with_name("sidebet"))


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _default_signals() -> None:
    """In the child before it starts: SIGTERM and SIGHUP end it (a SIGHUP that ``nohup``
    ignores is ignored by every process started under it)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or not Path(SIDEBET).exists(),
                    reason="Linux /proc and the installed script")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_workers_exit_when_the_parent_dies(sig: int) -> None:
    workers: set[int] = set()
    parent = subprocess.Popen(
        [SIDEBET, "simulate", "--rounds", "1e11", "--workers", "2", "--seed", "1",
         "--side", "trilux", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        preexec_fn=_default_signals)  # as from a shell, even when the tests run under nohup
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(workers) < 2:
            assert parent.poll() is None, "simulate ended early"
            workers = _children(parent.pid)
            time.sleep(0.2)
        assert len(workers) >= 2, "no worker processes started"
        time.sleep(1.0)  # let the workers reach their chunks
        parent.send_signal(sig)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), "orphaned workers"
    finally:
        if parent.poll() is None:
            parent.kill()
        for w in workers | _children(parent.pid):
            if _alive(w):
                os.kill(w, signal.SIGKILL)


@pytest.mark.parametrize("args, message", [
    (["--side", "none", "--side-only"], "nothing to simulate"),
    (["--side", "none", "--press", "all"], "--press all needs the TriLux Deluxe wager"),
    (["--side-only", "--press", "advice"], "--press advice needs Blackjack hands"),
    (["--address", "127.0.0.1:1"], "--address names a Ray cluster: use it with --backend ray"),
    (["--side", "upcard-luck", "--paytable", "trilux=TLX-3"], "TriLux Deluxe is not played"),
    (["--rounds", "1e30"], "--rounds must be a whole number from 1 to 1,000,000,000,000"),
    (["--rounds", "9" * 5000], "--rounds must be a whole number, not"),
    (["--rounds", "nan"], "--rounds must be a whole number, not 'nan'"),
    (["--penetration", "1e999999999"], "--penetration must be a number like 0.75"),
    (["--penetration", "inf"], "--penetration must be a number like 0.75"),
    (["--bet", "99999999999999999999"], "--bet must be 1 to 1,000,000 table units"),
    (["--side-bet", "-3"], "--side-bet must be 1 to 1,000,000 table units"),
    (["--seed", "-1"], "--seed must be 0 to 2**64 - 1"),
    (["--workers", "0"], "--workers must be 1 to 4096"),
    (["--chunk-shoes", "9" * 30], "--chunk-shoes must be 1 to 1,000,000"),
    (["--threads", "0"], "--threads must be 1 to 256"),
    (["--threads", "9" * 30], "--threads must be 1 to 256"),
])
def test_simulate_refuses_nonsense_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["simulate", "--rounds", "100", "--no-progress", *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_a_rules_submission_the_deck_count_breaks_is_refused(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text('decks = 6\n[side_wagers.upcard-luck]\npaytable = "standard"\n',
                    encoding="utf-8")
    result = CliRunner().invoke(app, ["simulate", "--rounds", "100", "--config", str(toml),
                                      "--decks", "2"])
    assert result.exit_code == 2
    assert "--decks 2 breaks the Rules Submission" in result.stderr
    assert "§ 633b.15(b)" in result.stderr


def test_an_unreachable_ray_address_fails_within_seconds() -> None:
    pytest.importorskip("ray")
    result = CliRunner().invoke(app, ["simulate", "--rounds", "100", "--backend", "ray",
                                      "--address", "127.0.0.1:1", "--no-progress"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in result.stderr
