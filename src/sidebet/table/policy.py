"""Strategy players: policies that choose a legal action from a round's state.

A :class:`PlayPolicy` chooses the current hand's action; a :class:`PressPolicy` how much
of a TriLux Deluxe win to press; an :class:`InsurancePolicy` how much insurance to take.
The exact analyser (``sidebet.blackjack``) can plug in later as another ``PlayPolicy``.

:data:`CHART_6D_S17_DAS_LS` is the **standard published basic-strategy chart** for 4–8
decks, dealer stands on soft 17, double any two, double after split, late surrender (the
interpretation-14 default table).  It is a placeholder, *not* computed for the exact rules
of the table: :class:`ChartStrategy` falls back to hitting or standing when the table
does not allow the chart's double, split or surrender.

>>> from sidebet.cards import parse_cards
>>> chart_action(parse_cards("10h 6d"), parse_cards("Ks")[0], can_split=False)
'Rh'
>>> chart_action(parse_cards("8h 8d"), parse_cards("As")[0], can_split=True)
'P'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sidebet.cards import Card, Rank
from sidebet.errors import SidebetError
from sidebet.hands import blackjack_value
from sidebet.money import Cents
from sidebet.table.records import Phase, Record, Step
from sidebet.table.state import RoundState

__all__ = [
    "BASIC",
    "CHART_6D_S17_DAS_LS",
    "Advice",
    "ChartStrategy",
    "InsurancePolicy",
    "NeverInsure",
    "PlayPolicy",
    "PressAll",
    "PressByAdvice",
    "PressNothing",
    "PressPolicy",
    "chart_action",
    "play_out",
]

# Columns: dealer upcard 2,3,4,5,6,7,8,9,10,A.  H hit, S stand, D double (else hit),
# Ds double (else stand), P split, Rh surrender (else hit).
_HARD = {
    **{t: "H H H H H H H H H H" for t in range(4, 9)},
    9: "H D D D D H H H H H",
    10: "D D D D D D D D H H",
    11: "D D D D D D D D D H",
    12: "H H S S S H H H H H",
    13: "S S S S S H H H H H",
    14: "S S S S S H H H H H",
    15: "S S S S S H H H Rh H",
    16: "S S S S S H H Rh Rh Rh",
    **{t: "S S S S S S S S S S" for t in range(17, 22)},
}
_SOFT = {
    12: "H H H H H H H H H H",
    13: "H H H D D H H H H H",
    14: "H H H D D H H H H H",
    15: "H H D D D H H H H H",
    16: "H H D D D H H H H H",
    17: "H D D D D H H H H H",
    18: "S Ds Ds Ds Ds S S H H H",
    19: "S S S S S S S S S S",
    20: "S S S S S S S S S S",
    21: "S S S S S S S S S S",
}
_PAIRS = {
    2: "P P P P P P H H H H",
    3: "P P P P P P H H H H",
    4: "H H H P P H H H H H",
    6: "P P P P P H H H H H",
    7: "P P P P P P H H H H",
    8: "P P P P P P P P P P",
    9: "P P P P P S P P S S",
    11: "P P P P P P P P P P",
}

CHART_6D_S17_DAS_LS: dict[str, dict[int, tuple[str, ...]]] = {
    "hard": {k: tuple(v.split()) for k, v in _HARD.items()},
    "soft": {k: tuple(v.split()) for k, v in _SOFT.items()},
    "pair": {k: tuple(v.split()) for k, v in _PAIRS.items()},
}
"""Published basic strategy, 4–8 decks S17 DAS LS (placeholder until the exact analyser)."""


def _column(upcard: Card) -> int:
    return 9 if upcard.rank is Rank.ACE else upcard.rank.blackjack_value - 2


def chart_action(cards: Sequence[Card], upcard: Card, can_split: bool) -> str:
    """The chart's code for a hand: ``H``, ``S``, ``D``, ``Ds``, ``P`` or ``Rh``."""
    col = _column(upcard)
    if can_split and len(cards) == 2:
        value = cards[0].rank.blackjack_value
        if cards[0].rank.blackjack_value == cards[1].rank.blackjack_value and value in _PAIRS:
            code = CHART_6D_S17_DAS_LS["pair"][value][col]
            if code == "P":
                return code
    v = blackjack_value(cards)
    if v.soft and v.total in _SOFT:
        return CHART_6D_S17_DAS_LS["soft"][v.total][col]
    return CHART_6D_S17_DAS_LS["hard"][min(max(v.total, 4), 21)][col]


@dataclass(frozen=True, slots=True)
class Advice:
    """A recommended action and why."""

    step: Step
    reason: str


class PlayPolicy(Protocol):
    """Chooses the current hand's action (one of ``state.legal_actions()``)."""

    name: str

    def advise(self, state: RoundState) -> Advice:
        """The action for ``state.current_hand``."""
        ...


