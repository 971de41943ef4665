"""The Ray backend gives the local backend's results (a local Ray instance)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from sidebet.sim import SimSpec, resolve_sides, simulate

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow


def test_ray_matches_local() -> None:
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    spec = SimSpec(seats=2, sides=resolve_sides(["trilux", "blazing7s"], 6), press="all")
    local = simulate(spec, 20_000, seed=17, chunk_shoes=40, with_exact=False)
    remote = simulate(spec, 20_000, seed=17, chunk_shoes=40, backend="ray", workers=2,
                      with_exact=False)
    assert not ray.is_initialized()  # the run's own instance is shut down
    assert remote.backend == "ray"
    assert remote.rounds == local.rounds == 20_000
    assert remote.tally.stats == local.tally.stats
    assert remote.tally.hist == local.tally.hist
    assert np.array_equal(remote.tally.combo_counts, local.tally.combo_counts)


def test_ray_tasks_on_a_gpu_match_local() -> None:
    """Each Ray task asks for the one GPU a local instance declares and plays its chunk on
    the device kernel (numba's CUDA simulator, in a subprocess): the counters are the
    local CPU run's, and so are a counter's sums (``advantage``)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    done = subprocess.run(
        [sys.executable, str(here / "ray_gpu_compare.py")], capture_output=True, text=True,
        timeout=900, check=False,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(here.parents[1] / "src")})
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"workers": 1, "rounds": [300, 300], "same": True,
                   "counter": [120, 120, 100], "counter_same": True}
