"""sidebet against the peers on their own ground, whole processes side by side in one run.

* **Eric Farmer's analyser** (``possibly-wrong/blackjack``, its ``strategy`` program, built by
  ``scripts/build-peers.sh`` with ``g++ -O3 -march=native``): the exact composition-dependent
  analysis from cold (the result not cached; sidebet's compiled kernels built, as ``make run``
  leaves them), same rules: S17 or H17, double any two cards and after splits, split to 4
  hands, no resplitting aces, late surrender, CDZ- post-split play, 3:2.  Farmer's program
  asks its questions on standard input; they are answered from a file that ends with
  ``0 0`` (its interactive loop spins on end of input) and its output is thrown away but
  the expected value, which is compared with sidebet's.
* **FreeBJ** (``kevin-lesenechal/freebj``, Rust): ``simulate --rounds 1e6`` against its run of
  the same million rounds (whole processes; sidebet's first run of the command line, its
  run again, replayed from its plan, the command with another seed each time, replayed
  from the same plan, and the command handed to a resident process, ``sidebet daemon
  start``), and the full-round rate of one core: FreeBJ's
  ``-j 1`` run of ``--rate-rounds`` rounds (its start-up then weighs under 1%) against
  sidebet's kernel in this process (full rounds, one seat, basic strategy, all four side
  wagers, which FreeBJ does not settle), rounds per second of CPU time.
* **A resident process** (``--only resident``): ``--help``, ``settle``, ``par`` and
  ``simulate --rounds 1e6`` run alone against the same commands handed to ``sidebet
  daemon start``'s process.
* **The previous sidebet** (``--baseline SRC``: the ``src`` folder of an earlier checkout,
  e.g. ``git archive <commit> src | tar -x -C DIR``, run by this interpreter with
  ``PYTHONPATH=SRC``): ``--help``, ``settle``, ``par``, ``simulate --rounds 1e6`` and the
  cold analysis, interleaved with this checkout's.  Its compiled extension must be in
  the same cache (``python -c "from sidebet.warm.extension import ensure_built;
  ensure_built()"`` run with the same ``PYTHONPATH``).

Each pair of runs is interleaved (peer, sidebet, peer, sidebet, ...) so that both meet the
same load; the medians of wall and CPU time (user + system of the process) and their ratio
(sidebet / peer: below 1 is faster) are printed.  On a shared machine CPU time is the fairer
figure.  Python bytecode is compiled first (``compileall``), as an installed package has
it.  A peer that is not built is skipped with a line that says so.  Figures are for the
processor printed at the top, never for another machine.

Run: ``.venv/bin/python benchmarks/bench_peers.py [--repeat N] [--decks 1 2 6 8]
[--peers DIR] [--baseline SRC] [--rate-rounds N] [--only farmer|lean|resident|rate]`` (``DIR``: where ``scripts/build-peers.sh`` put the peers; default
``$SIDEBET_PEERS_DIR``, else ``~/.cache/sidebet-peers``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_process import BUILD, processor, sidebet


def peers_dir(given: str | None) -> Path:
    """Where the peers were built."""
    if given:
        return Path(given)
    env = os.environ.get("SIDEBET_PEERS_DIR")
    return Path(env) if env else Path.home() / ".cache" / "sidebet-peers"


def timed(argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one whole process, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def farmer_answers(decks: int, h17: bool, out: Path) -> bytes:
    """Farmer's prompts answered: decks, H17, double any total, double soft, no double
    after hitting, DAS, resplit (to 4), no RSA, CDZ-, late surrender, 3:2, the output
    file, then ``0 0`` to leave its loop."""
    yn = "y" if h17 else "n"
    return f"{decks}\n{yn}\ny\ny\nn\ny\ny\nn\ny\ny\n1.5\n{out}\n0 0\n".encode()


def farmer_ev(out: Path) -> float:
    """The overall expected value Farmer's program wrote (per unit)."""
    match = re.search(r"Total \|\s+(-?[0-9.]+)", out.read_text())
    if match is None:
        raise SystemExit(f"no overall expected value in {out}")
    return float(match.group(1)) / 100


