"""``sidebet rules``, ``par``, ``settle`` and ``check-table``."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sidebet.cli.common import TableOrJson, TextFormat, console, fail, handle_errors
from sidebet.cli.export import emit_data
from sidebet.cli.paytables import PAYS_HELP, chosen_paytable
from sidebet.core.cards import parse_cards
from sidebet.core.money import parse_money
from sidebet.core.shoe import Shoe
from sidebet.regulation.wagers import WAGERS, Wager, get_wager, help_required

if TYPE_CHECKING:
    from rich.table import Table  # rich: imported where a table is drawn

    from sidebet.exact.par import ParSheet  # the PAR kernels bring numba: imported by par() only
    from sidebet.regulation.submission import TableConfig  # settle and check-table only

__all__ = ["register"]


Format = TextFormat
"""Output formats of ``sidebet par``."""


def _pct(value: Any) -> str:
    return f"{float(value):.4%}"


# --- rules ---------------------------------------------------------------------------


def _rules_table(wager: Wager) -> "Table":
    from rich.table import Table

    title = f"{wager.name} ({wager.id}) — {wager.section}"
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("Outcome")
    table.add_column("Id")
    for pt in wager.paytables:
        table.add_column(f"Paytable {pt.name}", justify="right")
    table.add_column("Citation")
    for outcome in wager.outcomes:
        lines = [pt.line(outcome.id) for pt in wager.paytables]
        table.add_row(
            outcome.label,
            outcome.id,
            *(f"{line.pays} to 1" for line in lines),
            lines[0].citation,
        )
    return table


def _constraints(wager: Wager) -> list[str]:
    out = wager.constraints()
    for pt in wager.paytables:
        if pt.note:
            out.append(f"Paytable {pt.name}: {pt.note}.")
    out.append("Settled after every player and the dealer have two cards, before any further "
               "card or card-reader check (interpretation 13).")
    return out


def rules(
    wager: Annotated[str | None, typer.Argument(help="Wager id; all wagers when omitted.")] = None,
) -> None:
    """Show wagers, paytables, constraints and citations."""
    wagers = [get_wager(wager)] if wager else list(WAGERS.values())
    for w in wagers:
        console.print(_rules_table(w))
        console.print(w.summary)
        for line in _constraints(w):
            console.print(f"  • {line}")
        console.print()


# --- par -----------------------------------------------------------------------------


def _sheet_table(sheet: "ParSheet") -> "Table":
    from rich.table import Table

    flag = "" if sheet.compliant else "  [bold red]NOT COMPLIANT[/]"
    table = Table(
        title=f"{sheet.wager_name} — paytable {sheet.paytable} — {sheet.shoe.describe()}{flag}",
        title_justify="left",
    )
    table.add_column("Outcome")
    table.add_column("Pays", justify="right")
    table.add_column("Combinations", justify="right")
    table.add_column("Probability", justify="right")
    table.add_column("Return", justify="right")
    for line in sheet.lines:
        table.add_row(
            line.label,
            "-1" if line.pays < 0 else f"{line.pays} to 1",
            f"{line.combinations:,}",
            f"{float(line.probability):.10f}",
            f"{float(line.contribution):+.6f}",
        )
    table.add_section()
    table.add_row("Total", "", f"{sheet.total_combinations:,}", "1.0000000000",
                  f"{float(sheet.expected_return):+.6f}")
    table.caption = (
        f"House edge {_pct(sheet.house_edge)} ({sheet.house_edge})   "
        f"Hit frequency {_pct(sheet.hit_frequency)}   Std dev {sheet.std_dev:.4f}"
    )
    table.caption_justify = "left"
    return table


def _markdown(sheet: "ParSheet") -> str:
    rows = [
        f"### {sheet.wager_name}, paytable {sheet.paytable}, {sheet.shoe.describe()}",
        "",
        "| Outcome | Pays | Combinations | Probability | Return |",
        "|---|---:|---:|---:|---:|",
    ]
    for line in sheet.lines:
        rows.append(
            f"| {line.label} | {line.pays} | {line.combinations} | "
            f"{float(line.probability):.10f} | {float(line.contribution):+.6f} |"
        )
    rows.append(f"| **Total** | | {sheet.total_combinations} | 1 | "
                f"{float(sheet.expected_return):+.6f} |")
    rows += [
        "",
        f"House edge {_pct(sheet.house_edge)} (exactly {sheet.house_edge});",
        f"hit frequency {_pct(sheet.hit_frequency)}; standard deviation {sheet.std_dev:.6f}.",
    ]
    for violation in sheet.violations:
        rows.append(f"**Not compliant:** {violation}")
    if sheet.paytable_note:
        rows.append(f"Note: paytable {sheet.paytable} is {sheet.paytable_note}.")
    return "\n".join(rows) + "\n"


def _csv(sheets: list["ParSheet"]) -> str:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["wager", "decks", "paytable", "compliant", "outcome", "pays",
                     "combinations", "total_combinations", "probability", "return",
                     "house_edge", "house_edge_numerator", "house_edge_denominator",
                     "hit_frequency", "std_dev"])
    for s in sheets:
        edge = s.house_edge
        for line in s.lines:
            writer.writerow([s.wager, s.decks if s.decks is not None else "", s.paytable,
                             int(s.compliant), line.outcome, line.pays, line.combinations,
                             s.total_combinations, f"{float(line.probability):.12g}",
                             f"{float(line.contribution):.12g}", f"{float(edge):.12g}",
                             edge.numerator, edge.denominator,
                             f"{float(s.hit_frequency):.12g}", f"{s.std_dev:.12g}"])
    return buf.getvalue()


def _emit(sheets: list["ParSheet"], fmt: Format, as_list: bool) -> None:
    data_list = [s.to_json() for s in sheets]
    if fmt is Format.json:
        import json

        print(json.dumps(data_list if as_list else data_list[0], indent=2, ensure_ascii=False))
    elif fmt is Format.csv:
        print(_csv(sheets), end="")
    elif fmt is Format.xlsx:
        emit_data(data_list if as_list else data_list[0], "par", fmt.value)
    elif fmt is Format.markdown:
        print("\n".join(_markdown(s) for s in sheets), end="")
    else:
        for s in sheets:
            console.print(_sheet_table(s))
            for v in s.violations:
                console.print(f"[red]  not compliant:[/] {v}")
            if s.paytable_note:
                console.print(f"  note: paytable {s.paytable} is {s.paytable_note}")
            console.print()


@handle_errors
def par(
    wager: Annotated[str | None, typer.Argument(help="Wager id (omit with --all).")] = None,
    decks: Annotated[int | None, typer.Option(help="Decks in the shoe (1-8); default 6, "
                                              "or every count 1-8 with --all.")] = None,
    paytable: Annotated[str | None, typer.Option(help="Paytable; default: the wager's.")] = None,
    pays: Annotated[str | None, typer.Option(help=PAYS_HELP)] = None,
    remove: Annotated[str, typer.Option(help='Cards already dealt, e.g. "7D 7S".')] = "",
    all_: Annotated[bool, typer.Option("--all", help="Every wager and paytable.")] = False,
    compliant_only: Annotated[bool, typer.Option(
        help="With --all, only paytables the regulation allows at that deck count.")] = False,
    fmt: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.table,
) -> None:
    """Exact PAR sheet of a wager (combinations, probabilities, house edge, std dev)."""
    from sidebet.exact.par import all_par_sheets, par_sheet

    removed = parse_cards(remove)
    if all_:
        if wager is not None or paytable is not None or pays is not None:
            raise fail("--all covers every wager and paytable: give no WAGER, --paytable or "
                       "--pays")
        counts = [decks] if decks is not None else list(range(1, 9))
        sheets = all_par_sheets(counts, compliant_only=compliant_only, removed=removed)
        _emit(sheets, fmt, as_list=True)
        return
    if wager is None:
        raise fail("name a WAGER (one of: " + ", ".join(WAGERS) + ") or use --all")
    shoe = Shoe.standard(decks if decks is not None else 6).remove(removed)
    _emit([par_sheet(wager, shoe, chosen_paytable(wager, paytable, pays))], fmt, as_list=False)


# --- settle --------------------------------------------------------------------------


@handle_errors
def settle_cmd(
    wager: Annotated[str, typer.Argument(help="Wager id.")],
    player: Annotated[str, typer.Option(help='Player\'s two cards, e.g. "AS JS".')],
    up: Annotated[str, typer.Option(help="Dealer's upcard, e.g. 7D.")],
    bet: Annotated[str, typer.Option(help="The side wager, e.g. 25 or 12.50.")],
    blackjack_bet: Annotated[str, typer.Option(help="The Blackjack wager.")],
    decks: Annotated[int, typer.Option(help="Decks in the shoe.")] = 6,
    paytable: Annotated[str | None, typer.Option(help="Paytable; default: the wager's.")] = None,
    pays: Annotated[str | None, typer.Option(help=PAYS_HELP)] = None,
    three_card_poker_bet: Annotated[str, typer.Option(help=help_required(
        "The {required} wager ({name} requires one)."))] = "0",
    config: Annotated[Path | None, typer.Option(
        help="Settle at this table (Rules Submission TOML): its decks, paytables, limits "
        "and maximum payouts, instead of --decks and --paytable.")] = None,
    fmt: Annotated[TableOrJson, typer.Option("--format", help="table or json.")
                   ] = TableOrJson.table,
) -> None:
    """Settle one side wager: outcome, odds and money.

    With --config, at that table: its paytables and limits, and a win cut to its posted
    maximum payout."""
    from sidebet.regulation.side_settlement import settle
    from sidebet.regulation.submission import TableConfig, load_table_config

    w = get_wager(wager)
    if config is not None:
        if paytable is not None or pays is not None:
            raise fail("--config names the paytable: give no --paytable or --pays")
        table = load_table_config(config)
    else:
        table = TableConfig.for_wager(w, decks, chosen_paytable(w.id, paytable, pays))
    result = settle(table, w, parse_money(bet), parse_money(blackjack_bet), player, up,
                    parse_money(three_card_poker_bet))
    data = result.to_json()
    if fmt is TableOrJson.json:
        import json

        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    odds = "loses" if result.pays < 0 else f"pays {result.pays} to 1"
    console.print(f"{w.name}: {data['player']} against {data['upcard']} — "
                  f"[bold]{result.label}[/], {odds} ({result.citation})")
    console.print(f"  bet {data['bet']}  stake returned {data['stake']}  "
                  f"winnings {data['winnings']}  net {data['net']}")
    if table.payout_limit(w.id) is None:
        console.print("  no maximum payout posted for this wager (--config names a table's)")


# --- check-table ---------------------------------------------------------------------


@handle_errors
def check_table(
    config: Annotated[Path, typer.Argument(help="Rules Submission TOML file.")],
    fmt: Annotated[TableOrJson, typer.Option("--format", help="table or json.")
                   ] = TableOrJson.table,
    attainable: Annotated[bool, typer.Option(
        "--attainable", help="Also the most one deal really costs (every triple of cards "
        "classified: numpy, a second or two).")] = False,
) -> None:
    """Validate a table's Rules Submission file; exit 1 when it breaks a rule."""
    from sidebet.regulation.liability import round_liability
    from sidebet.regulation.submission import CapStatus, cap_checks, load_table_config

    table = load_table_config(config)
    found = table.violations()
    caps = cap_checks(table)
    missing = _missing(table)
    liability = round_liability(table).to_json() if not found else None
    if liability is not None and attainable:
        from sidebet.report.money import attainable_liability

        liability["attainable"] = attainable_liability(table)
    if fmt is TableOrJson.json:
        import json

        print(json.dumps({
            "file": str(config),
            "compliant": not found,
            "offers": ["blackjack", *table.side_wagers],
            "missing": missing,
            "violations": [{"rule": v.rule, "message": v.message, "text": str(v)}
                           for v in found],
            "caps": [c.to_json() for c in caps],
            "liability": liability,
        }, indent=2, ensure_ascii=False))
    else:
        offered = ", ".join(f"{get_wager(k).name} ({v})" for k, v in table.side_wagers.items()
                            if k in WAGERS) or "no side wager"
        console.print(f"{config}: {table.decks} decks, {table.rules.describe()}; {offered}")
        from rich.markup import escape

        for line in missing:
            console.print(f"[yellow]missing[/] {escape(line)}")
        for c in caps:
            if c.status is CapStatus.UNCHECKED:
                console.print(f"[yellow]cannot check[/] {escape(c.rule)}: {escape(c.message)}")
            elif c.status is not CapStatus.EXCEEDS:
                console.print(f"bet cap {escape(c.rule)}: {escape(c.message)}")
        if not found:
            what = "Blackjack alone" if not table.side_wagers else "every wager offered"
            console.print(f"[green]compliant[/] for {what}: no rule broken")
        for v in found:
            console.print(f"[red]violation[/] {v}")
        if liability is not None:
            _print_liability(liability)
    if found:
        raise typer.Exit(1)


