"""``python -m sidebet.warm [DECKS]``: warm the caches for a table of DECKS decks (6)."""

import sys

from sidebet.warm.steps import warm

warm(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
