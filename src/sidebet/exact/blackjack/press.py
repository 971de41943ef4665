"""The TriLux Deluxe Press advisor (§ 633c.11(e)-(g), interpretation 7).

When TriLux Deluxe wins, its winnings ``W`` may be collected or moved to the Press area,
where they join the Blackjack wager.  The pressed amount is paid even money when the hand
wins (also on a player Blackjack), lost when it loses, returned on a push, and void
(returned) when the dealer has Blackjack.  Splitting needs the whole wager matched, a
double may be for the whole wager, surrender forfeits half of it.

Every outcome of the hand scales with the total wager except the Blackjack payout, which
involves no decision, so the best play of the pressed hand is the best play of the hand
alone.  Each pressed unit therefore earns ``E[X · 1{no dealer Blackjack}]``, with ``X`` the
hand's outcome per unit under its best play and a player Blackjack counting 1.  Pressing
all of ``W`` is right exactly when that is positive; pressing part of it never beats the
better of all or nothing (the gain is linear in the amount).

>>> from sidebet.core.cards import parse_cards
>>> from sidebet.core.shoe import Shoe
>>> p, q, up = parse_cards("9h Th Jh")
>>> adv = press_advice((p, q), up, Shoe.standard(6).remove([p, q, up]), HouseRules())
>>> adv.press, adv.trilux, round(adv.ev_per_unit, 4)
(True, 'straight_flush', 0.0641)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from sidebet.core.cards import ALL_CARDS, Card
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.dealer import class_counts
from sidebet.exact.blackjack.engine import (
    Analysis,
    _split_patterns,
    _split_plays,
    analyse,
    max_split_hands,
    two_card_hands,
)
from sidebet.regulation.base_game.codes import CLASS_NAMES, UP_ORDER, rank_class
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.wagers import PRESSABLE

__all__ = [
    "PressAdvice",
    "PressCell",
    "PressChart",
    "PressSummary",
    "element_of_risk",
    "full_shoe_press_advice",
    "press_advice",
    "press_chart",
    "press_summary",
    "pressed_stake",
    "simple_press_rule",
]


@dataclass(frozen=True, slots=True)
class PressAdvice:
    """What pressing TriLux Deluxe winnings is worth for one deal."""

    ev_per_unit: float
    """Expected net gain per unit pressed, at the moment of the decision."""
    press: bool
    """Press all the winnings (``True``) or collect them."""
    play: str
    """The best play of the (pressed) hand."""
    trilux: str | None
    """The TriLux Deluxe outcome of the three cards (``None``: the wager lost)."""


def _unit_value(a: Analysis, key: tuple[int, ...], up: int) -> tuple[float, str]:
    """E[X · 1{no dealer BJ}] per pressed unit and the play."""
    if key[0] == 1 and key[9] == 1:
        return a.no_bj(key, up), "blackjack"
    vals = a.values(key, up)
    if "double" in vals:
        vals["double"] = float(a.dbl[a.row(key), up])  # the press is void, not lost, on BJ
    play = max(vals, key=lambda k: vals[k])
    return vals[play], play


def press_advice(
    player: tuple[Card, Card], upcard: Card, shoe: Shoe, rules: HouseRules
) -> PressAdvice:
    """Exact press advice; ``shoe`` is the unseen cards (these three removed).

    One focused exact analysis, cached per composition.
    """
    hand = [rank_class(c) for c in player]
    up = rank_class(upcard)
    counts = [0] * 10
    for c in hand:
        counts[c] += 1
    before = list(class_counts(shoe))
    for c in hand:
        before[c] += 1
    before[up] += 1
    key = tuple(counts)
    a = analyse(tuple(before), rules, key)
    ev, play = _unit_value(a, key, up)
    return PressAdvice(ev, ev > 0, play, PRESSABLE.classify(player[0], player[1], upcard))


def full_shoe_press_advice(
    player: tuple[Card, Card], upcard: Card, decks: int, rules: HouseRules
) -> PressAdvice:
    """The exact Press advice on a full-shoe basis: ``press_advice`` with the unseen cards
    taken as a full ``decks``-deck shoe less the player's two cards and the upcard.

    The other cards already seen (other seats, earlier rounds) are deliberately ignored:
    this is the basis of the advisor's Press chart (``sidebet press``,
    :func:`sidebet.exact.blackjack.press_chart`) and of the simulator's ``--press advice``, so the
    table engine and the kernel press identically (the differential tests check it), and
    the advice depends only on the three cards' rank classes.
    """
    shoe = Shoe.standard(decks).remove([player[0], player[1], upcard])
    return press_advice(player, upcard, shoe, rules)


def simple_press_rule(v1: int, v2: int, up: int) -> bool:
    """A simple Press rule (not exact), by the blackjack values of the two cards and the
    upcard: press a Blackjack, 20 or 21, 19 against 2-9, 11 against 2-10, 10 against 2-9.
    The table engine's :class:`sidebet.table.policy.PressBySimpleRule` and the
    simulator's ``--press rule`` follow it.

    >>> simple_press_rule(11, 10, 11), simple_press_rule(10, 9, 10), simple_press_rule(6, 5, 10)
    (True, False, True)
    >>> simple_press_rule(6, 5, 11)
    False
    """
    total = v1 + v2
    if total > 21:  # two aces
        total -= 10
    return (
        total >= 20
        or (total == 19 and up <= 9)
        or (total == 11 and up <= 10)
        or (total == 10 and up <= 9)
    )


@dataclass(frozen=True, slots=True)
class PressCell:
    """One chart cell: a two-card hand (rank classes) against an upcard class."""

    ev_per_unit: float
    press: bool
    play: str
    win_probability: float
    """P(this hand and upcard, and TriLux Deluxe wins), over a full shoe."""
    mean_pay: float
    """Average TriLux Deluxe pay (``N`` to 1) when it wins in this cell."""
    stake: float = 1.0
    """Money at risk per unit pressed under the hand's best play: 1, plus the pressed
    money a double or a split (and doubles after it) adds (:func:`pressed_stake`)."""


@dataclass(frozen=True, slots=True)
class PressSummary:
    """Value of the Press per unit of TriLux Deluxe wager, for one deck count."""

    decks: int
    paytable: str
    optimal: float
    always: float
    never: float
    press_share: float
    """Share of TriLux Deluxe wins in which pressing is right."""
    trilux_return: float
    """The TriLux Deluxe wager's own expected net result per unit."""
    at_risk_optimal: float = 0.0
    """Pressed money at risk per unit of TriLux Deluxe wager under optimal pressing:
    ``Σ P(win) · pay · stake`` over the cells pressed, doubles and splits included."""
    at_risk_always: float = 0.0
    """The same when every win is pressed."""
    pressed_optimal: float = 0.0
    """Winnings pressed per unit of TriLux Deluxe wager under optimal pressing (the units
    each cell's ``ev_per_unit`` is per): ``Σ P(win) · pay`` over the cells pressed."""
    pressed_always: float = 0.0
    """The same when every win is pressed."""

    def element_of_risk(self, policy: str) -> float:
        """The house's expected win per unit of all money at risk (:func:`element_of_risk`)
        of TriLux Deluxe with its Press pressed by ``policy`` (optimal, always, never)."""
        value = {"optimal": self.optimal, "always": self.always, "never": self.never}[policy]
        at_risk = {"optimal": self.at_risk_optimal, "always": self.at_risk_always,
                   "never": 0.0}[policy]
        return element_of_risk(-(self.trilux_return + value), at_risk)

    def to_json(self) -> dict[str, Any]:
        """The summary's fields by name (``sidebet press --format json``)."""
        return {"decks": self.decks, "paytable": self.paytable, "optimal": self.optimal,
                "always": self.always, "never": self.never, "press_share": self.press_share,
                "trilux_return": self.trilux_return, "at_risk_optimal": self.at_risk_optimal,
                "at_risk_always": self.at_risk_always,
                "pressed_optimal": self.pressed_optimal, "pressed_always": self.pressed_always,
                "element_of_risk": {p: self.element_of_risk(p)
                                    for p in ("optimal", "always", "never")}}


