"""The round kernel on a CUDA device (``sim/device.py``), checked where no GPU is: on numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, in subprocesses) the device kernel's counters
equal the CPU kernel's shoe by shoe, for whole chunks and for a chunk cut inside a shoe;
``simulate --device gpu`` reports what ``--device cpu`` does; without a device ``--device
gpu`` says so in one line (exit 2) and ``--device auto`` plays on the CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
TIMING = ("elapsed_s", "rounds_per_s", "chunk_shoes", "workers", "threads")


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=900, check=False,
                          env={**os.environ, "PYTHONPATH": str(SRC), **env})


def has_device() -> bool:
    done = run(["-c", "from sidebet.sim.device import gpu_available as g; print(g())"],
               NUMBA_ENABLE_CUDASIM="0")
    return done.stdout.strip() == "True"


@pytest.mark.slow
def test_the_device_kernel_plays_the_cpus_shoes_to_the_tenth() -> None:
    done = run([str(HERE / "device_compare.py")], NUMBA_ENABLE_CUDASIM="1")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(lines) == 5
    for line in lines:
        assert line["rounds"] > 0, line
        assert line["differences"] == [], line


def simulate(device: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run(["-m", "sidebet", "simulate", "--rounds", "150", "--seats", "2", "--press",
                "all", "--h17", "--seed", "11", "--format", "json", "--no-progress",
                "--device", device], **env)


def results(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    data = json.loads(done.stdout)
    return {k: v for k, v in data.items() if k not in TIMING}


@pytest.mark.slow
def test_simulate_on_the_device_reports_what_the_cpu_does() -> None:
    gpu = simulate("gpu", NUMBA_ENABLE_CUDASIM="1")
    assert gpu.returncode == 0, gpu.stderr[-3000:]
    cpu = simulate("cpu")
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    assert results(gpu) == results(cpu)


def test_without_a_device_gpu_is_one_line_and_auto_plays_on_the_cpu() -> None:
    if has_device():
        pytest.skip("this machine has a CUDA device")
    done = simulate("gpu", NUMBA_ENABLE_CUDASIM="0")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no CUDA device" in lines[0], done.stderr
    auto = simulate("auto", NUMBA_ENABLE_CUDASIM="0")
    assert auto.returncode == 0, auto.stderr[-2000:]
    assert results(auto) == results(simulate("cpu"))


def test_the_device_path_needs_no_web_stack() -> None:
    code = ("import sys, sidebet.sim.device, sidebet.sim.runner; "
            "print(sorted(m for m in ('pydantic', 'sqlalchemy', 'fastapi') if m in sys.modules))")
    done = run(["-c", code], NUMBA_ENABLE_CUDASIM="1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_device_kernel_compiles_to_ptx_for_an_h100() -> None:
    done = run([str(HERE / "device_ptx.py")], NUMBA_ENABLE_CUDASIM="0")
    if done.returncode != 0 and "nvvm" in done.stderr.lower():
        pytest.skip("numba-cuda's NVVM is not installed here")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert [x.split(":")[0] for x in lines] == ["full rounds", "side wagers only", "counter",
                                                "side-wager EVs", "design screen"]
    assert all(x.split(": ")[1].startswith("True") for x in lines), done.stdout
