"""The RNG battery: exact null distributions against brute force, the real shuffle accepted,
deliberately biased shuffles rejected, histories audited, the CLI's JSON and bad input."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.core.errors import SidebetError
from sidebet.regulation.submission import TableConfig
from sidebet.report.rng import (
    gap_distribution,
    history_shoes,
    poker_distribution,
    run_battery,
    runs_distribution,
    serial_moments,
    shuffled_shoes,
)
from sidebet.table import Table
from sidebet.table.dealing import shuffled_order, unshuffled_order
from sidebet.table.history import round_to_json, save_session
from sidebet.table.policy import play_out

runner = CliRunner()


# --- exact null distributions ------------------------------------------------------------


@pytest.mark.parametrize("values", [[1, 1, 2, 3, 3, 5], [2, 2, 2, 7, 7], [4, 9, 9, 9, 12, 12, 13]])
def test_serial_moments_equal_brute_force(values: list[int]) -> None:
    n = len(values)
    sums = [sum(p[i] * p[(i + 1) % n] for i in range(n)) for p in itertools.permutations(values)]
    mean = Fraction(sum(sums), len(sums))
    var = Fraction(sum(s * s for s in sums), len(sums)) - mean * mean
    assert serial_moments(values) == (mean, var)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 14), min_size=3, max_size=6))
def test_serial_moments_equal_brute_force_on_any_small_multiset(values: list[int]) -> None:
    test_serial_moments_equal_brute_force(values)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5))
def test_runs_distribution_equals_brute_force_on_any_small_sizes(n1: int, n2: int) -> None:
    test_runs_distribution_equals_brute_force(n1, n2)


@pytest.mark.parametrize(("n1", "n2"), [(3, 3), (4, 2), (5, 4)])
def test_runs_distribution_equals_brute_force(n1: int, n2: int) -> None:
    count: Counter[int] = Counter()
    arrangements = list(set(itertools.permutations([0] * n1 + [1] * n2)))
    for a in arrangements:
        count[1 + sum(x != y for x, y in itertools.pairwise(a))] += 1
    assert runs_distribution(n1, n2) == {r: Fraction(c, len(arrangements))
                                         for r, c in sorted(count.items())}


@pytest.mark.parametrize(("n", "m"), [(8, 3), (10, 4), (9, 2)])
def test_gap_distribution_equals_brute_force(n: int, m: int) -> None:
    count: Counter[int] = Counter()
    subsets = list(itertools.combinations(range(n), m))
    for s in subsets:
        count[s[1] - s[0] - 1] += 1
    dist = gap_distribution(n, m)
    assert dist == tuple(Fraction(count[j], len(subsets)) for j in range(n - m + 1))


def test_poker_distribution_equals_brute_force_on_a_small_shoe() -> None:
    # five cards from a 1-deck shoe: the textbook counts
    probs = {name: p for name, _, p in poker_distribution(1)}
    total = 2_598_960
    assert probs["all different"] == Fraction(1_317_888, total)
    assert probs["one pair"] == Fraction(1_098_240, total)
    assert probs["two pairs"] == Fraction(123_552, total)
    assert probs["three of a kind"] == Fraction(54_912, total)
    assert probs["four of a kind"] == Fraction(624, total)
    assert probs["five of a kind"] == 0
    for decks in range(1, 9):
        assert sum(p for _, _, p in poker_distribution(decks)) == 1


# --- the battery on real and biased shuffles ---------------------------------------------


def test_the_real_seeded_shuffle_passes_every_test() -> None:
    result = run_battery(shuffled_shoes(6, 3000, seed=20261130), 6, seed=20261130)
    assert [t.passed for t in result.tests] == [True] * 8, result.to_json()
    assert result.summary == "8 of 8 tests run, all passed"
    assert result.passed is True


def test_the_unseeded_shuffle_is_the_tables_and_passes() -> None:
    orders = shuffled_shoes(1, 400)
    assert sorted(orders[0].tolist()) == sorted(unshuffled_order(1).tolist())
    # a random sample can fail a test 5% of the time: only the strongest evidence counts here
    assert all(t.p_value is not None and t.p_value > 1e-4 for t in run_battery(orders, 1).tests)


def test_seeded_shoes_are_the_tables_shoes() -> None:
    orders = shuffled_shoes(2, 3, seed=40)
    for k in range(3):
        assert orders[k].tolist() == shuffled_order(2, 40 + k).tolist()


def _riffle(order: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One Gilbert-Shannon-Reeds riffle shuffle."""
    n = len(order)
    cut = rng.binomial(n, 0.5)
    left, right = list(order[:cut]), list(order[cut:])
    out = []
    while left or right:
        if rng.random() < len(left) / (len(left) + len(right)):
            out.append(left.pop(0))
        else:
            out.append(right.pop(0))
    return np.array(out, dtype=np.int64)


