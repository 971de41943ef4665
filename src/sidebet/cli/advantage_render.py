"""``sidebet advantage``'s output: text tables, CSV rows, an XLSX workbook and the plot
of EV and frequency by index (presentation of :meth:`sidebet.advantage.metrics.Report.to_json`)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.table import Table

from sidebet.core.errors import SidebetError

__all__ = ["compare_csv", "compare_render", "compare_rows", "csv_text", "plot", "render",
           "write_xlsx"]


def _pct(x: float | None, places: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{100 * x:.{places}f}%"


def _ci(e: dict[str, float], k: float = 1.0, places: int = 4) -> str:
    lo, hi = e["low"] * k, e["high"] * k
    tail = "" if math.isnan(lo) else f"  \\[{lo:+.{places}f}, {hi:+.{places}f}]"
    return f"{e['value'] * k:+.{places}f}{tail}"


def render(j: dict[str, Any]) -> Group:
    """The report as rich tables."""
    head = Table(title="Advantage play", show_header=False, title_justify="left")
    head.add_column("what")
    head.add_column("value")
    t, c, r = j["table"], j["count"], j["ramp"]
    head.add_row("table", f"{t['decks']} decks, {t['rules']}, penetration "
                 f"{t['penetration']:.3f}"
                 + (f" ± {t['cut_spread']} cards" if t["cut_spread"] else "")
                 + (f", {t['burn']} burned" if t["burn"] else "")
                 + f"; spots {t['spots']}"
                 + (f" (by index {r['spots_by']})" if r["spots_by"] else "")
                 + f", other players {t['others']}")
    head.add_row("count", f"{c['system']} ({c['tags']}); {c['index']}, decks "
                 f"{c['resolution']}, {c['rounding']}"
                 + (f", initial count {c['initial_running_count']}" if not c["balanced"]
                    else "")
                 + (f"; ace side count {c['ace_side_count']['bet']:+d} a bet, "
                    f"{c['ace_side_count']['insurance']:+d} insurance"
                    if c.get("ace_side_count") else ""))
    head.add_row("index plays", ", ".join(j["index_plays"]) or "none")
    wong = ""
    if r["wong_in"] is not None or r["wong_out"] is not None:
        wong = f"; wong in at {r['wong_in']}, out below {r['wong_out']}"
    cover = "" if r["cover"] == "none" else f"; cover {r['cover']}"
    head.add_row("ramp", f"{r['steps']} (min {r['min']}, max {r['max']}, spread 1-"
                 f"{r['spread']}){wong}{cover}")
    for s in t["side_wagers"]:
        head.add_row(f"side: {s['wager']}", f"{s['paytable']}: {s['plan']}")
    head.add_row("rounds", f"{j['rounds']:,} observed, {j['rounds_bet']:,} bet, "
                 f"{j['shoes']:,} shoes; seed {j['seed']}"
                 + ("  (interrupted)" if j["interrupted"] else ""))
    if j["rounds_per_s"]:
        head.add_row("speed", f"{j['rounds_per_s']:,.0f} rounds/s, {j['workers']} worker(s)")
    m = Table(title="Win (table units; 95% intervals)", title_justify="left")
    m.add_column("figure")
    m.add_column("value", justify="right")
    m.add_row("EV per round", _ci(j["ev_per_round"]))
    m.add_row("EV per 100 rounds", _ci(j["ev_per_100"], places=2))
    m.add_row(f"win per hour ({j['money']['rounds_per_hour']:g} rounds)",
              _ci(j["win_per_hour"], places=2))
    m.add_row("SD per round / per 100", f"{j['sd_per_round']:.4f} / {j['sd_per_100']:.2f}")
    m.add_row("average bet a round", f"{j['average_bet']:.3f}")
    m.add_row("win rate (of the average bet)", _pct(j["win_rate_of_average_bet"]))
    m.add_row("DI / SCORE / N0", f"{j['di']:.2f} / {j['score']:.2f} / {j['n0']:,.0f}")
    m.add_row("hours to N0", f"{j['n0_hours']:,.1f}")
    rc = j["ramps_compared"]
    if r["cover"] != "none":
        m.add_row("Blackjack EV per 100 without the cover / cover's cost",
                  f"{rc['without_cover_ev_per_100']:+.3f} / {rc['cover_cost_per_100']:+.3f}")
    best = rc["optimal_at_same_sd_ev_per_100"]
    m.add_row("Blackjack EV per 100, optimal ramp at the same SD / cost",
              f"{best:+.3f} / {rc['cost_against_optimal_per_100']:+.3f}"
              if math.isfinite(best) else "none: no count seen has an edge")
    m.add_row("bankroll for a risk of ruin of " + ", ".join(
        f"{100 * b['risk']:g}%" for b in j["bankroll_for_risk_of_ruin"]),
        " / ".join(f"{b['bankroll']:,.0f}" for b in j["bankroll_for_risk_of_ruin"]))
    if j["score_interval"] is not None and not math.isnan(j["score_interval"][0]):
        lo, hi = j["score_interval"]
        dlo, dhi = j["di_interval"]
        m.add_row("DI / SCORE interval (from the EV's)", f"\\[{dlo:.2f}, {dhi:.2f}] / "
                  f"\\[{lo:.2f}, {hi:.2f}]")
    m.add_row(f"CE per 100, as played (bank {j['money']['bankroll']:g})",
              f"{j['ce_per_100_as_played']:+.3f}")
    m.add_row(f"CE per 100 at {j['money']['kelly_fraction']:g} Kelly (bets × "
              f"{j['kelly_scale']:.3g})", f"{j['ce_per_100_at_kelly_fraction']:+.3f}")
    ruin = Table(title=f"Risk of ruin, bank {j['money']['bankroll']:g} units "
                 "(formula at the EV \\[at its interval's ends], a trip's walked over the "
                 "rounds' own nets; simulated \\[95%])",
                 title_justify="left")
    for col in ("kind", "formula", "simulated", "trials"):
        ruin.add_column(col, justify="left" if col == "kind" else "right")
    for x in j["risk_of_ruin"]:
        lo, hi = x["formula_interval"]
        slo, shi = x["simulated_interval"]
        kind = x["kind"] + (" (walk)" if x.get("method") == "walk" else "")
        ruin.add_row(kind, f"{_pct(x['formula'], 2)} \\[{_pct(lo, 2)}, {_pct(hi, 2)}]",
                     f"{_pct(x['simulated'], 2)} \\[{_pct(slo, 2)}, {_pct(shi, 2)}]",
                     f"{x['trials']:,}")
    comp = Table(title="Where the win comes from (per round)", title_justify="left")
    for col in ("wager", "EV \\[95%]", "SD", "share", "bets", "units bet"):
        comp.add_column(col, justify="left" if col == "wager" else "right")
    for x in j["components"]:
        comp.add_row(x["wager"], _ci(x["ev_per_round"]), f"{x['sd_per_round']:.4f}",
                     _pct(x["share_of_win"], 1), f"{x['bets']:,}", f"{x['units_bet']:,.1f}")
    idx = Table(title="By index (Blackjack wager, one unit a spot, insurance included; "
                f"optimal ramp: EV {j['optimal_ramp']['ev_per_round']:+.4f}, SD "
                f"{j['optimal_ramp']['sd_per_round']:.3f}, SCORE "
                f"{j['optimal_ramp']['score']:.2f})", title_justify="left")
    for col in ("index", "share", "EV", "SD", "bet", "optimal"):
        idx.add_column(col, justify="right")
    for x in j["by_index"]:
        idx.add_row(f"{x['index']:+d}", _pct(x["share"], 2), _pct(x["ev_per_unit"], 2),
                    f"{x['sd_per_unit']:.3f}", str(x["bet"]), str(x["optimal_bet"]))
    parts: list[Any] = [head, m, ruin, comp, idx]
    if "generated_indices" in j:
        g = Table(title="Generated indices (exact analyser, tilted shoes, the count at the "
                  "decision)",
                  title_justify="left")
        for col in ("play", "against", "crossing", "note"):
            g.add_column(col, justify="right" if col == "crossing" else "left")
        for x in j["generated_indices"]:
            g.add_row(x["play"], x["against"], "—" if x["crossing"] is None
                      else f"{x['crossing']:+.2f}", x["note"])
        parts.append(g)
    if "properties" in j:
        p = j["properties"]
        t2 = Table(title=f"Exact properties of {p['system']}", title_justify="left",
                   show_header=False)
        t2.add_column("what")
        t2.add_column("value", justify="right")
        t2.add_row("betting correlation (Blackjack)", f"{p['betting_correlation']:.3f}")
        t2.add_row("insurance correlation", f"{p['insurance_correlation']:.3f}")
        t2.add_row("playing efficiency (Griffin, every decision, half dealt)",
                   f"{p['playing_efficiency']:.3f}")
        t2.add_row("playing efficiency (Griffin, the index plays, half dealt)",
                   f"{p['playing_efficiency_index_plays']:.3f}")
        for w, bc in p["side_betting_correlation"].items():
            t2.add_row(f"betting correlation: {w}", f"{bc:+.3f}")
        parts.append(t2)
    for side in j["side_by_index"]:
        s = Table(title=f"{side['wager']} by its own index (EV per unit a spot)",
                  title_justify="left")
        for col in ("index", "rounds", "EV"):
            s.add_column(col, justify="right")
        for x in side["rows"]:
            s.add_row(f"{x['index']:+d}", f"{x['rounds']:,}", _pct(x["ev_per_unit"], 2))
        parts.append(s)
    parts.extend(f"warning: {w}" for w in j["warnings"])
    return Group(*parts)


def _rows(j: dict[str, Any]) -> list[list[Any]]:
    """The report as ``section, name, value, low, high`` rows."""
    out: list[list[Any]] = []
    for key in ("ev_per_round", "ev_per_100", "win_per_hour"):
        e = j[key]
        out.append(["summary", key, e["value"], e["low"], e["high"]])
    for key in ("sd_per_round", "sd_per_100", "average_bet", "win_rate_of_average_bet", "di",
                "score", "n0", "n0_hours", "ce_per_100_as_played", "ce_per_100_at_kelly_fraction",
                "kelly_scale", "rounds", "rounds_bet", "shoes", "seed"):
        out.append(["summary", key, j[key], "", ""])
    for x in j["risk_of_ruin"]:
        out.append(["ruin formula", x["kind"], x["formula"], *x["formula_interval"]])
        out.append(["ruin simulated", x["kind"], x["simulated"], *x["simulated_interval"]])
    for b in j["bankroll_for_risk_of_ruin"]:
        out.append(["bankroll for risk of ruin", b["risk"], b["bankroll"], "", ""])
    for key, value in j["ramps_compared"].items():
        out.append(["ramps compared", key, value, "", ""])
    for x in j["components"]:
        e = x["ev_per_round"]
        out.append(["component", x["wager"], e["value"], e["low"], e["high"]])
    for x in j["by_index"]:
        out.append([f"index {x['index']}", "share", x["share"], "", ""])
        out.append([f"index {x['index']}", "ev_per_unit", x["ev_per_unit"], "", ""])
        out.append([f"index {x['index']}", "bet", x["bet"], "", ""])
        out.append([f"index {x['index']}", "optimal_bet", x["optimal_bet"], "", ""])
    return out


def csv_text(j: dict[str, Any]) -> str:
    """The report as CSV (``section,name,value,low,high``)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["section", "name", "value", "low", "high"])
    w.writerows(_rows(j))
    return buf.getvalue()


