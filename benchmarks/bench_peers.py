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
  the same million rounds (whole processes), and the full-round rate of one core: FreeBJ's
  ``-j 1`` run of ``--rate-rounds`` rounds (its start-up then weighs under 1%) against
  sidebet's kernel in this process (full rounds, one seat, basic strategy, all four side
  wagers, which FreeBJ does not settle), rounds per second of CPU time.
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
[--peers DIR] [--baseline SRC] [--rate-rounds N] [--only farmer|lean|rate]`` (``DIR``:
where ``scripts/build-peers.sh`` put the peers; default ``$SIDEBET_PEERS_DIR``, else
``~/.cache/sidebet-peers``).
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


def bench_freebj(binary: Path, repeat: int, env: dict[str, str]) -> None:
    """FreeBJ's million rounds against sidebet's ``simulate --rounds 1e6``, whole
    processes."""
    print("FreeBJ vs sidebet simulate --rounds 1e6 (one million rounds each)")
    timed([*sidebet(), *SIMULATE], env)  # fill the caches
    peer: list[tuple[float, float]] = []
    ours: list[tuple[float, float]] = []
    for _ in range(repeat):
        wall, cpu, _ = timed([str(binary), "-n", "1000000"], env)
        peer.append((wall, cpu))
        wall, cpu, _ = timed([*sidebet(), *SIMULATE], env)
        ours.append((wall, cpu))
    row("simulate 1e6", peer, ours)


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
    parser.add_argument("--only", choices=["farmer", "lean", "rate"],
                        action="append",
                        help="run only these parts (repeatable)")
    opts = parser.parse_args()
    parts = set(opts.only or ["farmer", "lean", "rate"])
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
    if "rate" in parts and freebj.is_file():
        bench_rate(freebj, opts.rate_rounds, repeat, env)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
