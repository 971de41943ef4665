"""What follows the kernel loads without numpy (issue 25 item 2, the replay path): the
counters, the shape of a run, the results, the scheduler and the printing of a result."""

from __future__ import annotations

import json
import subprocess
import sys

LEAN = ("sidebet.sim.counters", "sidebet.sim.shape", "sidebet.sim.results",
        "sidebet.sim.schedule", "sidebet.cli.sim_render", "sidebet.cli.sim_output")
HEAVY = ("numpy", "typer", "numba", "sidebet.sim.chunk", "sidebet.sim.spec")


def test_the_results_and_their_printing_import_no_numpy() -> None:
    code = (f"import sys\nfor m in {LEAN!r}: __import__(m)\n"
            "import json; print(json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    loaded = set(json.loads(proc.stdout))
    assert set(LEAN) <= loaded  # the check can fail: these were imported
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
