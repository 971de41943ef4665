"""Shared helpers for the table tests: stacked rounds and random legal play."""

from __future__ import annotations

import random
from dataclasses import replace

from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard, HouseRules
from sidebet.regulation.submission import TableConfig
from sidebet.table import DealingShoe, Phase, RoundState, Step
from sidebet.table.policy import take

TLX = {1: "TLX-1", 2: "TLX-2", 4: "TLX-3", 6: "TLX-3", 8: "TLX-3"}


def full_table(decks: int = 6, rules: HouseRules | None = None) -> TableConfig:
    """A table offering every side wager the deck count allows."""
    side = {"trilux": TLX[decks], "top3": "A", "blazing7s": "A", "three-card-poker": "classic"}
    if decks in (4, 6, 8):
        side["upcard-luck"] = "standard"
    return TableConfig(decks=decks, side_wagers=side, rules=rules or HouseRules())


def stacked(cards: str, seats: int = 1, config: TableConfig | None = None,
            **rules: object) -> RoundState:
    cfg = config or full_table()
    if rules:
        cfg = replace(cfg, rules=replace(cfg.rules, **rules))  # type: ignore[arg-type]
    return RoundState(cfg, seats, DealingShoe.stacked(cards).deal)


def random_rules(rng: random.Random) -> HouseRules:
    return HouseRules(
        dealer_hits_soft_17=rng.random() < 0.5,
        blackjack_pays=rng.choice(list(BlackjackPays)),
        double=rng.choice(list(DoubleRule)),
        double_after_split=rng.random() < 0.5,
        max_split_hands=rng.randint(2, 4),
        resplit_aces=rng.random() < 0.5,
        hit_split_aces=rng.random() < 0.5,
        late_surrender=rng.random() < 0.5,
        insurance=rng.random() < 0.8,
        hole_card=rng.choice(list(HoleCard)),
        dealer_blackjack_takes_doubles=rng.random() < 0.5,
    )


def random_round(rng: random.Random, state: RoundState) -> RoundState:
    """Random bets (some refused) and random legal decisions to the end of the round."""
    cfg = state.config
    for seat in range(1, state.seat_count + 1):
        if rng.random() < 0.2:
            continue
        bj = rng.choice([5_00, 10_00, 25_00, 7_35])
        state.place_bet(seat, "blackjack", bj)
        for wager in ("trilux", "upcard-luck", "three-card-poker", "top3", "blazing7s"):
            if wager in cfg.side_wagers and rng.random() < 0.6:
                amount = rng.choice([1_00, 5_00, bj, 2 * bj, 3 * bj])
                if state.can_place_bet(seat, wager, amount):
                    state.place_bet(seat, wager, amount)
    if not state.can_close_bets():
        state.place_bet(1, "blackjack", 10_00)
    state.close_bets()
    while state.phase is not Phase.DONE:
        if state.phase is Phase.PRESS:
            seat, most = next(iter(state.press_offers().items()))
            state.press(seat, rng.choice([0, most, most // 200 * 100]))
        elif state.phase is Phase.INSURANCE:
            seat, most = next(iter(state.insurance_offers().items()))
            state.insure(seat, rng.choice([0, most]))
        else:
            legal = state.legal_actions()
            step = rng.choice(legal)
            if step is Step.DOUBLE and rng.random() < 0.3:
                state.double(max(1, state.double_limit() // 2))
            else:
                take(state, step)
    return state
