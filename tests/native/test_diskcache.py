"""The disk cache (sidebet.native.diskcache) and what it serves: strategy arrays, outcome tables,
PAR counts (so that ``sidebet par`` needs no numba)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sidebet.native import diskcache
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import exact_arrays, strategy_arrays


def _build_counter() -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"a": np.arange(5, dtype=np.int8), "s": np.array("text")}

    return calls, build


def test_cached_arrays_are_computed_once_and_read_back(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    calls, build = _build_counter()
    first = diskcache.cached_arrays("t", "key", build)  # type: ignore[arg-type]
    again = diskcache.cached_arrays("t", "key", build)  # type: ignore[arg-type]
    other = diskcache.cached_arrays("t", "other key", build)  # type: ignore[arg-type]
    assert len(calls) == 2
    assert again["a"].tolist() == first["a"].tolist() == [0, 1, 2, 3, 4]
    assert str(again["s"]) == "text" and other["a"].dtype == np.int8
    assert len(list(tmp_path.glob("t-*.npz"))) == 2
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_damaged_unwritable_or_disabled_cache_falls_back(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    calls, build = _build_counter()
    diskcache.cached_arrays("t", "k", build)  # type: ignore[arg-type]
    path = diskcache.cache_path("t", "k")
    assert path is not None and path.is_file()
    path.write_bytes(b"not a zip file")
    assert diskcache.cached_arrays("t", "k", build)["a"].tolist() == [0, 1, 2, 3, 4]  # type: ignore[arg-type]
    assert len(calls) == 2
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(blocker / "sub"))  # cannot be created
    assert diskcache.cached_arrays("t", "k", build)["a"].tolist() == [0, 1, 2, 3, 4]  # type: ignore[arg-type]
    monkeypatch.setenv("SIDEBET_CACHE_DIR", "off")
    assert diskcache.cache_dir() is None and diskcache.cache_path("t", "k") is None
    diskcache.cached_arrays("t", "k", build)  # type: ignore[arg-type]
    assert len(calls) == 4


def test_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SIDEBET_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert diskcache.cache_dir() == tmp_path / "sidebet"


def test_cached_strategy_arrays_equal_the_analysers(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The strategy a simulation reads back from the cache is the analyser's own."""
    from sidebet.exact.blackjack.strategy import basic_strategy

    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    rules = HouseRules(dealer_hits_soft_17=True)
    built = exact_arrays(basic_strategy(rules, 2), "x")
    for _ in range(2):  # computed, then read back
        got = strategy_arrays(rules, 2, "exact")
        for name in ("hard2", "soft2", "pair", "nosplit", "hs_hard", "hs_soft"):
            assert np.array_equal(getattr(got, name), getattr(built, name)), name
            assert getattr(got, name).dtype == np.int8
        assert "2 decks" in got.source
    assert len(list(tmp_path.glob("strategy-*.npz"))) == 1


def test_warm_runs_every_step() -> None:
    """``python -m sidebet.warm`` (``make run``) compiles the kernels and fills the cache."""
    from sidebet.warm.steps import warm

    lines: list[str] = []
    warm(6, out=lines.append)
    assert len(lines) == 8 and all(line.startswith("warm: ") for line in lines)
