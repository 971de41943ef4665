"""TriLux Deluxe counted with its Press: each win pressed by the exact advice of the shoe
as it stands, checked against brute force and against the shoe rebuilt card by card."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from blackjack.brute import Player, add  # tests/blackjack (the rootdir is on the path)
from sidebet.core.cards import ALL_CARDS
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.press import press_advice
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.wagers.trilux import classify
from sidebet.sim.chunk import run_marked, seed_key
from sidebet.vuln.counter import counter_spec
from sidebet.vuln.press_counter import (
    EXACT_SHARE,
    _press_weights,
    press_chunk,
    press_counter,
    press_value,
)

UNSEEN = (2, 2, 2, 2, 2, 2, 2, 2, 2, 8)
"""A 26-card shoe: small enough to enumerate every way a hand can go."""


@pytest.mark.parametrize(("hand", "up"), [((8, 9), 9), ((4, 5), 4), ((0, 6), 8), ((5, 9), 9)])
def test_press_value_equals_brute_force_on_a_small_shoe(hand: tuple[int, int], up: int) -> None:
    """E[X · 1{no dealer Blackjack}] per pressed unit under the best play: the enumeration
    deals every hole card but a Blackjack one (a surrender, after the peek, is −½ then)."""
    rules = HouseRules()
    before = add(add(add(UNSEEN, hand[0]), hand[1]), up)
    n = sum(UNSEEN)
    no_bj = Fraction(1) - (Fraction(UNSEEN[9 if up == 0 else 0], n) if up in (0, 9) else 0)
    counts = add(add((0,) * 10, hand[0]), hand[1])
    player = Player(up, rules.dealer_hits_soft_17)
    best = max(player.value(counts, UNSEEN, a) for a in ("stand", "hit", "double"))
    if rules.late_surrender:
        best = max(best, -no_bj / 2)
    got = press_value(before, (min(hand), max(hand)), up, rules)
    assert got == pytest.approx(float(best), abs=1e-12)


def test_press_counter_presses_at_the_shoe_as_it_stands() -> None:
    """Each win's cards and composition, rebuilt from the simulator's shoe card by card,
    and its Press value equal to the table's advisor on that shoe."""
    from sidebet.report.rng import simulator_shoes

    spec = counter_spec("trilux", 1, counts=("suits",))
    chunk = press_chunk(spec, seed_key(5), 0, 4, 10_000)
    assert chunk.rounds > 0 and chunk.win.size > 0
    orders = simulator_shoes(1, 4, 5)
    rules = spec.sim.rules
    marks = run_marked(spec.sim, seed_key(5), 0, 4, 10_000).marks
    for i, rnd in enumerate(chunk.win.tolist()):
        shoe, pos = (int(v) for v in marks[rnd])
        assert shoe == int(chunk.shoe[rnd])
        order = orders[shoe].tolist()
        first, up, second = (ALL_CARDS[order[pos + k]] for k in (0, 1, 2))
        assert classify(first, second, up) is not None
        shoe_left = Shoe.standard(1).remove([ALL_CARDS[c] for c in order[:pos + 3]])
        advice = press_advice((first, second), up, shoe_left, rules)
        cls = [int(v) for v in chunk.cards[i]]
        assert press_value(tuple(int(v) for v in chunk.before[i]),
                           (min(cls[:2]), max(cls[:2])), cls[2], rules) == pytest.approx(
            advice.ev_per_unit, abs=1e-12)


def test_press_counter_refuses_other_wagers_and_finds_a_trigger() -> None:
    with pytest.raises(SidebetError, match="Press belongs to"):
        press_counter(counter_spec("blazing7s", 6), 100, 1)
    got = press_counter(counter_spec("trilux", 6, counts=("suits",)), 6_000, 2)
    row = got.rows[0]
    assert got.rounds == 6_000 and got.evaluations > 0
    if row.trigger is not None:
        assert 0 < row.frequency <= 1 and row.press_per_100 > 0
    assert np.isfinite(row.units_per_100.value)
    # every trigger is searched: the best of those betting more than EXACT_SHARE is shown
    assert row.beyond is not None and row.beyond_frequency > EXACT_SHARE
    wide = got.to_json()["rows"][0]["beyond_exact_share"]
    assert wide["frequency"] == row.beyond_frequency
    assert wide["units_per_100"] <= max(row.units_per_100.value, 0.0)  # the best is of all
    assert 0 < got.sample_rate <= 1


def test_every_win_near_a_counts_top_is_exact_and_the_rest_sampled_without_bias() -> None:
    """The wins a trigger betting at most EXACT_SHARE bets on weigh 1; of the others, a
    seeded sample as large weighs 1 / rate, so every trigger's Press total is unbiased."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40_000, 2))
    win = np.flatnonzero(rng.random(40_000) < 0.1)
    weight, rate = _press_weights(x, win, 2, seed=7)
    floors = np.quantile(x, 1 - EXACT_SHARE, axis=0)
    top = (x[win] >= floors).any(axis=1)
    assert (weight[top] == 1).all()
    rest = weight[~top]
    assert rate == pytest.approx(top.sum() / rest.size)
    assert set(np.unique(rest)) <= {0.0, 1 / rate}
    # the sample stands for all the other wins: its weights add up to their number
    assert rest.sum() == pytest.approx(rest.size, rel=4 / np.sqrt(top.sum()))
    again, _ = _press_weights(x, win, 2, seed=7)
    assert (again == weight).all()  # the same seed samples the same wins
    # 2 wins outside the top share, 8 inside: all 10 values are exact
    few = np.array([5, 900, *range(39_000, 39_008)])
    x2 = np.linspace(0.0, 1.0, 40_000)[:, None]
    weight2, rate2 = _press_weights(x2, few, 1, seed=7)
    assert rate2 == 1.0 and (weight2 == 1).all()
