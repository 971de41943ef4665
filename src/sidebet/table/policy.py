"""Strategy players: policies that choose a legal action from a round's state.

A :class:`PlayPolicy` chooses the current hand's action; a :class:`PressPolicy` how much
of a TriLux Deluxe win to press; an :class:`InsurancePolicy` how much insurance to take.

:data:`BASIC` (the default play policy) is :class:`ExactStrategy`: the exact analyser's
total-dependent basic strategy computed for the table's own house rules and deck count
(:func:`sidebet.exact.blackjack.basic_strategy`); ``ExactStrategy("composition")`` plays the
composition-dependent strategy instead.  :class:`PressByAdvice` presses by the exact
Press advisor (:func:`sidebet.exact.blackjack.press_advice`).

:data:`CHART` plays :data:`~sidebet.exact.blackjack.chart.CHART_6D_S17_DAS_LS`, the **standard
published basic-strategy chart** for 4–8 decks, dealer stands on soft 17, double any two,
double after split, late surrender (the interpretation-14 default table; kept in
:mod:`sidebet.exact.blackjack.chart`).  It is *not* computed for the exact rules of the table:
:class:`ChartStrategy` falls back as the chart's codes say when the table does not allow
the chart's double, split or surrender.  :class:`PressBySimpleRule` is the old simple
(not exact) press rule (:func:`sidebet.exact.blackjack.press.simple_press_rule`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents
from sidebet.exact.blackjack import PressAdvice, Strategy
from sidebet.exact.blackjack import basic_strategy as _basic_strategy
from sidebet.exact.blackjack import composition_strategy as _composition_strategy
from sidebet.exact.blackjack.chart import CHART_6D_S17_DAS_LS, CHART_NAME, chart_action
from sidebet.exact.blackjack.press import full_shoe_press_advice, simple_press_rule
from sidebet.regulation.base_game.codes import ACTION_NAMES, HIT, parse_chart_code
from sidebet.regulation.base_game.legality import choose
from sidebet.regulation.house_rules import HouseRules
from sidebet.table.actions import play_action
from sidebet.table.records import Phase, Record, Step
from sidebet.table.state import RoundState

__all__ = [
    "BASIC",
    "CHART",
    "CHART_6D_S17_DAS_LS",
    "COMPOSITION",
    "Advice",
    "ChartStrategy",
    "ExactStrategy",
    "InsurancePolicy",
    "NeverInsure",
    "PlayPolicy",
    "PressAll",
    "PressByAdvice",
    "PressBySimpleRule",
    "PressNothing",
    "PressPolicy",
    "chart_action",
    "full_shoe_press_advice",
    "play_out",
]

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

    name = CHART_NAME

    def advise(self, state: RoundState) -> Advice:
        """The chart's action, falling back to what the table allows.

        >>> from sidebet.regulation.submission import TableConfig
        >>> from sidebet.table.dealing import DealingShoe
        >>> r = RoundState(TableConfig(), 1, DealingShoe.stacked("5h 6d 6s 10c").deal)
        >>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
        >>> CHART.advise(r).step
        <Step.DOUBLE: 'double'>
        """
        hand = state.current_hand
        up = state.upcard
        if hand is None or up is None:
            raise SidebetError("there is no hand to advise on")
        legal = state.legal_actions()
        code = parse_chart_code(chart_action(hand.cards, up, Step.SPLIT in legal)).packed
        act = choose(code, code, HIT, Step.DOUBLE in legal, Step.SPLIT in legal,
                     Step.SURRENDER in legal)
        step = Step(ACTION_NAMES[act])
        if step not in legal:  # a hand that may not draw stands
            step = Step.STAND
        return Advice(step, f"{self.name}: {hand.value} vs {up}: {step.value}")


CHART = ChartStrategy()
"""The published chart (6 decks S17 DAS LS), whatever the table's rules."""


