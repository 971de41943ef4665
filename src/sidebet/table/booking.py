"""Booking a round's settlements in the ledger: the only place that pays or collects.

What a hand's chips come to is decided by the hand rules
(:mod:`sidebet.regulation.base_game.payout`); a side wager's by its paytable
(:func:`sidebet.regulation.side_settlement.settle_outcome`); insurance pays 2 to 1 (interpretation 14).  This
module turns those answers into :class:`~sidebet.table.ledger.Ledger` moves with their
citations.

>>> from fractions import Fraction
>>> from sidebet.regulation.base_game.payout import BLACKJACK_ODDS
>>> ledger = Ledger()
>>> book_chip(ledger, 1, "blackjack", 10_00, BLACKJACK_ODDS, Fraction(3, 2), "§ 633a.7(g)")
>>> [(e.move.value, e.amount) for e in ledger]
[('return', 1000), ('win', 1500)]
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from sidebet.core.money import Cents
from sidebet.regulation.base_game.payout import (
    BLACKJACK_ODDS,
    HALF,
    LOSE,
    PUSH,
    RESULT_NAMES,
    VOID,
    WIN,
    chip_fates,
    chip_net,
    hand_result,
    showdown,
)
from sidebet.regulation.citations import (
    DOUBLE,
    INSURANCE,
    PRESS_PAY,
    SETTLE,
    SPLIT_DEALER_BJ,
    SURRENDER,
)
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.side_settlement import Settlement
from sidebet.table.ledger import Ledger, Move
from sidebet.table.model import BLACKJACK, Hand

__all__ = ["book_chip", "book_hands", "book_insurance", "book_side_wager"]


def book_chip(ledger: Ledger, seat: int, wager: str, amount: Cents, fate: int,
              bj_odds: Fraction, cite: str) -> None:
    """Ledger moves of one chip (``amount`` on ``wager``) by its fate; ``bj_odds`` pays a
    :data:`~sidebet.regulation.base_game.payout.BLACKJACK_ODDS` fate."""
    if not amount:
        return
    odds = bj_odds if fate == BLACKJACK_ODDS else Fraction(1)
    net = chip_net(fate, amount, odds.numerator, odds.denominator)
    if fate in (WIN, BLACKJACK_ODDS):
        ledger.add(seat, wager, Move.RETURN, amount, "hand wins", cite)
        ledger.add(seat, wager, Move.WIN, net, f"pays {odds.numerator}:{odds.denominator}", cite)
    elif fate == PUSH:
        ledger.add(seat, wager, Move.RETURN, amount, "push", cite)
    elif fate == VOID:
        ledger.add(seat, wager, Move.RETURN, amount, "returned", cite)
    elif fate == HALF:
        ledger.add(seat, wager, Move.RETURN, amount + net, "surrender: half returned", cite)
        ledger.add(seat, wager, Move.COLLECT, -net, "surrender: half lost", cite)
    else:
        ledger.add(seat, wager, Move.COLLECT, amount, "hand loses", cite)


def book_hands(ledger: Ledger, hands: Iterable[Hand], dealer_blackjack: bool,
               dealer_total: int, rules: HouseRules) -> None:
    """Settle every hand by the hand rules (sets ``hand.result``) and book its bet, press
    and double, the dealer's right first (§ 633a.7(g))."""
    odds = rules.blackjack_pays.odds
    takes_doubles = rules.dealer_blackjack_takes_doubles
    for hand in sorted(hands, key=lambda h: -h.seat):
        result = hand_result(hand.is_natural, hand.surrendered, dealer_blackjack,
                             showdown(hand.value.total, dealer_total))
        hand.result = RESULT_NAMES[result]
        bet, press, double = chip_fates(result, hand.original, dealer_blackjack, takes_doubles)
        main = BLACKJACK if hand.original else "split"
        seat = hand.seat
        if hand.surrendered:
            book_chip(ledger, seat, main, hand.bet, bet, odds, SURRENDER)
            book_chip(ledger, seat, "press", hand.press, press, odds, SURRENDER)
            continue
        if dealer_blackjack:  # the void press first
            book_chip(ledger, seat, "press", hand.press, press, odds, PRESS_PAY)
        book_chip(ledger, seat, main, hand.bet, bet, odds,
                  SPLIT_DEALER_BJ if bet == VOID else SETTLE)
        if not dealer_blackjack:
            book_chip(ledger, seat, "press", hand.press, press, odds, PRESS_PAY)
        book_chip(ledger, seat, "double", hand.double, double, odds,
                  (SETTLE if double == LOSE else SPLIT_DEALER_BJ) if dealer_blackjack else DOUBLE)


def book_side_wager(ledger: Ledger, seat: int, s: Settlement) -> None:
    """A settled side wager: stake returned and winnings paid, or the stake collected."""
    if s.won:
        ledger.add(seat, s.wager, Move.RETURN, s.stake, s.label, s.citation)
        ledger.add(seat, s.wager, Move.WIN, s.winnings, s.label, s.citation)
    else:
        ledger.add(seat, s.wager, Move.COLLECT, s.amount, "lost", s.citation)


def book_insurance(ledger: Ledger, seat: int, amount: Cents, dealer_blackjack: bool) -> None:
    """Insurance of ``amount``: pays 2 to 1 on a dealer Blackjack, else collected."""
    if dealer_blackjack:
        ledger.add(seat, "insurance", Move.RETURN, amount, "insurance wins", INSURANCE)
        ledger.add(seat, "insurance", Move.WIN, 2 * amount, "insurance pays 2 to 1", INSURANCE)
    else:
        ledger.add(seat, "insurance", Move.COLLECT, amount, "insurance loses", INSURANCE)
