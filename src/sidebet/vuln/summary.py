"""Presentation of the vulnerability analysis: JSON (stable field names), CSV, Markdown,
rich tables and matplotlib plots (imported only when a plot is drawn).

Frequencies and edges are fractions of 1; ``units_per_100`` are units won per 100
rounds; ``effect`` is in percentage points of return.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from rich.table import Table

from sidebet.core.errors import SidebetError
from sidebet.vuln.counter import Estimate, Result, Row
from sidebet.vuln.eor import EffectsOfRemoval
from sidebet.vuln.fixed_depth import FixedDepth
from sidebet.vuln.sweep import SweepResult

__all__ = [
    "Money",
    "eor_table",
    "plot_edges",
    "plot_sweep",
    "result_json",
    "result_rows",
    "sweep_json",
    "sweep_rows",
]


class Money:
    """The maximum bet and rounds per hour that turn units per 100 rounds into money."""

    def __init__(self, max_bet: float = 100.0, rounds_per_hour: float = 80.0) -> None:
        if not (max_bet > 0 and math.isfinite(max_bet)):
            raise SidebetError(f"--max-bet must be a positive amount, not {max_bet:g}")
        if not (rounds_per_hour > 0 and math.isfinite(rounds_per_hour)):
            raise SidebetError(f"--rounds-per-hour must be positive, not {rounds_per_hour:g}")
        self.max_bet = max_bet
        self.rounds_per_hour = rounds_per_hour

    def per_hour(self, row: Row) -> float:
        """Expected money won per hour by ``row``'s counter."""
        return row.money_per_hour(self.max_bet, self.rounds_per_hour)


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _ci(e: Estimate) -> list[float | None]:
    return [_num(e.low), _num(e.high)]


def _row_json(row: Row, money: Money) -> dict[str, Any]:
    return {
        "count": row.count,
        "tags": row.tags,
        "index": row.index,
        "betting_correlation": row.correlation,
        "trigger": row.trigger,
        "frequency": row.frequency,
        "average_edge": _num(row.average_edge),
        "units_per_100": _num(row.units_per_100.value),
        "units_per_100_ci": _ci(row.units_per_100),
        "money_per_hour": _num(money.per_hour(row)),
        "best_edge": _num(row.best_edge),
    }


def result_json(res: Result, money: Money) -> dict[str, Any]:
    """``{wager, decks, paytable, penetration, seats, rounds, seed, rows: [...],
    perfect_play: {...}, ...}``."""
    spec = res.spec
    pp = res.perfect
    return {
        "wager": spec.wager,
        "decks": spec.decks,
        "paytable": spec.paytable,
        "penetration": spec.sim.cut / (52 * spec.decks),
        "cut_cards": spec.sim.cut,
        "seats": spec.sim.seats,
        "rounds": res.rounds,
        "seed": res.seed,
        "rows": [_row_json(r, money) for r in res.rows],
        "perfect_play": {
            "frequency": pp.frequency,
            "average_edge": _num(pp.average_edge),
            "units_per_100": _num(pp.units_per_100.value),
            "units_per_100_ci": _ci(pp.units_per_100),
            "money_per_hour": _num(money.per_hour(pp)),
            "paid_units_per_100": _num(res.paid_perfect.value),
            "paid_units_per_100_ci": _ci(res.paid_perfect),
        },
        "every_round": {
            "average_edge": _num(res.every_round.average_edge),
            "units_per_100_ci": _ci(res.every_round.units_per_100),
            "paid_units_per_100": _num(res.paid_every_round.value),
            "paid_units_per_100_ci": _ci(res.paid_every_round),
            "full_shoe_return": res.full_shoe_return,
        },
        "max_bet": money.max_bet,
        "rounds_per_hour": money.rounds_per_hour,
        "edge_by_index": [
            {"count": c.name, "index": c.index_name,
             "bins": [{"low": b.low, "high": b.high, "share": b.share, "rounds": b.rounds,
                       "average_edge": b.average_edge} for b in bins]}
            for c, bins in zip(spec.counts, res.edges, strict=True)
        ],
        "perfect_play_by_depth": [
            {"dealt_low": d.low, "dealt_high": d.high, "rounds": d.rounds,
             "p_positive": d.p_positive, "average_positive_edge": _num(d.average_positive_edge),
             "average_edge": d.average_edge}
            for d in res.depth
        ],
        "shoes": res.shoes,
        "elapsed_s": res.elapsed,
        "workers": res.workers,
        "interrupted": res.interrupted,
    }


def sweep_json(sw: SweepResult, money: Money) -> dict[str, Any]:
    """``{wager, decks, paytable, setting, points: [{label, value, ...result}]}``."""
    first = sw.points[0].result.spec
    return {
        "wager": first.wager,
        "decks": first.decks,
        "paytable": first.paytable,
        "setting": sw.setting,
        "points": [{"label": p.label, "value": p.value, **result_json(p.result, money)}
                   for p in sw.points],
    }


_HEAD = ["count", "tags", "trigger", "frequency", "average edge", "units/100",
         "95% interval", "money/hour"]


def _fmt(x: float | None, pct: bool = False, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}%}" if pct else f"{x:,.{digits}f}"


def result_rows(res: Result, money: Money) -> list[list[str]]:
    """The vulnerability table: one row per count, perfect play, every round."""
    out = []
    for r in (*res.rows, res.perfect, res.every_round):
        trig = "never" if r.trigger is None and r.count != "every round" else (
            "—" if r.trigger is None else ("EV > 0" if r.count == "perfect play"
                                           else f"{r.index} ≥ {r.trigger:g}"))
        ci = r.units_per_100
        out.append([r.count, r.tags, trig, _fmt(r.frequency, True, 2),
                    _fmt(r.average_edge, True, 2), _fmt(ci.value, digits=3),
                    f"{_fmt(ci.low)} to {_fmt(ci.high)}", _fmt(money.per_hour(r), digits=2)])
    return out


