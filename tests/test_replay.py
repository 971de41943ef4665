"""``sidebet simulate`` replayed from its plan (:mod:`sidebet.cli.replay`, issue 25 item 2):
the second run of a command line prints what the first printed (but for the seconds
taken), without numpy, typer or numba; a damaged plan, ``SIDEBET_REPLAY=off`` or a command
that cannot be replayed takes the normal path.

Whole processes, in the session's cache folder (the extension and the plain library built
once, ``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli import replay
from sidebet.cli.main import app
from sidebet.sim import SimSpec, resolve_sides
from sidebet.sim.plan import plan_of

HEAVY = re.compile(r"\|\s+(numpy|typer|numba|click)(\.|$)", re.MULTILINE)
TIMING = re.compile(r"; [0-9.]+ s, [0-9,]+ rounds/s")


def masked(out: str) -> str:
    """The output with its words joined by single spaces (rich wraps the first line where
    the width of the rate lets it) and the seconds and rate taken out."""
    text = " ".join(out.split())
    assert TIMING.search(text) is not None, text[:300]
    return TIMING.sub("", text)


@pytest.fixture()
def cache(aot_built: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The session's cache folder (the kernels built), with no plan before or after."""
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(aot_built))
    monkeypatch.delenv("SIDEBET_AOT", raising=False)
    monkeypatch.delenv("SIDEBET_REPLAY", raising=False)
    for plan in plans(aot_built):
        plan.unlink()
    yield aot_built
    for plan in plans(aot_built):
        plan.unlink()


