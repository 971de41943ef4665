"""``python -m sidebet``."""

from sidebet.cli import main

main(prog_name="sidebet")
