"""Ctrl-C, SIGTERM and SIGHUP end ``sidebet play`` like ``q``; ``--save`` is checked
before the first card.  Real processes on a pseudo-terminal."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pexpect
import pytest

from sidebet.table.history import load_history
from sidebet.table.session_audit import audit

from .test_play_cli import ENV, SIDEBET, spawn

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")]


def _to_first_decision(child: pexpect.spawn) -> None:
    child.expect(r"Seat 1 Blackjack wager")
    child.sendline("10")
    for _ in range(5):  # the side wagers: none
        child.expect(r"wager \[Enter = none\]: ")
        child.sendline("")
    child.expect("No more bets")


@pytest.mark.parametrize("sig, name", [(signal.SIGINT, "Ctrl-C"),
                                       (signal.SIGTERM, "SIGTERM"),
                                       (signal.SIGHUP, "SIGHUP")])
def test_a_signal_mid_round_ends_the_session_like_q(tmp_path: Path, sig: int,
                                                    name: str) -> None:
    path = tmp_path / "session.json"
    child = spawn("--seed", "1", "--save", str(path))
    _to_first_decision(child)
    child.expect(r"\?\)advice: ")
    child.sendline("s")  # finish round 1
    child.expect("Another round")
    child.sendline("")
    _to_first_decision(child)
    child.expect(r"\?\)advice: ")
    child.kill(sig)
    if sig != signal.SIGHUP:  # after a hangup the terminal may be gone
        child.expect(f"Session ended by {name}; the round in progress was abandoned")
        child.expect(r"Session history \(1 round and the abandoned one, every shoe "
                     r"revealed\) saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.signalstatus
    assert [p.name for p in tmp_path.iterdir()] == ["session.json"]  # no temporary left
    data = load_history(path)
    assert data["ended"] is True and data["abandoned"] is not None
    report = audit(data)
    assert report.rounds == report.audited == 1 and report.shoes == 1
    assert "round 2 was abandoned unfinished" in report.header()


def test_a_signal_at_the_bet_prompt_keeps_every_round(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    child = spawn("--seed", "2", "--save", str(path))
    _to_first_decision(child)
    child.expect(r"\?\)advice: ")
    child.sendline("s")
    child.expect("Another round")
    child.sendline("")
    child.expect(r"Seat 1 Blackjack wager")
    child.kill(signal.SIGTERM)
    child.expect("Session ended by SIGTERM")
    child.expect(pexpect.EOF)
    child.close()
    data = load_history(path)
    assert data["abandoned"] is None and audit(data).not_checked == ()


def test_save_refuses_an_existing_file_before_the_first_card(tmp_path: Path) -> None:
    path = tmp_path / "kept.json"
    path.write_text("precious", encoding="utf-8")
    for target, match in [(path, "exists; use --force to overwrite it"),
                          (tmp_path, "it is a folder"),
                          (tmp_path / "no" / "such.json", "cannot write")]:
        result = subprocess.run([SIDEBET, "play", "--save", str(target)], input="",
                                capture_output=True, text=True, env=ENV, timeout=60,
                                check=False)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and match in result.stderr
    assert path.read_text(encoding="utf-8") == "precious"
    result = subprocess.run([SIDEBET, "play", "--seed", "1", "--save", str(path), "--force"],
                            input="10\n\n\n\n\n\ns\nq\n", capture_output=True, text=True,
                            env=ENV, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert audit(load_history(path)).rounds == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json"]
