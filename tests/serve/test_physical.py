"""A dealer-assist table in memory (serve/physical.PhysicalTable): a decision waits for its
cards, a dealt card corrected replays the round on the true cards with its money undone and
redone exactly (table/corrections.py), and a snapshot restores the entered shoe."""

from __future__ import annotations

from typing import Any

import pytest

from sidebet.core.errors import RuleError, SidebetError
from sidebet.regulation.submission import TableConfig
from sidebet.serve.physical import PhysicalTable
from sidebet.table import RoundState
from sidebet.table.dealing import DealingShoe
from sidebet.table.records import Bet, CloseBets, Stand, Withdraw


def table() -> PhysicalTable:
    t = PhysicalTable(1, "pit", TableConfig(decks=1, side_wagers={"trilux": "TLX-1"}),
                      seats=2, unit=100, time_limit=30, default_action="stand",
                      seed_of=lambda n: None)
    t.apply("sit", {"seat": 1, "account": 7, "name": "ann"}, "t")
    t.apply("round-open", {"round": 1, "chips": {"1": 100_00, "2": 0},
                           "accounts": {"1": 7}}, "t")
    for wager, amount in (("blackjack", "10.00"), ("trilux", "5.00")):
        t.apply("action", {"decision": Bet(1, wager, 0).to_json() | {"amount": amount}}, "t")
    return t


def enter(t: PhysicalTable, cards: str) -> None:
    for code in cards.split():
        t.apply("card", {"shoe": 0, "position": len(t.shoe.entered), "card": code,
                         "source": "dealer d", "confidence": None}, "t")


def test_a_decision_waits_for_its_cards() -> None:
    t = table()
    enter(t, "Kh 9c")
    assert t.awaits_cards(CloseBets(seat=1))
    t.apply("awaiting", {"decision": CloseBets(seat=1).to_json(), "seat": 1, "actor": 7}, "t")
    with pytest.raises(RuleError, match="waits for the cards of seat 1"):
        t.awaits_cards(Stand(1, 0))
    assert t.legal(1) == [] and t.ready() is None
    enter(t, "7d")
    assert t.ready() is None
    enter(t, "8s")
    decision = t.ready()
    assert decision is not None
    t.perform(decision)
    assert t.awaiting is None and t.state is not None
    assert " ".join(c.code for c in t.state.dealer) == "9c 8s"


def test_a_dealt_card_corrected_replays_the_round() -> None:
    t = table()
    enter(t, "2h 9h 5h 8s")  # seat 1: 2h 5h, a TriLux flush with the upcard 9h
    t.perform(CloseBets(seat=1))
    assert t.state is not None
    paid = t.state.ledger.player_net(1)
    t.apply("correction-asked", {"request": 9, "kind": "card", "reason": "misread",
                                 "asked_by": "dana", "round": 1, "game": "T1-R1",
                                 "position": 2, "card": "5c"}, "t")
    fix = t.correct(9, "sam")
    # the flush is gone: the correction takes its winnings back and books the true round
    true = RoundState(TableConfig(decks=1, side_wagers={"trilux": "TLX-1"}), 2,
                      DealingShoe.stacked("2h 9h 5c 8s").deal, unit=100,
                      chips={1: 100_00, 2: 0})
    true.place_bet(1, "blackjack", 10_00)
    true.place_bet(1, "trilux", 5_00)
    true.close_bets()
    assert paid + fix.player_net(1) == true.ledger.player_net(1)
    assert [e.to_json() for e in t.state.ledger.entries] == [
        e.to_json() for e in true.ledger.entries]
    assert t.shoe.entered[2].card.code == "5c" and t.shoe.position == 4
    with pytest.raises(SidebetError, match="no correction request 9"):
        t.correct(9, "sam")


