"""The shape of a run (:class:`sidebet.sim.shape.RunShape`): taken from the spec, exact
through JSON, and all the results need: a result rebuilt from the shape's JSON and the
tally says and prints the same as the run's own."""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction

import pytest
from rich.console import Console

from sidebet.cli.sim_render import render
from sidebet.regulation.house_rules import BlackjackPays, HouseRules
from sidebet.regulation.wagers import get_wager
from sidebet.sim import SimSpec, resolve_sides, simulate
from sidebet.sim.counters import ChunkResult, Tally, nonzero
from sidebet.sim.results import SimResult
from sidebet.sim.schedule import estimated_rounds_per_shoe
from sidebet.sim.shape import RunShape, run_shape

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
def test_the_shape_is_the_specs_and_goes_through_json_exactly(spec: SimSpec) -> None:
    shape = run_shape(spec)
    text = json.dumps(shape.to_json())
    assert RunShape.from_json(json.loads(text)) == shape
    inputs = spec.inputs()
    assert (shape.decks, shape.seats, shape.cut, shape.bet, shape.side_bet, shape.press,
            shape.side_only) == (spec.decks, spec.seats, spec.cut, spec.bet, spec.side_bet,
                                 spec.press, spec.side_only)
    assert shape.rules_text == spec.rules.describe()
    assert dict(shape.rules)["dealer_hits_soft_17"] is spec.rules.dealer_hits_soft_17
    assert (shape.n_combos, shape.hist_off, shape.press_source) == (
        inputs.n_combos, inputs.hist_off, inputs.press_source)
    assert shape.side_wagers == dict(spec.sides)
    # a replayed run plans (and reports) its chunks as the spec's run does
    assert estimated_rounds_per_shoe(shape) == estimated_rounds_per_shoe(spec)
    for w, side in enumerate(shape.sides):
        wager = get_wager(side.wager)
        assert side.name == wager.name and side.outcome_ids == wager.outcome_ids
        assert side.pays == tuple(wager.paytable(side.paytable).pays(o)
                                  for o in wager.outcome_ids)
        assert list(side.combo_outcomes) == inputs.combo_outcomes[:, w].tolist()


def test_bad_shape_json_is_refused() -> None:
    data = run_shape(SPECS["seats-press-advice"]).to_json()
    for key, bad in (("seats", "3"), ("side_only", 1), ("rules", [1])):
        with pytest.raises(ValueError):
            RunShape.from_json({**data, key: bad})
    side = data["sides"][0]
    for column in ([*side["combo_outcomes"][:-1], True], "0,1", 3):
        with pytest.raises(ValueError, match="not a list of integers"):
            RunShape.from_json({**data, "sides": [{**side, "combo_outcomes": column}]})


def _printed(result: SimResult) -> str:
    out = io.StringIO()
    Console(file=out, width=100, highlight=False).print(render(result))
    return out.getvalue()


@pytest.mark.parametrize("name", ["side-only-2-decks", "seats-press-advice",
                                  "custom-pays-press-all"])
def test_a_result_from_the_shapes_json_says_the_same(name: str) -> None:
    """What the replay does: the shape and the counters from JSON, the results and the
    table computed from them alone."""
    result = simulate(SPECS[name], 3_000, seed=1, with_exact=False)
    shape = RunShape.from_json(json.loads(json.dumps(result.shape.to_json())))
    tally = Tally(shape.n_combos)
    t = result.tally
    combo_index, combo_count = nonzero(t.combo_counts)
    tally.add(ChunkResult(rounds=t.rounds, shoes=t.shoes, stats=tuple(t.stats),
                          combo_index=combo_index, combo_count=combo_count,
                          hist_index=tuple(t.hist), hist_count=tuple(t.hist.values()),
                          round2=tuple(t.round2), seats=tuple(tuple(row) for row in t.seats)))
    again = dataclasses.replace(result, shape=shape, tally=tally)
    assert again.to_json() == result.to_json()
    assert _printed(again) == _printed(result)


def test_a_chunk_of_another_size_is_refused() -> None:
    tally = Tally(3)
    tally.add(ChunkResult(1, 1, (1, 0, 0), (2,), (1,), (), ()))
    with pytest.raises(ValueError, match="2 counters added to 3"):
        tally.add(ChunkResult(1, 1, (1, 0), (2,), (1,), (), ()))
    assert tally.combo_counts == [0, 0, 1]
