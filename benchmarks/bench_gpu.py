"""Prepared GPU measurement (docs/simulator.md, On a GPU): sidebet's rounds on a CUDA device
beside one CPU core and hhoppe/blackjack's ``numba.cuda`` simulator, a card counter's
rounds, and the exact counting kernels, in one run.

Three tables on sidebet's default rules (6 decks, S17, 3:2, DAS, late surrender, split to 3
hands, cut card after 234 cards): 1 seat playing complete rounds with all four side
wagers and Three Card Poker settled every round; 7 seats, complete rounds; 7 seats, side
wagers only.  Each is played on the device (:mod:`sidebet.sim.device`, one shoe a thread;
timed by the wall clock after a first run that compiles) and on one CPU core (the CPU
kernel, ``--cpu-shoes`` shoes, CPU time), and the counters of the shoes both played are
compared (exit status 1 if they differ); the 1-seat rate is also given as a share of the
bound docs/simulator.md estimates (30-40 billion rounds a second on an H100 or H200).
Then, each beside one CPU core and checked equal to it the same way: a Hi-Lo counter's
rounds (1 spot, a 1-12 ramp, the four side wagers flat: ``advantage --device``,
:func:`sidebet.sim.device.play_counter_shoes`); the perfect-play kernel, the four side
wagers' exact EV before every round of ``--ev-shoes`` shoes (one shoe a thread,
:func:`sidebet.vuln.side_ev_device.evs_along_many`, as ``vulnerability --device`` and
``design``'s confirmation use it; the issue's goal is 100 times one core); and the
design's screen, ``--screen-paytables`` Blazing 7's paytables on 2,000 sampled shoes (one
paytable a thread, :func:`sidebet.vuln.side_ev_device.screen_many`).  With ``--hhoppe PATH`` (a checkout of
github.com/hhoppe/blackjack, or its ``blackjack.py``), its ``monte_carlo_house_edge_cuda``
(total-dependent basic strategy, no side wager) runs on the same rules in the same
process, loaded from its source without the notebook's experiments, and the ratio of
sidebet's 1-seat rate to its rate is printed; without the option, or when it cannot be
loaded, one line says so.  Its source needs, beside numba's CUDA target and numpy,
``hhoppe-tools``, ``ipython``, ``matplotlib``, ``more-itertools`` and ``tqdm`` (none of
them sidebet's: install them apart, e.g. ``pip install --target DIR ...`` and
``PYTHONPATH=DIR``), and its ``random32.py`` beside ``blackjack.py``.  Under the
simulator its compiled functions run as Python and the simulator's gaps it meets are
filled (:func:`_simulated`).  The processor and the GPU are named.  Where ``numba.cuda``
finds no device one line says so and the benchmark stops (exit status 0); under numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) it runs, slowly, and the rates mean nothing.

Run: ``.venv/bin/python benchmarks/bench_gpu.py [--shoes N] [--cpu-shoes N] [--repeat N]
[--ev-shoes N] [--screen-paytables N] [--hhoppe PATH] [--hands N]``.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

from bench_process import processor
from sidebet.advantage.run import advantage_chunk, advantage_chunk_gpu
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_ramp
from sidebet.sim.chunk import run_chunk, seed_key
from sidebet.sim.device import device_name, gpu_available, play_shoes
from sidebet.sim.spec import SimSpec, default_sides, resolve_sides
from sidebet.vuln.design import depleted_sample, screen_sums
from sidebet.vuln.side_ev import ev_tables
from sidebet.vuln.side_ev_device import evs_along_many

SIDES = resolve_sides(list(default_sides(6)), 6)
TABLES = {
    "1 seat, full rounds, 4 side wagers + Three Card Poker": SimSpec(decks=6, seats=1,
                                                                     sides=SIDES),
    "7 seats, full rounds, all side wagers": SimSpec(decks=6, seats=7, sides=SIDES),
    "7 seats, side wagers only": SimSpec(decks=6, seats=7, sides=SIDES, side_only=True),
}
BIG = 10**15
COUNTER = AdvantageSpec(sides=SIDES, plans=tuple(SidePlan(w, "flat") for w, _ in SIDES),
                        ramp=parse_ramp("1-12"))
"""A Hi-Lo counter, 1 spot, a 1-12 ramp, the four side wagers flat."""
BOUND = (30e9, 40e9)
"""The bound docs/simulator.md estimates for 1-seat rounds on an H100 or H200."""
PEER = "monte_carlo_house_edge_cuda"  # (hhoppe/blackjack's simulator on a device)


def device_rate(spec: SimSpec, shoes: int, repeat: int) -> float:
    """Rounds a second on the device: the best of ``repeat`` timed runs of ``shoes`` shoes
    (after one that compiles)."""
    key = seed_key(1)
    play_shoes(spec, key, 0, min(shoes, 256))
    best = 0.0
    for rep in range(repeat):
        start = time.perf_counter()
        result, _ = play_shoes(spec, key, rep * shoes, shoes)
        best = max(best, result.rounds / (time.perf_counter() - start))
    return best


def cpu_rate(spec: SimSpec, shoes: int) -> float:
    """Rounds a second of CPU time on one core (after a run that compiles)."""
    key = seed_key(1)
    run_chunk(spec, key, 0, 2, BIG)
    start = time.process_time()
    result = run_chunk(spec, key, 0, shoes, BIG)
    return result.rounds / max(time.process_time() - start, 1e-9)


def same_counters(spec: SimSpec, shoes: int) -> bool:
    """Whether the device and the CPU count the same for shoes ``0 .. shoes - 1``."""
    key = seed_key(2)
    return play_shoes(spec, key, 0, shoes)[0] == run_chunk(spec, key, 0, shoes, BIG)


def counter_rates(shoes: int, cpu_shoes: int, repeat: int) -> tuple[float, float, bool]:
    """A counter's rounds a second on the device (best of ``repeat``, after a run that
    compiles) and on one core (CPU time), and whether both gave the same sums for the
    first shoes."""
    key = seed_key(3)
    advantage_chunk_gpu(COUNTER, key, 0, 1, BIG, 0)
    gpu = 0.0
    for rep in range(repeat):  # (no trace of the rounds' nets: as a run past its first chunk)
        start = time.perf_counter()
        got = advantage_chunk_gpu(COUNTER, key, rep * shoes, shoes, BIG, 0)
        gpu = max(gpu, got.rounds / (time.perf_counter() - start))
    advantage_chunk(COUNTER, key, 0, 1, BIG, 0)
    start = time.process_time()
    got = advantage_chunk(COUNTER, key, 0, cpu_shoes, BIG, 0)
    cpu = got.rounds / max(time.process_time() - start, 1e-9)
    few = min(cpu_shoes, 16)
    a, b = advantage_chunk_gpu(COUNTER, key, 0, few, BIG), advantage_chunk(COUNTER, key, 0, few,
                                                                          BIG)
    same = a.rounds == b.rounds and all(
        np.array_equal(getattr(a, f), getattr(b, f))
        for f in ("acc", "tc_stats", "side_tc", "side_acc", "comp", "trace"))
    return gpu, cpu, same


def ev_rates(shoes: int, cpu_shoes: int, repeat: int) -> tuple[float, float, bool]:
    """The perfect-play kernel: the four side wagers' exact EVs at every 5th card of
    shuffled shoes to the cut card, as shoe points a second on the device (best of
    ``repeat``) and on one core, and whether both gave the same values."""
    tables = ev_tables(SIDES)
    rng = np.random.default_rng(36)
    full = np.full(52, 6, dtype=np.int64)
    n = max(shoes, cpu_shoes)
    cards = np.array([rng.permutation(np.repeat(np.arange(52), 6)) for _ in range(n)])
    points = np.arange(0, 234, 5, dtype=np.int64)
    counts = np.repeat(full[None, :], n, axis=0)
    evs_along_many(tables, counts[:1], cards[:1], points)
    gpu = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        on_gpu = evs_along_many(tables, counts[:shoes], cards[:shoes], points)
        gpu = max(gpu, shoes * len(points) / (time.perf_counter() - start))
    start = time.process_time()
    on_cpu = np.array([tables.along(full, cards[i], points) for i in range(cpu_shoes)])
    cpu = cpu_shoes * len(points) / max(time.process_time() - start, 1e-9)
    few = min(shoes, cpu_shoes)
    return gpu, cpu, bool(np.array_equal(on_gpu[:few], on_cpu[:few]))


def screen_rates(paytables: int, cpu_paytables: int, repeat: int, samples: int
                 ) -> tuple[float, float, bool]:
    """The design's screen: Blazing 7's paytables screened a second on ``samples``
    sampled shoes, on the device (best of ``repeat``) and on one core, and whether both
    gave the same sums."""
    from fractions import Fraction

    from sidebet.exact.par import count_outcomes

    shoes = depleted_sample(6, Fraction(3, 4), samples, 1)
    got = [count_outcomes("blazing7s", left) for left in shoes]
    counts = np.array([g[:6] for g in got], dtype=np.int64)  # (the 7th: losses)
    totals = np.array([g.sum() for g in got], dtype=np.int64)
    rng = np.random.default_rng(7)
    n = max(paytables, cpu_paytables)
    pays = np.sort(rng.integers(1, 5000, (n, 6)), axis=1)[:, ::-1].copy()
    screen_sums(pays[:1], counts, totals, gpu=True)
    gpu = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        on_gpu = screen_sums(pays[:paytables], counts, totals, gpu=True)
        gpu = max(gpu, paytables / (time.perf_counter() - start))
    screen_sums(pays[:1], counts, totals)
    start = time.process_time()
    on_cpu = screen_sums(pays[:cpu_paytables], counts, totals)
    cpu = cpu_paytables / max(time.process_time() - start, 1e-9)
    few = min(paytables, cpu_paytables)
    return gpu, cpu, bool(np.array_equal(on_gpu[:few], on_cpu[:few]))


def _definition(node: ast.stmt) -> bool:
    """Whether a top-level statement of hhoppe/blackjack only defines: an import, a
    function, a class, an assignment, or an ``if`` whose branches only define (its
    ``if typing.TYPE_CHECKING: OrderedEnum = ...``)."""
    if isinstance(node, ast.If):
        return all(_definition(inner) for inner in node.body + node.orelse)
    return isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef,
                             ast.Assign, ast.AnnAssign))


def _simulated(module: types.ModuleType, node: ast.stmt) -> None:
    """Under numba's CUDA simulator, which runs kernels as Python: hhoppe/blackjack's
    compiled functions (its ``numba_njit``: its kernel calls them, and only a CUDA
    target compiles them for it) stay Python, the device it sizes its launch by (``cuda.
    get_current_device``, which the simulator lacks) has one multiprocessor, and its
    dynamic shared array of ``np.int8`` (a type, where the simulator takes a dtype)
    gets its dtype, and its progress loop's ``event.query`` is true."""
    from numba import cuda
    from numba.cuda.simulator import kernelapi

    if isinstance(node, ast.FunctionDef) and node.name == "numba_njit":
        module.numba_njit = lambda *args, **kwargs: (lambda func: func)
    if not hasattr(cuda, "get_current_device"):
        device = types.SimpleNamespace(MULTIPROCESSOR_COUNT=1)
        cuda.get_current_device = lambda: device
        event = type(cuda.event())
        if not hasattr(event, "query"):  # (the simulator's launch has ended on return)
            event.query = lambda self: True  # type: ignore[attr-defined]
        shared = kernelapi.FakeCUDAShared.array
        kernelapi.FakeCUDAShared.array = (  # type: ignore[method-assign]
            lambda self, shape, dtype: shared(self, shape, np.dtype(dtype)))


