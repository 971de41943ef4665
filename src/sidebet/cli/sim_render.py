"""``sidebet sim``'s tables: a :class:`~sidebet.sim.SimResult` rendered with rich."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from sidebet.sim.results import SimResult

__all__ = ["render"]


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:+.3%}"


def _ci(ci: tuple[float, float] | list[float], pct: bool = True) -> str:
    lo, hi = ci
    if math.isnan(lo) or math.isinf(lo):
        return "—"
    return f"{lo:+.3%} … {hi:+.3%}" if pct else f"{lo:+.4f} … {hi:+.4f}"


def render(result: SimResult) -> Group:
    """The results as rich tables."""
    shape = result.shape
    head = Text(
        f"{result.rounds:,} rounds × {shape.seats} seat{'s' if shape.seats > 1 else ''} "
        f"({result.seat_rounds:,} seat-rounds), {shape.decks} decks, {shape.rules_text}, "
        f"cut card after {shape.cut} cards, {result.strategy}, seed {result.seed}; "
        f"{result.elapsed:.1f} s, {result.rate:,.0f} rounds/s ({result.backend}, "
        f"{result.workers} worker{'s' if result.workers > 1 else ''})"
        + ("  [interrupted]" if result.interrupted else "")
    )
    table = Table(title="Return per unit bet, 95% confidence interval", title_justify="left")
    table.add_column("Wager")
    for col in ("Return", "95% CI", "SD", "Hit freq", "Exact"):
        table.add_column(col, justify="right")
    for w in result.wagers():
        table.add_row(
            f"{w.name} ({w.paytable})", _pct(w.estimate.mean), _ci(w.estimate.ci),
            f"{w.estimate.std_dev:.3f}", f"{w.hit_frequency:.3%}",
            "—" if w.exact is None else _pct(w.exact),
        )
    parts: list[Any] = [head, table]
    bj = result.blackjack()
    if bj is not None:
        exact = bj.get("exact_return")
        table.add_row(
            "Blackjack incl. Press", _pct(bj["return_per_unit"]), _ci(bj["ci95"]),
            f"{bj['std_dev']:.3f}", f"{bj['round_outcomes']['win']:.3%}", "",
        )
        wp = bj["without_press"]
        table.add_row(
            "Blackjack", _pct(wp["return_per_unit"]), _ci(wp["ci95"]),
            f"{wp['std_dev']:.3f}", "", "—" if exact is None else _pct(exact),
        )
        press = result.press()
        assert press is not None
        if press["pressed_rounds"]:
            parts.append(Text(
                f"Press ({press['policy']}: {press['decision']}): pressed on {press['press_frequency']:.3%} of "
                f"seat-rounds, {press['amount_pressed']:,.0f} units in all; the pressed chips "
                f"returned {_pct(press['return_per_unit_pressed'])} per unit pressed "
                f"({_ci(press['ci95'])}), worth {press['value_per_round']:+.5f} units per "
                "seat-round."
            ))
        freq = bj["hand_frequencies"]
        parts.append(Text(
            "Hands: " + ", ".join(f"{k} {v:.3%}" for k, v in freq.items())
            + f"; splits {bj['splits']:,}; dealer Blackjack "
            f"{bj['dealer_blackjack_frequency']:.3%}, dealer busts "
            f"{bj['dealer_bust_frequency']:.3%} of rounds."
        ))
    seats = result.by_seat()
    if len(seats) > 1:
        parts.append(Text(
            "Blackjack by seat (1 acts first): " + ", ".join(
                f"{row['seat']}: {_pct(row['blackjack_return'])} ± "
                f"{(row['blackjack_ci95'][1] - row['blackjack_ci95'][0]) / 2:.3%}"
                for row in seats)
        ))
    total = result.round_total()
    dist = sorted(total["distribution"], key=lambda vc: -vc[1])[:8]
    n = result.seat_rounds or 1
    parts.append(Text(
        f"Whole round per seat (all wagers): mean {total['mean']:+.4f} units "
        f"({_ci(total['ci95'], pct=False)}), SD {total['std_dev']:.3f}; ahead "
        f"{total['win']:.3%}, even {total['push']:.3%}, behind {total['lose']:.3%}. "
        "Most frequent results: " + ", ".join(f"{v:+g} ({c / n:.2%})" for v, c in dist)
    ))
    return Group(*parts)
