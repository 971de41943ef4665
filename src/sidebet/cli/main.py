"""The ``sidebet`` command: each sub-command lives in its own module and registers here."""

from __future__ import annotations

import typer

from sidebet.cli import analysis_cmds, play_cmds, sim_cmds, strategy_cmds, vuln_cmds

app = typer.Typer(
    name="sidebet",
    help="Deal, settle and exactly analyse the blackjack side wagers of 58 Pa. Code ch. 633.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# Each command module exposes ``register(app)``; add new ones to this tuple.
for _module in (analysis_cmds, play_cmds, sim_cmds, strategy_cmds, vuln_cmds):
    _module.register(app)
