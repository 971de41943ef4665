"""The counter simulation: real rounds, exact EV
before every round, counts on hand-made shoes, reproducibility, convergence."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from sidebet.core.cards import Card, parse_cards, triple_index
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.par import par_sheet
from sidebet.sim.chunk import run_marked, seed_key
from sidebet.sim.shuffle import shoe_state, shuffle
from sidebet.vuln.counter import (
    DEPTH_BINS,
    NBINS,
    CounterSpec,
    _count_arrays,
    counter_spec,
    run_counter,
    with_setting,
)
from sidebet.vuln.counter_kernel import NACC, walk
from sidebet.vuln.fixed_depth import fixed_depth
from sidebet.vuln.side_ev import ev_tables
from sidebet.vuln.sweep import parse_sweep, sweep
from sidebet.vuln.tags import Count, IndexKind, parse_tags


def rebuilt_shoe(spec_decks: int, key: tuple[int, int], shoe: int) -> np.ndarray:
    base = np.tile(np.arange(52, dtype=np.uint8), spec_decks)
    buf = base.copy()
    state = np.uint64(shoe_state(shoe, np.uint64(key[0]), np.uint64(key[1])))
    shuffle(buf, base, len(base), state)  # the state as uint64, as in the kernels
    return buf


def walk_trace(spec: CounterSpec, marks: Any, key: tuple[int, int],
               orders: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Run the walk kernel, returning each round's EV and indexes."""
    tables = ev_tables(((spec.wager, spec.paytable),))
    kinds, tags, lo, width = _count_arrays(spec.counts)
    nc = len(spec.counts)
    r = len(marks)
    evs = np.zeros(r)
    xs = np.zeros((r, nc))
    z = np.zeros((nc, NBINS))
    base = np.tile(np.arange(52, dtype=np.uint8), spec.decks)
    walk(np.asarray(marks, np.int64), np.zeros(r),
         np.uint64(key[0]), np.uint64(key[1]), base, tables.weights, 0, *tables.args(),
         kinds, tags, lo, width, np.zeros((nc, NBINS), np.int64), z.copy(), z.copy(),
         z.copy(), z.copy(), z.copy(), np.zeros(NACC), np.zeros((DEPTH_BINS, 5)),
         np.zeros((0, 0), np.uint8) if orders is None else orders, evs, xs, np.zeros(0))
    return evs, xs


def test_marks_rebuild_the_real_deal_and_the_ev_is_par_sheet() -> None:
    spec = counter_spec("top3", 6, seats=3, counts=("suits",))
    key = seed_key(11)
    run = run_marked(spec.sim, key, 0, 6, 10**6)
    inp = spec.sim.inputs()
    seats = spec.sim.seats
    checked = 0
    for r, (shoe, pos) in enumerate(run.marks):
        buf = rebuilt_shoe(6, key, int(shoe))
        if pos + 2 * seats + 2 > len(buf):
            continue
        first, up, second = (int(buf[p]) for p in (pos, pos + seats, pos + seats + 1))
        assert run.trace[r, 0, 0] == inp.combo_tab[triple_index(first, second, up)]
        checked += 1
    assert checked == run.result.rounds > 100
    evs, _ = walk_trace(spec, run.marks, key)
    rng = np.random.default_rng(3)
    for r in rng.choice(len(run.marks), 12, replace=False):
        shoe, pos = run.marks[r]
        buf = rebuilt_shoe(6, key, int(shoe))
        left = np.full(52, 6) - np.bincount(buf[:pos], minlength=52)
        exact = par_sheet("top3", Shoe.from_counts(left), "A").expected_return
        assert abs(evs[r] - float(exact)) < 1e-12


def test_counts_on_a_hand_made_shoe() -> None:
    # one deck: four sevens, then nine spades, then the rest
    front = list(parse_cards("7c 7d 7h 7s 2s 3s 4s 5s 6s 8s 9s 10s Js"))
    rest = [Card.from_index(k) for k in range(52) if Card.from_index(k) not in front]
    order = np.array([[c.index for c in front + rest]], dtype=np.uint8)
    spec = dataclasses.replace(
        counter_spec("blazing7s", 6, counts=("sevens", "suits", "ranks")),
        counts=(Count("sevens", IndexKind.SEVENS), Count("suits", IndexKind.SUITS),
                Count("ranks", IndexKind.RANKS), Count.linear("tags", parse_tags("7:-1"))),
    )
    spec = dataclasses.replace(spec, sim=dataclasses.replace(spec.sim, decks=1))
    marks = [(0, 0), (0, 4), (0, 13)]
    _, xs = walk_trace(spec, marks, (0, 0), orders=order)
    # full deck: 4 sevens per deck, no suit spread, ranks even, count 0
    assert xs[0].tolist() == [4.0, 0.0, 0.0, 0.0]
    # after the four sevens: none left; one of each suit seen; 48 cards: 4 each of 12
    # ranks and 0 sevens -> chi-square Σ (n - 48/13)² / (48/13); tags 7:-1 centred
    mean = 48 / 13
    chi = (12 * (4 - mean) ** 2 + mean**2) / mean
    assert xs[1] == pytest.approx([0.0, 0.0, chi, 4 * (-1 + 1 / 13) / (48 / 52)])
    # then nine spades: spades 10 seen, others 1 -> spread 9 over 39/52 decks
    assert xs[2][1] == pytest.approx(9 / (39 / 52))


