"""``sidebet strategy`` (basic strategy charts) and ``sidebet press`` (TriLux Press advisor)."""

import json
from enum import StrEnum
from typing import Annotated, Any

import typer

from sidebet.cli.common import console, handle_errors
from sidebet.cli.export import DataFormat as Format
from sidebet.cli.export import emit_data
from sidebet.core.errors import RuleError, ShoeError, SidebetError
from sidebet.core.shoe import Shoe
from sidebet.native.diskcache import cached_json
from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard, HouseRules

__all__ = ["register"]


class Kind(StrEnum):
    """Which strategy to chart."""

    total = "total"
    composition = "composition"


LEGEND = (
    "H hit, S stand, D double (Dh/Ds: else hit/stand), P split, "
    "R surrender (Rh/Rs/Rp: else hit/stand/split)"
)


class Double(StrEnum):
    """Which first two cards may be doubled (:class:`sidebet.regulation.house_rules.DoubleRule`)."""

    any = "any"
    nine_to_eleven = "9-11"
    ten_or_eleven = "10-11"


H17 = Annotated[bool, typer.Option("--h17", help="Dealer hits soft 17.")]
NoDas = Annotated[bool, typer.Option("--no-das", help="No double after split.")]
DoubleOpt = Annotated[Double, typer.Option(
    "--double", help="Which first two cards may be doubled: any, 9-11 or 10-11 (hard totals).")]
SplitHands = Annotated[int, typer.Option("--split-hands", help="Most hands from splitting (2-4).")]
Rsa = Annotated[bool, typer.Option("--rsa", help="Split aces may be split again.")]
Hsa = Annotated[bool, typer.Option("--hit-split-aces", help="Split aces may be hit (and doubled).")]
NoSurrender = Annotated[bool, typer.Option("--no-surrender", help="No late surrender.")]
SixFive = Annotated[bool, typer.Option("--six-five", help="Blackjack pays 6:5.")]
NoPeek = Annotated[bool, typer.Option("--no-peek",
                                      help="Dealer Blackjack found after the players act.")]
DbjTakesDoubles = Annotated[bool, typer.Option(
    "--dealer-bj-takes-doubles",
    help="With --no-peek: a dealer Blackjack also takes Double Down wagers (default: only the "
         "original wager).")]
"""The house rules' options of ``strategy`` and ``press`` (:func:`_rules`)."""


def _rules(
    h17: bool, no_das: bool, split_hands: int, no_surrender: bool, six_five: bool, no_peek: bool,
    *, double: Double = Double.any, rsa: bool = False, hsa: bool = False,
    dbj_takes_doubles: bool = False,
) -> HouseRules:
    rules = HouseRules(
        dealer_hits_soft_17=h17,
        double=DoubleRule(double.value),
        double_after_split=not no_das,
        max_split_hands=split_hands,
        resplit_aces=rsa,
        hit_split_aces=hsa,
        late_surrender=not no_surrender,
        blackjack_pays=BlackjackPays.SIX_TO_FIVE if six_five else BlackjackPays.THREE_TO_TWO,
        hole_card=HoleCard.AFTER_PLAYERS if no_peek else HoleCard.PEEK,
        dealer_blackjack_takes_doubles=dbj_takes_doubles,
    )
    if dbj_takes_doubles and not no_peek:
        raise SidebetError("--dealer-bj-takes-doubles needs --no-peek: with the peek a dealer "
                           "Blackjack is found before anyone doubles")
    problems = rules.violations()
    if problems:
        raise RuleError(problems)
    return rules


def _check_decks(decks: int) -> None:
    Shoe.standard(decks)


def _edge_json(he: Any, sd: bool) -> dict[str, Any]:
    out = {"player_ev": he.player_ev, "house_edge": he.house_edge}
    if sd:
        out["std_dev"] = he.std_dev
    out["by_upcard"] = {name: {"probability": p, "player_ev": float(ev)}
                        for name, p, ev in he.by_upcard}
    return out


def _strategy_data(
    rules: HouseRules, decks: int, kind: Kind, sd: bool = False
) -> tuple[dict[str, Any], str]:
    """The strategy as JSON data (with its exact house edge, and its exact standard
    deviation when ``sd``) and its chart text, kept in the disk cache
    (:mod:`sidebet.native.diskcache`): a later ``sidebet strategy`` with the same rules
    answers without the analyser (nor numba)."""

    def build() -> dict[str, Any]:
        from sidebet.exact.blackjack.house_edge import house_edge
        from sidebet.exact.blackjack.strategy import basic_strategy, composition_strategy

        strat = (basic_strategy if kind is Kind.total else composition_strategy)(rules, decks)
        he = house_edge(decks, rules, "td" if kind is Kind.total else "cd")
        data = strat.to_json()
        data["house_edge"] = _edge_json(he, sd)
        return {"data": data, "chart": strat.chart_text()}

    key = f"{rules!r} decks={decks} kind={kind.value}" + (" sd" if sd else "")
    got = cached_json("strategy-chart", key, build)  # JSON text: a hit needs no numpy
    return got["data"], str(got["chart"])