def forget_strategy(cache: str) -> None:
    """Delete sidebet's cached strategy charts (the compiled kernels stay)."""
    for path in Path(cache).glob("strategy-chart-*"):  # .json (.npz before)
        path.unlink()


def row(label: str, peer: list[tuple[float, float]], ours: list[tuple[float, float]],
        extra: str = "") -> None:
    pw, pc = (statistics.median(x) for x in zip(*peer, strict=True))
    sw, sc = (statistics.median(x) for x in zip(*ours, strict=True))
    print(f"{label:<28} {pw:>7.3f} {pc:>7.3f} {sw:>8.3f} {sc:>7.3f} {sw / pw:>7.2f} "
          f"{sc / pc:>7.2f}  {extra}", flush=True)


def bench_farmer(binary: Path, decks_list: list[int], repeat: int, env: dict[str, str],
                 cache: str, base: dict[str, str] | None = None) -> None:
    print("Farmer strategy vs sidebet strategy --kind composition --split-hands 4, from cold")
    print(f"{'rules':<28} {'peer wall':>7} {'CPU':>7} {'ours wall':>8} {'CPU':>7} "
          f"{'ratio w':>7} {'ratio c':>7}  EV difference")
    with tempfile.TemporaryDirectory(prefix="farmer-") as work:
        for decks in decks_list:
            for h17 in (False, True):
                out = Path(work) / f"out-{decks}-{h17}.txt"
                answers = farmer_answers(decks, h17, out)
                args = ["strategy", "--decks", str(decks), "--kind", "composition",
                        "--split-hands", "4", "--format", "json", *(["--h17"] if h17 else [])]
                peer: list[tuple[float, float]] = []
                ours: list[tuple[float, float]] = []
                before: list[tuple[float, float]] = []
                ev = 0.0
                for _ in range(repeat):
                    wall, cpu, _ = timed([str(binary)], env, answers)
                    peer.append((wall, cpu))
                    forget_strategy(cache)
                    wall, cpu, text = timed([*sidebet(), *args], env)
                    ours.append((wall, cpu))
                    ev = float(json.loads(text)["player_ev"])
                    if base is not None:
                        forget_strategy(cache)
                        wall, cpu, text = timed([sys.executable, "-m", "sidebet", *args], base)
                        before.append((wall, cpu))
                        ev_before = float(json.loads(text)["player_ev"])
                        if abs(ev_before - ev) > 1e-12:
                            raise SystemExit(f"the previous sidebet gives {ev_before}, "
                                             f"this one {ev}")
                diff = abs(ev - farmer_ev(out))
                label = f"{decks} deck(s) {'H17' if h17 else 'S17'}"
                row(label, peer, ours, f"{diff:.1e}")
                if before:
                    row("  previous sidebet -> this", before, ours)


SIMULATE = ["simulate", "--rounds", "1e6", "--seed", "1", "--no-progress"]
LEAN = {
    "--help": ["--help"],
    "settle trilux": ["settle", "trilux", "--player", "7h 8h", "--up", "9h", "--bet", "10",
                      "--blackjack-bet", "10"],
    "par trilux (cached)": ["par", "trilux", "--decks", "6"],
    "simulate --rounds 1e6": SIMULATE,
}
"""The short commands timed against the previous sidebet (``--baseline``)."""


@contextmanager
def resident(env: dict[str, str]) -> Iterator[None]:
    """A resident process (``sidebet daemon start``) for ``env``'s cache while the block
    runs, stopped afterwards."""
    subprocess.run([*sidebet(), "daemon", "start", "--idle", "600"], env=env, check=True,
                   capture_output=True)
    try:
        yield
    finally:
        subprocess.run([*sidebet(), "daemon", "stop"], env=env, check=False,
                       capture_output=True)