def test_a_few_riffles_are_rejected() -> None:
    rng = np.random.default_rng(1)
    orders = []
    for _ in range(600):
        order = unshuffled_order(1)
        for _ in range(3):
            order = _riffle(order, rng)
        orders.append(order)
    result = run_battery(np.array(orders), 1)
    failed = {t.name for t in result.tests if t.passed is False}
    assert result.passed is False
    assert {"chi-square card-by-position", "gap", "poker"} <= failed


def test_a_shuffle_that_favours_alternating_colours_is_rejected() -> None:
    """The real shuffle, then in half the shoes the first 20 cards forced to alternate in
    colour (each next card swapped with the next one of the other colour): the runs test
    sees it."""
    rng = np.random.default_rng(2)
    orders = shuffled_shoes(1, 2000, seed=7)
    for k in range(len(orders)):
        if rng.random() < 0.5:
            for i in range(20):
                red = np.isin(orders[k] % 4, (1, 2))
                if red[i] == red[i + 1]:
                    j = i + 1 + int(np.argmax(red[i + 1:] != red[i]))
                    orders[k, [i + 1, j]] = orders[k, [j, i + 1]]
    result = run_battery(orders, 1)
    runs = next(t for t in result.tests if t.name == "runs")
    assert runs.passed is False and runs.p_value is not None and runs.p_value < 1e-6


def test_too_few_shoes_are_reported_as_not_made() -> None:
    result = run_battery(shuffled_shoes(1, 20, seed=1), 1)
    card = result.tests[0]
    assert card.passed is None and card.p_value is None and "260 shoes" in card.note
    one = run_battery(shuffled_shoes(1, 1, seed=1), 1)
    assert all(t.passed is None for t in one.tests[:4])
    # no test is made below the sample it states: 10 shoes against the serial test's 30
    ten = run_battery(shuffled_shoes(6, 10, seed=1), 6)
    for t in ten.tests:
        assert t.p_value is None or t.observations >= t.min_sample, t
    serial = next(t for t in ten.tests if t.name == "serial correlation")
    assert serial.passed is None and "30 shoes" in serial.note


def test_a_shoe_that_is_not_whole_is_refused() -> None:
    orders = shuffled_shoes(1, 3, seed=1)
    orders[1, 0] = orders[1, 1]
    with pytest.raises(SidebetError, match="shoe 2 does not hold 1 of every card kind"):
        run_battery(orders, 1)


# --- histories and the CLI ---------------------------------------------------------------


def _session_file(tmp_path: Path) -> Path:
    cfg = TableConfig(decks=1)
    table = Table(cfg, 3, seed=5, chips=1000_00)
    rounds = []
    for _ in range(40):
        r = table.new_round()
        for s in (1, 2, 3):
            r.place_bet(s, "blackjack", 10_00)
        r.close_bets()
        play_out(r)
        table.finish(r)
        rounds.append(round_to_json(r, shoes=table.round_shoes))
    path = tmp_path / "session.json"
    save_session(path, table, rounds, reveal_current=True)
    return path


def test_rng_test_runs_on_a_historys_revealed_shoes(tmp_path: Path) -> None:
    path = _session_file(tmp_path)
    data = json.loads(path.read_text())
    orders, decks = history_shoes(data)
    assert decks == 1 and len(orders) == len(data["shoes"]) >= 5
    result = runner.invoke(app, ["rng-test", "--history", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["shoes"] == len(orders) and out["decks"] == 1
    assert out["tests"][0]["passed"] is None  # too few shoes: reported as not made
    # a tampered shoe fails the audit: nothing is tested
    data["shoes"][0]["order"] = " ".join(reversed(data["shoes"][0]["order"].split()))
    path.write_text(json.dumps(data))
    bad = runner.invoke(app, ["rng-test", "--history", str(path)])
    assert bad.exit_code == 2 and "commitment" in bad.output


def test_rng_test_json_shape_and_equal_to_the_api() -> None:
    result = runner.invoke(app, ["rng-test", "--shoes", "300", "--decks", "1", "--seed", "3",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"shoes", "decks", "tests"} <= set(data) and data["shoes"] == 300
    for test in data["tests"]:
        assert {"name", "statistic", "p_value", "passed"} <= set(test)
    assert data == run_battery(shuffled_shoes(1, 300, 3), 1, seed=3,
                               source="shuffled_order, seed S+k").to_json()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--decks", "9"], "1 to 8 decks"),
        (["--shoes", "ten"], "--shoes must be a whole number"),
        (["--shoes", "0"], "--shoes must be a whole number from 1 to"),
        (["--seed", "-1", "--shoes", "5"], "seed must not be negative"),
        (["--history", "/nonexistent.json"], "cannot read"),
    ],
)
def test_rng_test_bad_input_exits_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["rng-test", *args])
    assert result.exit_code == 2
    assert message in result.output
