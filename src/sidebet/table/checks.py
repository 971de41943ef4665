"""Why a decision is not allowed now: the checks behind every ``can_x`` / ``verify_x``.

Each ``*_violations(state, ...)`` function returns the rules the decision would break
(empty: allowed), naming each with its citation.  What a Blackjack hand may do is
decided by the hand rules (:mod:`sidebet.regulation.base_game.legality`); these checks add the
table's own conditions (the phase, the seat, the chips) and word the refusals.
:mod:`sidebet.table.answers` puts them together into the one answer behind ``apply``,
``can_x`` and ``verify_x``.

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table.dealing import DealingShoe
>>> from sidebet.table.state import RoundState
>>> r = RoundState(TableConfig(), 1, DealingShoe.stacked("5h 6d 6s 10c").deal)
>>> [str(v) for v in place_bet_violations(r, 1, "blackjack", 0)]
['§ 633a.6(d): the Blackjack wager must be a positive amount']
>>> r.can_place_bet(1, "blackjack", 0), RoundState.can_hit.__doc__
(False, 'Whether the current hand may draw a card.')
"""

from __future__ import annotations

from sidebet.core.errors import SidebetError, Violation
from sidebet.core.money import Cents, format_money
from sidebet.regulation.base_game import legality as legal
from sidebet.regulation.citations import (
    BETS,
    DOUBLE,
    INSURANCE,
    LIMITS,
    PLAY,
    PRESS,
    PRESS_SPLIT,
    SETTLE,
    SPLIT,
    SURRENDER,
)
from sidebet.regulation.submission import bet_violations as wager_violations
from sidebet.regulation.submission import limit_violations
from sidebet.regulation.wagers import PRESSABLE, BetContext, get_wager
from sidebet.table.model import BLACKJACK, Hand, RoundView
from sidebet.table.records import Phase

__all__ = [
    "close_violations",
    "double_violations",
    "hit_violations",
    "insurance_violations",
    "place_bet_violations",
    "play_violations",
    "press_violations",
    "split_violations",
    "stand_violations",
    "surrender_violations",
    "withdraw_violations",
]


def place_bet_violations(state: RoundView, seat: int, wager: str, amount: Cents) -> list[Violation]:
    """Every rule the bet breaks: Blackjack wager first (§ 633a.6(d)); side wagers
    within their limits and prerequisites (:func:`sidebet.regulation.submission.bet_violations`)."""
    if state.phase is not Phase.BETTING:
        return [Violation(BETS, "bets are closed: the dealer has called \"no more bets\"")]
    if seat not in state.seat_states:
        return [Violation(BETS, f"seat {seat} is not at this table (1 to {state.seat_count})")]
    st = state.seat_states[seat]
    if wager != BLACKJACK:
        try:
            wager = get_wager(wager).id
        except SidebetError as exc:
            return [Violation(LIMITS, str(exc))]
    if wager in st.bets:
        return [Violation(BETS, f"seat {seat} has already placed its {wager} wager")]
    out: list[Violation] = []
    if wager == BLACKJACK:
        if amount <= 0:
            out.append(Violation(BETS, "the Blackjack wager must be a positive amount"))
        out.extend(limit_violations(state.config, BLACKJACK, "Blackjack wager", amount))
    else:
        required = get_wager(wager).requires
        ctx = BetContext(amount, st.bets.get(BLACKJACK, 0),
                         min((st.bets.get(r.id, 0) for r in required), default=0))
        out.extend(wager_violations(state.config, wager, ctx))
    have = state.chips(seat)
    if have is not None and amount > have:
        out.append(Violation("", f"seat {seat} holds only {format_money(have)}"))
    return out


def close_violations(state: RoundView) -> list[Violation]:
    """Why the dealer may not call "no more bets" (no Blackjack wager yet)."""
    if state.phase is not Phase.BETTING:
        return [Violation(BETS, "bets are already closed")]
    if not any(BLACKJACK in st.bets for st in state.seat_states.values()):
        return [Violation(BETS, "no seat has placed a Blackjack wager")]
    return []


def press_violations(state: RoundView, seat: int, amount: Cents) -> list[Violation]:
    """Why ``seat`` may not press ``amount`` (§ 633c.11(e))."""
    if state.phase is not Phase.PRESS:
        return [Violation(PRESS, "the Press is offered only right after the side wagers "
                                 "are settled")]
    if seat not in state.seat_states:
        return [Violation(PRESS, f"seat {seat} is not at this table")]
    st = state.seat_states[seat]
    if not st.press_offer:
        return [Violation(PRESS, f"seat {seat} has no winning {PRESSABLE.name} wager to press")]
    if st.pressed is not None:
        return [Violation(PRESS, f"seat {seat} has already decided on the Press")]
    if amount < 0 or amount > st.press_offer:
        return [Violation(PRESS, f"the Press must be 0 to the {PRESSABLE.name} winnings "
                                 f"{format_money(st.press_offer)}, not {format_money(amount)}")]
    if amount % state.unit:
        return [Violation(PRESS, f"the Press must be whole table units of "
                                 f"{format_money(state.unit)}, not {format_money(amount)}")]
    return []


def insurance_violations(state: RoundView, seat: int, amount: Cents) -> list[Violation]:
    """Why ``seat`` may not insure ``amount`` (interpretation 14)."""
    if state.phase is not Phase.INSURANCE:
        return [Violation(INSURANCE, "insurance is offered only when the upcard is an ace, "
                                     "before the card-reader check")]
    offers = state.insurance_offers()
    if seat not in offers:
        return [Violation(INSURANCE, f"seat {seat} has no insurance decision to make")]
    if not 0 <= amount <= offers[seat]:
        return [Violation(INSURANCE, f"insurance must be 0 to half the Blackjack wager "
                                     f"({format_money(offers[seat])}), not "
                                     f"{format_money(amount)}")]
    have = state.chips(seat)
    if have is not None and amount > have:
        return [Violation("", f"seat {seat} holds only {format_money(have)}")]
    return []