def daemon_cpu(env: dict[str, str]) -> float:
    """CPU seconds the resident process and the commands it ran have used so far, once
    its spare fork is warm (its warm-up would otherwise share the cores with the next
    run timed)."""
    deadline = time.monotonic() + 30.0
    while True:
        out = subprocess.run([*sidebet(), "daemon", "status", "--json"], env=env,
                             capture_output=True, check=True).stdout
        state = json.loads(out)
        if state["spare"] != "warming" or time.monotonic() > deadline:
            return float(state["commands_cpu_s"]) + float(state["own_cpu_s"])
        time.sleep(0.05)


def bench_freebj(binary: Path, repeat: int, env: dict[str, str]) -> None:
    """FreeBJ's million rounds against sidebet's, in four rows: the first run of the
    command line (``SIDEBET_REPLAY=off``: typer parses it, numpy builds the tables), the
    command run again, replayed from the plan the first run saved (``cli/replay.py``),
    the command with another seed each time (replayed from the same plan), and the
    command handed to a resident process (``sidebet daemon start``), whose CPU
    time counts the client, the fork that ran the command and the resident process's own
    (``sidebet daemon status``)."""
    print("FreeBJ vs sidebet simulate --rounds 1e6 (one million rounds each)")
    alone = {**env, "SIDEBET_DAEMON": "off"}
    first = {**alone, "SIDEBET_REPLAY": "off"}
    timed([*sidebet(), *SIMULATE], alone)  # the plan of this command line saved
    peer: list[tuple[float, float]] = []
    normal: list[tuple[float, float]] = []
    again: list[tuple[float, float]] = []
    seeds: list[tuple[float, float]] = []
    handed: list[tuple[float, float]] = []
    with resident(env):
        timed([*sidebet(), *SIMULATE], env)  # the resident process's first fork
        daemon_cpu(env)
        for _ in range(repeat):
            wall, cpu, _ = timed([str(binary), "-n", "1000000"], env)
            peer.append((wall, cpu))
            wall, cpu, _ = timed([*sidebet(), *SIMULATE], first)
            normal.append((wall, cpu))
            wall, cpu, _ = timed([*sidebet(), *SIMULATE], alone)
            again.append((wall, cpu))
            at = SIMULATE.index("--seed") + 1
            other = [*SIMULATE[:at], str(1000 + len(seeds)), *SIMULATE[at + 1:]]
            wall, cpu, _ = timed([*sidebet(), *other], alone)
            seeds.append((wall, cpu))
            before = daemon_cpu(env)
            wall, cpu, _ = timed([*sidebet(), *SIMULATE], env)
            handed.append((wall, cpu + daemon_cpu(env) - before))
    row("simulate 1e6, first run", peer, normal)
    row("simulate 1e6, run again", peer, again)
    row("simulate 1e6, another seed", peer, seeds)
    row("simulate 1e6, resident", peer, handed)


def bench_lean(repeat: int, env: dict[str, str], base: dict[str, str]) -> None:
    print("previous sidebet vs this one, whole processes, results cached")
    for label, args in LEAN.items():
        before: list[tuple[float, float]] = []
        ours: list[tuple[float, float]] = []
        timed([*sidebet(), *args], env)  # fill the caches
        timed([sys.executable, "-m", "sidebet", *args], base)
        for _ in range(repeat):
            before.append(timed([sys.executable, "-m", "sidebet", *args], base)[:2])
            ours.append(timed([*sidebet(), *args], env)[:2])
        row(label, before, ours)


def bench_resident(repeat: int, env: dict[str, str]) -> None:
    """Each short command run alone (``SIDEBET_DAEMON=off``) against the same command
    handed to a resident process; its CPU time counts the client, the fork and the
    resident process's own (:func:`daemon_cpu`)."""
    print("sidebet alone vs handed to a resident process (sidebet daemon start)")
    alone = {**env, "SIDEBET_DAEMON": "off"}
    with resident(env):
        for label, args in LEAN.items():
            timed([*sidebet(), *args], alone)  # fill the caches, save the plan
            timed([*sidebet(), *args], env)
            ours: list[tuple[float, float]] = []
            handed: list[tuple[float, float]] = []
            for _ in range(repeat):
                ours.append(timed([*sidebet(), *args], alone)[:2])
                before = daemon_cpu(env)
                wall, cpu, _ = timed([*sidebet(), *args], env)
                handed.append((wall, cpu + daemon_cpu(env) - before))
            row(label, ours, handed)