class ExactStrategy:
    """The exact analyser's basic strategy for the table's own rules and deck count.

    ``kind="total"`` (the default) plays the total-dependent basic strategy
    (:func:`sidebet.exact.blackjack.basic_strategy`), ``kind="composition"`` the
    composition-dependent one (:func:`sidebet.exact.blackjack.composition_strategy`); both are
    computed once per rules and deck count (cached).  :meth:`Strategy.action` is asked
    with what the table allows now (``Step.DOUBLE in state.legal_actions()`` ...), so a
    preferred double, split or surrender that is not allowed falls back as the chart says;
    a hit that is not allowed (a split ace that may not be hit) stands.

    >>> from sidebet.regulation.submission import TableConfig
    >>> from sidebet.table.dealing import DealingShoe
    >>> r = RoundState(TableConfig(), 1, DealingShoe.stacked("10h 6d 6s 10c").deal)
    >>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
    >>> BASIC.advise(r).step
    <Step.STAND: 'stand'>
    """

    def __init__(self, kind: str = "total") -> None:
        if kind not in ("total", "composition"):
            raise SidebetError(f"unknown strategy kind {kind!r} (total or composition)")
        self.kind = kind
        self.name = (
            "basic strategy (exact, total-dependent, for this table's rules)"
            if kind == "total"
            else "basic strategy (exact, composition-dependent, for this table's rules)"
        )

    def strategy(self, rules: HouseRules, decks: int) -> Strategy:
        """The analyser's strategy for these rules and decks (cached by the analyser)."""
        if self.kind == "total":
            return _basic_strategy(rules, decks)
        return _composition_strategy(rules, decks)

    def advise(self, state: RoundState) -> Advice:
        """The strategy's action for the current hand, among the legal ones."""
        hand = state.current_hand
        up = state.upcard
        if hand is None or up is None:
            raise SidebetError("there is no hand to advise on")
        legal = state.legal_actions()
        strategy = self.strategy(state.config.rules, state.config.decks)
        act = strategy.action(
            hand.cards, up, Step.DOUBLE in legal, Step.SPLIT in legal, Step.SURRENDER in legal
        )
        step = Step(act)
        if step not in legal:
            step = Step.STAND
        return Advice(step, f"{self.name}: {hand.value} vs {up}: {step.value}")


BASIC = ExactStrategy()
"""The default play policy: the exact total-dependent basic strategy for the table."""

COMPOSITION = ExactStrategy("composition")
"""The exact composition-dependent strategy for the table."""


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
    """The exact Press advisor: press all the winnings when a pressed unit's expected net
    gain (:func:`sidebet.exact.blackjack.press_advice`, on the full-shoe basis of
    :func:`full_shoe_press_advice`) is positive, otherwise collect.  Pressing part of the
    winnings never beats the better of all or nothing (the gain is linear in the amount)."""

    name = "press by advice (exact Press advisor, full-shoe basis)"

    def advice(self, state: RoundState, seat: int) -> PressAdvice | None:
        """The advisor's answer for ``seat``'s first hand (``None``: nothing to advise)."""
        hands = state.hands_of(seat)
        up = state.upcard
        if not hands or up is None or len(hands[0].cards) < 2:
            return None
        cards = hands[0].cards
        return full_shoe_press_advice(
            (cards[0], cards[1]), up, state.config.decks, state.config.rules
        )

    def press_amount(self, state: RoundState, seat: int) -> Cents:
        """All the offered winnings when the advisor says press, else 0."""
        adv = self.advice(state, seat)
        if adv is None or not adv.press:
            return 0
        return state.press_offers().get(seat, 0)


class PressBySimpleRule:
    """A simple rule (labelled: not exact): press everything when the hand is a favourite
    before the dealer's hole card is known — a player Blackjack, 19–21, 11 against 2–10,
    10 against 2–9, or 20 against anything — otherwise collect
    (:func:`sidebet.exact.blackjack.press.simple_press_rule`)."""

    name = "press by a simple rule (not exact)"

    def press_amount(self, state: RoundState, seat: int) -> Cents:
        """All or nothing by the rule above."""
        hands = state.hands_of(seat)
        up = state.upcard
        if not hands or up is None:
            return 0
        first, second = hands[0].cards[:2]
        good = simple_press_rule(first.rank.blackjack_value, second.rank.blackjack_value,
                                 up.rank.blackjack_value)
        return state.press_offers().get(seat, 0) if good else 0


class NeverInsure:
    """Basic strategy never takes insurance."""

    def insurance_amount(self, state: RoundState, seat: int) -> Cents:
        """Zero."""
        return 0


def take(state: RoundState, step: Step) -> Record:
    """Take a play action (hit, stand, double, split, surrender) with default amounts."""
    return play_action(step).take(state)


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