def compare_rows(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per game (``{"name", "report"}``): its EV per 100 rounds with the interval,
    SD per round, win rate, SCORE, N0 and the hours to it, the three risks of ruin and the
    bankroll for a 5% risk of ruin."""
    out = []
    for g in games:
        j = g["report"]
        ruin = {x["kind"].split(" ")[0]: x for x in j["risk_of_ruin"]}
        five = [b["bankroll"] for b in j["bankroll_for_risk_of_ruin"] if b["risk"] == 0.05]
        out.append({
            "name": g["name"], "ev_per_100": j["ev_per_100"], "sd_per_round": j["sd_per_round"],
            "win_rate": j["win_rate_of_average_bet"], "average_bet": j["average_bet"],
            "score": j["score"], "n0": j["n0"], "n0_hours": j["n0_hours"],
            "ruin_simple": ruin["simple"]["formula"], "ruin_before_goal": ruin["double"]["formula"],
            "ruin_trip": ruin["trip"]["formula"],
            "bankroll_for_5pct_ruin": five[0] if five else math.nan,
            "bankroll": j["money"]["bankroll"], "goal": j["money"]["goal"],
            "trip_rounds": j["money"]["trip_rounds"], "rounds": j["rounds"], "seed": j["seed"],
        })
    return out


def compare_render(games: list[dict[str, Any]]) -> Table:
    """Several games side by side, one row each."""
    t = Table(title="Games compared (table units; EV per 100 rounds with its 95% interval; "
              "risks of ruin by formula, a trip's walked)", title_justify="left")
    for col in ("game", "EV per 100", "SD", "win rate", "SCORE", "N0 (hours)",
                "ruin: ever / before goal / trip", "bank for 5% ruin"):
        t.add_column(col, justify="left" if col == "game" else "right")
    for r in compare_rows(games):
        n0 = "∞" if math.isinf(r["n0"]) else f"{r['n0']:,.0f} ({r['n0_hours']:,.0f})"
        bank = r["bankroll_for_5pct_ruin"]
        t.add_row(r["name"], _ci(r["ev_per_100"], places=2), f"{r['sd_per_round']:.3f}",
                  _pct(r["win_rate"], 2), f"{r['score']:.1f}", n0,
                  f"{_pct(r['ruin_simple'], 1)} / {_pct(r['ruin_before_goal'], 1)} / "
                  f"{_pct(r['ruin_trip'], 1)}",
                  "∞" if math.isinf(bank) else f"{bank:,.0f}")
    return t


def compare_csv(games: list[dict[str, Any]]) -> str:
    """Several games as CSV (``game,figure,value,low,high``)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["game", "figure", "value", "low", "high"])
    for r in compare_rows(games):
        for key, value in r.items():
            if key == "name":
                continue
            if isinstance(value, dict):
                w.writerow([r["name"], key, value["value"], value["low"], value["high"]])
            else:
                w.writerow([r["name"], key, value, "", ""])
    return buf.getvalue()