def bench_rate(binary: Path, rounds: int, repeat: int, env: dict[str, str]) -> None:
    """One core's full-round rate: FreeBJ's ``-j 1`` process against sidebet's kernel."""
    from bench_sim import ALL4
    from sidebet.sim import SimSpec, run_chunk, seed_key

    print(f"full rounds per second of CPU time, one core ({rounds:,} rounds each, "
          f"best of {repeat}, interleaved)")
    spec = SimSpec(sides=ALL4)
    run_chunk(spec, seed_key(0), 0, 2, 100)  # load the kernel
    peer = ours = 0.0
    for k in range(repeat):
        _, cpu, _ = timed([str(binary), "-j", "1", "-n", str(rounds)], env)
        peer = max(peer, rounds / cpu)
        start = time.process_time()
        res = run_chunk(spec, seed_key(1 + k), 0, 10**9, rounds)
        ours = max(ours, res.rounds / max(time.process_time() - start, 1e-9))
    print(f"  FreeBJ (no side wager)             {peer / 1e6:8.2f} M rounds/s")
    print(f"  sidebet kernel, all four side wagers {ours / 1e6:6.2f} M rounds/s: "
          f"{ours / peer:.2f}x FreeBJ's")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, interleaved")
    parser.add_argument("--decks", type=int, nargs="+", default=[1, 2, 6, 8])
    parser.add_argument("--peers", help="where scripts/build-peers.sh put the peers")
    parser.add_argument("--baseline", help="the src folder of a previous sidebet")
    parser.add_argument("--rate-rounds", type=int, default=20_000_000,
                        help="rounds of the one-core rate comparison")
    parser.add_argument("--only", choices=["farmer", "lean", "resident", "rate"],
                        action="append",
                        help="run only these parts (repeatable)")
    opts = parser.parse_args()
    parts = set(opts.only or ["farmer", "lean", "resident", "rate"])
    repeat = max(1, opts.repeat)
    where = peers_dir(opts.peers)
    print(f"processor: {processor()}; load average {os.getloadavg()[0]:.2f} at start; "
          f"medians of {repeat} interleaved runs; ratio = sidebet / peer")
    cache = os.environ.get("SIDEBET_CACHE_DIR") or tempfile.mkdtemp(prefix="sidebet-cache-")
    env = {**os.environ, "SIDEBET_CACHE_DIR": cache}
    # an installed package has its bytecode compiled (pip does it): compiled below for both
    # checkouts alike, and used even where a shell forbids writing it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    here = Path(__file__).resolve().parents[1] / "src"
    for tree in [here, *([Path(opts.baseline)] if opts.baseline else [])]:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], env=env,
                       check=True, capture_output=True)
    subprocess.run([sys.executable, "-c", BUILD], env=env, check=True, capture_output=True)
    base = None
    if opts.baseline:
        base = {**env, "PYTHONPATH": str(Path(opts.baseline).resolve())}
        subprocess.run([sys.executable, "-c", BUILD], env=base, check=True,
                       capture_output=True)
    farmer = where / "farmer-strategy"
    freebj = where / "freebj"
    if "farmer" in parts and farmer.is_file():
        bench_farmer(farmer, opts.decks, repeat, env, cache, base)
    elif "farmer" in parts:
        print(f"Farmer: skipped, not built ({farmer} missing: scripts/build-peers.sh "
              "with FARMER_SRC)")
    if "lean" in parts and freebj.is_file():
        bench_freebj(freebj, repeat, env)
    elif "lean" in parts:
        print(f"FreeBJ: skipped, not built ({freebj} missing: scripts/build-peers.sh with "
              "FREEBJ_SRC; its crates come from the Rust package registry or Debian's)")
    if "lean" in parts and base is not None:
        bench_lean(repeat, env, base)
    if "resident" in parts:
        bench_resident(repeat, env)
    if "rate" in parts and freebj.is_file():
        bench_rate(freebj, opts.rate_rounds, repeat, env)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