def element_of_risk(house_edge: float, pressed_at_risk: float) -> float:
    """The element of risk of TriLux Deluxe with its Press: the house's expected win per
    unit of TriLux Deluxe wager over the money at risk per unit, the wager itself plus all
    pressed money (the winnings pressed and what a double or a split of the pressed hand
    adds to them).  The one definition used by ``sidebet press``, the report and
    docs/blackjack.md.

    >>> round(element_of_risk(0.09, 0.5), 6)
    0.06
    """
    return house_edge / (1.0 + pressed_at_risk)


def _split_stake(a: Analysis, shoe: tuple[float, ...], pair: int
                 ) -> np.ndarray[Any, np.dtype[np.float64]]:
    """``E[hands + doubled hands]`` of splitting ``pair``, per upcard, the player's cards
    dealt from ``shoe`` (before the pair and the upcard), under the analysis' post-split
    decisions (the engine's walk over pair and non-pair second cards)."""
    from sidebet.exact.blackjack.engine import _pair_counts

    rules = a.rules
    arr = np.asarray(shoe, dtype=np.float64)
    big_h = max_split_hands(rules, pair)
    two_rows = np.array([a.table.index[_pair_counts(pair, c)] for c in range(10)],
                        dtype=np.int64)
    doubled = (_split_plays(rules, a.hs_dec, a.two_dec, pair, two_rows) == 2).astype(float)
    p0 = np.array([arr[pair] - 2 - (u == pair) for u in range(10)], dtype=np.float64)
    n0 = np.full(10, float(arr.sum()) - 3.0)
    xs, ps = [], []
    for extra in range(2 * (big_h - 2) + 1):
        r = np.tile(arr, (10, 1)) - np.eye(10, dtype=np.int64)
        r[:, pair] -= extra + 2
        big_r = r.sum(axis=1)
        ok = (r.min(axis=1) >= 0) & (big_r > 0)
        w = np.where(ok[:, None], np.maximum(r, 0) / np.maximum(big_r, 1)[:, None], 0.0)
        xs.append(np.einsum("uc,cu->u", w, doubled))
        ps.append(np.where(ok & (r[:, pair] > 0), doubled[pair], 0.0))
    doubles, hands, _ = _split_patterns(big_h, p0, n0, xs, ps)
    return np.asarray(doubles + hands, dtype=np.float64)


