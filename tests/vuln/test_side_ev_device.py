"""The side wagers' exact EV along shoes on a CUDA device (``vuln/side_ev_device.py``),
and the design's screen of many paytables, checked where no GPU is: on numba's CUDA
simulator (in a subprocess) every value equals the CPU kernel's, and ``vulnerability
--perfect --device gpu`` reports what ``--device cpu`` does, and so does ``design --device
gpu`` (every kept paytable screened on the device, the front confirmed there); without a
device ``--device gpu`` is one line (exit 2)."""

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
    walk, screen = (json.loads(x) for x in done.stdout.strip().splitlines()[-2:])
    assert walk == {"equal": True, "values": 525, "nonzero": 525}
    assert screen == {"equal": True, "values": 128, "nonzero": 64}


def sidebet(args: list[str], device: str, simulator: str
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sidebet", *args, "--format", "json", "--no-progress",
         "--device", device], capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": simulator,
             "PYTHONPATH": str(HERE.parents[1] / "src")})


def vulnerability(device: str, simulator: str) -> subprocess.CompletedProcess[str]:
    return sidebet(["vulnerability", "trilux", "--perfect", "--decks", "2", "--rounds",
                    "300", "--seed", "5"], device, simulator)


def results(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout)
    return {k: v for k, v in data.items() if k not in ("elapsed_s", "workers")}


@pytest.mark.slow
def test_vulnerability_perfect_on_the_device_reports_what_the_cpu_does() -> None:
    gpu = results(vulnerability("gpu", "1"))
    assert gpu["perfect_play"] and gpu["rounds"] == 300
    assert gpu == results(vulnerability("cpu", "0"))


def test_vulnerability_without_a_device_is_one_line() -> None:
    done = vulnerability("gpu", "0")
    if done.returncode == 0:
        pytest.skip("this machine has a CUDA device")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no CUDA device" in lines[0], done.stderr


DESIGN = ["design", "blazing7s", "--decks", "1", "--edge", "-30%:20%", "--samples", "30",
          "--any-order", "--confirm", "1", "--rounds", "300", "--line", "two_sevens=20:60:20",
          "--line", "one_seven=1:3", "--line", "three_sevens=100:300:100"]


@pytest.mark.slow
def test_design_confirmed_on_the_device_reports_what_the_cpu_does() -> None:
    gpu = sidebet(DESIGN, "gpu", "1")
    assert gpu.returncode == 0, gpu.stderr[-3000:]
    cpu = sidebet(DESIGN, "cpu", "0")
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    first = json.loads(gpu.stdout)["candidates"][0]
    assert first["perfect_play_units_per_100"] is not None
    timing = ("candidates_per_second", "seconds")
    got, want = (
        {k: v for k, v in json.loads(done.stdout).items() if k not in timing}
        for done in (gpu, cpu))
    assert got == want
