"""The simulator: shuffling, reproducibility, accounting and convergence to exact values."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from numba import njit

from sidebet.core.cards import triple_index
from sidebet.core.errors import RuleError, SidebetError
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim import (
    SimSpec,
    exact_values,
    resolve_sides,
    run_chunk,
    seed_key,
    simulate,
)
from sidebet.sim.chunk import ChunkResult, run_marked
from sidebet.sim.kernels import start_shoe
from sidebet.sim.results import Tally
from sidebet.sim.runner import (
    CHUNK_SHOES,
    chunk_size,
    estimated_rounds_per_shoe,
    run_chunks,
    taper_shoes,
)
from sidebet.sim.shuffle import GROUP, pair_offsets, shoe_state, shuffle, shuffle_from

ALL4 = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)


def _same(a: object, b: object) -> None:
    from sidebet.sim import SimResult

    assert isinstance(a, SimResult) and isinstance(b, SimResult)
    assert a.rounds == b.rounds
    assert a.tally.stats == b.tally.stats
    assert a.tally.hist == b.tally.hist
    assert a.tally.shoes == b.tally.shoes
    assert np.array_equal(a.tally.combo_counts, b.tally.combo_counts)


# ----- where each round starts ----------------------------------------------------------


@pytest.mark.parametrize("side_only", [True, False])
def test_marks_say_where_each_round_starts(side_only: bool) -> None:
    spec = SimSpec(decks=2, seats=3, sides=ALL4, side_only=side_only)
    run = run_marked(spec, seed_key(5), 0, 4, 10**6)
    plain = run_chunk(spec, seed_key(5), 0, 4, 10**6)
    # marking changes nothing else
    assert run.result.stats == plain.stats and run.result.shoes == plain.shoes == 4
    assert run.result.combo_index == plain.combo_index
    assert run.result.combo_count == plain.combo_count
    assert len(run.marks) == run.result.rounds
    assert run.marks[0].tolist() == [0, 0]
    per_round = 2 * spec.seats + 2
    for (shoe_a, pos_a), (shoe_b, pos_b) in zip(run.marks[:-1], run.marks[1:], strict=True):
        if shoe_b == shoe_a:  # side-only rounds take the deal's cards, complete ones more
            step = pos_b - pos_a
            assert step == per_round if side_only else step >= per_round
        else:  # the cut card came out: the next round starts the next shoe
            assert (shoe_b, pos_b) == (shoe_a + 1, 0)
            assert pos_a < spec.cut
    assert run.marks[-1][0] == 3 and (run.marks[:, 1] < spec.cut).all()
    # each seat's combination is the one of the cards at the marked places of its shoe
    inp = spec.inputs()
    n = 52 * spec.decks
    key = tuple(np.uint64(k) for k in seed_key(5))
    for r, (shoe, pos) in enumerate(run.marks[:40]):
        buf = inp.base.copy()
        start_shoe(buf, inp.base, np.zeros((0, n), np.uint8), int(shoe), n, *key)
        for s in range(spec.seats):
            first, up, second = (int(buf[p]) for p in (pos + s, pos + spec.seats,
                                                       pos + spec.seats + 1 + s))
            combo = inp.combo_tab[triple_index(first, second, up)]
            assert (run.trace[r, s] if side_only else run.trace[r, s, 0]) == combo


# ----- shuffling ---------------------------------------------------------------------


def test_partial_shuffle_is_a_prefix_of_the_full_shuffle() -> None:
    base = np.tile(np.arange(52, dtype=np.uint8), 6)
    state = np.uint64(shoe_state(3, np.uint64(11), np.uint64(12)))
    full, part = base.copy(), base.copy()
    shuffle(full, base, 312, state)
    shuffle(part, base, 100, state)
    assert np.array_equal(full[:100], part[:100])
    assert sorted(full.tolist()) == sorted(base.tolist())


def test_shuffle_in_pieces_is_the_full_shuffle() -> None:
    """The kernel shuffles lazily (places as they are reached, :func:`refill`): a shoe
    shuffled in pieces is the shoe shuffled at once, and leaves the same generator state
    (a shoe that runs out continues from it)."""
    base = np.tile(np.arange(52, dtype=np.uint8), 6)
    state = np.uint64(shoe_state(5, np.uint64(21), np.uint64(22)))
    full, pieces = base.copy(), base.copy()
    end_full = shuffle(full, base, 312, state)
    st = np.uint64(shuffle(pieces, base, 100, state))
    for lo in range(100, 312, 8):
        st = np.uint64(shuffle_from(pieces, lo, min(lo + 8, 312), st))
    assert np.array_equal(full, pieces) and int(st) == int(end_full)


@pytest.mark.parametrize(("k1", "k2"), [(2, 1), (7, 6), (13, 12), (52, 51), (100, 99)])
def test_pair_offsets_are_exactly_uniform(k1: int, k2: int) -> None:
    """The batched bounded integers, on a 16-bit word so that every word can be tried:
    the accepted words give every pair of offsets equally often, and a refused word is
    refused for a reason (fewer than ``k1 * k2`` of them)."""
    bits = 16
    counts = np.zeros((k1, k2), dtype=np.int64)
    refused = 0
    u = np.uint64
    for x in range(1 << bits):
        j1, j2, ok = pair_offsets(u(x), u(k1), u(k2), u(bits))
        if ok:
            counts[int(j1), int(j2)] += 1
        else:
            refused += 1
    assert counts.min() == counts.max() == (2**bits - refused) // (k1 * k2)
    assert refused == 2**bits % (k1 * k2) < k1 * k2


def test_shuffle_works_in_groups() -> None:
    """A shuffle of a number of places that is not a multiple of :data:`GROUP` shuffles
    up to the next multiple (the first places are those of the full shuffle)."""
    base = np.tile(np.arange(52, dtype=np.uint8), 2)
    state = np.uint64(shoe_state(1, np.uint64(5), np.uint64(6)))
    a, b = base.copy(), base.copy()
    end_a = shuffle(a, base, 9, state)
    end_b = shuffle(b, base, 12, state)
    assert GROUP == 4 and np.array_equal(a, b) and int(end_a) == int(end_b)


@njit(cache=False)
def _permutation_counts(shoes: int, key0: Any, key1: Any, n: int, nperm: int) -> Any:
    """How often each permutation of ``n`` cards (by its Lehmer code) comes out of the
    kernel's shuffle over ``shoes`` seeded shoes."""
    base = np.arange(n).astype(np.uint8)
    buf = base.copy()
    counts = np.zeros(nperm, np.int64)
    fact = np.ones(n, np.int64)
    for i in range(1, n):
        fact[i] = fact[i - 1] * i
    for k in range(shoes):
        shuffle(buf, base, n, shoe_state(k, key0, key1))
        code = 0
        for i in range(n):
            smaller = 0
            for j in range(i + 1, n):
                if buf[j] < buf[i]:
                    smaller += 1
            code += smaller * fact[n - 1 - i]
        counts[code] += 1
    return counts


