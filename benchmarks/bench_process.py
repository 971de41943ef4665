"""Whole-process wall times of ``sidebet`` commands, with cold and warm numba caches.

What a user waits for: interpreter start, imports, numba compiling or loading its cached
kernels, any exact analysis the command needs, the work itself and the output.  The
in-process benchmarks (``bench_blackjack.py``, ``bench_par.py``, ``bench_sim.py``) time the
work alone.

*Cold*: the first run with empty caches (``NUMBA_CACHE_DIR`` and ``SIDEBET_CACHE_DIR``
point at fresh temporary folders, so the kernels compile and the strategy, outcome
tables and PAR counts are computed).  *Warm*: the runs after it, with both caches filled
and, for ``simulate``, the simulator compiled ahead of time into the disk cache as
``make run`` does (:mod:`sidebet.sim.compiled`; its build time is printed).  Each command runs ``--repeat`` times
warm; the median and the best wall time are printed, and the median CPU time of the
process (user + system), which shows how much of the wall time was waiting for a busy
machine.  Figures are for the processor printed at the top, never for another machine.

Run: ``.venv/bin/python benchmarks/bench_process.py [--repeat N] [--quick]``
(``--quick``: no cold runs, 3 warm runs).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "table-6deck.toml")

COMMANDS: list[tuple[str, list[str]]] = [
    ("--help", ["--help"]),
    ("rules", ["rules"]),
    ("settle", ["settle", "trilux", "--player", "7h 8h", "--up", "9h", "--bet", "10",
                "--blackjack-bet", "10"]),
    ("check-table", ["check-table", EXAMPLE]),
    ("par trilux (6 decks)", ["par", "trilux"]),
    ("strategy --decks 6 --kind composition", ["strategy", "--decks", "6", "--kind",
                                               "composition"]),
    ("simulate --rounds 1e6", ["simulate", "--rounds", "1e6", "--seed", "1",
                               "--no-progress"]),
    ("simulate --rounds 1e6, SIDEBET_AOT=off", ["simulate", "--rounds", "1e6", "--seed", "1",
                                                "--no-progress"]),
]
"""Each command; a label ending ``SIDEBET_AOT=off`` runs with the compiled simulator
turned off (numba's JIT kernels)."""

BUILD = "from sidebet.sim.compiled import ensure_built; ensure_built(print)"


def processor() -> str:
    """The processor's model name (``/proc/cpuinfo``) and the cores this process may use."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {len(os.sched_getaffinity(0))} cores"


def sidebet() -> list[str]:
    """The installed ``sidebet`` console script next to this interpreter."""
    script = Path(sys.executable).with_name("sidebet")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sidebet"]


def run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([*sidebet(), *args], capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"sidebet {' '.join(args)} failed:\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs per command")
    parser.add_argument("--quick", action="store_true", help="no cold runs, 3 warm runs")
    opts = parser.parse_args()
    repeat = 3 if opts.quick else max(1, opts.repeat)
    print(f"processor: {processor()}; Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.2f} at start")
    cache = tempfile.mkdtemp(prefix="sidebet-numba-")
    results = tempfile.mkdtemp(prefix="sidebet-cache-")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "SIDEBET_CACHE_DIR": results}
    try:
        header = f"{'sidebet ...':<40} {'cold':>8} {'warm median':>12} {'warm best':>10} {'CPU':>7}"
        print(header)
        print("-" * len(header))
        built = False
        for label, args in COMMANDS:
            cmd_env = {**env, "SIDEBET_AOT": "off"} if label.endswith("=off") else env
            cold = "" if opts.quick else f"{run(args, cmd_env)[0]:.2f} s"
            if opts.quick:
                run(args, cmd_env)  # fill the cache; not reported
            if args[0] == "simulate" and not built:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", BUILD], env=env, check=True,
                               capture_output=True)
                print(f"{'(compiled simulator built, as make run does)':<40} "
                      f"{time.perf_counter() - start:>6.2f} s", flush=True)
                built = True
            walls, cpus = zip(*(run(args, cmd_env) for _ in range(repeat)), strict=True)
            print(f"{label:<40} {cold:>8} {statistics.median(walls):>10.3f} s "
                  f"{min(walls):>8.3f} s {statistics.median(cpus):>5.2f} s", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(results, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end; warm: numba cache filled, "
          f"{repeat} runs each; CPU: median user + system time of the process")


if __name__ == "__main__":
    main()
