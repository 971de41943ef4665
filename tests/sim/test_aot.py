"""The simulator's kernel compiled ahead of time (:mod:`sidebet.sim.compiled`) against the
JIT kernel: identical results, checked arguments, no numba in the process, and a JIT
fallback when the extension is absent or damaged.

The extension is built once for this module into a temporary ``SIDEBET_CACHE_DIR``.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sidebet.regulation.house_rules import BlackjackPays, HoleCard, HouseRules
from sidebet.sim import (
    SimSpec,
    compiled,
    default_sides,
    resolve_sides,
    run_chunk,
    run_orders,
    seed_key,
)
from sidebet.sim.chunk import ChunkResult, run_marked
from sidebet.sim.layout import (
    FIELD_TYPES,
    NSTAT,
    Outputs,
    PlayArrays,
    RoundTables,
    ShoeStream,
)
from sidebet.warm.extension import ensure_built

SIDES6 = resolve_sides(list(default_sides(6)), 6)
HEAVY = re.compile(r"\|\s+(numba|llvmlite|rich)(\.|$)", re.MULTILINE)


@pytest.fixture(scope="module")
def aot_cache(aot_built: Path) -> Iterator[Path]:
    """The cache folder holding the built extension (built once for the session,
    ``tests/conftest.py``), set as ``SIDEBET_CACHE_DIR`` for this module."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIDEBET_CACHE_DIR", str(aot_built))
        mp.delenv("SIDEBET_AOT", raising=False)
        assert compiled.load_extension() is not None
        yield aot_built