@pytest.mark.slow
def test_shuffle_gives_every_permutation_equally_often() -> None:
    """All 40,320 orders of an eight-card shoe, four million seeded shoes: χ² against the
    uniform distribution (40,319 degrees of freedom; 41,600 is about 4.5 standard
    deviations above the mean, p below 1e-5)."""
    n, shoes = 8, 4_000_000
    key0, key1 = (np.uint64(w) for w in seed_key(12))
    counts = _permutation_counts(shoes, key0, key1, n, math.factorial(n))
    expected = shoes / math.factorial(n)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert counts.sum() == shoes and chi2 < 41_600, chi2


def test_shuffle_places_cards_uniformly() -> None:
    base = np.arange(52, dtype=np.uint8)
    buf = base.copy()
    counts = np.zeros((3, 52), dtype=np.int64)
    key0, key1 = (np.uint64(w) for w in seed_key(9))
    n = 26_000
    for k in range(n):
        shuffle(buf, base, 52, np.uint64(shoe_state(k, key0, key1)))
        for row, pos in enumerate((0, 25, 51)):
            counts[row, buf[pos]] += 1
    expected = n / 52
    chi2 = ((counts - expected) ** 2 / expected).sum(axis=1)
    # 51 degrees of freedom: P(chi2 > 95) < 1e-4
    assert (chi2 < 95).all(), chi2


