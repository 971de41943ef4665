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
from sidebet.regulation.base_game.codes import rank_class
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.wagers import PRESSABLE
from sidebet.regulation.wagers.trilux import classify
from sidebet.sim.chunk import run_marked, seed_key
from sidebet.vuln.counter import counter_spec
from sidebet.vuln.press_counter import (
    EXACT_SHARE,
    MIN_SAMPLED_BETS,
    _press_weights,
    press_chunk,
    press_counter,
    press_value,
)
from sidebet.vuln.press_perfect import perfect_values, press_gain

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


def test_press_gain_is_every_winning_deal_pressed_by_its_exact_value() -> None:
    """A round's expected Press gain at a 24-card shoe (one deck's aces, sixes to nines and
    tens), summed deal by deal in exact fractions, each win pressed by ``press_value``."""
    kinds = np.array([1 if rank_class(c) in (0, 5, 6, 7, 8, 9) else 0 for c in ALL_CARDS])
    paytable = "TLX-1"
    pays = {line.outcome: line.pays for line in PRESSABLE.paytable(paytable).lines}
    rules = HouseRules()
    before = tuple(int(v) for v in np.bincount([rank_class(c) for c in ALL_CARDS],
                                               kinds, minlength=10))
    n = int(kinds.sum())
    want = Fraction(0)
    left = [int(v) for v in kinds]
    for i in range(52):
        for k in range(52):
            for j in range(52):
                ways = left[i] * (left[k] - (k == i)) * (left[j] - (j == i) - (j == k))
                res = classify(ALL_CARDS[i], ALL_CARDS[j], ALL_CARDS[k]) if ways > 0 else None
                if res is None:
                    continue
                a, b = sorted((rank_class(ALL_CARDS[i]), rank_class(ALL_CARDS[j])))
                value = press_value(before, (a, b), rank_class(ALL_CARDS[k]), rules)
                want += Fraction(ways, n * (n - 1) * (n - 2)) * pays[res] * Fraction(
                    max(value, 0.0))
    assert press_gain(kinds, paytable, rules) == pytest.approx(float(want), abs=1e-12)


def test_perfect_play_with_the_press_values_the_best_rounds_and_a_sample() -> None:
    """The rounds of highest TriLux EV are valued, and as many others sampled; a round is
    bet exactly when its EV plus its exact Press gain is positive."""
    spec = counter_spec("trilux", 1, counts=("suits",))
    got = press_counter(spec, 3_000, 4, perfect_budget=6)
    assert got.perfect is not None and 6 <= got.perfect_evaluations <= 30
    assert got.perfect_sample_rate == pytest.approx(6 / (got.rounds - 6))
    perfect = got.to_json()["perfect_play"]
    assert perfect["evaluations"] == got.perfect_evaluations
    # so few rounds sampled cannot have MIN_SAMPLED_BETS bets among them: not judged
    assert got.perfect_sampled_bets <= got.perfect_evaluations < MIN_SAMPLED_BETS
    assert perfect["sampled_bets"] == got.perfect_sampled_bets and not perfect["established"]
    ev = np.array([-0.3, 0.2, -0.01, -0.5])
    kinds = {i: np.full(52, 1, dtype=np.int64) for i in range(4)}
    gain = press_gain(kinds[0], "TLX-1", HouseRules())
    pv = perfect_values(ev, kinds.__getitem__, "TLX-1", HouseRules(), 4, seed=1)
    assert pv.evaluations == 4 and pv.sample_rate == 1.0
    bet = ev + gain > 0
    assert (pv.bets == bet).all() and pv.value == pytest.approx(np.where(bet, ev + gain, 0))


def test_press_counter_reports_each_stage_and_is_the_same_on_threads(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each stage is reported from nothing to its whole (rounds, Press values, perfect
    play's rounds valued), and sharing the exact values among threads changes nothing."""
    from sidebet.native import threads
    from sidebet.vuln.press_counter import PRESS_STAGE, SIM_STAGE
    from sidebet.vuln.press_perfect import PERFECT_STAGE

    spec = counter_spec("trilux", 2, counts=("suits",))
    got = []
    for cores in (1, 2):
        monkeypatch.setattr(threads, "idle_cores", lambda k=cores: k)
        seen: dict[str, list[tuple[int, int]]] = {}
        result = press_counter(spec, 2_000, 3, perfect_budget=3,
                               progress=lambda s, d, w, m=seen: m.setdefault(s, []).append((d, w)))
        got.append(result.to_json())
        assert list(seen) == [SIM_STAGE, PRESS_STAGE, PERFECT_STAGE]
        assert seen[PRESS_STAGE][-1] == (result.evaluations, result.evaluations)
        assert seen[PERFECT_STAGE][-1] == (result.perfect_evaluations,) * 2
        for marks in seen.values():
            assert marks[0][0] == 0 and [d for d, _ in marks] == sorted(d for d, _ in marks)
    assert got[0] == got[1]