def register(app: typer.Typer) -> None:
    """Add ``strategy`` and ``press`` to the ``sidebet`` command."""

    @app.command("strategy")
    @handle_errors
    def strategy_cmd(
        decks: Annotated[int, typer.Option("--decks", help="Decks in the shoe (1-8).")] = 6,
        h17: H17 = False,
        no_das: NoDas = False,
        double: DoubleOpt = Double.any,
        split_hands: SplitHands = 3,
        rsa: Rsa = False,
        hsa: Hsa = False,
        no_surrender: NoSurrender = False,
        six_five: SixFive = False,
        no_peek: NoPeek = False,
        dbj_takes_doubles: DbjTakesDoubles = False,
        kind: Annotated[Kind, typer.Option("--kind", help="total or composition")] = Kind.total,
        sd: Annotated[bool, typer.Option(
            "--sd", help="Also the exact standard deviation of a round (splits' hands "
                         "valued jointly: seconds more at 6 decks).")] = False,
        fmt: Annotated[Format, typer.Option("--format", help="table, json, csv or xlsx")
                       ] = Format.table,
    ) -> None:
        """Basic strategy chart for the rules, with its exact house edge."""
        _check_decks(decks)
        rules = _rules(h17, no_das, split_hands, no_surrender, six_five, no_peek, double=double,
                       rsa=rsa, hsa=hsa, dbj_takes_doubles=dbj_takes_doubles)
        data, chart_text = _strategy_data(rules, decks, kind, sd)
        if fmt is Format.json:
            print(json.dumps(data, indent=2))
            return
        if emit_data(data, "strategy", fmt.value):
            return
        edge = data["house_edge"]
        label = "total-dependent" if kind is Kind.total else "composition-dependent"
        console.print(f"{decks} deck(s), {rules.describe()} — {label} basic strategy")
        console.print(chart_text, markup=False, soft_wrap=True)
        console.print(LEGEND)
        spread = (f", standard deviation {edge['std_dev']:.4f} per round"
                  if "std_dev" in edge else "")
        console.print(
            f"Player expectation {edge['player_ev']:+.4%} (house edge "
            f"{edge['house_edge']:.4%}){spread}",
        )
        console.print(
            "By upcard: "
            + ", ".join(f"{name} {float(up['player_ev']):+.2%}"
                        for name, up in edge["by_upcard"].items()),
        )

    @app.command("press")
    @handle_errors
    def press_cmd(
        decks: Annotated[
            int, typer.Option("--decks", help="Decks in the shoe: 1, 2, 4, 6 or 8.")
        ] = 6,
        ratio: Annotated[
            float, typer.Option("--ratio", help="TriLux wager / Blackjack wager (at most 2).")
        ] = 1.0,
        h17: H17 = False,
        no_das: NoDas = False,
        double: DoubleOpt = Double.any,
        split_hands: SplitHands = 3,
        rsa: Rsa = False,
        hsa: Hsa = False,
        no_surrender: NoSurrender = False,
        six_five: SixFive = False,
        no_peek: NoPeek = False,
        dbj_takes_doubles: DbjTakesDoubles = False,
        fmt: Annotated[Format, typer.Option("--format", help="table, json, csv or xlsx")
                       ] = Format.table,
    ) -> None:
        """TriLux Deluxe Press chart (§ 633c.11(e)-(g)) and the value of pressing.

        Under the house rules given (default: interpretation 14's)."""
        _check_decks(decks)
        rules = _rules(h17, no_das, split_hands, no_surrender, six_five, no_peek, double=double,
                       rsa=rsa, hsa=hsa, dbj_takes_doubles=dbj_takes_doubles)
        from sidebet.regulation.wagers import PRESSABLE  # the wagers: press only

        press = PRESSABLE
        counts = sorted(press.deck_counts or ())
        if not press.offered_with(decks):
            listed = ", ".join(str(n) for n in counts[:-1]) + f" or {counts[-1]}"
            raise ShoeError(
                f"{press.decks_rule}: {press.name} is not offered with {decks} decks ({listed})"
            )
        top = press.max_bet_ratio
        if top is not None and not 0 < ratio <= top:
            raise SidebetError(
                f"{press.max_bet_rule}: the {press.name} wager is more than 0 and at most "
                f"{'twice ' if top == 2 else f'{top} times '}the Blackjack wager (--ratio)"
            )
        from sidebet.exact.blackjack.press import press_chart, press_summary

        chart = press_chart(decks, rules)
        summaries = press_summary(rules)
        data = {
            "decks": decks,
            "rules": rules.describe(),
            "cells": chart.cells_json(),
            "summary": [{**s.to_json(), "optimal_per_blackjack_unit": s.optimal * ratio}
                        for s in summaries],
        }
        if fmt is Format.json:
            print(json.dumps(data, indent=2))
            return
        if emit_data(data, "press", fmt.value):
            return
        console.print(
            f"TriLux Deluxe Press, {decks} deck(s), paytable {chart.summary.paytable}, "
            f"{rules.describe()}",
        )
        console.print(
            "EV per pressed unit (%), P = press all winnings, c = collect, · = TriLux cannot win",
            markup=False,
        )
        console.print(chart.text(), markup=False, soft_wrap=True)
        console.print("Value of the Press per unit of TriLux Deluxe wager:")
        console.print(
            f"{'decks':>5} {'table':>6} {'optimal':>8} {'always':>8} {'never':>6} "
            f"{'press%':>7} {'TriLux':>8} {'per BJ':>7} {'EoR opt':>8} {'EoR alw':>8}",
            markup=False, soft_wrap=True,
        )
        for s in summaries:
            console.print(
                f"{s.decks:>5} {s.paytable:>6} {s.optimal:>+8.2%} {s.always:>+8.2%} "
                f"{s.never:>+6.2%} {s.press_share:>7.2%} {s.trilux_return:>+8.2%} "
                f"{s.optimal * ratio:>+7.2%} {s.element_of_risk('optimal'):>8.2%} "
                f"{s.element_of_risk('always'):>8.2%}", markup=False, soft_wrap=True,
            )
        console.print("per BJ: the Press's value per unit of Blackjack wager (--ratio).\n"
                      "EoR opt / alw: element of risk pressing optimally / always, the house\n"
                      "edge over all money at risk: the TriLux wager and all pressed money,\n"
                      "doubles and splits of the pressed hand included.",
                      markup=False, soft_wrap=True)