class PressPolicy(Protocol):
    """Chooses how much of a TriLux Deluxe win ``seat`` presses (whole units)."""

    name: str

    def press_amount(self, state: RoundState, seat: int) -> Cents:
        """Cents to press (0 collects)."""
        ...


class InsurancePolicy(Protocol):
    """Chooses the insurance ``seat`` takes."""

    def insurance_amount(self, state: RoundState, seat: int) -> Cents:
        """Cents of insurance (0 declines)."""
        ...


class ChartStrategy:
    """Basic strategy from the published chart (labelled: not exact for other rules)."""

    name = "basic strategy (published chart, 6 decks S17 DAS LS)"

    def advise(self, state: RoundState) -> Advice:
        """The chart's action, falling back to what the table allows.

        >>> from sidebet.config import TableConfig
        >>> from sidebet.table.dealing import DealingShoe
        >>> r = RoundState(TableConfig(), 1, DealingShoe.stacked("5h 6d 6s 10c").deal)
        >>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
        >>> BASIC.advise(r).step
        <Step.DOUBLE: 'double'>
        """
        hand = state.current_hand
        up = state.upcard
        if hand is None or up is None:
            raise SidebetError("there is no hand to advise on")
        legal = state.legal_actions()
        code = chart_action(hand.cards, up, Step.SPLIT in legal)
        where = f"{self.name}: {hand.value} vs {up}"
        if code == "P" and Step.SPLIT in legal:
            return Advice(Step.SPLIT, f"{where}: split")
        if code in ("D", "Ds") and Step.DOUBLE in legal:
            return Advice(Step.DOUBLE, f"{where}: double")
        if code == "Rh" and Step.SURRENDER in legal:
            return Advice(Step.SURRENDER, f"{where}: surrender")
        if code in ("S", "Ds") or Step.HIT not in legal:
            return Advice(Step.STAND, f"{where}: stand")
        return Advice(Step.HIT, f"{where}: hit")


BASIC = ChartStrategy()
"""The default play policy."""


class PressAll:
    """Press every whole unit of the winnings."""

    name = "press everything"

    def press_amount(self, state: RoundState, seat: int) -> Cents:
        """The largest legal press."""
        return state.press_offers().get(seat, 0)


class PressNothing:
    """Always collect the winnings."""

    name = "press nothing"

    def press_amount(self, state: RoundState, seat: int) -> Cents:
        """Zero."""
        return 0


class PressByAdvice:
    """A simple rule until the exact press advisor lands (labelled as such): press
    everything when the hand is a favourite before the dealer's hole card is known — a
    player Blackjack, 19–21, 11 against 2–10, 10 against 2–9, or 20 against anything —
    otherwise collect.  Not an exact optimum."""

    name = "press by advice (simple rule, not exact)"

    def press_amount(self, state: RoundState, seat: int) -> Cents:
        """All or nothing by the rule above."""
        hands = state.hands_of(seat)
        up = state.upcard
        if not hands or up is None:
            return 0
        hand = hands[0]
        v = hand.value
        upv = up.rank.blackjack_value
        good = (
            hand.is_natural
            or v.total >= 20
            or (v.total == 19 and upv <= 9)
            or (v.total == 11 and upv <= 10)
            or (v.total == 10 and upv <= 9)
        )
        return state.press_offers().get(seat, 0) if good else 0


class NeverInsure:
    """Basic strategy never takes insurance."""

    def insurance_amount(self, state: RoundState, seat: int) -> Cents:
        """Zero."""
        return 0


def take(state: RoundState, step: Step) -> Record:
    """Take a play action (hit, stand, double, split, surrender) with default amounts."""
    if step is Step.HIT:
        return state.hit()
    if step is Step.STAND:
        return state.stand()
    if step is Step.DOUBLE:
        return state.double()
    if step is Step.SPLIT:
        return state.split()
    if step is Step.SURRENDER:
        return state.surrender()
    raise SidebetError(f"{step.value} is not a play action")


def play_out(
    state: RoundState,
    play: PlayPolicy = BASIC,
    press: PressPolicy | None = None,
    insurance: InsurancePolicy | None = None,
) -> None:
    """Finish a round whose bets are closed, deciding everything by the policies."""
    press = press or PressNothing()
    insurance = insurance or NeverInsure()
    while state.phase is not Phase.DONE:
        if state.phase is Phase.PRESS:
            seat = next(iter(state.press_offers()))
            state.press(seat, press.press_amount(state, seat))
        elif state.phase is Phase.INSURANCE:
            seat = next(iter(state.insurance_offers()))
            state.insure(seat, insurance.insurance_amount(state, seat))
        elif state.phase is Phase.PLAY:
            take(state, play.advise(state).step)
        else:
            raise SidebetError("the bets are not closed yet")
