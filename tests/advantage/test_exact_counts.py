"""Generated indices and count properties from the exact analysis."""

from __future__ import annotations

import numpy as np
import pytest

from sidebet.advantage.counts import CountSystem, named_system
from sidebet.advantage.generate import depleted_shoe, generate, insurance_crossing
from sidebet.advantage.indices import parse_plays
from sidebet.advantage.properties import card_vector, correlation, insurance_eor
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.strategy_tables import strategy_arrays
from sidebet.vuln.eor import effects_of_removal
from sidebet.vuln.tags import betting_correlation


def test_generated_hilo_insurance_index_at_six_decks_is_plus_three() -> None:
    hilo = named_system("hi-lo")
    assert round(insurance_crossing(hilo, 6)) == 3
    (row,) = generate(parse_plays("ins@0"), hilo, HouseRules(), 6)
    assert row.index == 3 and row.text == "ins@3"
    shoe, tc = depleted_shoe(hilo, 3, 4)
    assert sum(shoe) == 156 and 3.5 < tc < 4.5 and shoe[9] > 48  # tens rich
    with pytest.raises(Exception, match="balanced"):
        depleted_shoe(named_system("ko"), 3, 1)


def test_generated_fifteen_v_ten_surrender_near_zero() -> None:
    """Fab 4: surrender 15 v T from 0 (Hi-Lo, 6 decks, S17): the exact analyser's
    crossing on depleted shoes."""
    (row,) = generate(parse_plays("15vT:Rh@9"), named_system("hi-lo"), HouseRules(), 6,
                      counts=range(-2, 3), basic=strategy_arrays(HouseRules(), 6))
    assert row.against == "hit" and row.index == 0


def test_tags_equal_to_the_effects_of_removal_correlate_fully() -> None:
    ins = card_vector(insurance_eor(6))
    tags = CountSystem("ins", tuple(round(x * 1e6) for x in ins))
    assert correlation(tags.values, ins) == pytest.approx(1.0, abs=1e-9)
    assert correlation(named_system("hi-lo").values, ins) == pytest.approx(0.76, abs=0.01)
    eor = effects_of_removal("blazing7s", 6)
    exact = [round(float(e.exact) * 1e4) for e in eor.effects]
    assert betting_correlation(exact, eor) == pytest.approx(1.0, abs=1e-6)
    assert np.isclose(correlation(ins, -ins), -1.0)
