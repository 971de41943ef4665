"""The exact analyser's kernels compiled ahead of time (:mod:`sidebet.exact.blackjack.dispatch`)
against the JIT kernels (:mod:`sidebet.exact.blackjack._kernels`): bit-for-bit equal results,
checked arguments, and a ``sidebet strategy`` process that imports no numba.

The extension is built once for the session (``tests/conftest.py``).
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from sidebet.exact.blackjack import _tables, dealer_rows, engine, house_edge, strategy
from sidebet.exact.blackjack import dispatch as compiled
from sidebet.exact.blackjack.engine import analyse
from sidebet.exact.blackjack.house_edge import house_edge as exact_edge
from sidebet.exact.blackjack.strategy import basic_strategy, composition_strategy
from sidebet.native import extension as aot
from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard, HouseRules

HEAVY = re.compile(r"\|\s+(numba|llvmlite)(\.|$)", re.MULTILINE)
CACHED: tuple[ModuleType, ...] = (engine, strategy, house_edge, _tables, dealer_rows)


@pytest.fixture(scope="module")
def aot_cache(aot_built: Path) -> Iterator[Path]:
    """The session's built extension, set as ``SIDEBET_CACHE_DIR`` for this module."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIDEBET_CACHE_DIR", str(aot_built))
        mp.delenv("SIDEBET_AOT", raising=False)
        assert aot.load_extension() is not None
        yield aot_built


def clear_caches() -> None:
    """Forget every in-process result of the analyser (its ``functools.cache``), so that
    the next call runs the kernels again."""
    for module in CACHED:
        for obj in vars(module).values():
            if callable(obj) and hasattr(obj, "cache_clear"):
                obj.cache_clear()


