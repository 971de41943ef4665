"""``sidebet design WAGER``: integer paytables for a house-edge band, least exposed first.

The search is :mod:`sidebet.vuln.design`; this module reads the options, prints the
progress and rate, and writes the front as a table, JSON, CSV, XLSX and a plot.
"""

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from sidebet.cli.common import DeviceName, console, err_console, fail, handle_errors
from sidebet.cli.common import rounds_progress as progress_bar
from sidebet.cli.export import DataFormat, emit_data
from sidebet.core.bounded import MAX_ROUNDS, parse_count, parse_fraction, parse_penetration
from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import get_wager, help_ids

__all__ = ["parse_band", "register"]


def parse_band(text: str, option: str) -> tuple[Fraction, Fraction]:
    """``4.5%:5.5%`` or ``0.045:0.055`` as two fractions of 1.

    >>> parse_band("4.5%:5.5%", "--edge")
    (Fraction(9, 200), Fraction(11, 200))
    """
    parts = text.split(":")
    if len(parts) != 2:
        raise SidebetError(f"{option} takes LOW:HIGH, e.g. 4.5%:5.5%, not {text[:40]!r}")
    out = []
    for part in parts:
        raw = part.strip()
        pct = raw.endswith("%")
        value = parse_fraction(raw.rstrip("%"), option)
        out.append(value / 100 if pct else value)
    return out[0], out[1]


def _ci(v: tuple[float, float, float]) -> str:
    return f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]"


def _row(c: Any, label: str) -> list[str]:
    k = c.confirmation
    return [label, "/".join(str(p) for p in c.pays), f"{float(c.house_edge):.3%}",
            f"{c.std_dev:.2f}", f"{c.volatility_index:.2f}", f"{c.largest_pay:,}",
            _ci(c.screen), _ci(k.perfect) if k else "—",
            f"{k.best_count} {_ci(k.count)}" if k else "—"]


def _table(result: Any, reference: Any, top: int) -> Table:
    s = result.spec
    t = Table(title=f"{s.wager}, {s.decks} decks, house edge {float(s.edge[0]):.2%} to "
              f"{float(s.edge[1]):.2%}, penetration {float(s.penetration):.0%}: the front "
              f"({len(result.front)} of {result.kept:,} kept, {result.enumerated:,} "
              f"enumerated)", title_justify="left")
    t.caption = (f"hit frequency {float(reference.hit_frequency):.3%} whatever the odds; "
                 "units per 100 rounds with 95% intervals; screen: perfect play on "
                 f"{s.samples:,} depleted shoes; VI: volatility index (90%)")
    t.caption_justify = "left"
    for head in ("", "pays", "edge", "SD", "VI", "top pay", "screen", "perfect play",
                 "best count"):
        t.add_column(head, justify="left" if head in ("", "best count") else "right")
    t.add_row(*_row(reference, f"listed {reference.paytable}"))
    t.add_section()
    for n, c in enumerate(result.front[:top], start=1):
        t.add_row(*_row(c, str(n)))
    return t


