"""``sidebet play`` driven through a pseudo-terminal, as a person would."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest

SIDEBET = str(Path(sys.executable).with_name("sidebet"))
ENV = {**os.environ, "TERM": "dumb", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8",
       "COLUMNS": "200"}


def spawn(*args: str) -> pexpect.spawn:
    child = pexpect.spawn(SIDEBET, ["play", *args], env=ENV, encoding="utf-8", timeout=30,
                          dimensions=(50, 200))
    return child


@pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")
def test_play_a_seeded_round_with_advice_and_save_and_replay(tmp_path: Path) -> None:
    history = tmp_path / "round.json"
    child = spawn("--seed", "1", "--seats", "1", "--save", str(history))
    child.expect(r"Advice: basic strategy \(exact, total-dependent")
    child.expect("Shoe commitment")
    child.expect(r"Seat 1 Blackjack wager \[chips 1000.00")
    child.sendline("10")
    child.expect("TriLux Deluxe wager")
    child.sendline("50")  # over twice the Blackjack wager: refused, asked again
    child.expect("§ 633c.11\\(c\\): TriLux Deluxe wager 50.00 exceeds twice")
    child.expect("TriLux Deluxe wager")
    child.sendline("5")
    child.expect("Upcard Luck wager")
    child.sendline("")
    child.expect("Blazing 7's wager")
    child.sendline("")
    child.expect("Three Card Poker wager")
    child.sendline("")
    child.expect("Top 3 wager")
    child.sendline("")
    child.expect("No more bets")
    child.expect("Dealer: 7♣ ??")
    child.expect("Seat 1 hand 1: 8♥ J♦")
    child.expect("TriLux Deluxe: loses")
    child.expect(r"\?\)advice: ")
    child.sendline("?")
    child.expect(r"Advice: stand \(basic strategy \(exact, total-dependent, for this "
                 r"table's rules\): hard 18 vs 7♣: stand\)")
    child.expect(r"EV per unit wagered \(exact; full shoe less the cards on the table\): "
                 r"hit -0\.\d{4}, stand \+0\.\d{4}, double -1\.\d{4}, surrender -0\.5000")
    child.expect(r"\?\)advice: ")
    child.sendline("s")
    child.expect("win")
    child.expect("Chips: seat 1 1005.00")
    child.expect("Another round")
    child.sendline("q")
    child.expect("Goodbye after 1 round")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    data = json.loads(history.read_text(encoding="utf-8"))
    assert data["format"] == "sidebet-round/1"

    replay = spawn("--replay", str(history))
    replay.expect("Replaying")
    for _ in range(4):
        replay.expect(r"\[Enter\] next")
        replay.sendline("")
    replay.expect("Replay verified: identical final state")
    replay.expect(pexpect.EOF)


@pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")
def test_play_press_offer_and_bad_config(tmp_path: Path) -> None:
    # find a seed whose first card pair wins TriLux for seat 1 using the engine itself
    from sidebet.cli.play_cmds import default_table
    from sidebet.table import Table

    seed = next(
        s for s in range(500)
        if _trilux_wins(Table(default_table(6), 1, seed=s))
    )
    child = spawn("--seed", str(seed), "--rounds", "1")
    child.expect("Blackjack wager")
    child.sendline("10")
    child.expect("TriLux Deluxe wager")
    child.sendline("10")
    for _ in range(4):
        child.expect("wager")
        child.sendline("")
    child.expect("pays")
    child.expect(r"Press advice \(press by advice \(exact Press advisor, full-shoe basis\)\): "
                 r"[+-]\d+\.\d\d% per pressed unit — (press all|collect)")
    child.expect("press how much of")
    child.sendline("0.50")
    child.expect("whole table units")
    child.sendline("?")
    child.expect(r"Advice \(press by advice \(exact Press advisor, full-shoe basis\)\): "
                 r"press \d+\.\d\d, [+-]\d+\.\d\d% per pressed unit")
    child.sendline("a")
    child.expect("press ")
    while True:
        i = child.expect([r"\?\)advice: ", r"insurance", "Goodbye after 1 round"])
        if i == 2:
            break
        child.sendline("s" if i == 0 else "")
    child.expect(pexpect.EOF)

    bad = tmp_path / "bad.toml"
    bad.write_text('decks = 3\n[side_wagers.trilux]\npaytable = "TLX-3"\n', encoding="utf-8")
    child = spawn("--config", str(bad))
    child.expect("error: § 633c.11\\(i\\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


def _trilux_wins(table: object) -> bool:
    from sidebet.table import Table

    assert isinstance(table, Table)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "trilux", 10_00)
    r.close_bets()
    return bool(r.side_settlements(1)[0].won)


def test_play_bad_options_fail_before_anything_is_dealt() -> None:
    import subprocess
    import sys

    for args in (["--seats", "9"], ["--decks", "0"]):
        result = subprocess.run([sys.executable, "-m", "sidebet", "play", *args],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                check=False)
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
