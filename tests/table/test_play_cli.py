"""``sidebet play`` driven through a pseudo-terminal, as a person would."""

from __future__ import annotations

import json
import os
import subprocess
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


@pytest.mark.slow
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
    child.expect("Session history \\(1 round, every shoe revealed\\) saved")
    child.expect("Goodbye after 1 round")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    data = json.loads(history.read_text(encoding="utf-8"))
    assert data["format"] == "sidebet-session/2"
    assert [r["format"] for r in data["rounds"]] == ["sidebet-round/1"]

    replay = spawn("--replay", str(history))
    replay.expect("Replaying")
    replay.expect("=== Round 1 of 1")
    for _ in range(4):
        replay.expect(r"\[Enter\] next")
        replay.sendline("")
    replay.expect("Replay verified: identical final state")
    replay.expect(pexpect.EOF)


@pytest.mark.slow
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


@pytest.mark.slow
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


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidebet", "play", *args],
                          input=stdin, capture_output=True, text=True, check=False,
                          env={**ENV, "COLUMNS": "300"}, timeout=120)


def _play_session(path: Path, rounds: int) -> None:
    """A seeded 1-deck, 7-seat session (reshuffles every few rounds), saved to ``path``;
    after each round the file holds every round so far."""
    child = spawn("--seed", "5", "--decks", "1", "--seats", "7", "--save", str(path))
    played = 0
    while True:
        i = child.expect([r"Blackjack wager \[", r"wager \[Enter = none\]: ",
                          "press how much", r"insurance \(pays", r"\?\)advice: ",
                          r"Another round\? "])
        if i == 0:
            child.sendline("10")
        elif i in (1, 2, 3):
            child.sendline("")
        elif i == 4:
            child.sendline("s")
        else:
            played += 1
            data = json.loads(path.read_text(encoding="utf-8"))
            assert len(data["rounds"]) == played  # every round so far, none lost
            if played == rounds:
                child.sendline("q")
                break
            child.sendline("")
    child.expect(f"Goodbye after {rounds} rounds")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left


@pytest.mark.slow
@pytest.mark.skipif(not Path(SIDEBET).exists(), reason="sidebet script not installed")
def test_a_multi_round_session_is_saved_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    _play_session(path, 5)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "sidebet-session/2" and data["seed"] == 5
    assert len(data["rounds"]) == 5 and len(data["shoes"]) >= 2
    shoes_used = {s["shoe"] for r in data["rounds"] for s in r["shoes"]}
    assert shoes_used == {s["shoe"] for s in data["shoes"]}  # every shoe revealed at the end

    result = _run("--replay", str(path), stdin="\n" * 2000)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "session of 5 rounds replayed (seed 5)" in out
    assert [line.split(" (")[0] for line in out.splitlines() if line.startswith("=== Round")] \
        == [f"=== Round {n} of 5" for n in range(1, 6)]
    assert "Replay verified: identical final state in all 5 rounds." in out

    for name, tamper in (("card", _change_card), ("round-card", _change_round_card),
                         ("salt", _change_salt)):
        bad = tmp_path / f"bad-{name}.json"
        bad.write_text(json.dumps(tamper(json.loads(json.dumps(data)))), encoding="utf-8")
        result = _run("--replay", str(bad))
        assert result.returncode == 2, name
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert "Traceback" not in result.stderr


def _change_card(data: dict[str, object]) -> dict[str, object]:
    shoes = data["shoes"]
    assert isinstance(shoes, list)
    order = shoes[0]["order"].split()
    order[0], order[1] = order[1], order[0]  # one deck: two different cards
    shoes[0]["order"] = " ".join(order)
    return data


def _change_round_card(data: dict[str, object]) -> dict[str, object]:
    rounds = data["rounds"]
    assert isinstance(rounds, list)
    cards = rounds[0]["cards"].split()
    cards[0] = "2c" if cards[0] != "2c" else "3c"
    rounds[0]["cards"] = " ".join(cards)
    return data


def _change_salt(data: dict[str, object]) -> dict[str, object]:
    shoes = data["shoes"]
    assert isinstance(shoes, list)
    salt = shoes[-1]["salt"]
    shoes[-1]["salt"] = ("1" if salt[0] != "1" else "2") + salt[1:]
    return data


@pytest.mark.slow
def test_an_old_single_round_history_still_replays(tmp_path: Path) -> None:
    from sidebet.cli.play_cmds import default_table
    from sidebet.table import Table, play_out, round_to_json
    from sidebet.table.history import dumps

    table = Table(default_table(6), 2, seed=8)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(2, "blackjack", 25_00)
    r.close_bets()
    play_out(r)
    data = round_to_json(r, table.shoe.commitment)  # as saved before session histories
    path = tmp_path / "round.json"
    path.write_text(dumps(data), encoding="utf-8")
    result = _run("--replay", str(path), stdin="\n" * 100)
    assert result.returncode == 0, result.stderr
    assert f"commitment {table.shoe.commitment}" in result.stdout
    assert "Replay verified: identical final state." in result.stdout

    data["final"]["ledger"] = []  # a changed final state
    path.write_text(dumps(data), encoding="utf-8")
    result = _run("--replay", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
