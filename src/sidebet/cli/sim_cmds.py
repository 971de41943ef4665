"""``sidebet simulate``: many rounds at compiled speed, with confidence intervals."""

import json
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated

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
from sidebet.cli.export import DataFormat as Format
from sidebet.cli.export import emit_data
from sidebet.cli.paytables import SIM_PAYS_HELP, sim_pays
from sidebet.core.bounded import MAX_ROUNDS, parse_count, parse_penetration
from sidebet.core.errors import RuleError
from sidebet.native.threads import idle_cores
from sidebet.regulation.house_rules import BlackjackPays, HoleCard, HouseRules
from sidebet.regulation.submission import load_table_config
from sidebet.regulation.wagers import PRESSABLE, get_wager, help_ids, help_required
from sidebet.sim import (
    CHUNK_SHOES,
    SimSpec,
    default_sides,
    resolve_sides,
    simulate,
)
from sidebet.sim.chunk import SEEDS

__all__ = ["register"]


class Press(StrEnum):
    """Press policies."""

    none = "none"
    all = "all"
    advice = "advice"
    rule = "rule"


MAX_UNITS = 1_000_000
"""The largest wager, in table units."""


def _count(text: str) -> int:
    """``1e9``, ``1_000_000``, ``2,000`` -> an int."""
    return parse_count(text, "--rounds", high=MAX_ROUNDS)



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
    side: Annotated[str, typer.Option(help=f"Side wagers, comma-separated ({help_ids(', ')}), "
                                      "'all' (the regulated ones the deck count allows) or "
                                      "'none'. " + help_required(
                                          "{name} brings its {required} wager."))] = "all",
    paytable: Annotated[list[str] | None, typer.Option(
        help="WAGER=PAYTABLE, e.g. top3=B (repeatable); default: the wager's.")] = None,
    pays: Annotated[list[str] | None, typer.Option(help=SIM_PAYS_HELP)] = None,
    press: Annotated[Press, typer.Option(help=f"{PRESSABLE.name} Press policy: none, all, advice "
                                         "(the exact Press chart) or rule (the table "
                                         "engine's simple rule).")] = Press.none,
    penetration: Annotated[str | None, typer.Option(
        help="Share of the shoe dealt before the cut card (default: the rules', 0.75).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (default: a fresh one, reported).")
                    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="table, json, csv or xlsx.")
                   ] = Format.table,
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
    chunk_shoes: Annotated[int | None, typer.Option(
        help=f"Shoes per chunk (does not change results; default {CHUNK_SHOES:,}, fewer "
             "when threads share a short run).")] = None,
    threads: Annotated[int | None, typer.Option(
        help="Threads of this process that play chunks with one local worker (does not "
             "change results; default one per idle core).")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")
                           ] = False,
    device: Annotated[DeviceName, typer.Option(
        help="cpu, gpu (a CUDA device, one shoe a thread; the same results) or auto (a "
             "CUDA device when there is one).")] = DeviceName.cpu,
) -> None:
    """Simulate whole rounds with every side wager: returns with 95% confidence intervals,
    hit frequencies, the value of the Press and the distribution of each round's result."""
    n_rounds = _count(rounds)
    for name, units in (("--bet", bet), ("--side-bet", side_bet)):
        if not 1 <= units <= MAX_UNITS:
            raise fail(f"{name} must be 1 to {MAX_UNITS:,} table units, not {units}")
    if address is not None and backend is not BackendName.ray:
        raise fail("--address names a Ray cluster: use it with --backend ray")
    if address is not None:
        from sidebet.sim.ray_backend import probe_address

        probe_address(address)  # an unreachable cluster fails now, in seconds
    if seed is not None and seed not in SEEDS:
        raise fail(f"--seed must be 0 to 2**64 - 1, not {seed}")
    if not 1 <= workers <= 4096:
        raise fail(f"--workers must be 1 to 4096, not {workers}")
    if chunk_shoes is not None and not 1 <= chunk_shoes <= 1_000_000:
        raise fail(f"--chunk-shoes must be 1 to 1,000,000, not {chunk_shoes}")
    if threads is not None and not 1 <= threads <= 256:
        raise fail(f"--threads must be 1 to 256, not {threads}")
    rules = HouseRules()
    chosen_paytables: dict[str, str] = {}
    table_decks = 6
    config_sides: tuple[str, ...] | None = None
    if config is not None:
        table = load_table_config(config)
        flagged = table.paytable_flags()  # a custom paytable: simulated, flagged
        broken = [v for v in table.violations() if v not in flagged]
        if broken:
            raise RuleError(broken)
        rules = table.rules
        table_decks = table.decks
        chosen_paytables = dict(table.side_wagers)
        config_sides = tuple(table.side_wagers)
        if decks is not None and decks != table.decks:
            broken = replace(table, decks=decks).violations()
            if broken:
                raise fail(f"--decks {decks} breaks the Rules Submission {config}: "
                           f"{broken[0]}")
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
    explicit = _paytables(paytable or [])
    custom = sim_pays(pays or [])
    both = {get_wager(w).id for w in explicit} & set(custom)
    if both:
        raise fail(f"give --paytable or --pays for {', '.join(sorted(both))}, not both")
    explicit.update(custom)
    chosen_paytables.update(explicit)
    names = side.strip().lower()
    if names == "all":
        wanted: tuple[str, ...] = (default_sides(n_decks) if config_sides is None
                                   else config_sides)
    elif names == "none":
        wanted = ()
    elif not names or not all(n.strip() for n in names.split(",")):
        raise fail(f"--side {side!r} names no wager: give wagers ({help_ids(', ')}), all or "
                   "none, separated by commas")
    else:
        wanted = tuple(n.strip() for n in names.split(","))
    sides = resolve_sides(list(wanted), n_decks, chosen_paytables)
    played = {wid for wid, _ in sides}
    for wid in explicit:
        if get_wager(wid).id not in played:
            raise fail(f"--paytable/--pays {wid}: {get_wager(wid).name} is not played "
                       f"(--side {side})")
    if side_only and not sides:
        raise fail("nothing to simulate: --side-only with no side wager (--side none)")
    if press is not Press.none and PRESSABLE.id not in played:
        raise fail(f"--press {press.value} needs the {PRESSABLE.name} wager (--side)")
    if press is not Press.none and side_only:
        raise fail(f"--press {press.value} needs Blackjack hands: not with --side-only")
    spec = SimSpec(
        decks=n_decks,
        seats=seats,
        sides=sides,
        rules=rules,
        bet=bet,
        side_bet=side_bet,
        press=press.value,
        strategy=strategy,
        penetration=parse_penetration(penetration) if penetration is not None else None,
        side_only=side_only,
    )
    spec.verify()
    bar = not no_progress and err_console.is_terminal
    with rounds_progress("simulating", n_rounds, bar) as progress:
        result = simulate(spec, n_rounds, seed, workers=workers, backend=backend.value,
                          address=address, chunk_shoes=chunk_shoes, progress=progress,
                          threads=threads or idle_cores(), device=device.value)
    if result.interrupted:
        err_console.print(f"interrupted: reporting the {result.rounds:,} rounds played")
    flags = [str(v) for v in spec.table_config().paytable_flags()]
    data = {**result.to_json(), "violations": flags}
    if fmt is Format.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif emit_data(data, "simulate", fmt.value, main=data["side_wagers"]):
        pass
    else:
        from sidebet.cli.sim_render import render  # rich: only for the tables

        console.print(render(result))
        for flag in flags:
            console.print(f"[red]not compliant:[/] {flag}")


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to ``app``."""
    app.command("simulate")(simulate_cmd)
