"""``sidebet advantage``: a counter at the whole table, Blackjack and side wagers together
(``docs/advantage.md``)."""

from enum import StrEnum
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
from sidebet.core.bounded import MAX_ROUNDS, parse_count
from sidebet.core.jsontext import json_text
from sidebet.sim.runner import CHUNK_SHOES

__all__ = ["register"]

TRACE_DEFAULT = 10_000_000
"""Rounds whose nets are kept for the simulated risk of ruin (80 MB)."""


class OutFormat(StrEnum):
    """Output formats."""

    text = "text"
    json = "json"
    csv = "csv"
    xlsx = "xlsx"


def _sides(items: list[str]) -> dict[str, dict[str, Any]]:
    """``WAGER=MODE[:UNITS]`` or ``WAGER=count:COUNT@RAMP`` -> plans by wager."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        wager, sep, rest = item.partition("=")
        if not sep or not wager.strip():
            raise fail(f"--side {item!r}: write WAGER=MODE (never, flat, ev, count), e.g. "
                       "trilux=ev, blazing7s=flat:1, blazing7s=count:linear-3@3:1")
        mode, _, tail = rest.strip().partition(":")
        plan: dict[str, Any] = {"mode": mode.strip().lower()}
        if plan["mode"] == "count":
            count, at, ramp = tail.partition("@")
            plan["count"] = count.strip() or "linear"
            if at:
                plan["ramp"] = ramp.replace(";", ",")
        elif tail.strip():
            try:
                plan["units"] = int(tail)
            except ValueError:
                raise fail(f"--side {item!r}: the units are a whole number") from None
        out[wager.strip()] = plan
    return out


@handle_errors
def advantage_cmd(
    setup: Annotated[Path | None, typer.Argument(help="A set-up TOML file (docs/advantage.md); "
                                                 "options given here override it.")] = None,
    compare: Annotated[list[Path] | None, typer.Option(
        help="Another set-up TOML to play and compare side by side in one table "
             "(repeatable; the set-up argument, if any, first; the options given here apply "
             "to every one, and without --seed they share one seed).")] = None,
    rounds: Annotated[str | None, typer.Option(help="Rounds to deal (e.g. 1e7; default "
                                               "the set-up's, else 1e6).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (default: a fresh one, reported).")
                    ] = None,
    table: Annotated[Path | None, typer.Option(help="Rules Submission TOML: decks, house "
                                               "rules and paytables.")] = None,
    decks: Annotated[int | None, typer.Option(help="Decks (default 6 or the table's).")] = None,
    penetration: Annotated[str | None, typer.Option(help="Share dealt before the cut card "
                                                    "(e.g. 0.75, 5/6).")] = None,
    burn: Annotated[int | None, typer.Option(help="Cards burned after each shuffle, unseen "
                                             "(default 0).")] = None,
    cut_spread: Annotated[int | None, typer.Option(help="Each shoe's cut card placed "
                                                   "uniformly within this many cards "
                                                   "either side (default 0).")] = None,
    count: Annotated[str | None, typer.Option(help="hi-lo, ko, hi-opt-i, hi-opt-ii, "
                                              "omega-ii, zen, halves, red-7, or tags such "
                                              "as '2:1,3:1,4:1,5:1,6:1,T:-1,A:-1'.")] = None,
    irc: Annotated[int | None, typer.Option(help="Initial running count of an unbalanced "
                                            "count (default the system's).")] = None,
    ace_bet: Annotated[int | None, typer.Option(help="Ace side count: points added to the "
                                                "betting count per ace in excess among "
                                                "the unseen cards.")] = None,
    ace_insurance: Annotated[int | None, typer.Option(help="Ace side count: the same for "
                                                      "insurance (Hi-Lo: -1).")] = None,
    resolution: Annotated[str | None, typer.Option(help="Decks left estimated: exact, half, "
                                                   "whole.")] = None,
    rounding: Annotated[str | None, typer.Option(help="True count made whole: truncate, "
                                                 "floor, round.")] = None,
    indices: Annotated[str | None, typer.Option(help="Index plays: i18, fab4, i18+fab4, "
                                                "insurance, none, plays such as "
                                                "'16vT:S@0,12v4:S@0/H,ins@3', or "
                                                "generated[:LISTS] (indices from the exact "
                                                "analyser for this count and table; lists "
                                                "i18, fab4, full, each NAME-ra "
                                                "risk-averse).")
                       ] = None,
    ramp: Annotated[str | None, typer.Option(help="Bets by index: 1-8, 1-12, flat, or "
                                             "'2:2,3:4,4:8' (INDEX:UNITS).")] = None,
    min_bet: Annotated[int | None, typer.Option(help="Table minimum, units.")] = None,
    max_bet: Annotated[int | None, typer.Option(help="Table maximum, units.")] = None,
    wong_in: Annotated[int | None, typer.Option(help="Back-count: enter at this index.")
                       ] = None,
    wong_out: Annotated[int | None, typer.Option(help="Leave below this index, until the "
                                                 "next shoe.")] = None,
    spots: Annotated[int | None, typer.Option(help="Hands the counter plays (1-7; with "
                                              "--spots-by the most).")] = None,
    spots_by: Annotated[str | None, typer.Option(help="Spots by index, INDEX:SPOTS (e.g. "
                                                 "'3:2': two spots from +3, else one).")
                        ] = None,
    cover: Annotated[str | None, typer.Option(help="Cover play: none, jump:N (the bet at "
                                              "most N times or a N-th of the last), "
                                              "parlay (raised only after a win), or "
                                              "both.")] = None,
    others: Annotated[int | None, typer.Option(help="Other players, basic strategy, flat "
                                               "(default 4, at most the seats left).")
                      ] = None,
    side: Annotated[list[str] | None, typer.Option(
        help="WAGER=MODE: never, flat[:UNITS], ev[:UNITS] (bet when its exact EV is "
             "positive), count:COUNT@RAMP (e.g. blazing7s=count:linear-3@3:1); repeatable.")
                    ] = None,
    bankroll: Annotated[float | None, typer.Option(help="Bank, units.")] = None,
    trip: Annotated[int | None, typer.Option(help="Rounds in a trip (trip ruin).")] = None,
    goal: Annotated[float | None, typer.Option(help="Win goal, units (double barrier).")
                    ] = None,
    rounds_per_hour: Annotated[float | None, typer.Option(help="Rounds an hour.")] = None,
    kelly: Annotated[float | None, typer.Option(help="Kelly fraction (certainty "
                                                "equivalent).")] = None,
    chip: Annotated[int | None, typer.Option(help="Optimal ramp's chip, units.")] = None,
    trace_rounds: Annotated[int, typer.Option(help="Rounds kept for the simulated ruin.")
                            ] = TRACE_DEFAULT,
    fmt: Annotated[OutFormat, typer.Option("--format", help="text, json, csv or xlsx.")
                   ] = OutFormat.text,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here "
                                                "(xlsx needs it).")] = None,
    plot: Annotated[Path | None, typer.Option(help="PNG of EV and frequency by index.")
                    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes (local) or Ray tasks.")] = 1,
    chunk_shoes: Annotated[int | None, typer.Option(
        help=f"Shoes per chunk (does not change results; default {CHUNK_SHOES} on the CPU, "
             "up to 524,288 on a CUDA device).")] = None,
    backend: Annotated[BackendName, typer.Option(help="local or ray.")] = BackendName.local,
    device: Annotated[DeviceName, typer.Option(
        help="cpu, gpu (a CUDA device, one shoe a thread; the same results) or auto (a "
             "CUDA device when there is one).")] = DeviceName.cpu,
    address: Annotated[str | None, typer.Option(help="Ray cluster address.")] = None,
    properties: Annotated[bool, typer.Option(
        "--properties", help="Also the count's exact betting correlation, insurance "
                             "correlation and playing efficiency, and each side wager's "
                             "betting correlation (the first time: a minute or two).")] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")
                           ] = False,
) -> None:
    """Advantage play at the whole table: a counter's win, SD, SCORE, risk of ruin and
    optimal ramp, with index plays and the side wagers bet by EV or by count."""
    from sidebet.advantage.indices import parse_plays
    from sidebet.advantage.metrics import report
    from sidebet.advantage.run import run
    from sidebet.advantage.setup_file import Setup, build, load_setup

    if not 1 <= workers <= 4096:
        raise fail(f"--workers must be 1 to 4096, not {workers}")
    if chunk_shoes is not None and not 1 <= chunk_shoes <= 1_000_000:
        raise fail(f"--chunk-shoes must be 1 to 1,000,000, not {chunk_shoes}")
    if not 0 <= trace_rounds <= 500_000_000:
        raise fail("--trace-rounds must be 0 to 500,000,000")
    if fmt is OutFormat.xlsx and output is None:
        raise fail("--format xlsx writes a file: give --output FILE.xlsx")
    if compare and (fmt is OutFormat.xlsx or plot is not None or properties):
        raise fail("--compare writes one table as text, json or csv (no --plot, "
                   "--properties or xlsx)")
    given = {
        "table": str(table) if table else None, "decks": decks, "penetration": penetration,
        "rounds": rounds, "seed": seed, "count.irc": irc, "count.ace_bet": ace_bet,
        "count.ace_insurance": ace_insurance, "count.resolution": resolution,
        "count.rounding": rounding, "play.indices": indices, "bet.ramp": ramp,
        "bet.min": min_bet, "bet.max": max_bet, "bet.wong_in": wong_in,
        "bet.wong_out": wong_out, "spots": spots, "others": others, "spots_by": spots_by,
        "bet.cover": cover, "burn": burn, "cut_spread": cut_spread,
        "money.bankroll": bankroll, "money.trip_rounds": trip, "money.goal": goal,
        "money.rounds_per_hour": rounds_per_hour, "money.kelly": kelly, "money.chip": chip,
    }

    def settings_of(path: Path | None) -> dict[str, Any]:
        settings: dict[str, Any] = load_setup(path) if path is not None else {"side": {}}
        settings.update({k: v for k, v in given.items() if v is not None})
        if count is not None:
            settings.pop("count.tags", None)
            settings.pop("count.system", None)
            settings["count.tags" if ":" in count else "count.system"] = count
        if side:
            settings["side"] = {**settings.get("side", {}), **_sides(side)}
        return settings

    def play(built: Setup, label: str, shared_seed: int | None = None) -> dict[str, Any]:
        n = parse_count(str(built.rounds or 1_000_000), "--rounds", high=MAX_ROUNDS)
        show = not no_progress and err_console.is_terminal
        with rounds_progress(label, n, show) as progress:
            got = run(built.spec, n, built.seed if built.seed is not None else shared_seed,
                      trace_rounds=min(trace_rounds, n), workers=workers,
                      backend=backend.value, address=address, chunk_shoes=chunk_shoes,
                      progress=progress, device=device.value)
        if got.interrupted:
            err_console.print(f"interrupted: reporting the {got.tally.rounds:,} rounds played")
        return report(got, built.money).to_json()

    if compare:
        from sidebet.sim.runner import fresh_seed

        paths = ([setup] if setup is not None else []) + list(compare)
        if len(paths) < 2:
            raise fail("--compare needs two set-ups or more (the set-up argument counts)")
        names = [p.stem for p in paths]
        names = [f"{n} ({i + 1})" if names.count(n) > 1 else n for i, n in enumerate(names)]
        common = fresh_seed()  # (common random numbers: the same shoes where they can be)
        setups = [build(settings_of(p)) for p in paths]  # (every one checked before any run)
        for b in setups:
            parse_count(str(b.rounds or 1_000_000), "--rounds", high=MAX_ROUNDS)
        games = [{"name": name, "report": play(b, name, common)}
                 for name, b in zip(names, setups, strict=True)]
        _emit_compare(games, fmt, output)
        return
    built = build(settings_of(setup))
    j = play(built, "counting")
    if built.generated:
        from sidebet.advantage.generate import pivot

        j["count"]["pivot"] = pivot(built.spec.system, built.spec.decks)
        j["generated_indices"] = [
            {"play": g.play.text, "against": g.against, "crossing": g.crossing,
             "index": g.index, "note": g.note} for g in built.generated]
    if properties:
        from sidebet.advantage.properties import properties as count_properties
        from sidebet.sim.strategy_tables import strategy_arrays

        spec = built.spec
        j["properties"] = count_properties(
            spec.system, spec.rules, spec.decks, spec.sides,
            spec.plays or parse_plays("i18+fab4"),
            strategy_arrays(spec.rules, spec.decks)).to_json()
    if plot is not None:
        from sidebet.cli.advantage_render import plot as draw

        draw(j, plot)
    _emit(j, fmt, output)


def _emit_compare(games: list[dict[str, Any]], fmt: OutFormat, output: Path | None) -> None:
    from sidebet.cli.advantage_render import compare_csv, compare_render, compare_rows

    if fmt is OutFormat.text:
        _show(compare_render(games), output, 160)
        return
    text = (json_text({"games": compare_rows(games), "reports": games}) + "\n"
            if fmt is OutFormat.json else compare_csv(games))
    _write(text, output)


def _show(table: Any, output: Path | None, width: int) -> None:
    """Print rich tables, or write them ``width`` wide to ``output``."""
    if output is None:
        console.print(table)
        return
    from rich.console import Console

    with output.open("w", encoding="utf-8") as f:
        Console(file=f, width=width).print(table)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        print(text, end="")
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None


def _emit(j: dict[str, Any], fmt: OutFormat, output: Path | None) -> None:
    from sidebet.cli.advantage_render import csv_text, render, write_xlsx

    if fmt is OutFormat.xlsx:
        assert output is not None
        write_xlsx(j, output)
        return
    if fmt is OutFormat.text:
        _show(render(j), output, 120)
        return
    text = json_text(j) + "\n" \
        if fmt is OutFormat.json else csv_text(j)
    _write(text, output)


@handle_errors
def ruin_cmd(
    win: Annotated[float, typer.Option(help="Win per round, units (e.g. 0.0151).")],
    sd: Annotated[float, typer.Option(help="Standard deviation per round, units.")],
    bankroll: Annotated[float, typer.Option(help="Bank, units.")] = 1000.0,
    goal: Annotated[float, typer.Option(help="Win goal, units (double barrier).")] = 1000.0,
    trip: Annotated[int, typer.Option(help="Rounds in a trip (trip ruin).")] = 1000,
    rounds_per_hour: Annotated[float, typer.Option(help="Rounds per hour.")] = 100.0,
    format: Annotated[OutFormat, typer.Option(
        "--format", help="text or json")] = OutFormat.text,
) -> None:
    """Risk of ruin from a win rate and SD entered directly (as CVCX takes them).

    The simple, double-barrier and trip risks of ruin (Blackjack Attack's formulas), N0 and
    the hours to it, and the bankroll for a risk of ruin of 1%, 2%, 5% and 13.5%
    (docs/advantage.md).
    """
    import math

    from sidebet.advantage.metrics import Bankroll
    from sidebet.advantage.ruin import (
        RUIN_TARGETS,
        bank_for_ruin,
        barrier_ruin,
        simple_ruin,
        trip_ruin,
    )

    if not (math.isfinite(win) and abs(win) <= 1e6 and math.isfinite(sd) and 0 < sd <= 1e6):
        raise fail("the win is a number of units, at most 1e6 either way, and the SD is "
                   "above 0, at most 1e6")
    if format not in (OutFormat.text, OutFormat.json):
        raise fail("ruin's formats are text and json")
    Bankroll(bank=bankroll, trip_rounds=trip, goal=goal,
             rounds_per_hour=rounds_per_hour).verify()
    n0 = (sd / win) ** 2 if win > 0 else math.inf
    risks = {"simple": simple_ruin(win, sd, bankroll),
             "before_goal": barrier_ruin(win, sd, bankroll, goal),
             "trip": trip_ruin(win, sd, bankroll, trip)}
    banks = [{"risk": r, "bankroll": bank_for_ruin(win, sd, r)} for r in RUIN_TARGETS]
    data: dict[str, Any] = {"win_per_round": win, "sd_per_round": sd, "bankroll": bankroll, "goal": goal,
            "trip_rounds": trip, "rounds_per_hour": rounds_per_hour,
            "risk_of_ruin": risks, "n0": n0, "n0_hours": n0 / rounds_per_hour,
            "bankroll_for_risk_of_ruin": banks}
    if format is OutFormat.json:
        print(json_text(data, indent=1))
        return
    r = risks
    print(f"win {win:+g} a round, SD {sd:g}; bank {bankroll:g} units")
    print(f"risk of ruin: {100 * r['simple']:.2f}% playing for ever, "
          f"{100 * r['before_goal']:.2f}% before winning {goal:g}, "
          f"{100 * r['trip']:.2f}% within a trip of {trip:,} rounds")
    print(f"N0: {n0:,.0f} rounds, {n0 / rounds_per_hour:,.1f} hours at {rounds_per_hour:g} "
          "rounds an hour")
    print("bankroll for a risk of ruin of " + ", ".join(
        f"{100 * b['risk']:g}%: {b['bankroll']:,.0f}" for b in banks))


def register(app: typer.Typer) -> None:
    """Add ``advantage`` and ``ruin`` to ``app``."""
    app.command("advantage")(advantage_cmd)
    app.command("ruin")(ruin_cmd)
