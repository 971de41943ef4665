"""What a Blackjack hand may do next, given the hand, the house rules and the phase.

Each ``*_refusal`` function answers :data:`LEGAL` (0) or the code of the first rule that
forbids the action (:data:`REFUSALS` names them); the table engine turns a refusal into a
:class:`sidebet.core.errors.Violation` with its citation, the kernels test ``== LEGAL``.
:func:`choose` resolves a chart code against what is allowed, for every player of a
strategy (the kernels, :class:`sidebet.exact.blackjack.strategy.Strategy`, the table's chart
policy).

Plain functions of integers and booleans, with no calls between them, so that numba
compiles them into the kernels unchanged (see :mod:`sidebet.regulation.base_game`).

>>> double_refusal(2, False, False, 11, False, True, False, DOUBLE_TEN_OR_ELEVEN)
0
>>> REFUSALS[double_refusal(2, True, False, 11, False, False, False, DOUBLE_ANY_TWO)]
'doubling after a split is not offered (house rules)'
>>> choose(DOUBLE * 5 + STAND, 0, HIT, False, False, False)  # Ds, doubling not allowed
0
"""

from __future__ import annotations

from sidebet.regulation.base_game.codes import DOUBLE, HIT, SPLIT, STAND, SURRENDER

__all__ = [
    "DOUBLE_ANY_TWO",
    "DOUBLE_NINE_TO_ELEVEN",
    "DOUBLE_TEN_OR_ELEVEN",
    "LEGAL",
    "REFUSALS",
    "choose",
    "dealer_draws",
    "double_refusal",
    "double_total_allowed",
    "has_decision",
    "hit_refusal",
    "split_hands_limit",
    "split_refusal",
    "surrender_refusal",
]

# Double Down rules (rules.DoubleRule) as codes.
DOUBLE_ANY_TWO = 0
DOUBLE_NINE_TO_ELEVEN = 1
DOUBLE_TEN_OR_ELEVEN = 2

# Refusals.
LEGAL = 0
NOT_FIRST_TWO = 1
NO_DOUBLE_AFTER_SPLIT = 2
SPLIT_ACES_ONE_CARD = 3
DOUBLE_TOTAL = 4
NOT_A_PAIR = 5
MAX_HANDS = 6
NO_RESPLIT_ACES = 7
NO_SURRENDER = 8
NOT_INITIAL_HAND = 9
DEALER_UNKNOWN = 10

REFUSALS = (
    "",
    "only the first two cards of a hand may be doubled or split",
    "doubling after a split is not offered (house rules)",
    "split aces receive one card each (house rules)",
    "this total may not be doubled (house rules)",
    "the two cards are not a pair of equal value",
    "the pair may not be split into more hands (house rules)",
    "split aces may not be split again (house rules)",
    "surrender is not offered (house rules)",
    "only the initial two-card hand may be surrendered",
    "late surrender is offered only once the dealer's Blackjack is ruled out "
    "(no card-reader check here)",
)
"""A short reason per refusal code (the engine words its own messages with the values)."""


def double_total_allowed(rule: int, total: int, soft: bool) -> bool:
    """Whether the Double Down rule ``rule`` (``DOUBLE_*``) lets a two-card ``total``
    double (§ 633a.10).

    >>> double_total_allowed(DOUBLE_NINE_TO_ELEVEN, 9, False), double_total_allowed(2, 11, True)
    (True, False)
    """
    if rule == DOUBLE_ANY_TWO:
        return True
    low = 9 if rule == DOUBLE_NINE_TO_ELEVEN else 10
    return (not soft) and low <= total <= 11


def hit_refusal(split_aces: bool, hit_split_aces: bool) -> int:
    """May the hand draw?  Split aces draw only if the house lets them."""
    if split_aces and not hit_split_aces:
        return SPLIT_ACES_ONE_CARD
    return LEGAL