def both(run: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``run()`` by the compiled extension, then by the JIT kernel."""
    assert compiled.load_extension() is not None
    aot = run()
    monkeypatch.setenv("SIDEBET_AOT", "off")
    assert compiled.load_extension() is None
    jit = run()
    monkeypatch.delenv("SIDEBET_AOT")
    return aot, jit


def same_chunk(a: ChunkResult, b: ChunkResult) -> None:
    assert (a.rounds, a.shoes, a.stats, a.round2, a.seats) == (
        b.rounds, b.shoes, b.stats, b.round2, b.seats)
    for name in ("combo_index", "combo_count", "hist_index", "hist_count"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.rounds > 0


SPECS = [
    pytest.param(SimSpec(decks=6, seats=1, sides=SIDES6, side_only=True), id="side-1seat"),
    pytest.param(SimSpec(decks=6, seats=7, sides=SIDES6, side_only=True), id="side-7seats"),
    pytest.param(SimSpec(decks=6, seats=1, sides=SIDES6, press="advice"), id="full-1seat-advice"),
    pytest.param(SimSpec(decks=6, seats=3, sides=SIDES6, press="all"), id="full-3seats-all"),
    pytest.param(SimSpec(decks=2, seats=3, sides=resolve_sides(["trilux", "blazing7s"], 2),
                         press="rule", strategy="chart",
                         rules=HouseRules(dealer_hits_soft_17=True, resplit_aces=True,
                                          hole_card=HoleCard.AFTER_PLAYERS,
                                          blackjack_pays=BlackjackPays.SIX_TO_FIVE)),
                 id="full-3seats-h17-nopeek-rsa-6to5"),
]


@pytest.mark.usefixtures("aot_cache")
@pytest.mark.parametrize("spec", SPECS)
def test_chunks_match_the_jit_kernel(spec: SimSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    aot, jit = both(lambda: run_chunk(spec, seed_key(7), 3, 40, 5_000), monkeypatch)
    same_chunk(aot, jit)


@pytest.mark.usefixtures("aot_cache")
@pytest.mark.parametrize("spec", SPECS[1:4])
def test_given_shoes_match_the_jit_kernel(spec: SimSpec,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(12)
    orders = np.array([rng.permutation(np.tile(np.arange(52), spec.decks))
                       for _ in range(4)], dtype=np.uint8)
    aot, jit = both(lambda: run_orders(spec, orders, 400), monkeypatch)
    same_chunk(aot.result, jit.result)
    np.testing.assert_array_equal(aot.trace, jit.trace)


@pytest.mark.usefixtures("aot_cache")
def test_marked_rounds_match_the_jit_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = SimSpec(decks=6, seats=2, sides=SIDES6, press="advice")
    aot, jit = both(lambda: run_marked(spec, seed_key(3), 0, 6, 10_000), monkeypatch)
    same_chunk(aot.result, jit.result)
    np.testing.assert_array_equal(aot.trace, jit.trace)
    np.testing.assert_array_equal(aot.marks, jit.marks)
    assert aot.marks[-1, 0] == 5


@pytest.mark.usefixtures("aot_cache")
def test_decision_table_matches_the_jit_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = SimSpec(decks=6, sides=SIDES6, rules=HouseRules(resplit_aces=True))
    s, rules = spec.inputs().strategy, spec.inputs().rules
    assert s is not None
    args = (s.hard2, s.soft2, s.pair, s.nosplit, s.hs_hard, s.hs_soft, rules)
    aot, jit = both(lambda: compiled.decision_table(*args), monkeypatch)
    assert aot.dtype == np.int8 and aot.shape == (16, 12, 12, 12)
    np.testing.assert_array_equal(aot, jit)


def test_adapters_take_the_records_fields_in_order() -> None:
    from sidebet.warm import sim_exports as aot_build
    def params(func: Callable[..., Any]) -> list[str]:
        return list(inspect.signature(func).parameters)

    head = [*ShoeStream._fields, *RoundTables._fields]
    assert params(aot_build.play_full) == [*head, *PlayArrays._fields, *Outputs._fields,
                                           "max_rounds"]
    assert params(aot_build.play_side) == [*head, *Outputs._fields, "max_rounds"]
    assert params(aot_build.decision_table) == [n for n, _ in compiled.DECISION_TABLE_TYPES]
    for record, types in FIELD_TYPES.items():
        assert len(types) == len(record._fields), record
    from sidebet.warm.extension import exports

    sigs = exports()
    assert set(sigs) == set(compiled.EXPORTS)
    for name, (func, sig) in sigs.items():
        args = re.sub(r"\[[^\]]*\]", "", sig)  # i8(u1[::1], i8) -> i8(u1, i8)
        assert args.count(",") + 1 == len(params(func)), name


# ----- arguments are checked before the compiled code sees them ------------------------

def _side_call_args() -> tuple[ShoeStream, RoundTables, Outputs]:
    spec = SimSpec(decks=6, seats=2, sides=SIDES6, side_only=True)
    inp = spec.inputs()
    src = ShoeStream(inp.base.copy(), inp.base, np.zeros((0, 312), np.uint8),
                     np.uint64(1), np.uint64(2), 0, 2, spec.cut)
    tab = RoundTables(2, 10, inp.combo_tab, inp.combo_net, inp.combo_offer, inp.combo_pay,
                      0, inp.press_tab, inp.rules, inp.vals, inp.hist_off)
    outs = Outputs(np.zeros(inp.n_combos, np.int64), np.zeros(len(inp.wagers) + 3, np.int64),
                   np.zeros((2, 4), np.int64), np.zeros(NSTAT, np.int64), np.zeros(1, np.int64),
                   np.zeros((0, 2), np.int64), np.zeros(1, np.int64), np.zeros((0, 2), np.int64))
    return src, tab, outs


def _read_only(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    a = a.copy()
    a.flags.writeable = False
    return a


BAD = [
    pytest.param("src", "buf", lambda a: a.astype(np.int64), TypeError, "dtype uint8",
                 id="wrong-dtype"),
    pytest.param("tab", "combo_pay", lambda a: a.ravel(), ValueError, "2 dimensions",
                 id="wrong-ndim"),
    pytest.param("tab", "combo_net", lambda a: np.repeat(a, 2)[::2], ValueError,
                 "C-contiguous", id="not-contiguous"),
    pytest.param("out", "stats", _read_only, ValueError, "read-only", id="read-only-output"),
    pytest.param("src", "buf", _read_only, ValueError, "read-only", id="read-only-buffer"),
    pytest.param("tab", "vals", lambda a: a.tolist(), TypeError, "numpy array", id="a-list"),
    pytest.param("src", "key0", lambda a: -1, ValueError, "does not fit", id="negative-key"),
    pytest.param("tab", "seats", lambda a: 2.0, TypeError, "integer", id="float-scalar"),
]


@pytest.mark.usefixtures("aot_cache")
@pytest.mark.parametrize("aot", ["on", "off"])
@pytest.mark.parametrize(("record", "field", "spoil", "error", "words"), BAD)
def test_a_bad_argument_is_named_not_a_crash(record: str, field: str,
                                             spoil: Callable[[Any], Any],
                                             error: type[Exception], words: str, aot: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if aot == "off":
        monkeypatch.setenv("SIDEBET_AOT", "off")
    args = dict(zip(("src", "tab", "out"), _side_call_args(), strict=True))
    good = compiled.play_chunk(args["src"], args["tab"], None, args["out"], 50)
    assert good > 0
    args = dict(zip(("src", "tab", "out"), _side_call_args(), strict=True))
    rec = args[record]
    args[record] = rec._replace(**{field: spoil(getattr(rec, field))})
    stats_before = args["out"].stats.copy()
    with pytest.raises(error, match=rf"{type(rec).__name__}\.{field}: .*{words}"):
        compiled.play_chunk(args["src"], args["tab"], None, args["out"], 50)
    np.testing.assert_array_equal(args["out"].stats, stats_before)


@pytest.mark.usefixtures("aot_cache")
def test_full_round_trace_must_have_three_dimensions() -> None:
    spec = SimSpec(decks=6, sides=SIDES6)
    inp = spec.inputs()
    assert inp.decide2 is not None and inp.strategy is not None
    src, tab, outs = _side_call_args()
    play = PlayArrays(inp.decide2, inp.strategy.hs_hard, inp.strategy.hs_soft)
    with pytest.raises(ValueError, match=r"Outputs\.trace: expected 3 dimensions"):
        compiled.play_chunk(src, tab, play, outs, 10)
    with pytest.raises(TypeError, match=r"expected a ShoeStream, got Outputs"):
        compiled.play_chunk(outs, tab, play, outs, 10)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"PlayArrays\.decide2: expected dtype int8"):
        compiled.play_chunk(src, tab, play._replace(decide2=inp.decide2.astype(np.int64)),
                            outs, 10)


# ----- fallback --------------------------------------------------------------------------

def test_absent_or_damaged_extension_falls_back_to_jit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = SimSpec(decks=6, seats=2, sides=SIDES6, press="all")
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    assert compiled.load_extension() is None  # absent
    expected = run_chunk(spec, seed_key(5), 0, 3, 500)
    path = compiled.extension_path()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not an extension module\n" * 100)
    assert compiled.load_extension() is None
    err = capsys.readouterr().err
    assert "cannot be loaded" in err and "JIT" in err and len(err.splitlines()) == 1
    same_chunk(run_chunk(spec, seed_key(5), 0, 3, 500), expected)


@pytest.mark.slow  # builds the extension
def test_warming_replaces_a_damaged_extension(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    path = compiled.extension_path()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(b"damaged")
    assert compiled.load_extension() is None
    assert ensure_built() == path  # built again over the damaged file
    assert compiled.load_extension() is not None


def test_build_failure_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(blocker / "cache"))
    lines: list[str] = []
    assert ensure_built(lines.append) is None
    assert len(lines) == 1 and "JIT" in lines[0]
    monkeypatch.setenv("SIDEBET_CACHE_DIR", "off")
    assert compiled.extension_path() is None and ensure_built() is None


# ----- whole processes ---------------------------------------------------------------------

def _simulate(cache: Path, aot: str) -> tuple[dict[str, Any], set[str], str]:
    env = {**os.environ, "SIDEBET_CACHE_DIR": str(cache), "SIDEBET_AOT": aot}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sidebet", "simulate", "--rounds", "1e5",
         "--seats", "2", "--seed", "4", "--no-progress", "--format", "json"],
        capture_output=True, text=True, timeout=300, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    for key in ("elapsed_s", "rounds_per_s"):
        data.pop(key)
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("import time:")]
    return data, {m.group(1) for m in HEAVY.finditer(proc.stderr)}, "\n".join(lines)


def test_simulate_with_the_extension_imports_no_numba(aot_cache: Path) -> None:
    jit, jit_heavy, _ = _simulate(aot_cache, "off")  # also fills the strategy cache
    aot, aot_heavy, err = _simulate(aot_cache, "on")
    assert "numba" in jit_heavy
    assert aot_heavy == set(), err
    assert aot == jit
    assert aot["rounds"] == 100_000


def test_simulate_with_a_damaged_extension_runs_on_jit(aot_cache: Path, tmp_path: Path) -> None:
    built = compiled.extension_path()
    assert built is not None and built.is_file()
    path = tmp_path / built.relative_to(aot_cache)
    for item in aot_cache.iterdir():  # the warm strategy and exact values, not the extension
        if item.suffix == ".npz":
            (tmp_path / item.name).write_bytes(item.read_bytes())
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x7fELF garbage")
    data, heavy, err = _simulate(tmp_path, "on")
    assert data["rounds"] == 100_000 and "numba" in heavy
    assert "Traceback" not in err and "cannot be loaded" in err
