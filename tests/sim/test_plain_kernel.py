"""The plain kernel library (:mod:`sidebet.sim.plain_kernel`, :mod:`sidebet.native.cabi`)
against the compiled extension: the same chunks bit for bit, in every mode; its arguments
checked; and a process that loads and runs it without numpy.

The extension and the library are built once for the session (``tests/conftest.py``).
"""

from __future__ import annotations

import array
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sidebet.core.money import units_to_tenths
from sidebet.native import cabi
from sidebet.regulation.house_rules import HoleCard, HouseRules
from sidebet.sim import (
    SimSpec,
    compiled,
    default_sides,
    plain_kernel,
    resolve_sides,
    run_chunk,
    seed_key,
)
from sidebet.sim import chunk as chunk_module
from sidebet.sim.chunk import run_marked, run_orders
from sidebet.sim.layout import NSTAT, Outputs, PlayArrays, RoundTables, ShoeStream

SIDES6 = resolve_sides(list(default_sides(6)), 6)
SIDES2 = resolve_sides(list(default_sides(2)), 2)
SPECS = [
    SimSpec(decks=6, seats=1, sides=SIDES6),
    SimSpec(decks=2, seats=3, sides=SIDES2, press="rule",
            rules=HouseRules(dealer_hits_soft_17=True, hole_card=HoleCard.AFTER_PLAYERS)),
    SimSpec(decks=6, seats=2, sides=SIDES6, press="all"),
    SimSpec(decks=6, seats=4, sides=SIDES6, side_only=True),
]


def _by_library(src: ShoeStream, tab: RoundTables, play: PlayArrays | None, out: Outputs,
                max_rounds: int) -> int:
    return plain_kernel.play_chunk(src, tab, play, out, max_rounds)


def _same(a: Any, b: Any) -> None:
    assert (a.rounds, a.shoes, a.stats, a.round2, a.seats) == \
        (b.rounds, b.shoes, b.stats, b.round2, b.seats)
    assert np.array_equal(a.combo_index, b.combo_index)
    assert np.array_equal(a.combo_count, b.combo_count)
    assert np.array_equal(a.hist_index, b.hist_index)
    assert np.array_equal(a.hist_count, b.hist_count)


