"""The round kernel on a CUDA device (``sim/device.py``), checked where no GPU is: on numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, in subprocesses) the device kernel's counters
equal the CPU kernel's shoe by shoe, for whole chunks and for a chunk cut inside a shoe;
``simulate --device gpu`` reports what ``--device cpu`` does; without a device ``--device
gpu`` says so in one line (exit 2) and ``--device auto`` plays on the CPU."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests import device_check as dc

HERE = Path(__file__).resolve().parent
TIMING = ("elapsed_s", "rounds_per_s", "chunk_shoes", "workers", "threads")


@pytest.mark.slow
def test_the_device_kernel_plays_the_cpus_shoes_to_the_tenth() -> None:
    dc.device_lines(HERE / "device_compare.py", 5)


def simulate(device: str, **env: str) -> dc.Done:
    return dc.run(["-m", "sidebet", "simulate", "--rounds", "150", "--seats", "2", "--press",
                "all", "--h17", "--seed", "11", "--format", "json", "--no-progress",
                "--device", device], **env)


def results(done: dc.Done) -> dict[str, object]:
    return dc.report(done, TIMING)


@pytest.mark.slow
def test_simulate_on_the_device_reports_what_the_cpu_does() -> None:
    dc.assert_device_reports_the_cpus(simulate, results)


def test_without_a_device_gpu_is_one_line_and_auto_plays_on_the_cpu() -> None:
    if dc.has_device():
        pytest.skip("this machine has a CUDA device")
    dc.assert_no_device_is_one_line(simulate, results)


def test_the_device_path_needs_no_web_stack() -> None:
    code = ("import sys, sidebet.sim.device, sidebet.sim.runner; "
            "print(sorted(m for m in ('pydantic', 'sqlalchemy', 'fastapi') if m in sys.modules))")
    done = dc.run(["-c", code], NUMBA_ENABLE_CUDASIM="1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_device_kernel_compiles_to_ptx_for_an_h100() -> None:
    done = dc.run([str(HERE / "device_ptx.py")], NUMBA_ENABLE_CUDASIM="0")
    if done.returncode != 0 and "nvvm" in done.stderr.lower():
        pytest.skip("numba-cuda's NVVM is not installed here")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert [x.split(":")[0] for x in lines] == ["full rounds", "side wagers only", "counter",
                                                "side-wager EVs", "design screen"]
    assert all(x.split(": ")[1].startswith("True") for x in lines), done.stdout
