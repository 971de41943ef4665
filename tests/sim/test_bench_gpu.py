"""The prepared GPU measurement (``benchmarks/bench_gpu.py``) run where no GPU is: on numba's
CUDA simulator, with a tiny size, it plays every table and a counter on the device
kernels, finds the same counters and sums as the CPU kernel, runs the perfect-play kernel
and the design's screen with the CPU's values, and says in one line why
hhoppe/blackjack's simulator is skipped; without the simulator it skips with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "bench_gpu.py"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", str(BENCH),
                           "--shoes", "4", "--cpu-shoes", "4", "--repeat", "1", "--ev-shoes",
                           "2", "--screen-paytables", "8", "--samples", "40", *args],
                          capture_output=True, text=True, timeout=900, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **env})


@pytest.mark.slow
def test_on_the_simulator_every_table_counts_what_the_cpu_does(tmp_path: Path) -> None:
    done = run("--hhoppe", str(tmp_path), NUMBA_ENABLE_CUDASIM="1")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert "CUDA simulator" in lines[0]
    tables = [x for x in lines if "rounds/s, one CPU core" in x]
    assert len(tables) == 4
    assert all(x.endswith("the same counters: True") for x in tables[:3]), done.stdout
    assert tables[3].startswith("a Hi-Lo counter") and tables[3].endswith("sums: True")
    kernels = [x for x in lines if x.startswith(("perfect-play kernel", "design screen"))]
    assert len(kernels) == 2, done.stdout
    assert all(x.endswith("the same values: True") for x in kernels), done.stdout
    assert any(x.startswith("1 seat: ") and "estimated bound" in x for x in lines)
    assert lines[-1].startswith("hhoppe/blackjack: skipped"), done.stdout


def test_without_a_device_it_says_so_in_one_line() -> None:
    done = run(NUMBA_ENABLE_CUDASIM="0")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    if lines and lines[0].startswith("processor:"):
        pytest.skip("this machine has a CUDA device")
    assert len(lines) == 1 and lines[0].startswith("GPU: skipped"), done.stdout
