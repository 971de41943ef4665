"""The report's money at the table's limits: the house's theoretical win per hour, the
stakes a counter must play with, and whether a count's gain is material.

Money is integer cents where it is an amount; an expected win per hour is an expectation,
shown rounded to the cent.  The stakes come from the Rules Submission: a side wager at its
table maximum (else the most its ratio to the Blackjack maximum allows), the Blackjack wager
at its table minimum (and at least what the side wager's ratio rule requires while it is bet).

>>> from sidebet.regulation.submission import Limits, TableConfig
>>> t = TableConfig(decks=6, side_wagers={"trilux": "TLX-3"},
...                 limits={"blackjack": Limits(10_00, 500_00), "trilux": Limits(5_00, 100_00)})
>>> s = counter_stakes(t, "trilux")
>>> s.side, s.blackjack_min, s.blackjack_when_betting
(10000, 1000, 5000)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sidebet.core.money import CENTS_PER_UNIT, Cents, format_money
from sidebet.regulation.house_rules import BlackjackPays
from sidebet.regulation.submission import ROUND, TableConfig
from sidebet.regulation.wagers import PRESSABLE, BetContext, get_wager

__all__ = ["CounterStakes", "attainable_liability", "counter_stakes", "materiality",
           "theoretical_win"]


@dataclass(frozen=True, slots=True)
class CounterStakes:
    """What a counter stakes at this table (cents); ``limited`` is ``False`` when the table
    posts no maximum for the side wager (one table unit is assumed and said)."""

    wager: str
    side: Cents
    blackjack_min: Cents
    blackjack_when_betting: Cents
    required: tuple[tuple[str, Cents], ...]
    """Other wagers the side wager requires (Top 3: Three Card Poker), at their minimum."""
    limited: bool

    @property
    def side_units(self) -> float:
        """The side wager in money units (for money per hour)."""
        return self.side / CENTS_PER_UNIT

    def to_json(self) -> dict[str, Any]:
        """Money as decimal strings."""
        return {"side": format_money(self.side), "blackjack_min": format_money(self.blackjack_min),
                "blackjack_when_betting": format_money(self.blackjack_when_betting),
                "required": {k: format_money(v) for k, v in self.required},
                "limited": self.limited}


def _least_blackjack(wager: str, side: Cents, floor: Cents) -> Cents:
    """The least Blackjack wager (at least ``floor``) the wager's own rules allow beside a
    side wager of ``side`` (asked of the wager's bet rules, never restated here)."""
    w = get_wager(wager)

    def ok(bj: Cents) -> bool:
        rules = {v.rule for v in w.bet_violations(BetContext(side, bj, side))}
        return not ({w.max_bet_rule, w.blackjack_wager_rule} & rules)

    if ok(floor):
        return floor
    lo, hi = floor, max(floor, side)
    while not ok(hi):
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _side_max(config: TableConfig, wager: str) -> Cents | None:
    """The most the side wager can be bet: its posted maximum or its cap beside the Blackjack
    maximum, whichever is less (``None``: no bound)."""
    lim = config.limits.get(wager)
    bj = config.limits.get("blackjack")
    caps = [v for v in (None if lim is None else lim.max,
                        None if bj is None or bj.max is None else get_wager(wager).max_bet(bj.max))
            if v is not None]
    return min(caps) if caps else None


def counter_stakes(config: TableConfig, wager: str) -> CounterStakes:
    """The stakes of a counter betting ``wager`` at ``config``'s limits."""
    top = _side_max(config, wager)
    side = CENTS_PER_UNIT if top is None else top
    bj = config.limits.get("blackjack")
    floor = bj.min if bj is not None and bj.min is not None else CENTS_PER_UNIT
    required = []
    for r in get_wager(wager).requires:
        lim = config.limits.get(r.id)
        required.append((r.id, lim.min if lim is not None and lim.min is not None
                         else CENTS_PER_UNIT))
    return CounterStakes(wager, side, floor, _least_blackjack(wager, side, floor),
                         tuple(required), top is not None)


def _cost_per_100(stakes: CounterStakes, blackjack_edge: float, frequency: float,
                  edges: dict[str, float]) -> float:
    """The house's expected win on the wagers a counter betting the side wager in
    ``frequency`` of the rounds must play, in side-wager units per 100 rounds; 0 where the
    side wager has no maximum (the counter's bet has no bound, so the fixed cost of the
    Blackjack wager per side-wager unit tends to nothing)."""
    if not stakes.limited:
        return 0.0
    bj = (1 - frequency) * stakes.blackjack_min + frequency * stakes.blackjack_when_betting
    req = sum(edges.get(r, 0.0) * amount for r, amount in stakes.required)
    return 100 * (blackjack_edge * bj + frequency * req) / stakes.side


def materiality(point: dict[str, Any], stakes: CounterStakes, blackjack_edge: float,
                press: dict[str, Any] | None, edges: dict[str, float] | None = None,
                rounds_per_hour: int = 80) -> dict[str, Any]:
    """Each count (and perfect play) at the table's setting against the cost of the wagers
    it must play, in side-wager units per 100 rounds: the Blackjack wager every round at
    what this table makes the counter bet (its minimum on the rounds the side wager is not
    bet, the least the side wager's rules allow beside it on the rounds it is: the
    counter's actual Blackjack bet, never one the size of the side wager) and the wagers the
    side wager requires whenever it is bet.  A gain is *material* only when its whole 95%
    interval lies above that cost; the wager is called vulnerable when a count's gain is
    material (perfect play, the bound no count reaches, is judged apart, and with the Press
    only when at least ``MIN_SAMPLED_BETS`` of its sampled rounds, each weighing the
    inverse of the sampling rate, were bet: an interval resting on fewer is not trusted).  With
    no side-wager maximum (``stakes.limited`` false) the cost is 0 and the gain unbounded in
    money, as the liability is: a gain whose interval lies above 0 is material.  ``net_per_hour``
    is the counter's expected net (gain less cost) in money per hour at the side wager's
    maximum (``None`` for a count that never bets).  For TriLux Deluxe ``press`` is :func:`sidebet.vuln.press_counter.press_counter`'s
    JSON: each count at its own best trigger with the exact Press of the shoe as it stands,
    and perfect play with the Press."""
    edges = edges or {}
    by_count = {r["count"]: r for r in (press or {}).get("rows", [])}
    if (press or {}).get("perfect_play") is not None:
        assert press is not None
        by_count["perfect play"] = press["perfect_play"]
    rows = []
    for row in [*point["rows"], {**point["perfect_play"], "count": "perfect play"}]:
        f = row["frequency"] or 0.0
        cost = _cost_per_100(stakes, blackjack_edge, f, edges)
        gain, (low, high) = row["units_per_100"], row["units_per_100_ci"]
        out = {"count": row["count"], "units_per_100": gain, "ci": [low, high],
               "cost_per_100": cost,
               "net_per_hour": None if not f or not stakes.limited else
               (gain - cost) / 100 * stakes.side_units * rounds_per_hour,
               "material": low is not None and low > cost}
        if press is not None:
            p = by_count.get(row["count"])
            if p is None or (p["trigger"] is None and p["count"] != "perfect play"):
                out["with_press"] = None if p is None else {
                    "units_per_100": 0.0, "ci": [None, None], "trigger": None,
                    "frequency": 0.0, "cost_per_100": _cost_per_100(stakes, blackjack_edge,
                                                                   0.0, edges),
                    "material": False, "established": True, "sampled_bets": None,
                    "beyond": p.get("beyond_exact_share")}
            else:
                p_cost = _cost_per_100(stakes, blackjack_edge, p["frequency"], edges)
                p_low = p["units_per_100_ci"][0]
                judged = bool(p.get("established", True))
                out["with_press"] = {"units_per_100": p["units_per_100"],
                                     "ci": p["units_per_100_ci"], "trigger": p["trigger"],
                                     "frequency": p["frequency"], "cost_per_100": p_cost,
                                     "material": judged and p_low is not None and p_low > p_cost,
                                     "established": judged,
                                     "sampled_bets": p.get("sampled_bets"),
                                     "beyond": p.get("beyond_exact_share")}
        rows.append(out)

    def counts(r: dict[str, Any]) -> bool:
        return bool(r["material"] or (r.get("with_press") or {}).get("material"))

    material = [r["count"] for r in rows[:-1] if counts(r)]
    return {"rows": rows, "material": material, "vulnerable": bool(material),
            "perfect_play_material": counts(rows[-1]),
            "perfect_play_material_with_press_only": counts(rows[-1]) and not rows[-1]["material"],
            "perfect_play_with_press_unjudged": not ((rows[-1].get("with_press") or {})
                                                     .get("established", True)),
            "blackjack_edge": blackjack_edge, "limited": stakes.limited,
            "press": press}


def _per_hour(edge: float, bet: Cents | None, rounds_per_hour: int) -> str | None:
    if bet is None:
        return None
    return format_money(math.floor(edge * bet * rounds_per_hour + 0.5))


def theoretical_win(config: TableConfig, wagers: list[dict[str, Any]],
                    press: dict[str, Any] | None, blackjack_edge: float,
                    rounds_per_hour: int) -> dict[str, Any]:
    """The house's theoretical win per hour (house edge × bet × rounds per hour) of each
    wager and of TriLux Deluxe with its optimal Press, at the table's minimum and maximum."""
    rows = []

    def row(key: str, name: str, edge: float, limit_key: str, precision: str) -> None:
        lim = config.limits.get(limit_key)
        low = lim.min if lim is not None else None
        high = _side_max(config, limit_key) if limit_key != "blackjack" else (
            lim.max if lim is not None else None)
        rows.append({"wager": key, "name": name, "house_edge": edge, "precision": precision,
                     "min_bet": None if low is None else format_money(low),
                     "max_bet": None if high is None else format_money(high),
                     "per_hour_at_min": _per_hour(edge, low, rounds_per_hour),
                     "per_hour_at_max": _per_hour(edge, high, rounds_per_hour)})

    row("blackjack", "Blackjack (basic strategy)", blackjack_edge, "blackjack",
        "floating point (Blackjack analyser)")
    for w in wagers:
        row(w["wager"], w["name"], w["par"]["house_edge"], w["wager"], "exact fraction")
    if press is not None:
        optimal = next(p for p in press["policies"] if p["policy"] == "optimal")
        row(f"{PRESSABLE.id}+press", f"{PRESSABLE.name} with the optimal Press", optimal["house_edge"],
            PRESSABLE.id, "floating point (Blackjack analyser)")
    return {"rounds_per_hour": rounds_per_hour, "rows": rows,
            "note": "per seat; an expectation, rounded to the cent; no maximum posted: none"}


def _hand_factors(config: TableConfig) -> tuple[Any, Any]:
    """Per ordered pair of player card kinds: the most one unit of the Blackjack wager and
    one unit of pressed money can win on those two cards (a Blackjack at its odds, pressed
    money even money on it; a pair split to the most hands, each doubled where allowed; a
    double where the rules allow that total; else even money)."""
    import numpy as np

    rules = config.rules
    rank = np.arange(52) // 4
    value = np.where(rank == 12, 11, np.minimum(rank + 2, 10))
    a, b = rank[:, None], rank[None, :]
    va, vb = value[:, None], value[None, :]
    total = va + vb
    total = np.where(total > 21, total - 10, total)
    soft = (a == 12) | (b == 12)
    natural = ((a == 12) & (vb == 10)) | ((b == 12) & (va == 10))
    doubles = np.vectorize(lambda t, s: rules.double.allows(int(t), bool(s)))(total, soft)
    hands = max(rules.max_split_hands, 1)
    split = hands * (2 if rules.double_after_split else 1)
    pair = (va == vb) & (hands > 1)
    plain = np.where(doubles, 2.0, 1.0)
    played = np.where(pair, np.maximum(split, plain), plain)
    bj = 1.5 if rules.blackjack_pays is BlackjackPays.THREE_TO_TWO else 1.2
    return np.where(natural, bj, played), np.where(natural, 1.0, played)


def attainable_liability(config: TableConfig) -> dict[str, Any]:
    """The most one round can really cost: the largest sum the wagers of one seat can win on
    one deal of its two cards and the upcard (each side wager paid the line those cards make,
    at its largest bet, cut to its maximum payout; the Blackjack wager and the pressed TriLux
    Deluxe winnings won as those two cards allow), and a round of seats dealt from the shoe
    best first, each seat the best two cards the shoe has left, with the upcard that does
    best.  The safe bound of :mod:`sidebet.regulation.liability` adds lines no one deal
    makes together; the true maximum of a round lies between this deal and that bound.
    ``None`` where a wager has no bound."""
    import numpy as np

    from sidebet.exact.outcomes import outcome_table
    from sidebet.regulation.liability import SEATS, round_liability

    safe = round_liability(config)
    if safe.unbounded:
        return {"per_seat": None, "per_round": None, "seats": SEATS, "deal": None}
    tops = {w.wager: w.max_bet for w in safe.wagers}
    bj_max = tops["blackjack"] or 0
    seat = np.zeros((52, 52, 52))
    press_win = np.zeros((52, 52, 52))
    for wid, paytable in config.side_wagers.items():
        w = get_wager(wid)
        table = w.paytable(paytable)
        pays = np.array([max(table.pays(o), 0) for o in w.outcome_ids], dtype=np.float64)
        win = pays[outcome_table(w)] * (tops[wid] or 0)
        cap = config.payout_limit(w.id)
        if cap is not None:
            win = np.minimum(win, cap)
        seat += win
        if w.id == PRESSABLE.id:
            press_win = win
    bj_factor, press_factor = _hand_factors(config)
    blackjack = bj_max * bj_factor[:, :, None] + press_win * press_factor[:, :, None]
    cap = config.payout_limit("blackjack")
    if cap is not None:
        blackjack = np.minimum(blackjack, cap)
    seat = np.floor(seat + blackjack)
    d = config.decks
    i, j, k = np.indices((52, 52, 52))
    copies = 1 + (i == j) + ((k == i) | (k == j)) + ((i == j) & (j == k))
    seat = np.where(copies <= d, seat, -1)
    best_seat = int(seat.max())
    where = np.unravel_index(int(seat.argmax()), seat.shape)
    best_round, best_deal = -1, None
    for up in range(52):
        left = np.full(52, d)
        left[up] -= 1
        values = seat[:, :, up].copy()
        total, deal = 0, []
        for _ in range(SEATS):
            ok = (left[:, None] >= 1) & (left[None, :] >= 1 + np.eye(52, dtype=int))
            v = np.where(ok, values, -1)
            a, b = np.unravel_index(int(v.argmax()), v.shape)
            if v[a, b] < 0:
                break
            total += int(v[a, b])
            left[a] -= 1
            left[b] -= 1
            deal.append((int(a), int(b)))
        if total > best_round:
            best_round, best_deal = total, (up, deal)
    whole = config.payout_limits.get(ROUND)
    per_round = best_round if whole is None else min(best_round, whole)
    from sidebet.core.cards import ALL_CARDS

    assert best_deal is not None
    up, deal = best_deal
    return {"per_seat": format_money(best_seat), "per_round": format_money(per_round),
            "seats": SEATS,
            "seat_deal": " ".join(str(ALL_CARDS[int(c)]) for c in where),
            "deal": {"upcard": str(ALL_CARDS[up]),
                     "seats": [f"{ALL_CARDS[a]} {ALL_CARDS[b]}" for a, b in deal]}}