def test_a_void_then_the_snapshot_restores_the_shoe() -> None:
    t = table()
    enter(t, "Ah Kh 4d 6d 3c")
    t.perform(CloseBets(seat=1))
    t.apply("correction-asked", {"request": 3, "kind": "void", "reason": "wrong shoe",
                                 "asked_by": "dana", "round": 1, "game": "T1-R1"}, "t")
    fix = t.correct(3, "sam")
    assert t.state is not None
    assert fix.player_net(1) == -t.state.ledger.player_net(1) and not t.round_open
    with pytest.raises(SidebetError, match="no round to void"):
        t.ask("void", "again", "dana")
    data: dict[str, Any] = t.snapshot()
    fresh = PhysicalTable(1, "pit", t.config, seats=2, unit=100, time_limit=30,
                          default_action="stand", seed_of=lambda n: None)
    fresh.restore(data)
    assert fresh.snapshot_digest() == t.snapshot_digest()
    # the card drawn for the voided round (3c, waiting) went back with it
    assert t.waiting == [] and len(t.shoe.entered) == 4
    assert fresh.waiting == [] and fresh.voided == {1}


def test_entered_cards_play_as_a_stacked_shoe() -> None:
    """Differential, 120 rounds at three seats played by the published chart (splits,
    doubles, surrenders, insurance and the Press among them): a round whose cards are
    entered one at a time (some before they are needed, the rest only when a decision
    waits for them) plays exactly as the engine dealing the same cards from a stacked
    shoe: same cards dealt, same ledger."""
    import random
    from collections import Counter

    from sidebet.core.cards import Card
    from sidebet.table.policy import CHART, PressAll, play_out

    config = TableConfig(decks=1, side_wagers={"trilux": "TLX-1"})
    steps: Counter[str] = Counter()
    for seed in range(120):
        rng = random.Random(seed)
        cards = [Card.from_index(i) for i in rng.sample(range(52), 52)]
        ref = RoundState(config, 3, DealingShoe.stacked(cards).deal, unit=100,
                         chips={1: 100_00, 2: 100_00, 3: 100_00})
        for seat in (1, 2, 3):
            ref.place_bet(seat, "blackjack", 10_00)
        ref.place_bet(1, "trilux", 5_00)
        ref.close_bets()
        play_out(ref, CHART, PressAll())
        t = PhysicalTable(1, "pit", config, seats=3, unit=100, time_limit=30,
                          default_action="stand", seed_of=lambda n: None)
        for seat in (1, 2, 3):
            t.apply("sit", {"seat": seat, "account": 6 + seat, "name": f"p{seat}"}, "t")
        t.apply("round-open", {"round": 1, "chips": {str(s): 100_00 for s in (1, 2, 3)},
                               "accounts": {str(s): 6 + s for s in (1, 2, 3)}}, "t")
        left = [c.code for c in cards]
        for rec in (r for r in ref.records if r.is_decision):
            if rng.random() < 0.3:
                enter(t, left.pop(0))
            while t.awaits_cards(rec):
                steps["waited"] += 1
                enter(t, left.pop(0))
            t.perform(rec)
            steps[rec.step.value] += 1
        assert t.state is not None
        assert t.state.dealt == ref.dealt and t.state.ledger.entries == ref.ledger.entries
    assert all(steps[k] for k in ("waited", "split", "double", "surrender", "insurance",
                                  "press")), steps


def test_a_withdrawal_waits_for_the_cards_it_needs() -> None:
    t = table()
    enter(t, "Kh 9c 7d 6s")  # seat 1: Kh 7d; the dealer 9c 6s must draw
    t.perform(CloseBets(seat=1))
    out = Withdraw(1, citation="house rule: the account is excluded by the operator")
    assert t.awaits_cards(out)  # her hand stands; the dealer's card is not entered yet
    t.apply("awaiting", {"decision": out.to_json(), "seat": 1, "actor": None}, "t")
    enter(t, "5c")
    decision = t.ready()
    assert decision == out
    t.perform(decision)
    assert t.state is not None and t.state.hands[0].done
    assert " ".join(c.code for c in t.state.dealer) == "9c 6s 5c"
