"""The side wagers' exact EV along shoes on a CUDA device (``vuln/side_ev_device.py``),
checked where no GPU is: on numba's CUDA simulator (in a subprocess) every value equals
the CPU kernel's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_on_the_simulator_the_device_walk_gives_the_cpus_values() -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "side_ev_device_compare.py")], capture_output=True,
        text=True, timeout=600, check=False,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
             "PYTHONPATH": str(HERE.parents[1] / "src")})
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"equal": True, "values": 525, "nonzero": 525}