def _plot(result: Any, reference: Any, path: Path) -> None:
    if path.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise SidebetError(f"--plot writes .svg, .png or .pdf, not {path.name!r}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter(100 * result.edges, result.screens, s=6, color="lightgrey",
               label=f"kept ({result.kept:,})")
    front = result.front
    ax.scatter([100 * float(c.house_edge) for c in front], [c.screen[0] for c in front],
               s=18, color="tab:blue", label=f"front ({len(front)})")
    ax.scatter([100 * float(reference.house_edge)], [reference.screen[0]], marker="*", s=120,
               color="tab:red", label=f"listed {reference.paytable}")
    s = result.spec
    ax.set_xlabel("house edge, %")
    ax.set_ylabel("perfect play, units per 100 rounds (screen)")
    ax.set_title(f"{s.wager}, {s.decks} decks, penetration {float(s.penetration):.0%}: "
                 "edge against counting exposure", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise SidebetError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


@handle_errors
def design_cmd(
    wager: Annotated[str, typer.Argument(help=help_ids() + ".")],
    edge: Annotated[str, typer.Option(help="House-edge band LOW:HIGH, e.g. 4.5%:5.5%.")
                    ] = "4.5%:5.5%",
    line: Annotated[list[str] | None, typer.Option(
        help="A line's odds: OUTCOME=LO:HI[:STEP] or OUTCOME=N (fixed); repeatable. A line "
        "not given ranges over 1/2 to 2 times the wager's paytable.")] = None,
    any_order: Annotated[bool, typer.Option(
        "--any-order", help="Let a rarer hand pay less than a commoner one.")] = False,
    max_pay: Annotated[int | None, typer.Option(help="The largest odds any line may pay.")
                       ] = None,
    max_volatility: Annotated[float | None, typer.Option(
        help="The largest volatility index (90%: 1.645 standard deviations).")] = None,
    hit_frequency: Annotated[str | None, typer.Option(
        help="Hit-frequency band LOW:HIGH, e.g. 10%:20%.")] = None,
    decks: Annotated[int, typer.Option(help="Decks in the shoe.")] = 6,
    penetration: Annotated[str, typer.Option(help="Share of the shoe dealt before the cut "
                                             "card.")] = "0.75",
    samples: Annotated[int, typer.Option(help="Depleted shoes of the exposure screen.")
                       ] = 2000,
    confirm_top: Annotated[int, typer.Option(
        "--confirm", help="Front candidates confirmed by simulation (0: none).")] = 5,
    rounds: Annotated[str, typer.Option(help="Simulated rounds per confirmed candidate.")
                      ] = "1e6",
    top: Annotated[int, typer.Option(help="Front rows shown in the table.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of the screen's sample and the "
                                      "simulations.")] = 1,
    plot: Annotated[Path | None, typer.Option(help="Write the edge-exposure plot (.svg, "
                                              ".png or .pdf).")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")
                           ] = False,
    fmt: Annotated[DataFormat, typer.Option("--format", help="table, json, csv or xlsx.")
                   ] = DataFormat.table,
    device: Annotated[DeviceName, typer.Option(
        help="Where every kept paytable's screen (one a thread) and the confirmation's "
             "exact EV before every round (one round a thread) are computed: cpu, gpu (a "
             "CUDA device; the same results) or auto (a CUDA device when there is "
             "one).")] = DeviceName.cpu,
) -> None:
    """Search integer paytables for a house-edge band, least exposed to counting first:
    an exact screen of every candidate, then the front confirmed by simulation."""
    from sidebet.sim.runner import on_gpu
    from sidebet.vuln.design import DesignSpec, confirm, search

    where = "gpu" if on_gpu(device.value) else "cpu"
    band = parse_band(edge, "--edge")
    hits = parse_band(hit_frequency, "--hit-frequency") if hit_frequency else None
    n_rounds = parse_count(rounds, "--rounds", high=MAX_ROUNDS)
    if not 0 <= confirm_top <= 100 or not 1 <= top <= 10_000:
        raise fail("--confirm is 0 to 100 and --top 1 to 10,000")
    if max_pay is not None and max_pay < 1:
        raise fail(f"--max-pay must be at least 1, not {max_pay}")
    if max_volatility is not None and not (math.isfinite(max_volatility) and max_volatility > 0):
        raise fail(f"--max-volatility must be a positive number, not {max_volatility}")
    offered = get_wager(wager)
    if not offered.offered_with(decks):
        counts = ", ".join(str(n) for n in sorted(offered.deck_counts or ()))
        raise fail(f"{offered.decks_rule}: {offered.name} is offered only with {counts} decks, "
                   f"not {decks}")
    spec = DesignSpec.build(wager, decks, line or [], band, keep_order=not any_order,
                            max_pay=max_pay, max_volatility=max_volatility,
                            hit_frequency=hits, penetration=parse_penetration(penetration),
                            samples=samples, seed=seed)
    if plot is not None and plot.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise fail(f"--plot writes .svg, .png or .pdf, not {plot.name!r}")
    show = not no_progress and err_console.is_terminal
    with progress_bar("screening", spec.size, show, unit="paytables") as progress:
        result = search(spec, progress=progress, device=where)
    err_console.print(f"screened {result.enumerated:,} paytables in {result.seconds:.2f} s: "
                      f"{result.rate:,.0f} per second on "
                      f"{'one core' if where == 'cpu' else 'a CUDA device'}; {result.kept:,} kept, "
                      f"{len(result.front)} on the front")
    listed = _listed(spec)
    if confirm_top:
        with progress_bar("confirming", n_rounds, show) as progress:
            result = confirm(result, confirm_top, n_rounds, seed, progress=progress,
                             device=where)
            listed = confirm(listed, 1, n_rounds, seed, progress=progress, device=where)
    reference = listed.front[0]
    if plot is not None:
        _plot(result, reference, plot)
    data = {**result.to_json(), "reference": reference.to_json()}
    if fmt is DataFormat.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif not emit_data(data, "design", fmt.value, main=data["candidates"]):
        out = console
        if not console.is_terminal:  # a pipe or a file: wide enough for the whole table
            from rich.console import Console

            out = Console(highlight=False, width=160)
        out.print(_table(result, reference, top))


def _listed(spec: Any) -> Any:
    """The wager's listed paytable judged on the same sample, for reference."""
    from dataclasses import replace

    from sidebet.regulation.wagers import get_wager
    from sidebet.vuln.design import LineRange, search

    base = get_wager(spec.wager).paytable(None, spec.decks)
    lines = tuple(LineRange(r.outcome, (base.pays(r.outcome),)) for r in spec.lines)
    return search(replace(spec, lines=lines, edge=(Fraction(-99, 100), Fraction(99, 100)),
                          keep_order=False, max_pay=None, max_volatility=None,
                          hit_frequency=None))


def register(app: typer.Typer) -> None:
    """Add ``design`` to ``app``."""
    app.command("design")(design_cmd)
