"""What follows the kernel loads and runs without numpy (issue 25 item 2, the replay
path): the counters, the shape of a run, the results, the scheduler and the printing of a
result."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from rich.console import Console

from sidebet.cli.sim_output import show
from sidebet.sim import SimSpec, resolve_sides, simulate
from sidebet.sim.counters import ChunkResult, nonzero

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


REPLAY = """
import json, sys
from rich.console import Console
from sidebet.cli.sim_output import show
from sidebet.sim.counters import ChunkResult, Tally
from sidebet.sim.results import SimResult
from sidebet.sim.schedule import run_chunks
from sidebet.sim.shape import RunShape

plan = json.load(sys.stdin)
shape = RunShape.from_json(plan["shape"])
fields = plan["chunk"]
whole = ChunkResult(**{k: tuple(map(tuple, v)) if k == "seats" else
                       tuple(v) if isinstance(v, list) else v for k, v in fields.items()})

def task(spec, key, shoe0, nshoes, max_rounds):
    assert spec is shape and shoe0 == 0 and max_rounds == whole.rounds
    return whole

tally = Tally(shape.n_combos)
run = run_chunks(task, shape, plan["seed"], whole.rounds, tally)
result = SimResult(shape=shape, seed=plan["seed"], requested_rounds=whole.rounds,
                   tally=tally, elapsed=1.0, interrupted=run.interrupted, backend="local",
                   workers=run.workers, chunk_shoes=plan["chunk_shoes"], exact=plan["exact"])
for fmt in ("table", "json"):
    show(result, plan["flags"], fmt, Console(highlight=False, width=80))
heavy = sorted(m for m in ("numpy", "typer", "numba") if m in sys.modules)
print(json.dumps(heavy))
"""


def test_a_result_prints_the_same_in_a_process_without_numpy(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The replay's road: the shape, the exact values and the flags of a run as JSON, its
    counters played through the scheduler and printed, in a process that never loads
    numpy, print what the run itself prints."""
    spec = SimSpec(seats=2, press="all", sides=resolve_sides(
        ["trilux", "blazing7s"], 6, {"blazing7s": "custom:5000/2000/500/250/40/3"}))
    result = dataclasses.replace(simulate(spec, 2_000, seed=3), elapsed=1.0)
    flags = [str(v) for v in spec.table_config().paytable_flags()]
    assert flags  # the "not compliant" line is printed too
    t = result.tally
    combo_index, combo_count = nonzero(t.combo_counts)
    chunk = ChunkResult(t.rounds, t.shoes, tuple(t.stats), combo_index, combo_count,
                        tuple(t.hist), tuple(t.hist.values()), tuple(t.round2),
                        tuple(map(tuple, t.seats)))
    plan = {"shape": result.shape.to_json(), "seed": 3, "chunk": dataclasses.asdict(chunk),
            "chunk_shoes": result.chunk_shoes, "exact": result.exact, "flags": flags}
    proc = subprocess.run([sys.executable, "-c", REPLAY], input=json.dumps(plan),
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out, heavy = proc.stdout.rsplit("\n", 2)[:2]
    assert json.loads(heavy) == []
    for fmt in ("table", "json"):
        show(result, flags, fmt, Console(highlight=False, width=80))
    assert out + "\n" == capsys.readouterr().out
