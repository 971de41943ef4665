"""``sidebet eor`` and ``sidebet vulnerability``: how far a counter can beat a side wager.

Only typer and the shared CLI plumbing are imported here; the analysis (numba) and the
plots (matplotlib) are imported inside the commands.
"""

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from sidebet.cli.common import (
    BackendName,
    DeviceName,
    console,
    err_console,
    fail,
    handle_errors,
    rounds_progress,
)
from sidebet.cli.common import TextFormat as Format
from sidebet.cli.export import emit_data
from sidebet.cli.paytables import PAYS_HELP, chosen_paytable, paytable_flags
from sidebet.core.bounded import MAX_ROUNDS, parse_count, parse_penetration
from sidebet.regulation.wagers import help_ids

__all__ = ["register"]


def _whole(text: str, option: str) -> int:
    """``1e8``, ``1_000_000``, ``2,000`` -> an int from 1 to :data:`MAX_ROUNDS`."""
    return parse_count(text, option, high=MAX_ROUNDS)



def _trigger(text: str) -> float | None:
    if text.strip().lower() == "auto":
        return None
    try:
        value = float(text)
    except ValueError:
        raise fail(f"--trigger is 'auto' or a number, not {text!r}") from None
    if not math.isfinite(value):
        raise fail(f"--trigger is 'auto' or a finite number, not {text!r}")
    return value


def _show(obj: Any, fmt: Format) -> None:
    if isinstance(obj, str):
        print(obj, end="")
    elif console.is_terminal:
        console.print(obj)
    else:  # a pipe or a file: wide enough for the whole table
        from rich.console import Console

        Console(highlight=False, width=200).print(obj)


@handle_errors
def eor_cmd(
    wager: Annotated[str, typer.Argument(help=help_ids() + ".")],
    decks: Annotated[int, typer.Option(help="Decks in the shoe.")] = 6,
    paytable: Annotated[str | None, typer.Option(help="Paytable (default: the one the "
                                                 "regulation fixes, or the wager's).")] = None,
    pays: Annotated[str | None, typer.Option(help=PAYS_HELP)] = None,
    fmt: Annotated[Format, typer.Option("--format", help="table, json, csv or markdown.")
                   ] = Format.table,
) -> None:
    """Exact effects of removal: the change in the wager's return, in percentage points,
    when one card of each kind is taken from a full shoe."""
    from sidebet.vuln.eor import effects_of_removal
    from sidebet.vuln.summary import as_text, eor_table
    from sidebet.vuln.tags import linear_tags

    eor = effects_of_removal(wager, decks, chosen_paytable(wager, paytable, pays))
    flags = paytable_flags(eor.wager, eor.paytable)
    data = {**eor.to_json(), "violations": flags}
    if fmt is Format.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    if emit_data(data, "eor", fmt.value, main=data["effects"]):
        _show_flags(flags, fmt)
        return
    head, rows = eor_table(eor)
    title = (f"{eor.wager} {eor.paytable}, {decks} decks: house edge "
             f"{float(eor.house_edge):.4%}; effects by {eor.summary}")
    _show(as_text(head, rows, fmt.value, title), fmt)
    if fmt is Format.table:
        suits = " ".join(f"{s}{float(v):+.5f}" for s, v in zip("♣♦♥♠", eor.by_suit, strict=True))
        console.print(f"mean effect by suit: {suits}")
        for level in (1, 2, 3):
            t = linear_tags(eor, level)
            console.print(f"level {level} balanced tags: {t.describe()}  "
                          f"(betting correlation {t.correlation:.3f})")
    _show_flags(flags, fmt)


def _show_flags(flags: list[str], fmt: Format) -> None:
    """A custom paytable's non-compliance, on stderr beside CSV and JSON's own field."""
    for flag in flags:
        if fmt is Format.table:
            console.print(f"[red]not compliant:[/] {flag}")
        elif fmt is not Format.json:
            err_console.print(f"not compliant: {flag}")


