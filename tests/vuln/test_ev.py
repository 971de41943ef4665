"""The incremental exact EV against par_sheet on depleted shoes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidebet.core.shoe import Shoe
from sidebet.exact.par import par_sheet
from sidebet.vuln.side_ev import ev_tables

SIDES = (("trilux", "TLX-1"), ("trilux", "TLX-3"), ("upcard-luck", "standard"),
         ("top3", "A"), ("top3", "B"), ("blazing7s", "A"), ("three-card-poker", "classic"))


def exact(counts: np.ndarray) -> list[float]:
    shoe = Shoe.from_counts(counts)
    return [float(par_sheet(w, shoe, p).expected_return) for w, p in SIDES]


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_incremental_ev_equals_par_sheet_along_a_shoe(decks: int) -> None:
    tables = ev_tables(SIDES)
    rng = np.random.default_rng(decks)
    full = np.full(52, decks, dtype=np.int64)
    order = rng.permutation(np.repeat(np.arange(52), decks))
    n = len(order)
    points = np.unique(np.r_[0, 1, 2, rng.integers(0, n - 3, 6), n - 3])
    got = tables.along(full, order, points)
    for p, row in zip(points, got, strict=True):
        left = full - np.bincount(order[:p], minlength=52)
        assert np.max(np.abs(row - exact(left))) < 1e-12, p


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=52, max_size=52).filter(lambda c: sum(c) >= 3))
def test_ev_of_any_composition_equals_par_sheet(counts: list[int]) -> None:
    c = np.array(counts, dtype=np.int64)
    got = ev_tables(SIDES).expected_returns(c)
    assert np.max(np.abs(got - exact(c))) < 1e-12


def test_bad_composition_is_refused() -> None:
    from sidebet.core.errors import SidebetError

    with pytest.raises(SidebetError):
        ev_tables(SIDES).expected_returns(np.zeros(52))