def both(run: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``run()`` by the compiled extension, then by the JIT kernels (from scratch each)."""
    clear_caches()
    assert aot.load_extension() is not None
    by_aot = run()
    clear_caches()
    monkeypatch.setenv("SIDEBET_AOT", "off")
    assert aot.load_extension() is None
    by_jit = run()
    monkeypatch.delenv("SIDEBET_AOT")
    clear_caches()
    return by_aot, by_jit


def bits(value: Any) -> Any:
    """``value`` with every float as its exact bits (arrays as dtype, shape and bytes)."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, float):
        return float.hex(value)
    if isinstance(value, dict):
        return {k: bits(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [bits(v) for v in value]
    return value


ARRAYS = ("stand", "stand2", "hit", "hit2", "dbl", "dbl2", "split", "split_own", "split_hands",
          "hs_dec", "two_dec")

CASES = [
    pytest.param(1, HouseRules(), id="1deck"),
    pytest.param(2, HouseRules(dealer_hits_soft_17=True, double=DoubleRule.TEN_OR_ELEVEN,
                               double_after_split=False, late_surrender=False), id="2decks-h17"),
    pytest.param(6, HouseRules(), id="6decks"),
    pytest.param(6, HouseRules(dealer_hits_soft_17=True, resplit_aces=True,
                               hit_split_aces=True, max_split_hands=4,
                               hole_card=HoleCard.AFTER_PLAYERS,
                               blackjack_pays=BlackjackPays.SIX_TO_FIVE), id="6decks-rsa-nopeek"),
]


@pytest.mark.usefixtures("aot_cache")
@pytest.mark.parametrize(("decks", "rules"), CASES)
def test_analyser_matches_the_jit_kernels_bit_for_bit(
        decks: int, rules: HouseRules, monkeypatch: pytest.MonkeyPatch) -> None:
    shoe = (4 * decks,) * 9 + (16 * decks,)

    def run() -> Any:
        a = analyse(shoe, rules)
        return {
            "analysis": {name: getattr(a, name) for name in ARRAYS},
            "basic": (basic_strategy(rules, decks).to_json(),
                      basic_strategy(rules, decks).chart_text()),
            "composition": (composition_strategy(rules, decks).to_json(),
                            composition_strategy(rules, decks).chart_text()),
            "edge": [repr(exact_edge(decks, rules, kind)) for kind in ("td", "cd")],
        }

    by_aot, by_jit = both(run, monkeypatch)
    assert bits(by_aot) == bits(by_jit)
    assert np.isfinite(by_aot["analysis"]["stand"]).all()


@pytest.mark.usefixtures("aot_cache")
def test_the_compiled_kernels_release_the_gil() -> None:
    """While a compiled kernel fills its output on one thread, this thread runs Python and
    finds the output part filled (the wrappers release the interpreter's lock).  Were the
    lock held, this thread could look only once the kernel had returned."""
    module = aot.load_extension()
    assert module is not None
    table = _tables.comp_table(5)
    d = _tables.dealer_trie(False)
    shoe = np.array((24,) * 9 + (96,), dtype=np.float64)
    rows = np.arange(table.comps.shape[0], dtype=np.int64)
    kernel = module.bj_dealer_probs
    partial = 0
    for _ in range(3):
        out = np.zeros((table.comps.shape[0], 10, 5))
        args = (rows, table.comps, shoe, d.parent, d.factor, d.r_card, d.r_j, d.r_n,
                d.term_start, d.term_node, d.term_mult, d.skip, d.node_start, d.node_slot,
                d.node_mult, 0, out)
        inside = threading.Event()

        def run(args: tuple[Any, ...] = args, inside: threading.Event = inside) -> None:
            inside.set()
            kernel(*args)

        worker = threading.Thread(target=run)
        worker.start()
        inside.wait()
        seen = int(np.count_nonzero(out.any(axis=(1, 2))))
        worker.join()
        done = int(np.count_nonzero(out.any(axis=(1, 2))))
        assert done > 0
        partial += seen < done
    assert partial > 0


def test_type_table_names_the_kernels_parameters() -> None:
    from sidebet.exact.blackjack import _kernels
    from sidebet.warm.extension import analyser_exports

    for name, (_returns, params) in compiled.KERNEL_TYPES.items():
        kernel = getattr(_kernels, name).py_func
        assert list(inspect.signature(kernel).parameters) == [p for p, _ in params], name
        assert list(inspect.signature(getattr(compiled, name)).parameters) == [
            p for p, _ in params], name
    assert set(analyser_exports()) == {n for n in aot.EXPORTS if n.startswith("bj_")}


# ----- arguments are checked before the compiled code sees them ------------------------

def _final_dist_args() -> dict[str, Any]:
    rules = HouseRules()
    shoe = np.array((24,) * 9 + (96,), dtype=np.int64)
    table = _tables.comp_table(engine.extra_pairs(rules))
    hrows, crows = table.split_rows[(7, 1)]
    k = table.comps.shape[0]
    return {"hrows": hrows, "crows": crows, "hard": table.hard, "comps": table.comps,
            "child": table.child, "shoe": shoe, "up": 5, "dec": np.zeros(k, np.int8),
            "out": np.full((k, 14), 7.0)}


def _readonly(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    b = a.copy()
    b.flags.writeable = False
    return b


BAD: list[Any] = [
    pytest.param("dec", lambda a: a.astype(np.int64), TypeError, "dtype int8", id="dtype"),
    pytest.param("shoe", lambda a: a.reshape(2, 5), ValueError, "1 dimensions", id="ndim"),
    pytest.param("out", lambda a: np.zeros((a.shape[0], 28))[:, ::2], ValueError,
                 "C-contiguous", id="strided"),
    pytest.param("out", _readonly, ValueError, "read-only", id="readonly-output"),
    pytest.param("hrows", lambda a: a.tolist(), TypeError, "numpy array", id="list"),
    pytest.param("up", lambda a: 5.0, TypeError, "integer", id="float-scalar"),
    pytest.param("up", lambda a: True, TypeError, "integer", id="bool-scalar"),
    pytest.param("up", lambda a: 2**70, ValueError, "does not fit", id="huge-scalar"),
]


@pytest.mark.usefixtures("aot_cache")
@pytest.mark.parametrize("path", ["aot", "jit"])
@pytest.mark.parametrize(("field", "spoil", "error", "words"), BAD)
def test_bad_arguments_name_the_field_and_change_nothing(
        path: str, field: str, spoil: Callable[[Any], Any], error: type[Exception],
        words: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "jit":
        monkeypatch.setenv("SIDEBET_AOT", "off")
    assert (aot.load_extension() is None) == (path == "jit")
    args = _final_dist_args()
    good = dict(args, out=args["out"].copy())
    compiled.final_dist(**good)
    assert not np.array_equal(good["out"], args["out"])  # the good call writes
    bad = dict(args, **{field: spoil(args[field])})
    before = args["out"].copy()
    with pytest.raises(error, match=rf"^final_dist\.{field}: .*{words}"):
        compiled.final_dist(**bad)
    np.testing.assert_array_equal(args["out"], before)


@pytest.mark.usefixtures("aot_cache")
def test_bad_arguments_of_the_other_kernels() -> None:
    r = np.array((4,) * 9 + (16,), dtype=np.int64)
    assert compiled.no_bj(r, 52, 0) == pytest.approx(1 - 16 / 52)
    with pytest.raises(TypeError, match=r"^no_bj\.r: expected dtype int64, got int32"):
        compiled.no_bj(r.astype(np.int32), 52, 0)
    with pytest.raises(TypeError, match=r"^no_bj: expected 3 arguments, got 2"):
        compiled._run("no_bj", (r, 52))
    a = np.zeros((3, 10), dtype=np.int64)
    v = np.zeros((3, 10))
    shoe = r.astype(np.float64)  # the analyser's shoes are real counts
    with pytest.raises(ValueError, match=r"^play_values\.dbl2: .*read-only"):
        compiled.play_values(r, r, r, a, a, np.zeros((3, 10, 5)), shoe, r,
                             np.zeros((3, 10), np.int8), v, v, v, v, v, _readonly(v))
    with pytest.raises(ValueError, match=r"^dealer_probs\.out: expected 3 dimensions"):
        compiled._run("dealer_probs", (r, a, shoe, r, r, r, r, r, r, r, v[0], r, r, r, v[0],
                                       0, v))


# ----- whole processes ---------------------------------------------------------------------

def _fresh_cache(built: Path, where: Path) -> Path:
    """A new cache folder holding only the compiled extension (no cached results)."""
    where.mkdir()
    for item in built.glob("aot-*"):
        shutil.copytree(item, where / item.name)
    assert not list(where.glob("*.npz"))
    return where


def _strategy(cache: Path, aot_mode: str, args: list[str]) -> tuple[str, set[str], str]:
    env = {**os.environ, "SIDEBET_CACHE_DIR": str(cache), "SIDEBET_AOT": aot_mode}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sidebet", "strategy", *args],
        capture_output=True, text=True, timeout=300, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("import time:")]
    return proc.stdout, {m.group(1) for m in HEAVY.finditer(proc.stderr)}, "\n".join(lines)


@pytest.mark.parametrize("args", [
    pytest.param(["--decks", "6", "--kind", "composition"], id="composition"),
    pytest.param(["--decks", "6", "--kind", "total", "--format", "json"], id="total-json"),
    pytest.param(["--decks", "6", "--h17", "--kind", "composition"], id="h17"),
])
def test_strategy_without_cached_results_imports_no_numba(
        aot_built: Path, tmp_path: Path, args: list[str]) -> None:
    by_aot = _fresh_cache(aot_built, tmp_path / "aot")
    out, heavy, err = _strategy(by_aot, "on", args)
    assert heavy == set(), err
    assert list(by_aot.glob("strategy-chart-*.json"))  # it analysed, and kept the result
    jit_out, jit_heavy, _ = _strategy(_fresh_cache(aot_built, tmp_path / "jit"), "off", args)
    assert "numba" in jit_heavy
    assert out == jit_out
    if "json" in args:
        assert json.loads(out)["house_edge"]
