"""The most one round can cost the house at a table's limits (its maximum liability).

Per seat: every side wager offered at its largest bet (the table's maximum for it or the most
its ratio to the Blackjack maximum allows, whichever is less) paid its largest line, cut to the posted
maximum payout; the Blackjack wager at the table's maximum won on every hand of the largest
split, each doubled where the rules allow it (or paid as a Blackjack, whichever is more); the
pressed TriLux Deluxe winnings won the same way on top (even money, § 633c.11(f)).  The round:
every seat of the table so, cut to the round's posted aggregate limit.  A wager without a
maximum bet, or a round without one, has no bound: it is named in ``unbounded``.

>>> from sidebet.regulation.submission import Limits, TableConfig
>>> t = TableConfig(decks=6, side_wagers={"blazing7s": "A"},
...                 limits={"blackjack": Limits(10_00, 100_00), "blazing7s": Limits(1_00, 5_00)})
>>> liab = round_liability(t)
>>> [(w.wager, w.max_bet, w.max_win) for w in liab.wagers]
[('blackjack', 10000, 60000), ('blazing7s', 500, 2500000)]
>>> liab.per_seat, liab.seats, liab.per_round, liab.unbounded
(2560000, 7, 17920000, ())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sidebet.core.money import Cents, format_money
from sidebet.regulation.house_rules import BlackjackPays
from sidebet.regulation.submission import ROUND, TableConfig
from sidebet.regulation.wagers import LOSE, PRESSABLE, get_wager

__all__ = ["SEATS", "Liability", "WagerLiability", "round_liability"]

SEATS = 7
"""Seats at a table (the table engine's most)."""


@dataclass(frozen=True, slots=True)
class WagerLiability:
    """The largest bet of one wager at the table and the most it can win (cents)."""

    wager: str
    max_bet: Cents | None
    max_win: Cents | None
    """``None``: no bound (no maximum bet posted)."""
    capped: bool
    """Whether the posted maximum payout cut the win."""

    def to_json(self) -> dict[str, Any]:
        """Money as decimal strings; ``None`` where unbounded."""
        return {"wager": self.wager,
                "max_bet": None if self.max_bet is None else format_money(self.max_bet),
                "max_win": None if self.max_win is None else format_money(self.max_win),
                "capped": self.capped}


@dataclass(frozen=True, slots=True)
class Liability:
    """The most one seat and one round can cost the house."""

    wagers: tuple[WagerLiability, ...]
    per_seat: Cents | None
    seats: int
    per_round: Cents | None
    round_limit: Cents | None
    unbounded: tuple[str, ...]
    """What has no maximum (bet or payout): the liability is then unbounded."""

    def to_json(self) -> dict[str, Any]:
        """Money as decimal strings."""
        def money(v: Cents | None) -> str | None:
            return None if v is None else format_money(v)

        return {"wagers": [w.to_json() for w in self.wagers], "per_seat": money(self.per_seat),
                "seats": self.seats, "per_round": money(self.per_round),
                "round_limit": money(self.round_limit), "unbounded": list(self.unbounded)}


def _cut(win: Cents, cap: Cents | None) -> tuple[Cents, bool]:
    return (win, False) if cap is None or win <= cap else (cap, True)


def _hand_factor(table: TableConfig, pressed: bool) -> tuple[int, int]:
    """The most a hand of one unit wins, as a fraction ``(num, den)``: every hand of the
    largest split doubled where allowed, a double, or a Blackjack (not for pressed money)."""
    rules = table.rules
    hands = max(rules.max_split_hands, 1)
    split = hands * (2 if rules.double_after_split else 1)
    best = (max(split, 2), 1)
    if not pressed:
        bj = (3, 2) if rules.blackjack_pays is BlackjackPays.THREE_TO_TWO else (6, 5)
        if bj[0] * best[1] > best[0] * bj[1]:
            best = bj
    return best


def round_liability(table: TableConfig) -> Liability:
    """The maximum liability of one round at ``table``'s limits (see the module)."""
    unbounded: list[str] = []
    bj_limit = table.limits.get("blackjack")
    bj_max = None if bj_limit is None else bj_limit.max
    out: list[WagerLiability] = []
    if bj_max is None:
        unbounded.append("blackjack")
    press_win: Cents | None = 0
    for wid in table.side_wagers:
        w = get_wager(wid)
        lim = table.limits.get(w.id)
        caps = [v for v in (None if lim is None else lim.max,
                            None if bj_max is None else w.max_bet(bj_max)) if v is not None]
        top = min(caps) if caps else None
        pays = max(ln.pays for ln in w.paytable(table.side_wagers[wid]).lines
                   if ln.outcome != LOSE)
        cap = table.payout_limit(w.id)
        if top is None and cap is None:
            unbounded.append(w.id)
            out.append(WagerLiability(w.id, None, None, False))
            if w.id == PRESSABLE.id:
                press_win = None
            continue
        win, cut = _cut(pays * top, cap) if top is not None else (cap or 0, True)
        out.append(WagerLiability(w.id, top, win, cut))
        if w.id == PRESSABLE.id:
            press_win = win
    bj_win: Cents | None = None
    if bj_max is not None and press_win is not None:
        num, den = _hand_factor(table, pressed=False)
        pnum, pden = _hand_factor(table, pressed=True)
        raw = bj_max * num // den + press_win * pnum // pden
        bj_win, bj_cut = _cut(raw, table.payout_limit("blackjack"))
        out.insert(0, WagerLiability("blackjack", bj_max, bj_win, bj_cut))
    else:
        out.insert(0, WagerLiability("blackjack", bj_max, None, False))
    per_seat = None if unbounded else sum(w.max_win or 0 for w in out)
    whole = table.payout_limits.get(ROUND)
    per_round = None if per_seat is None else per_seat * SEATS
    if whole is not None:
        per_round = whole if per_round is None else min(per_round, whole)
    return Liability(tuple(out), per_seat, SEATS, per_round, whole, tuple(unbounded))