@pytest.mark.parametrize("spec", SPECS, ids=["6d", "2d-3seats-h17-enhc", "press", "side"])
def test_chunks_match_the_extension(plain: Path, spec: SimSpec,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    key = seed_key(20261202)
    jobs = [(0, 40, 10**9), (13, 25, 300)]
    want = [run_chunk(spec, key, *job) for job in jobs]
    marked = run_marked(spec, key, 3, 6, 10**6)
    monkeypatch.setattr(chunk_module, "play_chunk", _by_library)
    for job, expected in zip(jobs, want, strict=True):
        _same(run_chunk(spec, key, *job), expected)
    again = run_marked(spec, key, 3, 6, 10**6)
    _same(again.result, marked.result)
    assert np.array_equal(again.trace, marked.trace)
    assert np.array_equal(again.marks, marked.marks)


def test_given_shoes_match_the_extension(plain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = SPECS[1]
    rng = np.random.default_rng(5)
    orders = np.stack([rng.permutation(52 * spec.decks) % 52 for _ in range(4)]).astype(np.uint8)
    want = run_orders(spec, orders, 60)
    monkeypatch.setattr(chunk_module, "play_chunk", _by_library)
    got = run_orders(spec, orders, 60)
    _same(got.result, want.result)
    assert np.array_equal(got.trace, want.trace)


def _records(spec: SimSpec, nshoes: int, make: Any) -> tuple[ShoeStream, RoundTables,
                                                                PlayArrays, Outputs]:
    """One chunk's records, each array passed through ``make`` (a numpy array in, any
    buffer out)."""
    inp = spec.inputs()
    key = seed_key(7)
    assert inp.strategy is not None and inp.decide2 is not None
    src = ShoeStream(make(inp.base.copy()), make(inp.base), make(np.zeros((0, 312), np.uint8)),
                     key[0], key[1], 0, nshoes, spec.cut)
    tab = RoundTables(spec.seats, units_to_tenths(spec.bet), make(inp.combo_tab),
                      make(inp.combo_net), make(inp.combo_offer), make(inp.combo_pay),
                      inp.press_mode, make(inp.press_tab), make(inp.rules), make(inp.vals),
                      inp.hist_off)
    play = PlayArrays(make(inp.decide2), make(inp.strategy.hs_hard), make(inp.strategy.hs_soft))
    out = Outputs(make(np.zeros(inp.n_combos, np.int64)),
                  make(np.zeros(len(inp.wagers) + 3, np.int64)),
                  make(np.zeros((spec.seats, 4), np.int64)), make(np.zeros(NSTAT, np.int64)),
                  make(np.zeros(inp.hist_len, np.int64)),
                  make(np.zeros((0, spec.seats, 3), np.int64)), make(np.zeros(1, np.int64)),
                  make(np.zeros((0, 2), np.int64)))
    return src, tab, play, out


def _array(a: np.ndarray[Any, Any]) -> memoryview:
    """``a`` copied into an ``array.array`` (or a bytearray for bytes), shaped as ``a``."""
    code = {"uint8": "B", "int8": "b", "uint16": "H", "int64": "q"}[str(a.dtype)]
    flat = array.array(code, a.ravel().tolist())
    return memoryview(flat).cast("B").cast(code, a.shape) if a.size else memoryview(flat)


def test_histogram_entries_and_plain_buffers(plain: Path) -> None:
    spec = SPECS[2]
    src, tab, play, out = _records(spec, 30, lambda a: a)
    rounds = compiled.play_chunk(src, tab, play, out, 10**9)
    psrc, ptab, pplay, pout = _records(spec, 30, _array)
    nonzero = array.array("q", bytes(8 * (1 + 2 * len(pout.hist))))
    assert plain_kernel.play_chunk(psrc, ptab, pplay, pout, 10**9, nonzero) == rounds
    for mine, theirs in zip(pout, out, strict=True):
        assert memoryview(mine).tolist() == theirs.tolist()
    where = np.flatnonzero(out.hist)
    count = nonzero[0]
    assert count == len(where) > 0
    assert list(nonzero[1:1 + 2 * count:2]) == where.tolist()
    assert list(nonzero[2:2 + 2 * count:2]) == out.hist[where].tolist()


@pytest.mark.parametrize(("field", "value", "message"), [
    ("stats", np.zeros(NSTAT, np.int32), "Outputs.stats: expected items of int64"),
    ("hist", np.zeros((2, 2), np.int64), "Outputs.hist: expected 1 dimensions, got 2"),
    ("combo_counts", np.zeros(4, np.int64)[::2], "Outputs.combo_counts: the array must be "
                                                  "C-contiguous"),
    ("info", bytes(8), "Outputs.info: expected items of int64"),
])
def test_a_bad_argument_is_named_not_a_crash(plain: Path, field: str, value: Any,
                                             message: str) -> None:
    src, tab, play, out = _records(SPECS[0], 2, lambda a: a)
    bad = out._replace(**{field: value})
    with pytest.raises((TypeError, ValueError), match=message):
        plain_kernel.play_chunk(src, tab, play, bad, 10)


def test_a_read_only_output_is_refused(plain: Path) -> None:
    src, tab, play, out = _records(SPECS[0], 2, lambda a: a)
    frozen = np.zeros(NSTAT, np.int64)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"Outputs\.stats: the kernel writes this array"):
        plain_kernel.play_chunk(src, tab, play, out._replace(stats=frozen), 10)


def test_runs_in_a_process_without_numpy(plain: Path, tmp_path: Path) -> None:
    """The library loads and plays a chunk in a process that never imports numpy."""
    spec = SPECS[0]
    src, tab, play, out = _records(spec, 12, lambda a: a)
    rounds = compiled.play_chunk(src, tab, play, out, 10**9)
    fields: dict[str, Any] = {}
    for record in (src, tab, play):
        for name, value in zip(record._fields, record, strict=True):
            if isinstance(value, np.ndarray):
                fields[f"{type(record).__name__}.{name}"] = {
                    "dtype": str(value.dtype), "shape": list(value.shape),
                    "data": value.tobytes().hex()}
            else:
                fields[f"{type(record).__name__}.{name}"] = int(value)
    fields["outputs"] = {name: list(getattr(out, name).shape) for name in out._fields}
    data = tmp_path / "chunk.json"
    data.write_text(json.dumps(fields))
    script = """
import array, json, sys
from sidebet.sim import layout, plain_kernel
fields = json.load(open(sys.argv[1]))
codes = {"uint8": "B", "int8": "b", "uint16": "H", "int64": "q"}
def buf(spec):
    raw = bytearray.fromhex(spec["data"])
    return memoryview(raw).cast(codes[spec["dtype"]], spec["shape"]) if raw else raw
def record(cls):
    return cls(*(buf(v) if isinstance(v, dict) else v
                 for v in (fields[f"{cls.__name__}.{f}"] for f in cls._fields)))
outs = {}
for name, shape in fields["outputs"].items():
    n = 1
    for d in shape:
        n *= d
    flat = array.array("q", bytes(8 * n))
    outs[name] = memoryview(flat).cast("B").cast("q", shape) if n else memoryview(flat)
rounds = plain_kernel.play_chunk(record(layout.ShoeStream), record(layout.RoundTables),
                                 record(layout.PlayArrays), layout.Outputs(**outs), 10**9)
print(json.dumps({"rounds": rounds, "stats": outs["stats"].tolist(),
                  "numpy": "numpy" in sys.modules}))
"""
    done = subprocess.run([sys.executable, "-c", script, str(data)], capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {"rounds": rounds, "stats": out.stats.tolist(), "numpy": False}


def test_a_damaged_library_is_reported_and_skipped(plain: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "sidebet_plain_x.so"
    bad.write_bytes(b"not a library")
    monkeypatch.setattr(cabi, "library_path", lambda: bad)
    assert cabi.library() is None
    assert "cannot be loaded" in capsys.readouterr().err
    assert cabi.library() is None  # reported once
    assert capsys.readouterr().err == ""
    cabi.forget(bad)
