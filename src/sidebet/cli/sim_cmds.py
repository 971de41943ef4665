"""``sidebet simulate``: many rounds at compiled speed, with confidence intervals."""

from __future__ import annotations

import json
import math
import time
from dataclasses import replace
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from sidebet.cli.common import TableOrJson as Format
from sidebet.cli.common import console, err_console, fail, handle_errors
from sidebet.cli.sim_render import render
from sidebet.config import load_table_config
from sidebet.rules import BlackjackPays, HoleCard, HouseRules
from sidebet.sim import (
    CHUNK_SHOES,
    SimSpec,
    default_sides,
    resolve_sides,
    simulate,
)

__all__ = ["register"]


class Press(StrEnum):
    """Press policies."""

    none = "none"
    all = "all"
    advice = "advice"
    rule = "rule"


class BackendName(StrEnum):
    """Where the chunks run."""

    local = "local"
    ray = "ray"


def _count(text: str) -> int:
    """``1e9``, ``1_000_000``, ``2,000`` -> an int."""
    cleaned = text.replace("_", "").replace(",", "").strip()
    try:
        value = float(cleaned) if any(c in cleaned for c in ".eE") else int(cleaned)
    except ValueError:
        raise fail(f"--rounds must be a number of rounds, not {text!r}") from None
    if not math.isfinite(value) or value < 1 or value != int(value):
        raise fail(f"--rounds must be a whole number of rounds of at least 1, not {text!r}")
    return int(value)


def _fraction(text: str) -> Fraction:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise fail(f"--penetration must be a number between 0 and 1, not {text!r}") from None
    if not 0 < value < 1:
        raise fail(f"--penetration must be between 0 and 1, not {text}")
    return value


def _paytables(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        wager, sep, name = item.partition("=")
        if not sep or not wager or not name:
            raise fail(f"--paytable takes WAGER=PAYTABLE (e.g. top3=B), not {item!r}")
        out[wager.strip()] = name.strip()
    return out


@handle_errors
def simulate_cmd(
    rounds: Annotated[str, typer.Option(help="Rounds to play (e.g. 1e9; each round deals "
                                        "every seat).")] = "1e6",
    decks: Annotated[int | None, typer.Option(help="Decks in the shoe (default 6, or the "
                                              "--config table's).")] = None,
    seats: Annotated[int, typer.Option(help="Seats playing (1-7).")] = 1,
    side: Annotated[str, typer.Option(help="Side wagers, comma-separated (trilux, "
                                      "upcard-luck, top3, blazing7s, three-card-poker), "
                                      "'all' (the regulated ones the deck count allows) or "
                                      "'none'. Top 3 brings its Three Card Poker wager.")] = "all",
    paytable: Annotated[list[str] | None, typer.Option(
        help="WAGER=PAYTABLE, e.g. top3=B (repeatable); default: the wager's.")] = None,
    press: Annotated[Press, typer.Option(help="TriLux Deluxe Press policy: none, all, advice "
                                         "(the exact Press chart) or rule (the table "
                                         "engine's simple rule).")] = Press.none,
    penetration: Annotated[str | None, typer.Option(
        help="Share of the shoe dealt before the cut card (default: the rules', 0.75).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (default: a fresh one, reported).")
                    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="table or json.")] = Format.table,
    workers: Annotated[int, typer.Option(help="Worker processes (local) or Ray tasks at "
                                         "once (ray; default all cluster CPUs).")] = 1,
    backend: Annotated[BackendName, typer.Option(help="local or ray.")] = BackendName.local,
    address: Annotated[str | None, typer.Option(help="Ray cluster address (default: start "
                                                "a local instance).")] = None,
    bet: Annotated[int, typer.Option(help="Blackjack wager, whole table units.")] = 1,
    side_bet: Annotated[int, typer.Option(help="Each side wager, whole table units.")] = 1,
    side_only: Annotated[bool, typer.Option(
        "--side-only", help="Deal the initial cards and settle the side wagers only.")] = False,
    config: Annotated[Path | None, typer.Option(help="Rules Submission TOML: decks, house "
                                                "rules and paytables.")] = None,
    h17: Annotated[bool | None, typer.Option("--h17/--s17", help="Dealer hits/stands on "
                                             "soft 17 (default: the rules').")] = None,
    blackjack_pays: Annotated[str | None, typer.Option(help="3:2 or 6:5.")] = None,
    no_peek: Annotated[bool, typer.Option("--no-peek", help="The dealer's Blackjack is found "
                                          "only after the players act.")] = False,
    strategy: Annotated[str, typer.Option(help="exact (the exact analyser's basic strategy "
                                          "for the rules, default) or chart (the published "
                                          "basic-strategy chart).")] = "exact",
    chunk_shoes: Annotated[int, typer.Option(help="Shoes per chunk (does not change "
                                             "results).")] = CHUNK_SHOES,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")
                           ] = False,
) -> None:
    """Simulate whole rounds with every side wager: returns with 95% confidence intervals,
    hit frequencies, the value of the Press and the distribution of each round's result."""
    n_rounds = _count(rounds)
    rules = HouseRules()
    chosen_paytables: dict[str, str] = {}
    table_decks = 6
    if config is not None:
        table = load_table_config(config)
        rules = table.rules
        table_decks = table.decks
        chosen_paytables = dict(table.side_wagers)
    n_decks = decks if decks is not None else table_decks
    if h17 is not None:
        rules = replace(rules, dealer_hits_soft_17=h17)
    if blackjack_pays is not None:
        try:
            rules = replace(rules, blackjack_pays=BlackjackPays(blackjack_pays))
        except ValueError:
            raise fail(f"--blackjack-pays is 3:2 or 6:5, not {blackjack_pays!r}") from None
    if no_peek:
        rules = replace(rules, hole_card=HoleCard.AFTER_PLAYERS)
    chosen_paytables.update(_paytables(paytable or []))
    names = side.strip().lower()
    if names == "all":
        wanted: tuple[str, ...] = default_sides(n_decks)
    elif names in ("", "none"):
        wanted = ()
    else:
        wanted = tuple(n for n in names.split(",") if n.strip())
    spec = SimSpec(
        decks=n_decks,
        seats=seats,
        sides=resolve_sides(list(wanted), n_decks, chosen_paytables),
        rules=rules,
        bet=bet,
        side_bet=side_bet,
        press=press.value,
        strategy=strategy,
        penetration=_fraction(penetration) if penetration is not None else None,
        side_only=side_only,
    )
    spec.verify()
    show = not no_progress and err_console.is_terminal
    with Progress(
        TextColumn("[bold]simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=not show,
    ) as bar:
        task = bar.add_task("rounds", total=n_rounds, rate="")
        started = time.perf_counter()

        def progress(done: int) -> None:
            elapsed = time.perf_counter() - started
            rate = f"{done / elapsed:,.0f} rounds/s" if elapsed > 0 else ""
            bar.update(task, completed=done, rate=rate)

        result = simulate(spec, n_rounds, seed, workers=workers, backend=backend.value,
                          address=address, chunk_shoes=chunk_shoes, progress=progress)
    if result.interrupted:
        err_console.print(f"interrupted: reporting the {result.rounds:,} rounds played")
    if fmt is Format.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        console.print(render(result))


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to ``app``."""
    app.command("simulate")(simulate_cmd)