# ----- reproducibility ---------------------------------------------------------------


@pytest.mark.parametrize("side_only", [False, True])
def test_chunk_size_does_not_change_results(side_only: bool) -> None:
    spec = SimSpec(seats=2, sides=ALL4, press="all", side_only=side_only)
    runs = [simulate(spec, 7_777, seed=3, chunk_shoes=c, with_exact=False) for c in (1, 7, 8192)]
    for other in runs[1:]:
        _same(runs[0], other)
    assert runs[0].rounds == 7_777


def test_workers_do_not_change_results() -> None:
    spec = SimSpec(seats=3, sides=ALL4, press="advice")
    one = simulate(spec, 30_000, seed=8, chunk_shoes=50, with_exact=False)
    two = simulate(spec, 30_000, seed=8, chunk_shoes=50, workers=2, with_exact=False)
    _same(one, two)
    assert two.workers == 2


@pytest.mark.parametrize("side_only", [False, True])
def test_threads_do_not_change_results(side_only: bool) -> None:
    """Chunks played on threads of this process (the kernels release the GIL), added in
    chunk order: the same tallies whatever the number of threads."""
    spec = SimSpec(seats=2, sides=ALL4, press="advice", side_only=side_only)
    one = simulate(spec, 20_000, seed=5, chunk_shoes=40, with_exact=False)
    for threads in (2, 3):
        _same(one, simulate(spec, 20_000, seed=5, chunk_shoes=40, threads=threads,
                            with_exact=False))
    short = simulate(spec, 20_000, seed=5, threads=2, with_exact=False)
    _same(one, short)  # the chunk chosen for two threads
    assert short.chunk_shoes == chunk_size(20_000, estimated_rounds_per_shoe(spec), 2)
    assert short.chunk_shoes < CHUNK_SHOES


def test_a_run_on_threads_plays_little_beyond_its_rounds() -> None:
    """On threads the chunks shrink towards the end (:func:`taper_shoes`): the chunk that
    crosses the last round, played beyond it and replayed to it, is small.  With chunks of
    one size a tenth or more of the run was played twice."""
    spec = SimSpec(sides=ALL4)
    rounds = 200_000
    per_shoe = estimated_rounds_per_shoe(spec)
    played: list[int] = []

    def counted(spec: SimSpec, key: tuple[int, int], shoe0: int, nshoes: int,
                max_rounds: int) -> ChunkResult:
        res = run_chunk(spec, key, shoe0, nshoes, max_rounds)
        played.append(res.rounds)
        return res

    tally = Tally(spec.inputs().n_combos)
    run_chunks(counted, spec, 11, rounds, tally, chunk_shoes=chunk_size(rounds, per_shoe, 2),
               rounds_per_shoe=per_shoe, threads=2)
    alone = Tally(spec.inputs().n_combos)
    run_chunks(run_chunk, spec, 11, rounds, alone, chunk_shoes=CHUNK_SHOES, threads=1)
    assert tally.rounds == rounds
    assert tally.stats == alone.stats
    assert sum(played) <= 1.04 * rounds, sum(played) / rounds
    res = simulate(spec, 20_000, seed=5, threads=2)
    assert res.exact  # computed while the first chunks played
    assert [taper_shoes(x, 500, 2) for x in (10**5, 1000, 1)] == [500, 250, 16]


