"""The report's plots, drawn with matplotlib from the report's data and returned as SVG text.

Every figure is drawn from :func:`sidebet.report.build.build_report`'s data, never from a
second computation of the game, so a plot shows the numbers the tables print.  The SVG is
made reproducible (no date, ids salted by the figure's name) so that two figures in one
HTML page never share an id and a regenerated report differs only where the numbers do.
"""

from __future__ import annotations

import io
import math
from typing import Any

import matplotlib
import numpy as np
import numpy.typing as npt
from matplotlib.colors import ListedColormap, TwoSlopeNorm
from matplotlib.figure import Figure

__all__ = [
    "convergence_svg",
    "hold_distribution",
    "hold_svg",
    "press_svg",
    "strategy_svg",
    "vulnerability_svg",
    "wager_svg",
]

BAND_COLOURS = {0.9: "#9ecae1", 0.95: "#6baed6", 0.99: "#c6dbef"}
DISTRIBUTION_WAGERS = 1_000


def _svg(fig: Figure, name: str) -> str:
    """The figure as SVG text, without the XML prolog, ids salted by ``name``."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"sidebet-{name}", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _pct(ax: Any, axis: str = "y") -> None:
    from matplotlib.ticker import PercentFormatter

    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0))


# --- one wager ---------------------------------------------------------------------------


def wager_svg(wager: dict[str, Any]) -> str:
    """Outcome probabilities (log scale, odds written beside each bar) and how each outcome
    builds up the return; the outcomes are named once, on the left panel."""
    par = wager["par"]
    lines = par["outcomes"]
    labels = [wager["labels"][ln["outcome"]] for ln in lines]
    fig = Figure(figsize=(10, 0.45 * len(lines) + 1.6), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(lines))
    probs = [ln["probability"] for ln in lines]
    shown = [p for p in probs if p > 0]
    left.barh(y, probs, color=["#d62728" if ln["pays"] < 0 else "#2ca02c" for ln in lines])
    left.set_xscale("log")
    left.set_xlim(min(shown) / 3, max(shown) * 60)  # room for the odds right of each bar
    left.set_yticks(y, labels)
    left.invert_yaxis()
    left.set_xlabel("probability (log scale)")
    left.set_title("Outcome probabilities")
    for yi, p in zip(y, probs, strict=True):
        left.text(p * 1.15 if p > 0 else min(shown) / 2.5, yi,
                  f"1 in {1 / p:,.0f}" if p > 0 else "impossible", va="center", fontsize=7)
    running = 0.0
    for yi, ln in zip(y, lines, strict=True):
        step = ln["return"]
        right.barh(yi, step, left=running, color="#2ca02c" if step >= 0 else "#d62728")
        running += step
    right.axvline(par["expected_return"], color="black", linestyle="--", linewidth=1)
    right.tick_params(axis="y", labelleft=False)
    right.set_xlabel("cumulative return per unit bet")
    right.set_title(f"Return build-up (ends at {par['expected_return']:+.4%})")
    _pct(right, "x")
    fig.suptitle(f"{wager['name']}, paytable {wager['paytable']}")
    return _svg(fig, f"wager-{wager['wager']}")


MAX_BARS = 160
"""Most bars of the hold histogram (bins are whole multiples of the lattice step)."""


def hold_distribution(wager: dict[str, Any], n: int = DISTRIBUTION_WAGERS
                      ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float, int]:
    """The hold after ``n`` wagers on its lattice (:func:`sidebet.report.hold.hold_distribution`
    on the PAR sheet's lines), grouped ``k`` lattice points to a bar so that at most
    :data:`MAX_BARS` bars cover 5 standard deviations each side: ``(holds, probabilities,
    bar width, k)``, each bar's hold its lowest point's."""
    from sidebet.report.hold import hold_distribution as exact

    par = wager["par"]
    dist = exact([(ln["pays"], ln["combinations"]) for ln in par["outcomes"]], n)
    holds, probs = dist.holds()[::-1], dist.probs[::-1]  # ascending hold
    spread = 5 * par["std_dev"] / math.sqrt(n)
    keep = np.abs(holds - par["house_edge"]) <= spread
    holds, probs = holds[keep], probs[keep]
    k = max(1, math.ceil(len(holds) / MAX_BARS))
    groups = math.ceil(len(holds) / k)
    padded = np.zeros(groups * k)
    padded[: len(probs)] = probs
    return holds[::k], padded.reshape(groups, k).sum(axis=1), k * dist.step / n, k


def hold_svg(wager: dict[str, Any]) -> str:
    """The hold after 1,000 wagers on its lattice with its true central ranges (and the
    normal band where it is close), and the true ranges as the number of wagers grows."""
    par = wager["par"]
    edge = par["house_edge"]
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    xs, ps, width, k = hold_distribution(wager)
    left.bar(xs, ps, width=width * 0.9, align="edge", color="#08519c")
    ranges = [h for h in wager["hold_ranges"] if h["wagers"] == DISTRIBUTION_WAGERS]
    for h in sorted(ranges, key=lambda r: -r["confidence"]):
        left.axvspan(h["low"], h["high"], color=BAND_COLOURS[h["confidence"]], alpha=0.35,
                     label=f"true {h['confidence']:.0%} range")
    left.axvline(edge, color="black", linestyle="--", linewidth=1, label="house edge")
    left.set_xlim(xs.min(), xs.max() + width)
    _pct(left, "x")
    step = "one bar per attainable hold" if k == 1 else f"a bar per {k} attainable holds"
    left.set_xlabel(f"house's hold after {DISTRIBUTION_WAGERS:,} wagers ({step})")
    left.set_ylabel("probability")
    left.set_title("Distribution of the hold (convolution, independent wagers)", fontsize=9)
    left.legend(fontsize=7)
    by_conf: dict[float, list[dict[str, Any]]] = {}
    for h in wager["hold_ranges"]:
        by_conf.setdefault(h["confidence"], []).append(h)
    for conf in sorted(by_conf, reverse=True):
        rows = sorted(by_conf[conf], key=lambda r: r["wagers"])
        ns = [r["wagers"] for r in rows]
        right.fill_between(ns, [r["low"] for r in rows], [r["high"] for r in rows],
                           color=BAND_COLOURS[conf], alpha=0.6, label=f"true {conf:.0%}")
        normal = [r for r in rows if r["normal"] is not None]
        right.plot([r["wagers"] for r in normal], [r["normal"]["high"] for r in normal],
                   linestyle="none", marker="_", color="#08306b", markersize=8)
        right.plot([r["wagers"] for r in normal], [r["normal"]["low"] for r in normal],
                   linestyle="none", marker="_", color="#08306b", markersize=8)
    right.plot([], [], linestyle="none", marker="_", color="#08306b",
               label="normal band (where close)")
    right.axhline(edge, color="black", linestyle="--", linewidth=1)
    right.axhline(1.0, color="grey", linestyle=":", linewidth=0.8)
    right.set_xscale("log")
    right.set_xlabel("wagers")
    right.set_ylabel("house's hold")
    right.set_title("True central ranges of the hold", fontsize=9)
    _pct(right)
    right.legend(fontsize=7, title="confidence", title_fontsize=7)
    fig.suptitle(wager["name"])
    return _svg(fig, f"hold-{wager['wager']}")


# --- simulation, Press, strategy ---------------------------------------------------------


def convergence_svg(simulation: dict[str, Any], exact: dict[str, float],
                    names: dict[str, str]) -> str:
    """Simulated return (95% interval) against the number of rounds, with the exact value."""
    points = simulation["convergence"]
    keys = list(points[-1]["returns"])
    cols = min(3, len(keys))
    rows = math.ceil(len(keys) / cols)
    fig = Figure(figsize=(3.6 * cols, 2.8 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    xs = [p["rounds"] for p in points]
    for ax, key in zip(axes.flat, keys, strict=False):
        means = [p["returns"][key]["mean"] for p in points]
        lo = [p["returns"][key]["ci95"][0] for p in points]
        hi = [p["returns"][key]["ci95"][1] for p in points]
        ax.fill_between(xs, lo, hi, color="#c6dbef", label="95% interval")
        ax.plot(xs, means, marker="o", markersize=3, color="#08519c", label="simulated")
        ax.axhline(exact[key], color="#d62728", linestyle="--", linewidth=1, label="exact")
        ax.set_xscale("log")
        ax.set_title(names.get(key, key), fontsize=9)
        ax.set_xlabel("rounds", fontsize=8)
        _pct(ax)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Convergence of the simulated return to the exact return")
    fig.tight_layout()
    return _svg(fig, "convergence")


def press_svg(press: dict[str, Any]) -> str:
    """The Press chart as a heat map: EV per pressed unit, ``P`` press, ``c`` collect."""
    hands = list(dict.fromkeys(c["hand"] for c in press["cells"]))
    ups = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"]
    grid = np.full((len(hands), len(ups)), np.nan)
    marks: dict[tuple[int, int], str] = {}
    for c in press["cells"]:
        i, j = hands.index(c["hand"]), ups.index(c["upcard"])
        grid[i, j] = c["ev_per_unit"]
        marks[(i, j)] = "P" if c["press"] else "c"
    bound = float(np.nanmax(np.abs(grid)))
    half = (len(hands) + 1) // 2  # two panels side by side: legible at 60 dpi
    fig = Figure(figsize=(7.5, 0.26 * half + 2.2), layout="constrained")
    axes = fig.subplots(1, 2)
    norm = TwoSlopeNorm(0.0, -bound, bound)
    image = None
    for k, ax in enumerate(axes):
        rows = range(k * half, min((k + 1) * half, len(hands)))
        image = ax.imshow(grid[rows.start:rows.stop], cmap="RdYlGn", norm=norm, aspect="auto")
        for (i, j), mark in marks.items():
            if i in rows:
                ax.text(j, i - rows.start, mark, ha="center", va="center", fontsize=8,
                        fontweight="bold" if mark == "P" else "normal")
        ax.set_xticks(range(len(ups)), ups, fontsize=9)
        ax.set_yticks(range(len(rows)), [hands[i] for i in rows], fontsize=8)
        ax.set_xlabel("dealer's upcard", fontsize=9)
        if k == 0:
            ax.set_ylabel("player's two cards", fontsize=9)
    fig.suptitle(f"TriLux Deluxe Press, {press['decks']} decks: EV per pressed unit\n"
                 "P: press all the winnings, c: collect them; blank: TriLux cannot win",
                 fontsize=10)
    assert image is not None
    bar = fig.colorbar(image, ax=list(axes), orientation="horizontal", shrink=0.6, aspect=40)
    _pct(bar.ax, "x")
    return _svg(fig, "press")


_ACTION_COLOURS = {"H": "#f7f7f7", "S": "#fdae61", "D": "#66bd63", "P": "#74add1",
                   "R": "#d9d9d9"}


def strategy_svg(base: dict[str, Any]) -> str:
    """The basic strategy chart, one colour per first choice."""
    ups = base["upcards"]
    rows = list(base["chart"].items())
    letters = list(_ACTION_COLOURS)
    grid = np.array([[letters.index(codes[u][0]) for u in ups] for _, codes in rows])
    fig = Figure(figsize=(6.5, 0.24 * len(rows) + 1.2))
    ax = fig.subplots()
    ax.imshow(grid, cmap=ListedColormap(list(_ACTION_COLOURS.values())), vmin=0,
              vmax=len(letters) - 1, aspect="auto")
    for i, (_, codes) in enumerate(rows):
        for j, u in enumerate(ups):
            ax.text(j, i, codes[u], ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(ups)), ups)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize=7)
    ax.set_title(f"Basic strategy, {base['decks']} decks, {base['rules']}", fontsize=9)
    return _svg(fig, "strategy")


# --- counting vulnerability --------------------------------------------------------------


def vulnerability_svg(v: dict[str, Any]) -> str:
    """One wager: effects of removal by rank, the player's edge by the best count's index
    and perfect play by depth at the table's penetration, and units won per 100 rounds
    against the penetration (with the continuous shuffler)."""
    fig = Figure(figsize=(10, 6.4))
    (eor_ax, edge_ax), (depth_ax, sweep_ax) = fig.subplots(2, 2)
    ranks = v["eor"]["by_rank"]
    xs = np.arange(len(ranks))
    eor_ax.bar(xs, [r["effect"] for r in ranks], color="#6baed6", label="rank")
    suits = {"C": ("♣", -0.3), "D": ("♦", -0.1), "H": ("♥", 0.1), "S": ("♠", 0.3)}
    marked = False
    for x, r in zip(xs, ranks, strict=True):
        if r["suits_differ"]:
            for suit, effect in r["suits"].items():
                sym, dx = suits.get(suit, (suit, 0.0))
                eor_ax.plot(x + dx, effect, marker="o", linestyle="none", markersize=3,
                            color="#b2182b", label=None if marked else "one card of a suit")
                eor_ax.annotate(sym, (x + dx, effect), textcoords="offset points",
                                xytext=(0, 3), ha="center", fontsize=6, color="#b2182b")
                marked = True
    if marked:
        eor_ax.legend(fontsize=6)
    eor_ax.axhline(0, color="grey", linewidth=0.6)
    eor_ax.set_xticks(xs, [r["rank"] for r in ranks])
    eor_ax.set_ylabel("effect, percentage points")
    eor_ax.set_title(f"Effects of removal (by {v['eor']['summary']})", fontsize=9)
    summary = v["summary"]
    point = v["sweep"]["points"][summary["at_table"]]
    rows = point["rows"]
    chosen = next((i for i, r in enumerate(rows) if r["count"] == summary["best_count"]), 0)
    if rows:
        bins = [b for b in point["edge_by_index"][chosen]["bins"] if b["share"] >= 0.001]
        edge_ax.plot([(b["low"] + b["high"]) / 2 for b in bins],
                     [b["average_edge"] for b in bins], marker=".", linewidth=1)
        if rows[chosen]["trigger"] is not None:
            edge_ax.axvline(rows[chosen]["trigger"], color="#d62728", linestyle="--",
                            linewidth=0.8, label="trigger")
            edge_ax.legend(fontsize=7)
        edge_ax.set_xlabel(point["edge_by_index"][chosen]["index"])
        edge_ax.set_title(f"Player's edge by index: {rows[chosen]['count']}", fontsize=9)
    edge_ax.axhline(0, color="grey", linewidth=0.6)
    _pct(edge_ax)
    depth = point["perfect_play_by_depth"]
    mids = [(d["dealt_low"] + d["dealt_high"]) / 2 for d in depth]
    depth_ax.bar(mids, [d["p_positive"] for d in depth], width=0.08, color="#74c476",
                 label="P(edge > 0)")
    depth_ax.plot(mids, [d["average_edge"] for d in depth], marker="o", color="#9ecae1",
                  linewidth=0.8, label="average edge, all rounds")
    positive = [(m, d["average_positive_edge"]) for m, d in zip(mids, depth, strict=True)
                if d["average_positive_edge"] is not None]
    if positive:
        depth_ax.plot([m for m, _ in positive], [e for _, e in positive], marker="s",
                      color="#08519c", label="average edge when positive")
    depth_ax.axhline(0, color="grey", linewidth=0.6)
    depth_ax.set_xlabel("share of the shoe dealt")
    depth_ax.set_title("Perfect play by shoe depth", fontsize=9)
    _pct(depth_ax)
    _pct(depth_ax, "x")
    depth_ax.legend(fontsize=7)
    swept = [p for p in v["sweep"]["points"] if p["value"] is not None]
    pens = [p["value"] for p in swept]
    for i, row in enumerate(swept[0]["rows"]):
        sweep_ax.plot(pens, [p["rows"][i]["units_per_100"] for p in swept], marker="o",
                      linewidth=1, label=row["count"])
    sweep_ax.plot(pens, [p["perfect_play"]["units_per_100"] for p in swept], marker="s",
                  color="black", linewidth=1.2, label="perfect play")
    shuffler = [p for p in v["sweep"]["points"] if p["value"] is None]
    if shuffler:
        sweep_ax.axhline(shuffler[0]["perfect_play"]["units_per_100"], color="black",
                         linestyle=":", linewidth=0.8, label="continuous shuffler")
    sweep_ax.axhline(0, color="grey", linewidth=0.6)
    sweep_ax.set_xlabel("penetration")
    sweep_ax.set_ylabel("units won per 100 rounds")
    sweep_ax.set_title("Countermeasure: penetration", fontsize=9)
    sweep_ax.legend(fontsize=6)
    fig.suptitle(f"{v['name']}, paytable {v['paytable']}: counting vulnerability")
    fig.tight_layout()
    return _svg(fig, f"vuln-{v['wager']}")
