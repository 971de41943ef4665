"""``sidebet surveil FILE``: the surveillance analysis of a table's history (an exported
server log or an engine hand history), as text or JSON."""

import json
from pathlib import Path
from typing import Annotated

import typer

from sidebet.cli.common import TableOrJson, handle_errors

__all__ = ["register"]


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:+.2f}%"


def register(app: typer.Typer) -> None:
    """Add ``surveil`` to the ``sidebet`` command."""

    @app.command()
    @handle_errors
    def surveil(
        file: Annotated[Path, typer.Argument(
            help="an exported table log (JSON lines) or a hand history (sidebet play "
                 "--save)")],
        alpha: Annotated[float, typer.Option(
            help="false-alarm rate of both tests together: chance that a player betting "
                 "independently of the edge is flagged within --horizon decisions")] = 0.01,
        horizon: Annotated[int, typer.Option(
            help="decisions of one player on one wager the false-alarm rate covers")] = 10_000,
        delta: Annotated[float, typer.Option(
            help="the alternative: the edge's change has mean delta x the bet's change "
                 "(both standardised), 0 to 1")] = 0.5,
        warmup: Annotated[int, typer.Option(
            help="bet changes of a player (rounds of the table) before scores count")] = 20,
        decisions: Annotated[bool, typer.Option(
            help="list every betting decision with its exact edge")] = False,
        format: Annotated[TableOrJson, typer.Option(
            "--format", help="text table or JSON")] = TableOrJson.table,
    ) -> None:
        """Surveillance of a table's history: for every player, on the Blackjack wager and
        each side wager, the edge at each betting decision, the correlation of bet size
        with it, the correlation and advantage tests' alarm at the false-alarm rate you
        set, and the result against expectation."""
        from sidebet.serve.chain import EXPORT_FORMAT
        from sidebet.surveil.alarm import AlarmRule
        from sidebet.surveil.analysis import survey
        from sidebet.surveil.readers import read_file

        rule = AlarmRule(alpha=alpha, horizon=horizon, delta=delta, warmup=warmup)
        table = read_file(file, EXPORT_FORMAT)
        s = survey(table.config.decks, table.sides, table.rounds, rule,
                   rules=table.config.rules, keep_decisions=decisions)
        if format is TableOrJson.json:
            data = s.to_json(decisions=decisions)
            data["rounds_not_finished"] = table.not_finished
            print(json.dumps(data, indent=1))
            return
        print(f"{table.config.name}: {table.config.decks} decks, {s.rounds} rounds"
              + (f" ({table.not_finished} not finished, not analysed)"
                 if table.not_finished else ""))
        edges = ", ".join(f"{w} {_pct(float(e))}"
                          for w, e in zip(s.wagers, s.edge.full_shoe, strict=True))
        print(f"full-shoe edge: {edges}")
        print(f"alarm: CUSUMs of the correlation and the advantage tests, false-alarm rate "
              f"{alpha:g} (both together) within {horizon} decisions, delta {delta:g}, "
              f"threshold {rule.threshold:.2f}")
        head = (f"{'player':<16} {'wager':<16} {'decisions':>9} {'placed':>6} "
                f"{'edge placed':>11} {'corr':>6} {'CUSUM max':>9} {'alarm':<10} "
                f"{'result':>10} {'expected':>10}")
        print(head)
        for t in s.players.values():
            corr = t.correlation
            alarm = t.alarm_game or "-"
            print(f"{t.player[:16]:<16} {t.wager:<16} {t.decisions:>9} {t.placed:>6} "
                  f"{_pct(t.mean_edge_placed):>11} "
                  f"{'-' if corr is None else f'{corr:+.3f}':>6} "
                  f"{max(t.max_cusum, t.advantage.top):>9.2f} "
                  f"{alarm[:10]:<10} {t.result / 100:>10.2f} {t.expected / 100:>10.2f}")
        raised = s.alarms()
        print("alarms: " + ("none" if not raised else ""))
        for t in raised:
            test = "" if t.alarm_test is None else t.alarm_test.value
            print(f"  {t.player} on {t.wager} at {t.alarm_game} (decision "
                  f"{t.alarm_decision}, {test} test): mean edge of bets placed "
                  f"{_pct(t.mean_edge_placed)}, expected {t.expected / 100:.2f}, "
                  f"result {t.result / 100:.2f}")
        print("edges and expectations are floats (exact ratios rounded)")
        if decisions:
            for d in s.decisions:
                print(f"{d.game} {d.player} seat {d.seat} {d.wager}: edge {_pct(d.edge)}, "
                      + (f"placed {d.bet / 100:.2f}" if d.bet else "not placed")
                      + f", CUSUM {d.cusum:.2f}")
