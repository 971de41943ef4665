"""``python -m sidebet``."""

from sidebet.cli.main import app

app(prog_name="sidebet")
