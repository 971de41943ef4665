"""``python -m sidebet``."""

from sidebet.cli import run

run(prog_name="sidebet")