def write_xlsx(j: dict[str, Any], path: Path) -> None:
    """The report as an XLSX workbook (:func:`sidebet.cli.export.xlsx_bytes`): a summary
    sheet and a sheet by index."""
    from sidebet.cli.export import xlsx_bytes
    from sidebet.core.tabular import Sheet

    summary = Sheet("summary", ("section", "name", "value", "low", "high"),
                    tuple(tuple(None if isinstance(x, float) and math.isnan(x) else x
                                for x in row) for row in _rows(j)))
    by = Sheet("by index", ("index", "rounds", "share", "ev_per_unit", "sd_per_unit", "bet",
                            "optimal_bet"),
               tuple((x["index"], x["rounds"], x["share"], x["ev_per_unit"], x["sd_per_unit"],
                      x["bet"], x["optimal_bet"]) for x in j["by_index"]))
    try:
        data = xlsx_bytes([summary, by])
    except ImportError:
        raise SidebetError("XLSX needs openpyxl (pip install openpyxl)") from None
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise SidebetError(f"cannot write {path}: {exc.strerror or exc}") from None


def plot(j: dict[str, Any], path: Path) -> None:
    """EV per unit with its 95% interval (the SD per unit over the root of the rounds at
    that index) and frequency by index, as a PNG (matplotlib, without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [x for x in j["by_index"] if x["rounds"] > 0]
    idx = [x["index"] for x in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(idx, [100 * x["share"] for x in rows], color="#c9d6e8", label="frequency (%)")
    ax.set_xlabel(j["count"]["index"] + f" ({j['count']['system']})")
    ax.set_ylabel("frequency of rounds (%)")
    ax2 = ax.twinx()
    ax2.errorbar(idx, [100 * x["ev_per_unit"] for x in rows],
                 yerr=[196 * x["sd_per_unit"] / math.sqrt(x["rounds"]) for x in rows],
                 color="#b03030", marker="o", capsize=3,
                 label="EV per unit (%), 95% interval")
    ax2.axhline(0, color="#666666", linewidth=0.8)
    ax2.set_ylabel("Blackjack EV per unit (%)")
    ax.set_title(f"EV and frequency by index: {j['table']['decks']} decks, penetration "
                 f"{j['table']['penetration']:.2f}, {j['rounds']:,} rounds")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise SidebetError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