@pytest.mark.parametrize(("rounds", "queued"), [(10**6, 16), (10**12, 16), (2_000, 3)])
def test_chunks_queued_while_the_caller_works(rounds: int, queued: int) -> None:
    """While ``meanwhile()`` keeps the caller's thread (the exact values), up to
    ``FILL`` times the usual chunks are queued, so the threads do not wait for it; no more
    than the rounds need, however long the run."""
    from types import SimpleNamespace

    from sidebet.sim.schedule import FILL, ThreadBackend, _in_order

    def task(spec: Any, key: tuple[int, int], shoe0: int, nshoes: int,
             max_rounds: int) -> Any:
        return SimpleNamespace(rounds=min(40 * nshoes, max_rounds), shoes=nshoes)

    submitted: list[int] = []
    backend = ThreadBackend(2, task)
    submit = backend.submit
    backend.submit = lambda *a: (submitted.append(a[2]), submit(*a))[1]  # type: ignore[method-assign]
    seen: list[int] = []
    tally = SimpleNamespace(rounds=0, chunks=0)

    class Enough(Exception):
        pass

    def add(res: Any) -> None:
        tally.rounds += res.rounds
        tally.chunks += 1
        if tally.chunks == 100:  # 10**12 rounds are millions of chunks: enough seen
            raise Enough

    tally.add = add
    try:
        _in_order(backend, None, (0, 0), rounds, chunk_size(rounds, 40.0, 2), tally, None,
                  40.0, slack=1.0, taper=True, meanwhile=lambda: seen.append(len(submitted)))
    except Enough:
        assert rounds > 10**9
    else:
        assert tally.rounds == rounds
    finally:
        backend.close()
    assert seen == [min(queued, FILL * 2 * 2)]
    assert submitted == sorted(submitted)


def test_seed_keys_are_numpys_seed_sequence_words() -> None:
    """A seed's key: the first two 64-bit words of numpy's ``SeedSequence``, as the runs
    seeded so far were keyed (one and three 32-bit words of entropy)."""
    assert seed_key(0) == (0xDB2CD7E7B0F478BE, 0xABF4641A2C71BA49)
    assert seed_key(2**32) == (0x50FF846CEC53F444, 0x7A4918DBE8278562)
    assert seed_key(2**64 - 1) == (0xAEBCA151928CAD0D, 0x119C30448638DC7A)
    with pytest.raises(ValueError, match="non-negative"):
        seed_key(-1)


def test_seed_changes_results_and_chunks_are_pure() -> None:
    spec = SimSpec(sides=ALL4)
    a = run_chunk(spec, seed_key(1), 0, 20, 10**9)
    b = run_chunk(spec, seed_key(1), 0, 20, 10**9)
    c = run_chunk(spec, seed_key(2), 0, 20, 10**9)
    assert a.stats == b.stats and a.shoes == 20
    assert a.stats != c.stats


