"""The prepared GPU measurement (``benchmarks/bench_gpu.py``, issue 25 item 6) run where no
GPU is: on numba's CUDA simulator its one-shoe-per-thread kernel deals the same cards as
the CPU kernel (so a device's run measures a kernel known to be right), and without the
simulator it skips with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_gpu.py"


def run(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", str(BENCH),
                           "--shoes", "128"], capture_output=True, text=True, timeout=300,
                          check=False, env={**os.environ, **env})


@pytest.mark.slow
def test_on_the_simulator_the_gpu_kernel_deals_the_cpus_cards() -> None:
    done = run(NUMBA_ENABLE_CUDASIM="1")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "CUDA simulator" in done.stdout
    assert done.stdout.rstrip().endswith("the same cards: True")


def test_without_a_device_it_says_so_in_one_line() -> None:
    done = run(NUMBA_ENABLE_CUDASIM="0")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    if lines and lines[0].startswith("processor:"):
        pytest.skip("this machine has a CUDA device")
    assert len(lines) == 1 and lines[0].startswith("GPU: skipped"), done.stdout
