"""A wager is its module: a throwaway three-card wager, written in a temporary module and
registered for this test only, gets its PAR sheet, effects of removal, counts, exact EV on
any shoe, a simulation and a settlement in the table engine, with no other file changed."""

from __future__ import annotations

import importlib
import itertools
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sidebet.regulation.wagers import WAGERS, Wager

MODULE = '''"""Suited Three (a throwaway for the tests): the player's two cards and the upcard are
of one suit."""

from sidebet.core.cards import Card
from sidebet.core.hands import PokerHand, poker_hand
from sidebet.regulation.wagers.base import (
    CountKind,
    EVCategory,
    Outcome,
    Paytable,
    PaytableLine,
    Wager,
)

_CITE = "test"
_BY_HAND = {
    PokerHand.SUITED_THREE_OF_A_KIND: "suited_trips",
    PokerHand.STRAIGHT_FLUSH: "straight_flush",
    PokerHand.FLUSH: "flush",
}


def classify(first: Card, second: Card, upcard: Card) -> str | None:
    return _BY_HAND.get(poker_hand(first, second, upcard))


WAGER = Wager(
    id="suited-three",
    name="Suited Three",
    section=_CITE,
    summary="The two cards and the upcard are of one suit.",
    outcomes=(Outcome("suited_trips", "Suited three-of-a-kind"),
              Outcome("straight_flush", "Straight flush"), Outcome("flush", "Flush")),
    classify=classify,
    paytables=(Paytable("A", (PaytableLine("suited_trips", 100, _CITE),
                              PaytableLine("straight_flush", 30, _CITE),
                              PaytableLine("flush", 3, _CITE)), _CITE),),
    default_paytable="A",
    blackjack_wager_rule=_CITE,
    short="S3",
    ev_category=EVCategory.POKER_HAND,
    counts=(CountKind.SUITS,),
)
'''


@pytest.fixture
def wager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Wager]:
    """The throwaway wager, imported from ``tmp_path`` and in the registry until the test
    ends."""
    (tmp_path / "suited_three.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("suited_three")
    w: Wager = module.WAGER
    monkeypatch.setitem(WAGERS, w.id, w)
    yield w
    sys.modules.pop("suited_three", None)


def brute_force_return(w: Wager, decks: int) -> Fraction:
    """The expected return over every ordered deal of three cards from the shoe."""
    from sidebet.core.cards import ALL_CARDS

    table = w.paytable()
    kinds = [c for c in ALL_CARDS for _ in range(decks)]
    total = won = 0
    for a, b, c in itertools.permutations(range(len(kinds)), 3):
        total += 1
        won += table.pays(w.outcome(kinds[a], kinds[b], kinds[c]))
    return Fraction(won, total)


def test_par_sheet_and_effects_of_removal(wager: Wager) -> None:
    from sidebet.core.shoe import Shoe
    from sidebet.exact.par import par_sheet
    from sidebet.vuln.eor import effects_of_removal
    from sidebet.vuln.side_ev import ev_tables
    from sidebet.vuln.tags import default_counts

    sheet = par_sheet(wager.id, 1)
    assert sheet.expected_return == brute_force_return(wager, 1)
    assert [line.outcome for line in sheet.lines][:3] == ["suited_trips", "straight_flush",
                                                          "flush"]
    eor = effects_of_removal(wager.id, 6)
    assert eor.expected_return == par_sheet(wager.id, 6).expected_return
    # flushes grow with the suits' spread: any one card removed helps, whatever it is
    assert eor.effect("2s") > 0 and eor.effect("2s") == pytest.approx(eor.effect("Kh"))
    counts = [c.name for c in default_counts(eor)]
    assert "suits" in counts and "ranks" not in counts and "sevens" not in counts
    # the exact EV kernel reads the wager through its declared category, on any shoe
    shoe = np.full(52, 6, dtype=np.int64)
    shoe[3::4] = 2  # spades short
    ev = ev_tables(((wager.id, "A"),)).expected_returns(shoe)[0]
    short = Shoe(tuple(int(n) for n in shoe))
    assert ev == pytest.approx(float(par_sheet(wager.id, short).expected_return))


def test_simulation(wager: Wager) -> None:
    from sidebet.exact.par import par_sheet
    from sidebet.sim import SimSpec, resolve_sides, simulate

    spec = SimSpec(decks=6, seats=2, sides=resolve_sides([wager.id], 6))
    result = simulate(spec, rounds=20_000, seed=3)
    (side,) = result.to_json()["side_wagers"]
    assert spec.sides == ((wager.id, "A"),) and result.seat_rounds == 40_000
    assert side["wager"] == wager.id and side["name"] == "Suited Three"
    exact = float(par_sheet(wager.id, 6).expected_return)
    assert side["exact_return"] == pytest.approx(exact)
    assert abs(side["return_per_unit"] - exact) < 4 * side["std_error"]
    assert set(side["outcomes"]) >= {"flush", "lose"}


def test_settlement_in_the_table_engine(wager: Wager) -> None:
    from sidebet.regulation.submission import TableConfig
    from sidebet.table.dealing import DealingShoe
    from sidebet.table.state import RoundState

    config = TableConfig(decks=6, side_wagers={wager.id: "A"})
    shoe = DealingShoe.stacked("9h 2h Kh 9c")  # seat 1: 9h Kh against the upcard 2h
    r = RoundState(config, seats=1, draw=shoe.deal)
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, wager.id, 5_00)
    r.close_bets()
    (settled,) = r.side_settlements(1)
    assert (settled.wager, settled.outcome, settled.winnings) == (wager.id, "flush", 15_00)
    assert wager.id in {e.wager for e in r.ledger}