def sweep_rows(sw: SweepResult, money: Money) -> list[list[str]]:
    """One row per sweep point and count (and perfect play)."""
    out = []
    for p in sw.points:
        for row in result_rows(p.result, money)[:-1]:
            out.append([p.label, *row])
    return out


def as_text(head: list[str], rows: list[list[str]], fmt: str, title: str) -> str | Table:
    """Rows as CSV, Markdown or a rich table."""
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(head)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    table = Table(title=title, title_justify="left")
    for h in head:
        table.add_column(h, justify="left" if h in ("count", "tags", "setting", "card",
                                                     "rank") else "right")
    for r in rows:
        table.add_row(*r)
    return table


def result_head() -> list[str]:
    """Column names of :func:`result_rows`."""
    return list(_HEAD)


def eor_table(eor: EffectsOfRemoval) -> tuple[list[str], list[list[str]]]:
    """Effects of removal by rank (suits listed where they differ), percentage points."""
    head = ["rank", "effect (pp)", "♣", "♦", "♥", "♠"]
    rows = []
    for r in eor.by_rank:
        suits = [f"{float(v):+.5f}" if r.suits_differ else "" for v in r.suits]
        rows.append([r.rank, f"{float(r.mean):+.5f}", *suits])
    return head, rows


def fixed_depth_rows(d: FixedDepth) -> tuple[list[str], list[list[str]]]:
    """The fixed-depth distribution as one row."""
    ape = d.average_positive_edge
    head = ["cards left", "samples", "P(edge > 0)", "95% interval", "average edge when > 0",
            "95% interval", "average edge"]
    row = [str(d.cards_left), f"{d.samples:,}", _fmt(d.p_positive.value, True, 3),
           f"{_fmt(d.p_positive.low, True, 3)} to {_fmt(d.p_positive.high, True, 3)}",
           _fmt(ape.value if ape else None, True, 3),
           f"{_fmt(ape.low, True, 3)} to {_fmt(ape.high, True, 3)}" if ape else "—",
           _fmt(d.average_edge, True, 3)]
    return head, [row]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    if path.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise SidebetError(f"--plot writes .svg, .png or .pdf, not {path.name!r}")
    try:
        # no creation date in the file: the same run writes the same plot
        metadata = {"Date": None} if path.suffix.lower() in (".svg", ".pdf") else {}
        fig.savefig(path, bbox_inches="tight", metadata=metadata)
    except OSError as exc:
        raise SidebetError(f"--plot: cannot write {path}: {exc.strerror}") from None


def plot_edges(res: Result, path: Path) -> None:
    """Edge by index for every count (one panel each) and perfect play by depth."""
    if path.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise SidebetError(f"--plot writes .svg, .png or .pdf, not {path.name!r}")
    plt = _pyplot()
    n = len(res.rows) + 1
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    spec = res.spec
    for ax, count, bins, row in zip(axes.flat, spec.counts, res.edges, res.rows, strict=False):
        xs = [(b.low + b.high) / 2 for b in bins]
        ax.plot(xs, [100 * b.average_edge for b in bins], marker=".", lw=1)
        ax.axhline(0, color="grey", lw=0.6)
        if row.trigger is not None:
            ax.axvline(row.trigger, color="tab:red", lw=0.8, ls="--", label="trigger")
            ax.legend(fontsize=7)
        ax.set_title(f"{count.name}: {count.describe()}"[:60], fontsize=8)
        ax.set_xlabel(count.index_name, fontsize=8)
        ax.set_ylabel("player's edge, %", fontsize=8)
    ax = axes.flat[len(res.rows)]
    ax.bar([100 * (d.low + d.high) / 2 for d in res.depth], [100 * d.p_positive for d in res.depth],
           width=8)
    ax.set_title("perfect play: P(edge > 0) by depth", fontsize=8)
    ax.set_xlabel("% of the shoe dealt", fontsize=8)
    ax.set_ylabel("% of rounds", fontsize=8)
    for extra in list(axes.flat)[n:]:
        extra.set_visible(False)
    fig.suptitle(f"{spec.wager} {spec.paytable}, {spec.decks} decks, cut after "
                 f"{spec.sim.cut} cards, {spec.sim.seats} seat(s), {res.rounds:,} rounds",
                 fontsize=9)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_sweep(sw: SweepResult, path: Path) -> None:
    """Units won per 100 rounds against the swept setting, per count and perfect play."""
    if path.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise SidebetError(f"--plot writes .svg, .png or .pdf, not {path.name!r}")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    swept = [p for p in sw.points if p.value is not None]
    names = [r.count for r in swept[0].result.rows] + ["perfect play"]
    for i, name in enumerate(names):
        ys = []
        for p in swept:
            row = p.result.perfect if name == "perfect play" else p.result.rows[i]
            ys.append(row.units_per_100.value)
        ax.plot([p.value for p in swept], ys, marker="o", lw=1, label=name)
    csm = [p for p in sw.points if p.value is None]
    if csm:
        ax.axhline(csm[0].result.perfect.units_per_100.value, color="black", lw=0.8, ls=":",
                   label="continuous shuffler (perfect play)")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel(sw.setting)
    ax.set_ylabel("units won per 100 rounds")
    first = sw.points[0].result.spec
    ax.set_title(f"{first.wager} {first.paytable}: countermeasures", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
