"""Properties over many random rounds: the ledger balances, side wagers match the
classifiers, histories replay, the shoe's commitment verifies."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidebet.core.errors import SidebetError
from sidebet.regulation.side_settlement import settle
from sidebet.regulation.wagers import get_wager
from sidebet.table import (
    DealingShoe,
    Move,
    Phase,
    RoundState,
    Table,
    replay,
    round_to_json,
    shuffled_order,
    unshuffled_order,
    verify_commitment,
)
from sidebet.table.history import dumps, loads
from sidebet.table.policy import PressAll, PressByAdvice, play_out

from .helpers import full_table, random_round, random_rules


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(1, 7),
       decks=st.sampled_from([1, 2, 4, 6, 8]))
def test_ledger_balances_round_by_round_and_wager_by_wager(seed: int, seats: int,
                                                           decks: int) -> None:
    rng = random.Random(seed)
    table = Table(full_table(decks, random_rules(rng)), seats, seed=seed)
    for _ in range(3):
        r = random_round(rng, table.new_round())
        table.finish(r)
        assert r.phase is Phase.DONE
        assert r.ledger.open_stakes() == {}  # every stake returned or collected
        keys = {(e.seat, e.wager) for e in r.ledger}
        for seat, wager in keys:
            put_in = r.ledger.total(Move.STAKE, seat, wager)
            took_back = r.ledger.total(Move.RETURN, seat, wager) + r.ledger.total(
                Move.WIN, seat, wager)
            assert put_in == took_back + r.ledger.house_net(seat, wager)
        assert r.ledger.player_net() == -r.ledger.house_net()
        assert all(e.amount > 0 and e.citation for e in r.ledger)


@pytest.mark.slow
def test_side_wager_outcomes_equal_the_classifiers_over_thousands_of_rounds() -> None:
    cfg = full_table(6)
    table = Table(cfg, 7, seed=2024)
    checked = 0
    for _ in range(400):
        r = table.new_round()
        for seat in range(1, 8):
            r.place_bet(seat, "blackjack", 10_00)
            r.place_bet(seat, "three-card-poker", 5_00)
            for w in ("trilux", "upcard-luck", "top3", "blazing7s"):
                r.place_bet(seat, w, 5_00)
        r.close_bets()
        up = r.upcard
        assert up is not None
        for s in r.side_settlements():
            w = get_wager(s.wager)
            assert s.outcome == w.outcome(*s.player, up)
            ref = settle(cfg, w, s.amount, 10_00, s.player, up, 5_00)
            assert (ref.outcome, ref.net, ref.citation) == (s.outcome, s.net, s.citation)
            checked += 1
        firsts = {tuple(h.cards[:2]) for h in r.hands}
        assert {s.player for s in r.side_settlements()} <= firsts
        play_out(r, press=PressByAdvice())
        table.finish(r)
    assert checked == 400 * 7 * 5


@pytest.mark.slow
def test_histories_replay_to_the_identical_state() -> None:
    rng = random.Random(5)
    for i in range(150):
        table = Table(full_table(rng.choice([1, 2, 4, 6, 8]), random_rules(rng)),
                      rng.randint(1, 7), seed=i, chips=200_00)
        r = random_round(rng, table.new_round()) if i % 2 else table.new_round()
        if i % 2 == 0:
            r.place_bet(1, "blackjack", 10_00)
            r.place_bet(1, "trilux", 10_00)
            r.close_bets()
            play_out(r, press=PressAll())
        data = loads(dumps(round_to_json(r, table.shoe.commitment)))
        again = replay(data)
        assert again.snapshot() == r.snapshot()
        assert again.records == r.records


def test_tampered_history_is_refused() -> None:
    table = Table(full_table(6), 1, seed=9)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    play_out(r)
    data = round_to_json(r)
    data["final"]["ledger"] = []
    with pytest.raises(SidebetError, match="final state"):
        replay(json.loads(json.dumps(data)))
    with pytest.raises(SidebetError, match="not a hand history"):
        loads("{}")


def test_seeded_shuffle_is_the_documented_algorithm() -> None:
    expected = np.random.Generator(np.random.PCG64(77)).permutation(np.tile(np.arange(52), 6))
    assert shuffled_order(6, 77).tolist() == expected.tolist()
    assert sorted(shuffled_order(3).tolist()) == sorted(unshuffled_order(3).tolist())


def test_commitment_verifies_and_detects_tampering() -> None:
    shoe = DealingShoe.shuffled(2)
    digest = shoe.commitment
    cards = [shoe.deal() for _ in range(10)]
    assert [c.index for c in cards] == list(shoe.order[:10])
    salt = shoe.reveal_salt()
    assert verify_commitment(shoe.order, salt, digest)
    swapped = list(shoe.order)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert swapped == list(shoe.order) or not verify_commitment(swapped, salt, digest)
    assert not verify_commitment(shoe.order, salt + b"x", digest)
    assert DealingShoe.seeded(6, 1).commitment == DealingShoe.seeded(6, 1).commitment


def test_cut_card_reshuffles_and_publishes_each_commitment() -> None:
    table = Table(full_table(1), 7, seed=3)
    for _ in range(12):
        r = table.new_round()
        for seat in range(1, 8):
            r.place_bet(seat, "blackjack", 10_00)
        r.close_bets()
        play_out(r)
        table.finish(r)
    assert table.shoe_number >= 2 and len(table.commitments) == table.shoe_number + 1
    for order, salt, digest in table.revealed:
        assert verify_commitment(order, salt, digest)


def test_chips_limit_bets() -> None:
    table = Table(full_table(6), 1, seed=1, chips=15_00)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    assert not r.can_place_bet(1, "trilux", 10_00)
    assert r.can_place_bet(1, "trilux", 5_00)
    assert isinstance(r, RoundState) and r.chips(1) == 5_00