def test_interrupt_reports_what_was_done() -> None:
    spec = SimSpec(sides=ALL4)
    calls = []

    def progress(done: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    result = simulate(spec, 10**9, seed=1, chunk_shoes=10, progress=progress, with_exact=False)
    assert result.interrupted
    assert result.rounds == calls[-1] > 0
    assert result.to_json()["interrupted"] is True


# ----- accounting --------------------------------------------------------------------


def test_press_leaves_the_base_game_alone() -> None:
    """The strategy does not depend on the bet, so with the same cards the Blackjack
    result without the pressed chips equals a game that never presses."""
    plain = simulate(SimSpec(seats=2, sides=ALL4, press="none"), 40_000, seed=4,
                     with_exact=False)
    pressed = simulate(SimSpec(seats=2, sides=ALL4, press="all"), 40_000, seed=4,
                       with_exact=False)
    assert plain.tally.stat("press_rounds") == 0
    assert plain.tally.stat("bj_net") == plain.tally.stat("base_net")
    assert pressed.tally.stat("base_net") == plain.tally.stat("bj_net")
    assert pressed.tally.stat("hands") == plain.tally.stat("hands")
    assert pressed.tally.stat("press_rounds") > 0
    press = pressed.press()
    assert press is not None
    net = pressed.tally.stat("bj_net") - pressed.tally.stat("base_net")
    assert math.isclose(press["net"], net / 10)
    # sides are untouched by the Press
    assert np.array_equal(plain.tally.combo_counts, pressed.tally.combo_counts)


def test_round_distribution_adds_up() -> None:
    result = simulate(SimSpec(seats=3, sides=ALL4, press="advice"), 20_000, seed=6,
                      with_exact=False)
    total = result.round_total()
    assert sum(c for _, c in total["distribution"]) == result.seat_rounds
    mean = sum(v * c for v, c in total["distribution"]) / result.seat_rounds
    assert math.isclose(mean, total["mean"], rel_tol=1e-12)
    assert math.isclose(result.tally.stat("total_net") / 10 / result.seat_rounds, mean,
                        rel_tol=1e-12)
    sides = sum(w.net for w in result.wagers())
    bj = result.blackjack()
    assert bj is not None
    assert math.isclose(sides + bj["net"], result.tally.stat("total_net") / 10)
    for w in result.wagers():
        assert sum(w.outcomes.values()) == result.seat_rounds
    seats = result.by_seat()
    assert [row["seat"] for row in seats] == [1, 2, 3]
    assert sum(row[0] for row in result.tally.seats) == result.tally.stat("bj_net")
    assert sum(row[2] for row in result.tally.seats) == result.tally.stat("total_net")
    assert math.isclose(sum(row["round_mean"] for row in seats) / 3, mean, rel_tol=1e-9)


def test_json_has_every_section() -> None:
    data = simulate(SimSpec(sides=ALL4, press="all"), 5_000, seed=2).to_json()
    assert data["rounds"] == 5_000 and data["seed"] == 2
    assert {w["wager"] for w in data["side_wagers"]} == {
        "trilux", "upcard-luck", "top3", "blazing7s", "three-card-poker"}
    for w in data["side_wagers"]:
        lo, hi = w["ci95"]
        assert lo <= w["return_per_unit"] <= hi
        assert set(w["outcomes"]) >= {"lose"}
        assert w["exact_return"] is not None
    assert data["blackjack"]["ci95"][0] < data["blackjack"]["return_per_unit"]
    assert data["press"]["pressed_rounds"] > 0


def test_spec_refuses_what_the_rules_forbid() -> None:
    with pytest.raises(RuleError, match=r"633b\.15"):
        SimSpec(decks=2, sides=resolve_sides(["upcard-luck"], 2)).verify()
    with pytest.raises(RuleError, match="twice the Blackjack wager"):
        SimSpec(sides=resolve_sides(["trilux"], 6), side_bet=3).verify()
    with pytest.raises(SidebetError, match="at least 1 round"):
        simulate(SimSpec(), 0)
    with pytest.raises(RuleError, match="seats"):
        simulate(SimSpec(seats=8), 10)


# ----- convergence to the exact values ---------------------------------------------


def _within(estimate_mean: float, half_width: float, exact: float, k: float = 1.8) -> bool:
    """Within ``k`` times the 95% half-width (≈ 3.5 standard errors)."""
    return abs(estimate_mean - exact) <= k * half_width


@pytest.mark.parametrize("decks", [1, 6])
def test_side_wagers_converge_to_par(decks: int) -> None:
    names = ["trilux", "top3", "blazing7s"] + (["upcard-luck"] if decks == 6 else [])
    spec = SimSpec(decks=decks, seats=2, sides=resolve_sides(names, decks), side_only=True)
    result = simulate(spec, 2_000_000, seed=12)
    exact = exact_values(spec)
    for w in result.wagers():
        assert w.exact == exact[w.wager]
        assert _within(w.estimate.mean, w.estimate.half_width, exact[w.wager]), w.to_json()


def test_full_rounds_side_wagers_converge_to_par() -> None:
    spec = SimSpec(seats=2, sides=ALL4, press="all", rules=HouseRules(dealer_hits_soft_17=True))
    result = simulate(spec, 400_000, seed=21)
    for w in result.wagers():
        assert w.exact is not None
        assert _within(w.estimate.mean, w.estimate.half_width, w.exact), w.to_json()


def test_base_game_is_close_to_published_house_edge() -> None:
    """6 decks S17 DAS LS, split to 3, no RSA, published chart: the house edge is about
    0.36% with the cut card (50 million rounds: -0.366% ± 0.03%)."""
    result = simulate(SimSpec(sides=(), strategy="chart"), 2_000_000, seed=31,
                      with_exact=False)
    bj = result.blackjack()
    assert bj is not None
    lo, hi = bj["without_press"]["ci95"]
    assert lo - 0.0005 < -0.0036 < hi + 0.0005


def test_intervals_allow_for_seats_sharing_the_dealer() -> None:
    """With several seats the standard error treats a round as one sample: the seats
    share the upcard, so Upcard Luck's interval widens; with one seat it is the usual
    sd / sqrt(n)."""
    sides = resolve_sides(["upcard-luck", "trilux"], 6)
    many = simulate(SimSpec(seats=7, sides=sides), 60_000, seed=5, with_exact=False)
    trilux, luck = many.wagers()
    assert (trilux.wager, luck.wager) == ("trilux", "upcard-luck")
    naive = luck.estimate.std_dev / math.sqrt(luck.estimate.n)
    assert luck.estimate.std_error > 1.2 * naive
    assert trilux.estimate.std_error == pytest.approx(
        trilux.estimate.std_dev / math.sqrt(trilux.estimate.n), rel=0.1)
    bj = many.blackjack()
    assert bj is not None and bj["std_error"] > 1.1 * bj["std_dev"] / math.sqrt(bj["rounds"])
    one = simulate(SimSpec(seats=1, sides=sides), 60_000, seed=5, with_exact=False)
    w = one.wagers()[0].estimate
    assert w.std_error == pytest.approx(w.std_dev / math.sqrt(w.n), rel=1e-12)


@pytest.mark.parametrize("rules", [HouseRules(), HouseRules(dealer_hits_soft_17=True)],
                         ids=["s17", "h17"])
def test_base_game_converges_to_exact_house_edge(rules: HouseRules) -> None:
    """Playing the exact analyser's basic strategy (the default), the base game's return
    lies within its interval (plus 0.05% for the cut card: the exact value is a full
    shoe's) of the exact total-dependent expectation."""
    pytest.importorskip("sidebet.exact.blackjack.house_edge")
    spec = SimSpec(rules=rules)
    assert spec.strategy == "exact"  # the default, as the table engine's BASIC
    result = simulate(spec, 3_000_000, seed=41)
    bj = result.blackjack()
    assert bj is not None and "exact_return" in bj, "exact value missing"
    wp = bj["without_press"]
    half = (wp["ci95"][1] - wp["ci95"][0]) / 2
    assert abs(wp["return_per_unit"] - bj["exact_return"]) <= 1.8 * half + 0.0005, bj


@pytest.mark.parametrize(("policy", "field"), [("advice", "optimal"), ("all", "always")])
def test_press_value_converges_to_the_exact_press_chart(policy: str, field: str) -> None:
    """Dealing one round per shoe (the cut card after the first card) removes the
    cut-card effect: the Press's value per unit of TriLux Deluxe wager then converges to
    the exact analyser's full-shoe value (pressing by its chart, or always)."""
    press = pytest.importorskip("sidebet.exact.blackjack.press")
    exact = getattr(press.press_chart(6, HouseRules()).summary, field)
    spec = SimSpec(sides=resolve_sides(["trilux"], 6), press=policy, strategy="exact",
                   penetration=Fraction(1, 312))
    result = simulate(spec, 1_500_000, seed=8, with_exact=False)
    assert result.tally.shoes == result.rounds
    n = result.seat_rounds
    s1 = Fraction(result.tally.stat("press_net"), 10)
    s2 = Fraction(result.tally.stat("press_net2"), 100)
    mean = s1 / n
    se = math.sqrt(float(s2 / n - mean * mean) / n)
    assert abs(float(mean) - exact) <= 3.5 * se, (float(mean), exact, se)


def test_workers_receive_the_parents_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker process is handed the parent's kernel arrays once (``_worker_init``) and
    uses them instead of building its own."""
    from sidebet.sim import schedule
    from sidebet.sim.schedule import _worker_init
    from sidebet.sim.spec import _PRELOADED

    spec = SimSpec(seats=2, sides=ALL4, penetration=Fraction(2, 3))
    parents = replace(spec.inputs(), extra={"built by": "the parent"})
    try:
        _PRELOADED.clear()
        # only the preloading here: this process is no worker to tie to its parent
        monkeypatch.setattr(schedule, "_die_with_parent", lambda parent: None)
        _worker_init(os.getppid(), SimSpec(seats=2, sides=ALL4, penetration=Fraction(2, 3)),
                     parents)
        assert spec.inputs() is parents
    finally:
        _PRELOADED.clear()
        import signal

        signal.signal(signal.SIGINT, signal.default_int_handler)