def _split_stake_after_peek(a: Analysis, pair: int, up: int) -> float:
    """``E[hands + doubled hands | no dealer Blackjack]`` of splitting ``pair`` against an
    ace or a ten the dealer has peeked under: the split dealt from the shoe less each hole
    card that does not make a Blackjack, weighted by its probability given none
    (the hole card is drawn before the player's cards, the decisions stay fixed)."""
    left = list(a.shoe)
    left[pair] -= 2
    left[up] -= 1
    blackjack = 9 - up
    n = sum(left) - left[blackjack]
    out = 0.0
    for hole in range(10):
        if hole == blackjack or left[hole] <= 0:
            continue
        shoe = tuple(k - (c == hole) for c, k in enumerate(a.shoe))
        out += left[hole] / n * float(_split_stake(a, shoe, pair)[up])
    return out


def pressed_stake(a: Analysis, key: tuple[int, ...], up: int, play: str) -> float:
    """Money at risk per pressed unit when the pressed hand ``key`` is played by ``play``
    against ``up``: 1, plus (when the hand acts: always, or after the peek finds no dealer
    Blackjack) 1 for a double, or the split's expected hands and doubles after it less 1.
    A double is exact; a split's hands and doubles come from the engine's split walk,
    conditioned on the hole card when the dealer peeked (upcard A or T), so exact too."""
    if play in ("double", "split"):
        acts = a.no_bj(key, up) if a.rules.peek else 1.0
        if play == "double":
            return 1.0 + acts
        pair = next(c for c in range(10) if key[c] == 2)
        if a.rules.peek and up in (0, 9) and acts < 1.0:
            hands = _split_stake_after_peek(a, pair, up)
        else:
            hands = float(_split_stake(a, a.shoe, pair)[up])
        return 1.0 + acts * (hands - 1.0)
    return 1.0