def _missing(table: "TableConfig") -> list[str]:
    """What a Rules Submission leaves out, in words: no side wager, or nothing at all."""
    from sidebet.regulation.submission import TableConfig

    out = []
    if not table.side_wagers:
        out.append("no side wager is offered: add [side_wagers.NAME] with NAME one of "
                   + ", ".join(WAGERS))
    if table == TableConfig():
        out.append("nothing differs from the defaults: 6 decks, the house rules of "
                   "interpretation 14, no table limits")
    elif not table.limits:
        out.append("no table limits: add [limits] min and max")
    return out


def _print_liability(liability: dict[str, Any]) -> None:
    wagers = liability["wagers"]
    for w in wagers:
        win = w["max_win"] or "unbounded (no maximum bet)"
        cut = " (cut to the posted maximum payout)" if w["capped"] else ""
        console.print(f"  {w['wager']}: largest bet {w['max_bet'] or 'none posted'}, "
                      f"most won {win}{cut}")
    if liability["unbounded"]:
        console.print("[yellow]no limit[/]: one round's liability is unbounded "
                      f"({', '.join(map(str, liability['unbounded']))} without a maximum)")
    console.print(f"maximum liability (safe bound): {liability['per_seat'] or 'unbounded'} per "
                  f"seat, {liability['per_round'] or 'unbounded'} per round of "
                  f"{liability['seats']} seats (round limit "
                  f"{liability['round_limit'] or 'not posted'})")
    got = liability.get("attainable")
    if got is None:
        console.print("attainable on one deal: sidebet check-table --attainable")
    elif got["per_seat"] is not None:
        console.print(f"attainable on one deal: {got['per_seat']} per seat ({got['seat_deal']}), "
                      f"{got['per_round']} per round (upcard {got['deal']['upcard']}, seats "
                      f"{', '.join(got['deal']['seats'])})")


def register(app: typer.Typer) -> None:
    """Add these commands to ``app``."""
    app.command("rules")(handle_errors(rules))
    app.command("par")(par)
    app.command("settle")(settle_cmd)
    app.command("check-table")(check_table)

