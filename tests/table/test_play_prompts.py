"""The game's prompts accept exactly what they say, refuse hostile
amounts and ask again, and show results per seat with consistent signs."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest

from sidebet.cli.play_cmds import parse_decision, signed
from sidebet.table.records import Step

from .test_play_cli import SIDEBET, spawn

pytestmark = pytest.mark.skipif(not Path(SIDEBET).exists(),
                                reason="sidebet script not installed")

SIDES = 5  # side-wager prompts per seat at the default 6-deck table


def _bets(child: pexpect.spawn, seat: int, blackjack: str, trilux: str = "") -> None:
    child.expect(f"Seat {seat} Blackjack wager")
    child.sendline(blackjack)
    child.expect(f"Seat {seat} TriLux Deluxe wager")
    child.sendline(trilux)
    for _ in range(SIDES - 1):
        child.expect(r"wager \[Enter = none\]: ")
        child.sendline("")


def test_decisions_are_whole_words_or_exact_keys() -> None:
    assert parse_decision("split") == (Step.SPLIT, "")
    assert parse_decision("P") == (Step.SPLIT, "")
    assert parse_decision("surrender") == (Step.SURRENDER, "")
    assert parse_decision("double 5") == (Step.DOUBLE, "5")
    for text in ("spl", "sp", "stan", "hi", "splitx", "s 5", "h x", "dd", "", "?"):
        assert parse_decision(text) is None, text
    assert [signed(c) for c in (500, -1000, 0)] == ["+5.00", "-10.00", "0.00"]


@pytest.mark.slow
def test_hostile_prompts_are_refused_and_asked_again() -> None:
    # seed 14, two seats: seat 1 holds 9♦ 9♥, seat 2 7♦ 2♥, against 2♥
    child = spawn("--seed", "14", "--seats", "2")
    child.expect(r"Seat 1 Blackjack wager")
    for hostile in ("1e999999999", "9" * 3000, "nan", "-inf", "-5", "0.001"):
        child.sendline(hostile)
        child.expect(r"Seat 1 Blackjack wager")
    child.sendline("10")
    child.expect("Seat 1 TriLux Deluxe wager")
    child.sendline("1e400")
    child.expect("Seat 1 TriLux Deluxe wager")
    child.sendline("")
    for _ in range(SIDES - 1):
        child.expect(r"wager \[Enter = none\]: ")
        child.sendline("")
    _bets(child, 2, "10")
    child.expect("Seat 1 hand 1: 9♦ 9♥")
    child.expect(r"\?\)advice: ")
    for partial in ("spl", "sp", "stan"):  # never mapped to another action
        child.sendline(partial)
        child.expect(f"not a decision here: '{partial}'")
        child.expect(r"\?\)advice: ")
    child.sendline("split")
    child.expect(r"Seat 1 hand 1: 9♦ \S+ \(")
    child.expect(r"\?\)advice: ")
    child.sendline("d 50")  # more than the wager: the Double Down rule, not the Press's
    child.expect(r"§ 633a\.10: the Double Down wager must be more than 0 and at most "
                 r"the whole wager 10\.00, not 50\.00")
    child.expect(r"\?\)advice: ")
    child.sendline("d 1e99999")
    child.expect("not an amount of money")
    child.expect(r"\?\)advice: ")
    child.sendline("double 5")  # a partial double shows its card like a full one
    child.expect(r"  double: \S+")
    child.expect(r"Seat 1 hand 2: 9♥")
    child.sendline("stand")
    child.expect(r"Seat 2 hand 1: 7♦ 2♥")
    child.sendline("s")
    child.expect(r"Seat 1 round result: [+-]?\d+\.\d\d")
    child.expect("Another round")
    child.sendline("maybe")
    child.expect("not an answer: 'maybe'")
    child.expect("Another round")
    child.sendline("q")
    child.expect("Goodbye after 1 round")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_side_wager_results_belong_to_the_seat_that_made_them() -> None:
    # seed 3856: both seats hold 2♣ 6♠; seat 1 bets TriLux Deluxe 5.00, seat 2 10.00
    child = spawn("--seed", "3856", "--seats", "2")
    _bets(child, 1, "10", "5")
    _bets(child, 2, "10", "10")
    child.expect("Seat 1 hand 1: 2♣ 6♠")
    child.expect("Seat 2 hand 1: 2♣ 6♠")
    child.expect(r"Side wagers \(settled")
    child.expect(r"  (seat \d) TriLux Deluxe: loses \(§ 633c\.11\S*\) -10\.00")
    assert child.match.group(1) == "seat 2"
    child.expect(r"  (seat \d) TriLux Deluxe: loses \(§ 633c\.11\S*\) -5\.00")
    assert child.match.group(1) == "seat 1"
    child.sendline("q")
    child.expect(pexpect.EOF)