def test_reproducible_and_worker_independent() -> None:
    spec = counter_spec("blazing7s", 6, seats=2, counts=("sevens", "linear"))
    a = run_counter(spec, 20_000, seed=7, chunk_shoes=64)
    b = run_counter(spec, 20_000, seed=7, chunk_shoes=64, workers=2)
    assert a.rounds == b.rounds == 20_000 and a.shoes == b.shoes
    assert a.rows == b.rows and a.perfect == b.perfect and a.depth == b.depth
    c = run_counter(spec, 20_000, seed=8, chunk_shoes=64)
    assert c.perfect != a.perfect


def test_every_round_converges_to_the_full_shoe_return() -> None:
    res = run_counter(counter_spec("trilux", 6, counts=("linear",)), 100_000, seed=5)
    every = res.every_round.units_per_100
    paid = res.paid_every_round
    full = 100 * res.full_shoe_return
    assert paid.low < full < paid.high
    assert every.low < full < every.high
    assert every.high - every.low < paid.high - paid.low  # the EV estimate is steadier
    # TriLux Deluxe pays too little for a linear count to find a winning trigger
    assert res.rows[0].trigger is None and res.rows[0].frequency == 0


def test_blazing_sevens_is_beaten_and_perfect_play_bounds_the_counts() -> None:
    res = run_counter(counter_spec("blazing7s", 6), 100_000, seed=2)
    assert res.perfect.units_per_100.value > 3
    for row in res.rows:
        assert row.units_per_100.value <= res.perfect.units_per_100.value + 1e-9
        assert row.trigger is not None and row.average_edge is not None
        assert row.average_edge > 0
    assert 0 < res.perfect.frequency < 1
    assert [d.low for d in res.depth] == [k / 10 for k in range(len(res.depth))]


def test_a_given_trigger_and_bad_triggers() -> None:
    spec = counter_spec("blazing7s", 6, counts=("sevens",))
    res = run_counter(spec, 5_000, seed=1, trigger=5)
    assert res.rows[0].trigger == 5
    with pytest.raises(SidebetError, match="no count reaches"):
        run_counter(spec, 5_000, seed=1, trigger=25)
    with pytest.raises(SidebetError, match="outside"):
        run_counter(spec, 5_000, seed=1, trigger=-3)


def test_bad_tables() -> None:
    with pytest.raises(SidebetError, match="between 0 and 1"):
        counter_spec("blazing7s", 6, penetration=1.5)
    with pytest.raises(SidebetError, match="--cut-cards"):
        counter_spec("blazing7s", 6, cut_cards=400)
    with pytest.raises(SidebetError, match=r"633c.11\(i\)"):
        counter_spec("trilux", 5)
    with pytest.raises(SidebetError, match="seats"):
        counter_spec("top3", 6, seats=9)


def test_sweep_and_continuous_shuffler() -> None:
    name, values = parse_sweep("seats=1,3")
    spec = counter_spec("blazing7s", 6, counts=("sevens",))
    sw = sweep(spec, name, values, 4_000, seed=1)
    assert [p.label for p in sw.points] == ["seats=1", "seats=3", "continuous shuffler"]
    csm = sw.points[-1].result
    assert csm.spec.sim.cut == 1
    assert csm.perfect.frequency == 0 and csm.rows[0].trigger is None
    assert abs(csm.every_round.average_edge - csm.full_shoe_return) < 1e-12
    with pytest.raises(SidebetError):
        parse_sweep("speed=1:2:1")
    with pytest.raises(SidebetError):
        parse_sweep("penetration=0.9:0.5:0.1")


def test_fixed_depth() -> None:
    full = fixed_depth("upcard-luck", 6, cards_left=312, samples=1_000, seed=1)
    assert full.p_positive.value == 0 and full.average_positive_edge is None
    assert full.average_edge == pytest.approx(
        float(par_sheet("upcard-luck", 6).expected_return), abs=1e-12)
    d = fixed_depth("blazing7s", 6, cards_left=52, samples=20_000, seed=1)
    assert 0 < d.p_positive.low < d.p_positive.value < d.p_positive.high < 1
    assert d.average_positive_edge is not None and d.average_positive_edge.value > 0
    again = fixed_depth("blazing7s", 6, cards_left=52, samples=20_000, seed=1)
    assert again == d
    with pytest.raises(SidebetError, match="--cards-left"):
        fixed_depth("blazing7s", 6, cards_left=2)


def test_sweep_settings() -> None:
    perfect = counter_spec("blazing7s", 6, perfect_only=True)
    two = with_setting(perfect, "decks", 2)
    assert two.decks == 2 and two.counts == () and two.sim.cut == 78
    mine = counter_spec("blazing7s", 6, counts=("sevens",), tags="7:-1")
    assert [c.name for c in with_setting(mine, "decks", 8).counts] == ["sevens", "tags"]
    assert with_setting(mine, "cut-cards", 100).sim.cut == 100
    assert with_setting(mine, "seats", 5).sim.seats == 5
    with pytest.raises(SidebetError, match="cut-cards"):
        with_setting(mine, "cut-cards", 400)
    with pytest.raises(SidebetError, match="unknown setting"):
        with_setting(mine, "speed", 1)