@handle_errors
def vulnerability_cmd(
    wager: Annotated[str, typer.Argument(help=help_ids() + ".")],
    decks: Annotated[int, typer.Option(help="Decks in the shoe.")] = 6,
    paytable: Annotated[str | None, typer.Option(help="Paytable (default: the regulation's "
                                                 "or the wager's).")] = None,
    pays: Annotated[str | None, typer.Option(help=PAYS_HELP)] = None,
    penetration: Annotated[str | None, typer.Option(
        help="Share of the shoe dealt before the cut card (default 0.75).")] = None,
    cut_cards: Annotated[int | None, typer.Option(
        help="Cards dealt before the cut card (instead of --penetration).")] = None,
    seats: Annotated[int, typer.Option(help="Seats playing (1-7); the counter is at "
                                       "seat 1.")] = 1,
    count: Annotated[list[str] | None, typer.Option(
        help="A count (repeatable): linear, linear-2, linear-3, linear-1-u (unbalanced; "
        "linear-L-u for level L), suits, ranks, sevens. Default: the wager's usual counts.")
    ] = None,
    tags: Annotated[str | None, typer.Option(help="Your own tags, e.g. 'A:-1,7:-3' "
                                             "(ranks or cards like 7D).")] = None,
    trigger: Annotated[str, typer.Option(help="'auto' (the trigger that wins most) or an "
                                         "index to bet at and above.")] = "auto",
    rounds: Annotated[str, typer.Option(help="Rounds to simulate (e.g. 1e8).")] = "1e6",
    max_bet: Annotated[float, typer.Option(help="Side wager when the count says bet.")
                       ] = 100.0,
    rounds_per_hour: Annotated[float, typer.Option(help="Rounds dealt per hour.")] = 80.0,
    sweep: Annotated[str | None, typer.Option(
        help="Countermeasures: SETTING=START:STOP:STEP or SETTING=V1,V2 with SETTING "
        "penetration, cut-cards, decks or seats; a continuous shuffler row is added.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (default: a fresh one, reported).")
                    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes (or Ray tasks).")] = 1,
    backend: Annotated[BackendName, typer.Option(help="local or ray.")] = BackendName.local,
    address: Annotated[str | None, typer.Option(help="Ray cluster address.")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")
                           ] = False,
    fmt: Annotated[Format, typer.Option("--format", help="table, json, csv or markdown.")
                   ] = Format.table,
    plot: Annotated[Path | None, typer.Option(help="Write a plot (.svg, .png or .pdf): "
                                              "edge by count index, or the sweep.")] = None,
    cards_left: Annotated[int | None, typer.Option(
        help="Perfect play at exactly this many cards left, over random shoes.")] = None,
    perfect: Annotated[bool, typer.Option("--perfect", help="Perfect play only.")] = False,
    config: Annotated[Path | None, typer.Option(
        help="Deal the rounds under this Rules Submission's house rules (its deck count "
        "must be --decks).")] = None,
    samples: Annotated[str, typer.Option(help="Shoes sampled with --cards-left.")] = "1e6",
    device: Annotated[DeviceName, typer.Option(
        help="Where each round's exact EV is computed: cpu, gpu (a CUDA device, one "
             "round a thread; the same results) or auto (a CUDA device when there is "
             "one).")] = DeviceName.cpu,
) -> None:
    """How far a card counter beats the side wager: each count's best trigger, perfect
    play, edge by count, perfect play by depth, and countermeasures."""
    from sidebet.vuln.counter import counter_spec, run_counter
    from sidebet.vuln.summary import Money

    money = Money(max_bet, rounds_per_hour)
    paytable = chosen_paytable(wager, paytable, pays)
    flags = paytable_flags(wager, paytable or "")
    show = not no_progress and err_console.is_terminal
    trig = _trigger(trigger)
    if workers < 1:
        raise fail(f"--workers must be at least 1, not {workers}")
    if device is not DeviceName.cpu and (cards_left is not None or sweep is not None):
        raise fail("--device is for the rounds' exact EVs: not with --cards-left or --sweep")
    if cards_left is not None:
        if sweep is not None or count or tags is not None or trig is not None:
            raise fail("--cards-left gives perfect play only: no --sweep, --count, --tags or "
                       "--trigger")
        if plot is not None:
            raise fail("--plot is not drawn with --cards-left")
        _fixed_depth(wager, decks, paytable, cards_left, parse_count(samples, "--samples", low=2, high=MAX_ROUNDS), seed,
                     fmt, show, flags)
        return
    spec = counter_spec(
        wager, decks, paytable,
        penetration=parse_penetration(penetration) if penetration is not None else None,
        cut_cards=cut_cards, seats=seats, counts=count or (), tags=tags,
        perfect_only=perfect,
    )
    if config is not None:
        spec = _with_house_rules(spec, config)
    n_rounds = _whole(rounds, "--rounds")
    if sweep is not None:
        _sweep(spec, sweep, n_rounds, seed, trig, workers, backend, address, fmt, plot,
               money, show, flags)
        return
    with rounds_progress("counting", n_rounds, show) as progress:
        res = run_counter(spec, n_rounds, seed, trigger=trig, workers=workers,
                          backend=backend.value, address=address, progress=progress,
                          device=device.value)
    if res.interrupted:
        err_console.print(f"interrupted: reporting the {res.rounds:,} rounds played")
    if plot is not None:
        from sidebet.vuln.summary import plot_edges

        plot_edges(res, plot)
    _print_result(res, money, fmt, flags)


def _print_json(data: Any, flags: list[str]) -> None:
    """JSON with a custom paytable's non-compliance as ``violations``."""
    print(json.dumps({**data, "violations": flags}, indent=2, ensure_ascii=False))


def _count_rows(data: dict[str, Any], every_round: bool = True) -> list[dict[str, Any]]:
    """The vulnerability table's rows from a result's JSON: each count, perfect play and
    (``every_round``) every round."""
    out = [*data["rows"], {"count": "perfect play", **data["perfect_play"]}]
    if every_round:
        out.append({"count": "every round", **data["every_round"]})
    return out


def _with_house_rules(spec: Any, config: Path) -> Any:
    """``spec`` dealing under the house rules of the Rules Submission at ``config``."""
    from dataclasses import replace

    from sidebet.regulation.submission import load_table_config

    table = load_table_config(config)
    if table.decks != spec.decks:
        raise fail(f"--config {config} has {table.decks} decks, not --decks {spec.decks}")
    return replace(spec, sim=replace(spec.sim, rules=table.rules))


def _print_result(res: Any, money: Any, fmt: Format, flags: list[str]) -> None:
    from sidebet.vuln.summary import as_text, result_head, result_json, result_rows

    data = result_json(res, money)
    if fmt is Format.json:
        _print_json(data, flags)
        return
    _show_flags(flags, fmt)
    if emit_data({**data, "violations": flags}, "vulnerability", fmt.value,
                 main=_count_rows(data)):
        return
    spec = res.spec
    title = (f"{spec.wager} {spec.paytable}, {spec.decks} decks, cut card after "
             f"{spec.sim.cut} cards, {spec.sim.seats} seat(s): {res.rounds:,} rounds, seed "
             f"{res.seed}; money per hour at {money.max_bet:g} × {money.rounds_per_hour:g} "
             "rounds/h")
    _show(as_text(result_head(), result_rows(res, money), fmt.value, title), fmt)
    if fmt is Format.table:
        paid = res.paid_every_round
        console.print(
            f"check: every round's paid result {paid.value:+.3f} units/100 "
            f"({paid.low:+.3f} to {paid.high:+.3f}); exact full-shoe return "
            f"{100 * res.full_shoe_return:+.3f}")
        for c, bins in zip(spec.counts, res.edges, strict=True):
            line = "  ".join(f"{b.low:g}:{100 * b.average_edge:+.2f}%"
                             for b in bins if b.share >= 0.001)
            console.print(f"edge by {c.index_name} ({c.name}): {line}")
        depth = "  ".join(f"{100 * d.low:.0f}-{100 * d.high:.0f}%: {d.p_positive:.1%}"
                          for d in res.depth)
        console.print(f"perfect play, share of rounds with a positive edge by depth: {depth}")
        console.print(f"{res.rate:,.0f} rounds/s, {res.workers} worker(s)")


def _sweep(spec: Any, text: str, rounds: int, seed: int | None, trigger: float | None,
           workers: int, backend: BackendName, address: str | None, fmt: Format,
           plot: Path | None, money: Any, show: bool, flags: list[str]) -> None:
    from sidebet.sim.runner import fresh_seed
    from sidebet.vuln.summary import as_text, result_head, sweep_json, sweep_rows
    from sidebet.vuln.sweep import parse_sweep, sweep

    setting, values = parse_sweep(text)
    if plot is not None and plot.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise fail(f"--plot writes .svg, .png or .pdf, not {plot.name!r}")
    seed = fresh_seed() if seed is None else seed
    total = rounds * (len(values) + 1)
    with rounds_progress("sweeping", total, show) as progress:
        sw = sweep(spec, setting, values, rounds, seed, trigger=trigger, workers=workers,
                   backend=backend.value, address=address, progress=progress)
    if plot is not None:
        from sidebet.vuln.summary import plot_sweep

        plot_sweep(sw, plot)
    data = sweep_json(sw, money)
    if fmt is Format.json:
        _print_json(data, flags)
        return
    _show_flags(flags, fmt)
    main = [{"setting": p["label"], **row, "setting_value": p["value"]}
            for p in data["points"] for row in _count_rows(p, every_round=False)]
    if emit_data({**data, "violations": flags}, "sweep", fmt.value, main=main):
        return
    title = (f"{spec.wager} {spec.paytable}: countermeasures, {rounds:,} rounds per point, "
             f"seed {seed}")
    _show(as_text(["setting", *result_head()], sweep_rows(sw, money), fmt.value, title), fmt)


def _fixed_depth(wager: str, decks: int, paytable: str | None, cards_left: int, samples: int,
                 seed: int | None, fmt: Format, show: bool, flags: list[str]) -> None:
    from sidebet.vuln.fixed_depth import fixed_depth
    from sidebet.vuln.summary import as_text, fixed_depth_rows

    with rounds_progress("sampling", samples, show, unit="shoes") as progress:
        d = fixed_depth(wager, decks, paytable, cards_left=cards_left, samples=samples,
                        seed=seed, progress=progress)
    if fmt is Format.json:
        _print_json(d.to_json(), flags)
        return
    _show_flags(flags, fmt)
    if emit_data({**d.to_json(), "violations": flags}, "perfect play", fmt.value):
        return
    head, rows = fixed_depth_rows(d)
    title = (f"{d.wager} {d.paytable}, {decks} decks, perfect play at {cards_left} cards left, "
             f"seed {d.seed}")
    _show(as_text(head, rows, fmt.value, title), fmt)


def register(app: typer.Typer) -> None:
    """Add ``eor`` and ``vulnerability`` to ``app``."""
    app.command("eor")(eor_cmd)
    app.command("vulnerability")(vulnerability_cmd)