def load_hhoppe(path: Path) -> types.ModuleType | str:
    """hhoppe/blackjack's module from its source (a folder holding ``blackjack.py``, or
    that file): its imports, constants, functions and classes up to its
    ``monte_carlo_house_edge_cuda`` (the notebook defines a name before it uses it),
    without the notebook's experiments and self-tests (its other top-level statements)
    and without the later comparisons with other calculators, which read their tables
    from the web.  Returns the module, or why it cannot be loaded."""
    file = path / "blackjack.py" if path.is_dir() else path
    if not file.is_file():
        return f"no blackjack.py at {path}"
    tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
    ends = [node.end_lineno or node.lineno for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name == PEER]
    if not ends:
        return f"no {PEER} in {file}"
    kept = [node for node in tree.body if node.lineno <= ends[0] and _definition(node)]
    module = types.ModuleType("hhoppe_blackjack")
    module.__file__ = str(file)
    sys.modules[module.__name__] = module  # (its dataclasses look themselves up there)
    sys.path.insert(0, str(file.parent))  # (its random32.py)
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    errors = np.geterr()
    try:
        for node in kept:
            exec(compile(ast.Module([node], []), str(file), "exec"), module.__dict__)
            if simulator:
                _simulated(module, node)
    except Exception as err:  # an import it needs, a numba it does not run on, ...
        return f"{type(err).__name__}: {err}".splitlines()[0]
    finally:
        np.seterr(**errors)  # (it makes every numpy warning an error)
    return module


