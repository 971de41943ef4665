"""``python -m sidebet``."""

import sys

from sidebet.cli import run

sys.exit(run(prog_name="sidebet"))
