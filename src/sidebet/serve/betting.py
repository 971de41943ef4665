"""Each betting area's limits for a page that lets a player build the bets before sending
them: the least and most each wager may be beside the bets shown, and what a bet would
break, all from the table engine (:func:`sidebet.table.checks.place_bet_violations` on a
round holding the other bets shown) and the Rules Submission's limits.

>>> from sidebet.regulation.submission import Limits, TableConfig
>>> t = TableConfig(side_wagers={"trilux": "TLX-3"}, limits={"blackjack": Limits(10_00, 500_00)})
>>> [(a["wager"], a["max"], a["max_rule"]) for a in area_limits(t, 100, {"blackjack": 10_00})]
[('blackjack', '500.00', '§ 601a.2'), ('trilux', '20.00', '§ 633c.11(c)')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sidebet.core.cards import Card
from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents, format_money
from sidebet.regulation.submission import Limits, TableConfig
from sidebet.regulation.wagers import get_wager
from sidebet.table.checks import place_bet_violations
from sidebet.table.model import BLACKJACK
from sidebet.table.state import RoundState

__all__ = ["BETS_PATTERN", "area_limits"]

BETS_PATTERN = r"^([a-z0-9-]{1,32}:[0-9]{1,13}(\.[0-9]{1,2})?(,|$))*$"
"""The bets a page shows: ``wager:amount`` pairs separated by commas."""

SUBMISSION = "§ 601a.2"
"""The rule behind a table's own minimum and maximum (its Rules Submission)."""


def _no_card() -> Card:
    raise SidebetError("no card is dealt while the limits are asked")


def _wagers(config: TableConfig) -> list[str]:
    """The table's wagers in the order they may be placed (a wager after those it needs)."""
    sides = sorted(config.side_wagers, key=lambda w: len(get_wager(w).requires))
    return [BLACKJACK, *sides]


def area_limits(config: TableConfig, unit: Cents, shown: Mapping[str, Cents]
                ) -> list[dict[str, Any]]:
    """Each wager of ``config``: its least and most beside the other bets ``shown`` (the
    rule setting the most), and what placing ``shown[wager]`` (or the least) breaks."""
    order = _wagers(config)
    out: list[dict[str, Any]] = []
    for wager in order:
        probe = RoundState(config, 1, _no_card, unit=unit)
        for other in order:
            amount = shown.get(other, 0)
            if other != wager and amount > 0 and not place_bet_violations(probe, 1, other,
                                                                          amount):
                probe.place_bet(1, other, amount)
        limit = config.limits.get(wager, Limits())
        bounds: list[tuple[Cents, str]] = []
        if limit.max is not None:
            bounds.append((limit.max, SUBMISSION))
        if wager != BLACKJACK:
            w = get_wager(wager)
            ratio = w.max_bet(probe.bets(1).get(BLACKJACK, 0))
            if ratio is not None and probe.bets(1).get(BLACKJACK, 0) > 0:
                bounds.append((ratio, w.max_bet_rule))
        most = min(bounds) if bounds else None
        amount = shown.get(wager, 0)
        asked = amount if amount > 0 else max(limit.min or 0, 1)
        out.append({
            "wager": wager, "amount": format_money(amount),
            "min": None if limit.min is None else format_money(limit.min),
            "max": None if most is None else format_money(most[0]),
            "max_rule": None if most is None else most[1],
            "violations": [{"rule": v.rule, "message": v.message}
                           for v in place_bet_violations(probe, 1, wager, asked)],
        })
    return out
