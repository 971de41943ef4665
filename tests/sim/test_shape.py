"""The shape of a run (:class:`sidebet.sim.shape.RunShape`): taken from the spec."""

from __future__ import annotations

from fractions import Fraction

import pytest

from sidebet.regulation.house_rules import BlackjackPays, HouseRules
from sidebet.regulation.wagers import get_wager
from sidebet.sim import SimSpec, resolve_sides
from sidebet.sim.counters import ChunkResult, Tally
from sidebet.sim.schedule import estimated_rounds_per_shoe
from sidebet.sim.shape import run_shape

SPECS = {
    "side-only-2-decks": SimSpec(decks=2, seats=3, side_only=True,
                                 sides=resolve_sides(["trilux", "top3", "blazing7s"], 2)),
    "seats-press-advice": SimSpec(seats=3, press="advice",
                                  sides=resolve_sides(["trilux", "blazing7s"], 6)),
    "press-rule-h17-6to5": SimSpec(
        seats=2, press="rule", sides=resolve_sides(["trilux"], 6), bet=5, side_bet=2,
        rules=HouseRules(dealer_hits_soft_17=True, blackjack_pays=BlackjackPays.SIX_TO_FIVE),
        penetration=Fraction(2, 3)),
    "custom-pays-press-all": SimSpec(
        seats=1, press="all", sides=resolve_sides(
            ["trilux", "upcard-luck", "blazing7s"], 6,
            {"blazing7s": "custom:5000/2000/500/250/40/3"})),
    "no-side-chart": SimSpec(sides=(), strategy="chart"),
}


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_the_shape_is_the_specs(spec: SimSpec) -> None:
    shape = run_shape(spec)
    inputs = spec.inputs()
    assert (shape.decks, shape.seats, shape.cut, shape.bet, shape.side_bet, shape.press,
            shape.side_only) == (spec.decks, spec.seats, spec.cut, spec.bet, spec.side_bet,
                                 spec.press, spec.side_only)
    assert shape.rules_text == spec.rules.describe()
    assert (shape.n_combos, shape.hist_off, shape.press_source) == (
        inputs.n_combos, inputs.hist_off, inputs.press_source)
    assert shape.side_wagers == dict(spec.sides)
    assert estimated_rounds_per_shoe(shape) == estimated_rounds_per_shoe(spec)
    for w, side in enumerate(shape.sides):
        wager = get_wager(side.wager)
        assert side.name == wager.name and side.outcome_ids == wager.outcome_ids
        assert side.pays == tuple(wager.paytable(side.paytable).pays(o)
                                  for o in wager.outcome_ids)
        assert list(side.combo_outcomes) == inputs.combo_outcomes[:, w].tolist()


def test_a_chunk_of_another_size_is_refused() -> None:
    tally = Tally(3)
    tally.add(ChunkResult(1, 1, (1, 0, 0), (2,), (1,), (), ()))
    with pytest.raises(ValueError, match="2 counters added to 3"):
        tally.add(ChunkResult(1, 1, (1, 0), (2,), (1,), (), ()))
    assert tally.combo_counts == [0, 0, 1]