def sidebet(*args: str, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """Run ``sidebet ARGS`` as a console script would: its output and the heavy modules
    it imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "sidebet", *args],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "COLUMNS": "100", **(env or {})})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, {m.group(1) for m in HEAVY.finditer(done.stderr)}


def plans(cache: Path) -> list[Path]:
    return sorted(cache.glob("aot-*/plans/*.plan"))


COMMANDS = [
    ["simulate", "--rounds", "3e4", "--seed", "11", "--no-progress"],
    ["simulate", "--rounds", "20000", "--seats", "3", "--decks", "2", "--h17", "--press",
     "rule", "--seed", "5"],
    ["simulate", "--rounds", "1e4", "--side", "three-card-poker", "--blackjack-pays", "6:5",
     "--pays", "three-card-poker:straight_flush=50,three_of_a_kind=30,straight=6,flush=3",
     "--seed", "2", "--bet", "5", "--no-peek"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=["default", "3seats-press", "custom-pays"])
def test_a_second_run_replays_the_first(cache: Path, args: list[str]) -> None:
    first, heavy = sidebet(*args)
    assert {"numpy", "typer"} <= heavy
    assert len(plans(cache)) == 1
    again, heavy = sidebet(*args)
    assert heavy == set()
    assert masked(again) == masked(first)
    off, heavy = sidebet(*args, env={"SIDEBET_REPLAY": "off"})
    assert "typer" in heavy
    assert masked(off) == masked(first)


def test_other_rounds_and_seeds_replay_the_same_plan(cache: Path) -> None:
    """A command line that differs from a saved one only in ``--rounds`` and ``--seed``
    is played from its plan, and prints what the normal path prints for it."""
    sidebet("simulate", "--rounds", "3e4", "--seed", "11", "--no-progress", "--decks", "2")
    (path,) = plans(cache)
    assert replay.Saved.load(path.read_bytes()).given == {"--rounds": "3e4", "--seed": "11"}
    for args in (["--rounds", "2e4", "--seed", "5"], ["--rounds", "12,000", "--seed", "0"],
                 ["--rounds", "1_000", "--seed", str(2**64 - 1)], None,
                 ["--rounds=2e4", "--seed=3"], ["--rounds=1e4", "--seed=4"]):
        if args is None:  # the other form (--rounds=V) has a plan of its own
            assert len(plans(cache)) == 1
            sidebet("simulate", "--rounds=3e4", "--seed=1", "--no-progress", "--decks", "2")
            continue
        line = ["simulate", *args, "--no-progress", "--decks", "2"]
        again, heavy = sidebet(*line)
        assert heavy == set(), args
        off, _ = sidebet(*line, env={"SIDEBET_REPLAY": "off"})
        assert masked(again) == masked(off)
    assert len(plans(cache)) == 2
    for bad in (["--rounds", "0", "--seed", "5"], ["--rounds", "1e13", "--seed", "5"],
                ["--rounds", "2e4", "--seed", str(2**64)], ["--rounds", "1.5", "--seed", "5"]):
        line = [sys.executable, "-m", "sidebet", "simulate", *bad, "--no-progress",
                "--decks", "2"]
        done = subprocess.run(line, capture_output=True, text=True, timeout=300,
                              check=False)
        off = subprocess.run(line, capture_output=True, text=True, timeout=300, check=False,
                             env={**os.environ, "SIDEBET_REPLAY": "off"})
        assert (done.returncode, done.stdout, done.stderr) == (2, off.stdout, off.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize(("line", "values"), [
    (["simulate", "--rounds", "5", "--rounds", "6"], {}),
    (["simulate", "--seed", "+5"], {}),
    (["simulate", "--seed", "５"], {}),
    (["simulate", "--rounds"], {}),
    (["simulate", "--", "--rounds", "5"], {}),
    (["simulate", "--address", "--rounds", "--seats", "3"], {}),
    (["simulate", "--rounds", "1e6", "--seed", "7"], {"--rounds": "1e6", "--seed": "7"}),
])
def test_only_a_plain_value_given_once_is_taken_out(line: list[str],
                                                     values: dict[str, str]) -> None:
    key, found = replay.plan_key(line)
    assert found == values
    assert (key == line) == (not values)


def test_values_are_read_as_the_command_reads_them() -> None:
    spec = SimSpec(decks=6, sides=resolve_sides(["trilux"], 6))
    saved = replay.Saved(plan=plan_of(spec, 40.0), rounds=30_000, seed=11, threads=None,
                         chunk_shoes=None, progress=False, exact={}, flags=(),
                         given={"--rounds": "3e4", "--seed": "11"})
    same = replay.with_values(saved, {"--rounds": "3e4", "--seed": "11"})
    assert (same.rounds, same.seed) == (30_000, 11)
    other = replay.with_values(saved, {"--rounds": "1,000", "--seed": "0"})
    assert (other.rounds, other.seed) == (1000, 0)
    assert replay.with_values(saved, {}) == saved
    for refused in ({"--rounds": "0"}, {"--rounds": "2.5"}, {"--rounds": "1e13"},
                    {"--seed": str(2**64)}):
        with pytest.raises(ValueError):
            replay.with_values(saved, refused)


def test_the_two_forms_of_a_value_keep_apart() -> None:
    """``--address --rounds=5`` (an address, valid) and ``--address --rounds 7`` (an
    address and a stray argument, refused) must not share a plan."""
    assert replay.plan_key(["simulate", "--address", "--rounds=5"])[0] != \
        replay.plan_key(["simulate", "--address", "--rounds", "7"])[0]


def test_a_fresh_seed_is_drawn_at_each_replay(cache: Path) -> None:
    args = ["simulate", "--rounds", "5000", "--no-progress"]
    seeds = set()
    for _ in range(3):
        out, _heavy = sidebet(*args)
        found = re.search(r"seed (\d+)", out)
        assert found is not None
        seeds.add(found.group(1))
    assert len(seeds) == 3


def test_a_damaged_plan_takes_the_normal_path(cache: Path) -> None:
    args = COMMANDS[0]
    first, _ = sidebet(*args)
    (path,) = plans(cache)
    path.write_bytes(path.read_bytes()[:1000])
    again, heavy = sidebet(*args)
    assert "typer" in heavy  # the normal path ...
    assert masked(again) == masked(first)
    third, heavy = sidebet(*args)  # ... wrote the plan again
    assert heavy == set() and masked(third) == masked(first)


@pytest.mark.parametrize("extra", [["--format", "json"], ["--side-only"], ["--workers", "2"]],
                         ids=["json", "side-only", "workers"])
def test_commands_that_are_not_replayed_save_no_plan(cache: Path, extra: list[str]) -> None:
    sidebet("simulate", "--rounds", "2000", "--seed", "1", "--no-progress", *extra)
    assert plans(cache) == []


def test_a_command_run_inside_another_program_saves_no_plan(cache: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--rounds", "2000", "--seed", "1",
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    assert plans(cache) == []


def test_saved_commands_round_trip_and_refuse_damage() -> None:
    spec = SimSpec(decks=6, sides=resolve_sides(["trilux"], 6))
    saved = replay.Saved(plan=plan_of(spec, 40.0), rounds=10, seed=None, threads=2,
                         chunk_shoes=None, progress=True, exact={"trilux": -0.0325},
                         flags=("a flag",))
    again = replay.Saved.load(saved.dump())
    assert (again.rounds, again.seed, again.threads, again.chunk_shoes, again.progress,
            again.exact, again.flags) == (10, None, 2, None, True, {"trilux": -0.0325},
                                          ("a flag",))
    assert again.plan.shape == saved.plan.shape
    data = saved.dump()
    for cut in (0, 10, 40, len(data) - 1):
        with pytest.raises(ValueError):
            replay.Saved.load(data[:cut])


def test_old_plans_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIDEBET_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SIDEBET_REPLAY", raising=False)
    spec = SimSpec(decks=6, sides=())
    saved = replay.Saved(plan=plan_of(spec, 40.0), rounds=10, seed=1, threads=None,
                         chunk_shoes=None, progress=False, exact={}, flags=())
    kept = []
    for i in range(5):
        path = replay.save(["simulate", str(i)], saved)
        assert path is not None
        os.utime(path, ns=(i * 10**9, i * 10**9))  # saved one second apart
        kept.append(path)
    monkeypatch.setattr(replay, "KEEP", 3)
    newest = replay.save(["simulate", "newest"], saved)
    assert newest is not None
    assert set(plans(tmp_path)) == {newest, kept[4], kept[3]}
    monkeypatch.setenv("SIDEBET_REPLAY", "off")
    assert replay.save(["simulate", "x"], saved) is None
    assert replay.attempt(["sidebet", "simulate", "x"]) is False


def test_a_plan_that_cannot_be_played_is_reported_and_the_command_runs(cache: Path) -> None:
    """A plan whose tables are whole but not what the kernel takes (here the card values
    given two dimensions): one line on standard error, then the normal path."""
    args = ["simulate", "--rounds", "4000", "--seed", "8", "--no-progress"]
    first, _ = sidebet(*args)
    (path,) = plans(cache)
    saved = replay.Saved.load(path.read_bytes())
    dims, data = saved.plan.arrays["vals"]
    bent = dataclasses.replace(saved.plan, arrays={**saved.plan.arrays,
                                                    "vals": ((dims[0], 1), data)})
    path.write_bytes(dataclasses.replace(saved, plan=bent).dump())
    done = subprocess.run([sys.executable, "-m", "sidebet", *args], capture_output=True,
                          text=True, timeout=300, check=False,
                          env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert "could not be played" in done.stderr and "RoundTables.vals" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert masked(done.stdout) == masked(first)
    again, heavy = sidebet(*args)  # the normal path saved a good plan again
    assert heavy == set() and masked(again) == masked(first)


def test_a_progress_bar_to_show_takes_the_normal_path(cache: Path) -> None:
    """Without ``--no-progress`` the normal path draws a bar where rich sees a terminal
    (here told so by ``FORCE_TERMINAL``): the replay, which draws none, steps aside."""
    args = ["simulate", "--rounds", "3000", "--seed", "4"]
    sidebet(*args)
    assert len(plans(cache)) == 1
    _, heavy = sidebet(*args, env={"FORCE_TERMINAL": "1"})
    assert "typer" in heavy
    _, heavy = sidebet(*args)
    assert heavy == set()