def double_refusal(ncards: int, after_split: bool, split_aces: bool, total: int, soft: bool,
                   double_after_split: bool, hit_split_aces: bool, rule: int) -> int:
    """May the hand double (§ 633a.10)?  Only on its first two cards; after a split only
    with DAS; split aces only if they may be hit; only totals the ``rule`` allows."""
    if ncards != 2:
        return NOT_FIRST_TWO
    if after_split and not double_after_split:
        return NO_DOUBLE_AFTER_SPLIT
    if split_aces and not hit_split_aces:
        return SPLIT_ACES_ONE_CARD
    if rule != DOUBLE_ANY_TWO:
        low = 9 if rule == DOUBLE_NINE_TO_ELEVEN else 10
        if soft or not low <= total <= 11:
            return DOUBLE_TOTAL
    return LEGAL


def split_refusal(ncards: int, value0: int, value1: int, hands: int, max_hands: int,
                  split_aces: bool, resplit_aces: bool) -> int:
    """May the hand split (§ 633a.11)?  Two cards of equal blackjack value, while the
    seat holds fewer than ``max_hands`` hands; split aces again only with RSA."""
    if ncards != 2:
        return NOT_FIRST_TWO
    if value0 != value1:
        return NOT_A_PAIR
    if hands >= max_hands:
        return MAX_HANDS
    if split_aces and not resplit_aces:
        return NO_RESPLIT_ACES
    return LEGAL


def split_hands_limit(max_hands: int, resplit_aces: bool, aces: bool) -> int:
    """Most hands a pair may become: ``max_hands``, but split aces stay two hands unless
    they may be split again (the limit :func:`split_refusal` enforces hand by hand).

    >>> split_hands_limit(4, False, True), split_hands_limit(4, True, True)
    (2, 4)
    """
    if aces and not resplit_aces:
        return 2
    return max_hands


def surrender_refusal(late_surrender: bool, ncards: int, after_split: bool,
                      dealer_known: bool) -> int:
    """May the hand surrender (interpretation 14)?  Late surrender, the initial two-card
    hand only, once the dealer's Blackjack is ruled out."""
    if not late_surrender:
        return NO_SURRENDER
    if after_split or ncards != 2:
        return NOT_INITIAL_HAND
    if not dealer_known:
        return DEALER_UNKNOWN
    return LEGAL


def has_decision(total: int, doubled: bool, surrendered: bool, may_hit: bool,
                 may_split: bool) -> bool:
    """Whether the hand still has a decision: below 21, neither doubled nor surrendered,
    and allowed to draw or to split (a split ace that may not be hit stands unless it may
    be split again)."""
    if total >= 21 or doubled or surrendered:
        return False
    return may_hit or may_split


def dealer_draws(total: int, soft: bool, hits_soft_17: bool) -> bool:
    """Whether the dealer draws to ``total`` (§ 633a.7: to 17; on soft 17 only when the
    house hits soft 17).

    >>> dealer_draws(16, False, False), dealer_draws(17, True, False), dealer_draws(17, True, True)
    (True, False, True)
    """
    return total < 17 or (total == 17 and soft and hits_soft_17)


def choose(code: int, alt: int, hit_or_stand: int, can_double: bool, can_split: bool,
           can_surrender: bool) -> int:
    """The action a packed chart code (``first * 5 + fallback``) plays: its first choice
    if allowed, else its fallback; a fallback split that is not allowed plays the pair's
    no-split code ``alt`` (split and surrender then not allowed); else the hand's
    ``hit_or_stand`` choice.  (Whether a hit is allowed is the caller's: a hand that may
    not draw stands.)"""
    first = code // 5
    second = code % 5
    if ((first != DOUBLE or can_double) and (first != SPLIT or can_split)
            and (first != SURRENDER or can_surrender)):
        return first
    if ((second != DOUBLE or can_double) and (second != SPLIT or can_split)
            and (second != SURRENDER or can_surrender)):
        return second
    if second == SPLIT:
        first = alt // 5
        second = alt % 5
        if (first != DOUBLE or can_double) and first != SPLIT and first != SURRENDER:
            return first
        if (second != DOUBLE or can_double) and second != SPLIT and second != SURRENDER:
            return second
    return hit_or_stand


assert STAND == 0 and HIT == 1  # hit_or_stand codes are action codes