@dataclass(frozen=True, slots=True)
class PressChart:
    """Press EVs for every (two-card hand, upcard) in which TriLux Deluxe can win."""

    decks: int
    rules: HouseRules
    cells: dict[tuple[int, int, int], PressCell]
    summary: PressSummary

    def cells_json(self) -> list[dict[str, Any]]:
        """Every cell, hand and upcard by class name (``sidebet press --format json``)."""
        return [
            {"hand": f"{CLASS_NAMES[a]},{CLASS_NAMES[b]}", "upcard": CLASS_NAMES[u],
             "ev_per_unit": c.ev_per_unit, "press": c.press, "play": c.play,
             "win_probability": c.win_probability, "mean_pay": c.mean_pay,
             "stake": c.stake}
            for (a, b, u), c in sorted(self.cells.items())
        ]

    def text(self) -> str:
        """The chart: EV per pressed unit in percent, ``P`` press or ``c`` collect."""
        head = f"{'':>4}" + "".join(f"{CLASS_NAMES[u]:>6} " for u in UP_ORDER)
        lines = [head.rstrip()]
        for a, b in two_card_hands():
            row = []
            for u in UP_ORDER:
                cell = self.cells.get((a, b, u))
                if cell is None:
                    row.append(f"{'·':>6} ")
                else:
                    ev = f"{cell.ev_per_unit * 100:+.1f}"
                    if len(ev) > 5:  # -100.0 and the like: whole percent, still 5 wide
                        ev = f"{cell.ev_per_unit * 100:+.0f}"
                    row.append(f"{ev:>6}{'P' if cell.press else 'c'}")
            lines.append((f"{CLASS_NAMES[a]},{CLASS_NAMES[b]:<1} " + "".join(row)).rstrip())
        return "\n".join(lines)


@cache
def _winning_triples() -> tuple[tuple[int, int, int, str], ...]:
    """Card-kind index triples (player, player, upcard) on which TriLux Deluxe wins."""
    out = []
    for i, c1 in enumerate(ALL_CARDS):
        for j, c2 in enumerate(ALL_CARDS):
            for k, c3 in enumerate(ALL_CARDS):
                res = PRESSABLE.classify(c1, c2, c3)
                if res is not None:
                    out.append((i, j, k, res))
    return tuple(out)


@cache
def press_chart(decks: int, rules: HouseRules | None = None) -> PressChart:
    """Exact Press chart and summary for a full ``decks``-deck shoe (paytable by decks)."""
    rules = rules or HouseRules()
    paytable = PRESSABLE.paytable(PRESSABLE.paytable_by_decks[decks])
    pays = {line.outcome: line.pays for line in paytable.lines}
    n = 52 * decks
    denom = n * (n - 1) * (n - 2)
    prob: dict[tuple[int, int, int], float] = defaultdict(float)
    paid: dict[tuple[int, int, int], float] = defaultdict(float)
    classes = [rank_class(c) for c in ALL_CARDS]
    for i, j, k, res in _winning_triples():
        w = decks * (decks - (j == i)) * (decks - (k == i) - (k == j))
        if w <= 0:
            continue
        a, b = sorted((classes[i], classes[j]))
        cell = (a, b, classes[k])
        p = w / denom
        prob[cell] += p
        paid[cell] += p * pays[res]
    a_full = analyse((4 * decks,) * 9 + (16 * decks,), rules)
    cells: dict[tuple[int, int, int], PressCell] = {}
    optimal = always = wins = pressed = ret = risk_opt = risk_all = won_opt = won_all = 0.0
    for cell, p in prob.items():
        a, b, u = cell
        key = [0] * 10
        key[a] += 1
        key[b] += 1
        ev, play = _unit_value(a_full, tuple(key), u)
        stake = pressed_stake(a_full, tuple(key), u, play)
        cells[cell] = PressCell(ev, ev > 0, play, p, paid[cell] / p, stake)
        optimal += paid[cell] * max(ev, 0.0)
        always += paid[cell] * ev
        risk_all += paid[cell] * stake
        risk_opt += paid[cell] * stake if ev > 0 else 0.0
        won_all += paid[cell]
        won_opt += paid[cell] if ev > 0 else 0.0
        wins += p
        pressed += p if ev > 0 else 0.0
        ret += paid[cell] + p
    summary = PressSummary(
        decks=decks, paytable=paytable.name, optimal=optimal, always=always, never=0.0,
        press_share=pressed / wins if wins else 0.0, trilux_return=ret - 1.0,
        at_risk_optimal=risk_opt, at_risk_always=risk_all,
        pressed_optimal=won_opt, pressed_always=won_all,
    )
    return PressChart(decks=decks, rules=rules, cells=cells, summary=summary)


def press_summary(rules: HouseRules | None = None) -> list[PressSummary]:
    """Summaries for every deck count that may offer TriLux Deluxe (1, 2, 4, 6, 8)."""
    return [press_chart(d, rules).summary for d in sorted(PRESSABLE.paytable_by_decks)]
