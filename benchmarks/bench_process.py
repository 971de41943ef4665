"""Whole-process wall times of ``sidebet`` commands, with cold and warm numba caches.

What a user waits for: interpreter start, imports, numba compiling or loading its cached
kernels, any exact analysis the command needs, the work itself and the output.  The
in-process benchmarks (``bench_blackjack.py``, ``bench_par.py``, ``bench_sim.py``) time the
work alone.

*Cold*: the first run with empty caches (``NUMBA_CACHE_DIR`` and ``SIDEBET_CACHE_DIR``
point at fresh temporary folders, so the kernels compile and the strategy, outcome
tables and PAR counts are computed).  *Warm*: the runs after it, with both caches filled
and, from the first ``strategy`` row on, the simulator's and the analyser's kernels
compiled ahead of time into the disk cache as ``make run`` does (:mod:`sidebet.native.extension`; its
build time is printed).  Rows marked *results not cached* delete the cached results
before every run but keep the compiled kernels: the analyser runs each time, without
numba (or with it, where also ``SIDEBET_AOT=off``).  Each command runs ``--repeat`` times
warm; the median and the best wall time are printed, and the median CPU time of the
process (user + system), which shows how much of the wall time was waiting for a busy
machine.  Python bytecode is compiled first (``compileall``), as an installed package has
it.  Figures are for the processor printed at the top, never for another machine.

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
from dataclasses import dataclass
from pathlib import Path

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "table-6deck.toml")


@dataclass(frozen=True, slots=True)
class Command:
    """One row: ``aot`` False runs with ``SIDEBET_AOT=off`` (numba's JIT kernels);
    ``results`` False deletes the cached results (``*.npz``, not the compiled kernels)
    before every run, so the command analyses afresh."""

    label: str
    args: list[str]
    aot: bool = True
    results: bool = True


_CD = ["strategy", "--decks", "6", "--kind", "composition"]
_TD = ["strategy", "--decks", "6", "--kind", "total"]
_SIM = ["simulate", "--rounds", "1e6", "--seed", "1", "--no-progress"]

COMMANDS: list[Command] = [
    Command("--help", ["--help"]),
    Command("rules", ["rules"]),
    Command("settle", ["settle", "trilux", "--player", "7h 8h", "--up", "9h", "--bet", "10",
                       "--blackjack-bet", "10"]),
    Command("check-table", ["check-table", EXAMPLE]),
    Command("par trilux (6 decks)", ["par", "trilux"]),
    Command("strategy --decks 6 --kind composition", _CD),
    Command("  same, results not cached", _CD, results=False),
    Command("  same, not cached, SIDEBET_AOT=off", _CD, aot=False, results=False),
    Command("strategy --decks 6 --kind total", _TD),
    Command("  same, results not cached", _TD, results=False),
    Command("  same, not cached, SIDEBET_AOT=off", _TD, aot=False, results=False),
    Command("simulate --rounds 1e6", _SIM),
    Command("simulate --rounds 1e6, SIDEBET_AOT=off", _SIM, aot=False),
]
"""Each command (see :class:`Command`)."""

BUILD = "from sidebet.warm.extension import ensure_built; ensure_built(print)"


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


def forget_results(folder: str, keep: bool) -> None:
    """Unless ``keep``, delete the cached results (``*.npz``, ``*.json``) in ``folder``;
    the compiled kernels stay."""
    if keep:
        return
    for pattern in ("*.npz", "*.json"):
        for path in Path(folder).glob(pattern):
            path.unlink()


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
    # an installed package has its bytecode compiled (pip does it), even where a shell
    # forbids writing it: compiled here, as bench_peers.py does
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q",
                    str(Path(__file__).resolve().parents[1] / "src")], env=env, check=True,
                   capture_output=True)
    try:
        header = f"{'sidebet ...':<40} {'cold':>8} {'warm median':>12} {'warm best':>10} {'CPU':>7}"
        print(header)
        print("-" * len(header))
        built = False
        for cmd in COMMANDS:
            cmd_env = env if cmd.aot else {**env, "SIDEBET_AOT": "off"}
            forget_results(results, cmd.results)
            cold = "" if opts.quick else f"{run(cmd.args, cmd_env)[0]:.2f} s"
            if opts.quick:
                run(cmd.args, cmd_env)  # fill the cache; not reported
            if cmd.args[0] in ("strategy", "simulate") and not built:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", BUILD], env=env, check=True,
                               capture_output=True)
                print(f"{'(compiled kernels built, as make run does)':<40} "
                      f"{time.perf_counter() - start:>6.2f} s", flush=True)
                built = True
            runs = []
            for _ in range(repeat):
                forget_results(results, cmd.results)
                runs.append(run(cmd.args, cmd_env))
            walls, cpus = zip(*runs, strict=True)
            print(f"{cmd.label:<40} {cold:>8} {statistics.median(walls):>10.3f} s "
                  f"{min(walls):>8.3f} s {statistics.median(cpus):>5.2f} s", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(results, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end; warm: numba cache filled, "
          f"{repeat} runs each; CPU: median user + system time of the process")


if __name__ == "__main__":
    main()