def hhoppe_rate(module: Any, hands: int) -> tuple[float, float]:
    """Hands a second of its ``monte_carlo_house_edge_cuda`` on sidebet's default rules
    (after a run that compiles), and its house edge."""
    rules = module.Rules(num_decks=6, blackjack_payout=1.5, hit_soft17=False, obo=True,
                         late_surrender=True, double_min_total=0, double_after_split=True,
                         split_to_num_hands=3, resplit_aces=False, hit_split_aces=False,
                         cut_card=234)
    strategy = module.Strategy()
    module.monte_carlo_house_edge_cuda(rules, strategy, max(hands // 20, 1000), quiet=True)
    start = time.perf_counter()
    edge, played, _ = module.monte_carlo_house_edge_cuda(rules, strategy, hands, quiet=True)
    return played / (time.perf_counter() - start), edge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=1 << 21,
                        help="shoes a timed device run plays (one a thread)")
    parser.add_argument("--cpu-shoes", type=int, default=2000, help="shoes on one CPU core")
    parser.add_argument("--repeat", type=int, default=3, help="timed device runs, best kept")
    parser.add_argument("--ev-shoes", type=int, default=1 << 16,
                        help="shoes walked by the perfect-play kernel on the device")
    parser.add_argument("--screen-paytables", type=int, default=1 << 20,
                        help="paytables the design's screen judges on the device")
    parser.add_argument("--samples", type=int, default=2000,
                        help="sampled shoes of the design's screen")
    parser.add_argument("--hhoppe", type=Path, help="hhoppe/blackjack's checkout")
    parser.add_argument("--hands", type=float, default=1e10,
                        help="hands for hhoppe/blackjack's simulator")
    opts = parser.parse_args()
    if not gpu_available():
        print("GPU: skipped, no CUDA device or driver on this machine (numba.cuda)")
        return
    sim = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    print(f"processor: {processor()}; GPU: {device_name()}; load average "
          f"{os.getloadavg()[0]:.2f}" + ("; the simulator's rates mean nothing" if sim else ""))
    agree = True
    rates = {}
    for name, spec in TABLES.items():
        gpu = device_rate(spec, opts.shoes, opts.repeat)
        cpu = cpu_rate(spec, min(opts.cpu_shoes, opts.shoes))
        same = same_counters(spec, min(opts.cpu_shoes, opts.shoes, 64))
        agree = agree and same
        rates[name] = gpu
        print(f"{name}: GPU {gpu / 1e9:.4f} G rounds/s, one CPU core {cpu / 1e6:.2f} M "
              f"rounds/s, ratio {gpu / cpu:.1f}x; the same counters: {same}")
    first = next(iter(rates.values()))
    print(f"1 seat: {first / BOUND[1]:.1%} to {first / BOUND[0]:.1%} of the estimated bound "
          f"({BOUND[0] / 1e9:.0f}-{BOUND[1] / 1e9:.0f} G rounds/s on an H100 or H200)")
    cpu_shoes = min(opts.cpu_shoes, opts.shoes)
    gpu, cpu, same = counter_rates(opts.shoes, max(cpu_shoes // 4, 1), opts.repeat)
    agree = agree and same
    print(f"a Hi-Lo counter, 1 spot, 1-12, 4 side wagers flat: GPU {gpu / 1e9:.4f} G rounds/s, "
          f"one CPU core {cpu / 1e6:.2f} M rounds/s, ratio {gpu / cpu:.1f}x; the same "
          f"sums: {same}")
    gpu, cpu, same = ev_rates(opts.ev_shoes, max(min(cpu_shoes // 20, opts.ev_shoes), 1),
                              opts.repeat)
    agree = agree and same
    print(f"perfect-play kernel (4 side wagers' exact EV, every 5th card): GPU "
          f"{gpu / 1e6:.2f} M shoe points/s, one CPU core {cpu / 1e6:.3f} M, ratio "
          f"{gpu / cpu:.1f}x (goal 100x); the same values: {same}")
    gpu, cpu, same = screen_rates(opts.screen_paytables,
                                  max(min(cpu_shoes * 5, opts.screen_paytables), 1),
                                  opts.repeat, opts.samples)
    agree = agree and same
    print(f"design screen (Blazing 7's, {opts.samples:,} sampled shoes): GPU "
          f"{gpu / 1e6:.3f} M paytables/s, one CPU core {cpu / 1e6:.4f} M, ratio "
          f"{gpu / cpu:.1f}x; the same values: {same}")
    if opts.hhoppe is None:
        print("hhoppe/blackjack: skipped (give --hhoppe PATH, a checkout of its source)")
    else:
        module = load_hhoppe(opts.hhoppe)
        if isinstance(module, str):
            print(f"hhoppe/blackjack: skipped, its source does not load here ({module})")
        else:
            peer, edge = hhoppe_rate(module, int(opts.hands))
            print(f"hhoppe/blackjack monte_carlo_house_edge_cuda: {peer / 1e9:.4f} G hands/s "
                  f"(house edge {edge:.4%}); sidebet 1 seat with every side wager / it: "
                  f"{first / peer:.2f}x")
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