def withdraw_violations(state: RoundView, seat: int) -> list[Violation]:
    """Why ``seat`` cannot be withdrawn from the round now: it has no wager in it, it is
    withdrawn already, or the round is settled."""
    st = state.seat_states.get(seat)
    if state.phase is Phase.DONE:
        return [Violation(SETTLE, "the round is settled; nothing is left to withdraw")]
    if st is None or not st.bets:
        return [Violation(BETS, f"seat {seat} has no wager in the round")]
    if st.withdrawn:
        return [Violation(BETS, f"seat {seat} is withdrawn already")]
    return []


def play_violations(state: RoundView, rule: str, what: str) -> tuple[Hand | None, list[Violation]]:
    """The hand to act, or why there is none."""
    hand = state.current_hand
    if hand is None:
        return None, [Violation(rule, f"there is no hand to {what} now "
                                      f"(phase {state.phase.value})")]
    return hand, []


def hit_violations(state: RoundView) -> list[Violation]:
    """Why the current hand may not draw (§ 633a.7)."""
    hand, out = play_violations(state, PLAY, "hit")
    if hand is None:
        return out
    if legal.hit_refusal(hand.split_aces, state.rules.hit_split_aces):
        return [Violation(SPLIT, legal.REFUSALS[legal.SPLIT_ACES_ONE_CARD])]
    return []


def double_violations(state: RoundView, amount: Cents | None = None) -> list[Violation]:
    """Why the current hand may not double (§ 633a.10, § 633c.11(g))."""
    hand, out = play_violations(state, DOUBLE, "double")
    if hand is None:
        return out
    v = hand.value
    refusal = legal.double_refusal(
        len(hand.cards), not hand.original or hand.was_split, hand.split_aces, v.total,
        v.soft, state.rules.double_after_split, state.rules.hit_split_aces,
        state.rules.double.code)
    if refusal == legal.NOT_FIRST_TWO:
        return [Violation(DOUBLE, "a Double Down wager is placed only on the first two cards")]
    if refusal == legal.SPLIT_ACES_ONE_CARD:
        return [Violation(SPLIT, legal.REFUSALS[refusal])]
    if refusal == legal.DOUBLE_TOTAL:
        return [Violation(DOUBLE, f"doubling on {v} is not offered (house rules: double on "
                                  f"{state.rules.double.value})")]
    if refusal:
        return [Violation(DOUBLE, legal.REFUSALS[refusal])]
    top = state.double_limit()
    amt = top if amount is None else amount
    if not 0 < amt <= top:
        # the Press rule governs the limit only when a press is part of the wager
        rule = PRESS_SPLIT if hand.press else DOUBLE
        return [Violation(rule, f"the Double Down wager must be more than 0 and at most "
                                f"the whole wager {format_money(top)}, not "
                                f"{format_money(amt)}")]
    have = state.chips(hand.seat)
    if have is not None and amt > have:
        return [Violation("", f"seat {hand.seat} holds only {format_money(have)}")]
    return []


def split_violations(state: RoundView, hand: Hand | None = None, check_phase: bool = True
                      ) -> list[Violation]:
    """Why ``hand`` (default: the current hand) may not split (§ 633a.11); with
    ``check_phase`` false, the chips are not checked (only the hand rules)."""
    if hand is None:
        hand, out = play_violations(state, SPLIT, "split")
        if hand is None:
            return out
    values = [c.rank.blackjack_value for c in hand.cards[:2]] + [0, 0]
    refusal = legal.split_refusal(
        len(hand.cards), values[0], values[1], len(state.hands_of(hand.seat)),
        state.rules.max_split_hands, hand.split_aces, state.rules.resplit_aces)
    if refusal == legal.NOT_FIRST_TWO:
        return [Violation(SPLIT, "only the first two cards of a hand may be split")]
    if refusal == legal.NOT_A_PAIR:
        a, b = hand.cards
        return [Violation(SPLIT, f"{a} and {b} are not a pair of equal value")]
    if refusal == legal.MAX_HANDS:
        return [Violation(SPLIT, f"a pair may be split to at most "
                                 f"{state.rules.max_split_hands} hands (house rules)")]
    if refusal:
        return [Violation(SPLIT, legal.REFUSALS[refusal])]
    if check_phase:
        have = state.chips(hand.seat)
        cost = hand.bet + hand.press
        if have is not None and cost > have:
            return [Violation(PRESS_SPLIT, f"splitting needs {format_money(cost)}; seat "
                                           f"{hand.seat} holds {format_money(have)}")]
    return []


def surrender_violations(state: RoundView) -> list[Violation]:
    """Why the current hand may not surrender (interpretation 14)."""
    hand, out = play_violations(state, SURRENDER, "surrender")
    if hand is None:
        return out
    refusal = legal.surrender_refusal(
        state.rules.late_surrender, len(hand.cards), not hand.original or hand.was_split,
        state.dealer_blackjack is not None)
    if refusal:
        return [Violation(SURRENDER, legal.REFUSALS[refusal])]
    return []


def stand_violations(state: RoundView) -> list[Violation]:
    """Why the current hand may not stand (only when no hand is to act)."""
    return play_violations(state, PLAY, "stand")[1]
