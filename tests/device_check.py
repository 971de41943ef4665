"""What the device tests share: a command run in a subprocess (numba's CUDA simulator on or
off), the device kernel checked against the CPU kernel shoe by shoe (:func:`compare_shoes`,
in the scripts those tests run under the simulator), a command's report on the device
against the CPU's, and the one line without a device."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

ROOT = Path(__file__).resolve().parents[1]
BIG = 10**9
"""More rounds than any test shoe deals: whole shoes."""

Done = subprocess.CompletedProcess[str]


def run(args: list[str], **env: str) -> Done:
    """``python ARGS`` with sidebet's source (and these tests) on the path."""
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=900, check=False,
                          env={**os.environ, "PYTHONPATH": path, **env})


def has_device() -> bool:
    """Whether numba finds a real CUDA device here."""
    done = run(["-c", "from sidebet.sim.device import gpu_available as g; print(g())"],
               NUMBA_ENABLE_CUDASIM="0")
    return done.stdout.strip() == "True"


def device_lines(script: Path, lines: int) -> list[dict[str, Any]]:
    """Run a comparison script (:func:`compare_shoes`) under the simulator: its ``lines``
    set-ups, each of which played some rounds and found no difference."""
    done = run([str(script)], NUMBA_ENABLE_CUDASIM="1")
    assert done.returncode == 0, done.stderr[-3000:]
    got = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(got) == lines
    for line in got:
        assert line["rounds"] > 0, line
        assert line["differences"] == [], line
    return got


def report(done: Done, timing: Iterable[str]) -> dict[str, Any]:
    """A command's JSON report less its ``timing`` keys."""
    data: dict[str, Any] = json.loads(done.stdout)
    return {k: v for k, v in data.items() if k not in timing}


Command = Callable[..., Done]
"""A command run on a device: ``command(device, *args, **env)``."""


def assert_device_reports_the_cpus(command: Command, results: Callable[[Done], object],
                                   *args: str) -> None:
    """``--device gpu`` under the simulator reports what ``--device cpu`` does."""
    gpu = command("gpu", *args, NUMBA_ENABLE_CUDASIM="1")
    assert gpu.returncode == 0, gpu.stderr[-3000:]
    cpu = command("cpu", *args)
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    assert results(gpu) == results(cpu)


def assert_no_device_is_one_line(command: Command, results: Callable[[Done], object]
                                 ) -> None:
    """Without a device, ``--device gpu`` says so in one line (exit 2) and ``--device
    auto`` reports what ``--device cpu`` does."""
    done = command("gpu", NUMBA_ENABLE_CUDASIM="0")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no CUDA device" in lines[0], done.stderr
    auto = command("auto", NUMBA_ENABLE_CUDASIM="0")
    assert auto.returncode == 0, auto.stderr[-2000:]
    assert results(auto) == results(command("cpu"))


class Chunk(Protocol):
    @property
    def rounds(self) -> int: ...


S = TypeVar("S")
R = TypeVar("R", bound=Chunk)
Play = Callable[[S, int, int, int, "int | None"], R]
"""``play(setup, shoe0, nshoes, max_rounds, trace_rows)``: a chunk's result."""


def compare_shoes(label: str, setups: Mapping[str, S], on_device: Play[S, R],
                  on_cpu: Play[S, R], differences: Callable[[R, R], list[str]],
                  shoes: int, chunk: int, chunk_trace: int | None = None,
                  extra: Callable[[R], dict[str, Any]] = lambda _: {}) -> None:
    """For each set-up, play on the device and on the CPU its first ``shoes`` shoes one by
    one, then ``chunk`` shoes from there as one chunk (``chunk_trace`` rows traced), then
    its first ``shoes`` shoes as a chunk that ends 3 rounds into the last; print one
    JSON line per set-up: ``label`` its name, the rounds of its first shoes, ``extra`` of
    the CPU's chunk, and what differed (nothing, when they agree)."""
    warnings.simplefilter("ignore")  # (the simulator's 64-bit arithmetic overflows, as meant)
    for name, setup in setups.items():
        bad: list[str] = []
        per_shoe = []
        for shoe in range(shoes):
            want = on_cpu(setup, shoe, 1, BIG, None)
            bad += [f"shoe {shoe}: {f}"
                    for f in differences(on_device(setup, shoe, 1, BIG, None), want)]
            per_shoe.append(want.rounds)
        last = f"shoes {shoes}-{shoes + chunk - 1}"
        whole = on_cpu(setup, shoes, chunk, BIG, chunk_trace)
        bad += [f"{last}: {f}"
                for f in differences(on_device(setup, shoes, chunk, BIG, chunk_trace), whole)]
        cut = sum(per_shoe[:-1]) + 3
        bad += [f"cut at {cut}: {f}"
                for f in differences(on_device(setup, 0, shoes, cut, None),
                                     on_cpu(setup, 0, shoes, cut, None))]
        print(json.dumps({label: name, "rounds": sum(per_shoe), **extra(whole),
                          "differences": bad}), flush=True)
