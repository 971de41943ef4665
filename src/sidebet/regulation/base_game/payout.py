"""How a finished Blackjack hand settles (§ 633a.7(g), § 633a.11(d), § 633c.11(f)-(g),
interpretation 7), chip by chip.

A hand's chips are its *bet* (the Blackjack wager, or the matched amount of a split
hand), its *press* (TriLux Deluxe winnings pressed, on the initial hand only) and its
*double*.  Settling is three steps, each a plain function:

1. :func:`showdown`: the hand's total against the dealer's (+1, 0, -1);
2. :func:`hand_result`: the result (Blackjack, win, push, lose, surrender), given
   naturals, surrender and a dealer Blackjack;
3. :func:`chip_fates`: what happens to each chip (win, pays the Blackjack odds, push,
   void and returned, half lost, lost), and :func:`chip_net` its net in money units.

The kernels sum the three nets, the table engine books each as ledger moves, and the
exact analyser values a finished hand by :func:`showdown`.

>>> r = hand_result(True, False, False, showdown(21, 20))
>>> RESULT_NAMES[r], [FATE_NAMES[f] for f in chip_fates(r, True, False, False)]
('blackjack', ['blackjack', 'win', 'void'])
>>> chip_net(BLACKJACK_ODDS, 10_00, 3, 2), chip_net(HALF, 5_01, 3, 2)
(1500, -251)
"""

from __future__ import annotations

__all__ = [
    "BLACKJACK",
    "BLACKJACK_ODDS",
    "FATE_NAMES",
    "HALF",
    "LOSE",
    "LOST",
    "PUSH",
    "PUSHED",
    "RESULT_NAMES",
    "SURRENDERED",
    "VOID",
    "WIN",
    "WON",
    "awaits_dealer",
    "chip_fates",
    "chip_net",
    "hand_result",
    "showdown",
]

# Results of a hand.
BLACKJACK = 0
WON = 1
PUSHED = 2
LOST = 3
SURRENDERED = 4
RESULT_NAMES = ("blackjack", "win", "push", "lose", "surrender")

# Fates of a chip.
LOSE = 0
"""Collected by the house."""
PUSH = 1
"""Returned: a push."""
VOID = 2
"""Returned: the wager is void (a dealer Blackjack voids a press, a split hand's wager
and, unless the house takes them, the doubles)."""
WIN = 3
"""Returned and paid even money."""
BLACKJACK_ODDS = 4
"""Returned and paid at the table's Blackjack odds."""
HALF = 5
"""Surrender: half returned (rounded down), the rest collected."""
FATE_NAMES = ("lose", "push", "void", "win", "blackjack", "half")


def showdown(total: int, dealer_total: int) -> int:
    """+1 if ``total`` beats the dealer's, 0 on equal totals, -1 if it loses (over 21
    loses, whatever the dealer; a dealer over 21 loses to any hand not over 21)."""
    if total > 21:
        return -1
    if dealer_total > 21 or total > dealer_total:
        return 1
    if total == dealer_total:
        return 0
    return -1


def awaits_dealer(total: int, surrendered: bool, natural: bool) -> bool:
    """Whether the hand's settlement waits on the dealer's final total (not over 21, not
    surrendered, not a Blackjack): the dealer draws only if some hand does."""
    return total <= 21 and not surrendered and not natural


def hand_result(natural: bool, surrendered: bool, dealer_blackjack: bool, shown: int) -> int:
    """The hand's result: a surrender stands; a dealer Blackjack pushes a player's
    Blackjack and beats every other hand; a player's Blackjack wins; otherwise the
    showdown ``shown`` decides.  ``natural``: the seat's unsplit initial two cards are a
    Blackjack."""
    if surrendered:
        return SURRENDERED
    if dealer_blackjack:
        return PUSHED if natural else LOST
    if natural:
        return BLACKJACK
    if shown > 0:
        return WON
    if shown == 0:
        return PUSHED
    return LOST


def chip_fates(result: int, original: bool, dealer_blackjack: bool,
               dealer_blackjack_takes_doubles: bool) -> tuple[int, int, int]:
    """Fates of the hand's ``(bet, press, double)``.

    Surrender forfeits half of bet and press (interpretation 7).  A dealer Blackjack
    voids the press (§ 633c.11(f)), takes only the original wager (§ 633a.11(d): a split
    hand's wager is void) and the doubles only if the house says so.  A player's
    Blackjack is paid at the table's odds, its press even money.  Otherwise every chip
    wins, pushes or loses with the hand.
    """
    if result == SURRENDERED:
        return HALF, HALF, VOID
    if dealer_blackjack:
        if result == PUSHED:
            return PUSH, VOID, VOID
        return (LOSE if original else VOID), VOID, (
            LOSE if dealer_blackjack_takes_doubles else VOID)
    if result == BLACKJACK:
        return BLACKJACK_ODDS, WIN, VOID
    if result == WON:
        return WIN, WIN, WIN
    if result == PUSHED:
        return PUSH, PUSH, PUSH
    return LOSE, LOSE, LOSE


def chip_net(fate: int, amount: int, bj_num: int, bj_den: int) -> int:
    """The player's net of ``amount`` with this fate (Blackjack odds ``bj_num:bj_den``,
    rounded down to the money unit; half of a surrender returned rounded down)."""
    if fate == WIN:
        return amount
    if fate == BLACKJACK_ODDS:
        return amount * bj_num // bj_den
    if fate == LOSE:
        return -amount
    if fate == HALF:
        return -(amount - amount // 2)
    return 0
