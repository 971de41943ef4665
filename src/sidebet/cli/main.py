"""The ``sidebet`` command: each sub-command lives in its own module and registers here.

A command module is imported only when one of its commands runs (or shows its own
``--help``): ``sidebet --help`` lists the commands from :data:`COMMANDS` alone, and
``rules``, ``settle`` or ``check-table`` load neither numba nor Ray, which only the commands
that compute need (``tests/cli/test_imports.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand

from sidebet.cli.common import OneLineErrors

__all__ = ["COMMANDS", "app", "load_command"]


@dataclass(frozen=True, slots=True)
class Entry:
    """Where a command lives and the one line ``sidebet --help`` shows for it (the start
    of the command's own help, checked by ``tests/cli/test_imports.py``)."""

    module: str
    summary: str


COMMANDS: dict[str, Entry] = {
    "rules": Entry("analysis_cmds", "Show wagers, paytables, constraints and citations."),
    "par": Entry(
        "analysis_cmds",
        "Exact PAR sheet of a wager (combinations, probabilities, house edge, std dev).",
    ),
    "settle": Entry("analysis_cmds", "Settle one side wager: outcome, odds and money."),
    "check-table": Entry(
        "analysis_cmds", "Validate a table's Rules Submission file; exit 1 when it breaks a rule."
    ),
    "play": Entry("play_cmds", "Play Blackjack with the side wagers and the TriLux Deluxe Press."),
    "simulate": Entry(
        "sim_cmds",
        "Simulate whole rounds with every side wager: returns with 95% confidence intervals, "
        "hit frequencies, the value of the Press and the distribution of each round's result.",
    ),
    "strategy": Entry("strategy_cmds", "Basic strategy chart for the rules, with its exact house edge."),
    "press": Entry(
        "strategy_cmds",
        "TriLux Deluxe Press chart (§ 633c.11(e)-(g)) and the value of pressing.",
    ),
    "eor": Entry(
        "vuln_cmds",
        "Exact effects of removal: the change in the wager's return, in percentage points, "
        "when one card of each kind is taken from a full shoe.",
    ),
    "vulnerability": Entry(
        "vuln_cmds",
        "How far a card counter beats the side wager: each count's best trigger, perfect "
        "play, edge by count, perfect play by depth, and countermeasures.",
    ),
    "serve": Entry("serve_cmds", "Run the table server (FastAPI on uvicorn; OpenAPI at /docs)."),
    "audit": Entry(
        "serve_cmds",
        "Verify an exported table log offline: hash chain, shoe commitments and shuffles, every "
        "action and round replayed through the engine.",
    ),
    "rotate-key": Entry(
        "serve_cmds",
        "Hand the house's signing key on to a new one: a key event in every table's log, "
        "signed by the old key.",
    ),
    "account": Entry(
        "serve_cmds",
        "Exclude, suspend, reinstate or close a player's account (logged as the operator's "
        "action).",
    ),
    "import-exclusions": Entry(
        "serve_cmds",
        "Import a regulator's self-exclusion list: enforced at sign-up and sign-in; a "
        "listed player is excluded and signed out (logged as the operator's action).",
    ),
    "report": Entry(
        "report_cmds",
        "The game-math report of a table as one self-contained HTML file (and PDF).",
    ),
    "rng-test": Entry(
        "report_cmds",
        "Statistical battery on the shuffle (§ 810a.5: chi-square card-by-position, gap, "
        "poker, runs, serial correlation, coupon collector, Kolmogorov–Smirnov, permutation) "
        "with each test's statistic and p-value, 95% level, and the battery's verdict.",
    ),
    "surveil": Entry(
        "surveil_cmds",
        "Surveillance of a table's history: for every player, on the Blackjack wager and each "
        "side wager, the edge at each betting decision, the correlation of bet size with it, "
        "the correlation and advantage tests' alarm at the false-alarm rate you set, and the "
        "result against expectation.",
    ),
    "advantage": Entry(
        "advantage_cmds",
        "Advantage play at the whole table: a counter's win, SD, SCORE, risk of ruin and "
        "optimal ramp, with index plays and the side wagers bet by EV or by count.",
    ),
    "ruin": Entry("advantage_cmds",
                  "Risk of ruin from a win rate and SD entered directly (as CVCX takes them)."),
    "design": Entry("design_cmds", "Search integer paytables for a house-edge band, least "
                    "exposed to counting first: an exact screen of every candidate, then the "
                    "front confirmed by simulation."),
    "compare": Entry("compare_cmds", "Every figure of two or more tables side by side, with "
                     "the differences from the first: each wager's house edge, hit frequency, "
                     "SD, volatility, largest win and counting exposure, the Press and the "
                     "base game's edge under its rules."),
}
"""Every command, in the order ``sidebet --help`` lists them.  A new command module exposes
``register(app)``; add its commands here and its import to :func:`_register`."""


def _register(module: str, target: typer.Typer) -> None:
    """Import one command module (only now: the numerical ones bring numba) and register
    its commands on ``target``."""
    if module == "analysis_cmds":
        from sidebet.cli import analysis_cmds

        analysis_cmds.register(target)
    elif module == "play_cmds":
        from sidebet.cli import play_cmds

        play_cmds.register(target)
    elif module == "sim_cmds":
        from sidebet.cli import sim_cmds

        sim_cmds.register(target)
    elif module == "strategy_cmds":
        from sidebet.cli import strategy_cmds

        strategy_cmds.register(target)
    elif module == "vuln_cmds":
        from sidebet.cli import vuln_cmds

        vuln_cmds.register(target)
    elif module == "report_cmds":
        from sidebet.cli import report_cmds

        report_cmds.register(target)
    elif module == "serve_cmds":
        from sidebet.cli import serve_cmds

        serve_cmds.register(target)
    elif module == "surveil_cmds":
        from sidebet.cli import surveil_cmds

        surveil_cmds.register(target)
    elif module == "advantage_cmds":
        from sidebet.cli import advantage_cmds

        advantage_cmds.register(target)
    elif module == "compare_cmds":
        from sidebet.cli import compare_cmds

        compare_cmds.register(target)
    elif module == "design_cmds":
        from sidebet.cli import design_cmds

        design_cmds.register(target)
    else:
        raise KeyError(module)


def load_command(name: str) -> TyperCommand:
    """The full command ``name``, importing its module."""
    target = typer.Typer()
    _register(COMMANDS[name].module, target)
    # only this command is built (typer reads every parameter of each command it builds)
    target.registered_commands = [
        info for info in target.registered_commands
        if (info.name or typer.main.get_command_name(getattr(info.callback, "__name__", "")))
        == name]
    command = typer.main.get_group(target).commands.get(name)
    if not isinstance(command, TyperCommand):
        raise KeyError(f"{COMMANDS[name].module} registers no command {name!r}")
    return command


class _Listed(TyperCommand):
    """A command as ``sidebet --help`` lists it; running it loads the real one."""

    def __init__(self, name: str) -> None:
        super().__init__(name, help=COMMANDS[name].summary)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        assert self.name is not None
        return load_command(self.name).make_context(info_name, args, parent=parent, **extra)


class _LazyGroup(OneLineErrors):
    """Lists :data:`COMMANDS` without importing them; usage errors stay one line."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> TyperCommand | None:
        return _Listed(cmd_name) if cmd_name in COMMANDS else None


app = typer.Typer(
    name="sidebet",
    cls=_LazyGroup,
    help="Deal, settle and exactly analyse the blackjack side wagers of 58 Pa. Code ch. 633.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _main() -> None:
    # a callback makes ``app`` a group although its commands are added by _LazyGroup
    pass
