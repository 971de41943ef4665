"""What a seat may do now: the decisions open to it, each with what a player needs to
choose it.

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table.dealing import DealingShoe
>>> from sidebet.table.state import RoundState
>>> r = RoundState(TableConfig(side_wagers={"trilux": "TLX-3"}), 2,
...                DealingShoe.stacked("8h 9c 8d 7s 10d").deal)
>>> r.options(1)
(Option(step=<Step.BET: 'bet'>, wagers=('blackjack', 'trilux'), most=None, unit=None, cost=None),)
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
>>> [o.step.value for o in r.options(1)], r.options(2)
(['hit', 'stand', 'double', 'split', 'surrender'], ())
"""

from __future__ import annotations

from dataclasses import dataclass

from sidebet.core.money import Cents
from sidebet.table.actions import PLAY_ACTIONS
from sidebet.table.checks import close_violations
from sidebet.table.model import BLACKJACK, RoundView
from sidebet.table.records import Phase, Step

__all__ = ["Option", "options"]


@dataclass(frozen=True, slots=True)
class Option:
    """One decision open to a seat now: its step and what a player needs to choose it.

    ``wagers`` (a bet): the wagers not placed yet, the Blackjack wager first; ``most``
    (press, insurance, double): the largest amount; ``unit`` (press): the amount is whole
    table units (§ 633c.11(e)); ``cost`` (split): what the new hand's wager costs
    (§ 633c.11(g)).
    """

    step: Step
    wagers: tuple[str, ...] = ()
    most: Cents | None = None
    unit: Cents | None = None
    cost: Cents | None = None


def options(state: RoundView, seat: int) -> tuple[Option, ...]:
    """The decisions open to ``seat`` now, in the order they are offered (none for a seat
    that is not at the table)."""
    if seat not in state.seat_states:
        return ()
    if state.phase is Phase.BETTING:
        placed = state.seat_states[seat].bets
        out: list[Option] = []
        wagers = tuple(w for w in (BLACKJACK, *state.config.side_wagers) if w not in placed)
        if wagers:
            out.append(Option(Step.BET, wagers=wagers))
        if BLACKJACK in placed and not close_violations(state):
            out.append(Option(Step.CLOSE_BETS))
        return tuple(out)
    if state.phase is Phase.PRESS:
        offer = state.press_offers().get(seat)
        return () if offer is None else (Option(Step.PRESS, most=offer, unit=state.unit),)
    if state.phase is Phase.INSURANCE:
        offer = state.insurance_offers().get(seat)
        return () if offer is None else (Option(Step.INSURANCE, most=offer),)
    hand = state.current_hand
    if state.phase is not Phase.PLAY or hand is None or hand.seat != seat:
        return ()
    out = []
    for action in PLAY_ACTIONS:
        if not action.can(state):
            continue
        if action.step is Step.DOUBLE:
            out.append(Option(action.step, most=state.double_limit()))
        elif action.step is Step.SPLIT:
            out.append(Option(action.step, cost=state.split_cost()))
        else:
            out.append(Option(action.step))
    return tuple(out)
