"""A simulation's plan (:mod:`sidebet.sim.plan`): its file round trip, damaged files refused,
and its chunks equal to the spec's own, bit for bit."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidebet.regulation.house_rules import HoleCard, HouseRules
from sidebet.sim import (
    SimSpec,
    default_sides,
    resolve_sides,
    run_chunk,
    seed_key,
)
from sidebet.sim.plan import Plan, plan_of, play

SPECS = [
    SimSpec(decks=6, seats=2, sides=resolve_sides(list(default_sides(6)), 6), press="advice"),
    SimSpec(decks=1, seats=4, sides=resolve_sides(["trilux"], 1), press="all",
            rules=HouseRules(dealer_hits_soft_17=True, hole_card=HoleCard.AFTER_PLAYERS)),
    SimSpec(decks=8, seats=1, sides=(), bet=5),
]


@pytest.mark.parametrize("spec", SPECS, ids=["6d-advice", "1d-4seats-enhc", "8d-no-sides"])
def test_a_plan_plays_the_specs_chunks(plain: Path, spec: SimSpec) -> None:
    plan = Plan.load(plan_of(spec, 40.0).dump())
    key = seed_key(99)
    for shoe0, nshoes, rounds in ((0, 30, 10**9), (11, 9, 77)):
        assert play(plan, key, shoe0, nshoes, rounds) == run_chunk(spec, key, shoe0, nshoes,
                                                                   rounds)


def test_the_file_round_trip_is_exact() -> None:
    plan = plan_of(SPECS[1], 12.5)
    again = Plan.load(plan.dump())
    assert again.shape == plan.shape and again.rounds_per_shoe == 12.5
    assert {k: (d, bytes(b)) for k, (d, b) in again.arrays.items()} == \
        {k: (d, bytes(b)) for k, (d, b) in plan.arrays.items()}


@pytest.mark.parametrize("cut", [0, 5, 20, 200, -1, -7])
def test_a_damaged_file_is_refused(cut: int) -> None:
    data = plan_of(SPECS[0], 40.0).dump()
    with pytest.raises(ValueError, match="plan"):
        Plan.load(data[:cut])


def test_a_flipped_byte_is_a_value_error_or_a_whole_plan() -> None:
    """Whatever byte of the header is damaged, reading fails with a ValueError (the
    replay then takes the normal path) or gives a plan whose tables fill the file."""
    data = plan_of(SPECS[2], 40.0).dump()
    for at in range(0, 400, 3):
        bad = bytearray(data)
        bad[at] ^= 0x5A
        try:
            plan = Plan.load(bytes(bad))
        except ValueError:
            continue
        assert sum(len(b) for _, b in plan.arrays.values()) + 400 > len(data) // 2


def test_side_wagers_only_has_no_plan() -> None:
    with pytest.raises(ValueError, match="complete rounds"):
        plan_of(SimSpec(decks=6, sides=resolve_sides(["trilux"], 6), side_only=True), 40.0)
