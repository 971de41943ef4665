"""Strategy players: policies that choose a legal action from a round's state.

A :class:`PlayPolicy` chooses the current hand's action; a :class:`PressPolicy` how much
of a TriLux Deluxe win to press; an :class:`InsurancePolicy` how much insurance to take.

:data:`BASIC` (the default play policy) is :class:`ExactStrategy`: the exact analyser's
total-dependent basic strategy computed for the table's own house rules and deck count
(:func:`sidebet.blackjack.basic_strategy`); ``ExactStrategy("composition")`` plays the
composition-dependent strategy instead.  :class:`PressByAdvice` presses by the exact
Press advisor (:func:`sidebet.blackjack.press_advice`).

:data:`CHART_6D_S17_DAS_LS` is the **standard published basic-strategy chart** for 4–8
decks, dealer stands on soft 17, double any two, double after split, late surrender (the
interpretation-14 default table), kept as :data:`CHART`.  It is *not* computed for the
exact rules of the table: :class:`ChartStrategy` falls back to hitting or standing when
the table does not allow the chart's double, split or surrender.  :class:`PressBySimpleRule`
is the old simple (not exact) press rule.

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

from sidebet.blackjack import PressAdvice, Strategy, press_advice
from sidebet.blackjack import basic_strategy as _basic_strategy
from sidebet.blackjack import composition_strategy as _composition_strategy
from sidebet.cards import Card, Rank
from sidebet.errors import SidebetError
from sidebet.hands import blackjack_value
from sidebet.money import Cents
from sidebet.rules import HouseRules
from sidebet.shoe import Shoe
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
"""Published basic strategy, 4–8 decks S17 DAS LS (not computed for the table's rules)."""


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
        >>> CHART.advise(r).step
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


CHART = ChartStrategy()
"""The published chart (6 decks S17 DAS LS), whatever the table's rules."""

_STEPS = {
    "hit": Step.HIT,
    "stand": Step.STAND,
    "double": Step.DOUBLE,
    "split": Step.SPLIT,
    "surrender": Step.SURRENDER,
}


class ExactStrategy:
    """The exact analyser's basic strategy for the table's own rules and deck count.

    ``kind="total"`` (the default) plays the total-dependent basic strategy
    (:func:`sidebet.blackjack.basic_strategy`), ``kind="composition"`` the
    composition-dependent one (:func:`sidebet.blackjack.composition_strategy`); both are
    computed once per rules and deck count (cached).  :meth:`Strategy.action` is asked
    with what the table allows now (``Step.DOUBLE in state.legal_actions()`` ...), so a
    preferred double, split or surrender that is not allowed falls back as the chart says;
    a hit that is not allowed (a split ace that may not be hit) stands.

    >>> from sidebet.config import TableConfig
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
        step = _STEPS[act]
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


def full_shoe_press_advice(
    player: tuple[Card, Card], upcard: Card, decks: int, rules: HouseRules
) -> PressAdvice:
    """The exact Press advice on a full-shoe basis: ``press_advice`` with the unseen cards
    taken as a full ``decks``-deck shoe less the player's two cards and the upcard.

    The other cards already seen (other seats, earlier rounds) are deliberately ignored:
    this is the basis of the advisor's Press chart (``sidebet press``,
    :func:`sidebet.blackjack.press_chart`) and of the simulator's ``--press advice``, so the
    table engine and the kernel press identically (the differential tests check it), and
    the advice depends only on the three cards' rank classes.
    """
    shoe = Shoe.standard(decks).remove([player[0], player[1], upcard])
    return press_advice(player, upcard, shoe, rules)


class PressByAdvice:
    """The exact Press advisor: press all the winnings when a pressed unit's expected net
    gain (:func:`sidebet.blackjack.press_advice`, on the full-shoe basis of
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
    10 against 2–9, or 20 against anything — otherwise collect."""

    name = "press by a simple rule (not exact)"

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
