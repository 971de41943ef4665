"""Exact PAR sheets: brute force, published figures and hand-checked totals."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidebet.core.cards import ALL_CARDS, Card
from sidebet.core.errors import ShoeError
from sidebet.core.shoe import Shoe
from sidebet.exact.outcomes import outcome_table
from sidebet.exact.par import all_par_sheets, count_outcomes, par_sheet
from sidebet.regulation.wagers import LOSE, WAGERS, get_wager


def brute_force(wager_id: str, shoe: Shoe) -> Counter[str]:
    """Count ordered draws of three physical cards; halve for unordered player pairs."""
    wager = get_wager(wager_id)
    physical = [ALL_CARDS[i] for i, n in enumerate(shoe.counts) for _ in range(n)]
    ordered: Counter[str] = Counter()
    for a, b, c in itertools.permutations(range(len(physical)), 3):
        ordered[wager.outcome(physical[a], physical[b], physical[c])] += 1
    assert all(n % 2 == 0 for n in ordered.values())
    return Counter({k: n // 2 for k, n in ordered.items()})


# Small compositions: a handful of card kinds with up to 3 copies each, which reaches
# the multi-deck-only hands (three identical cards) that matter for Top 3 and Blazing 7's.
_interesting = [Card.parse(t).index for t in
                ("7d", "7h", "7s", "7c", "As", "Js", "Qs", "2h", "3h", "Kh", "Ah", "9c", "5d")]
compositions = st.dictionaries(
    st.sampled_from(_interesting + list(range(52))), st.integers(1, 3), min_size=2, max_size=7
).filter(lambda d: sum(d.values()) >= 3)


@settings(max_examples=40, deadline=None)
@given(composition=compositions, wager_id=st.sampled_from(sorted(WAGERS)))
def test_exact_counts_equal_brute_force(composition: dict[int, int], wager_id: str) -> None:
    counts = [0] * 52
    for index, n in composition.items():
        counts[index] = n
    shoe = Shoe.from_counts(counts)
    sheet = par_sheet(wager_id, shoe)
    expected = brute_force(wager_id, shoe)
    assert {line.outcome: line.combinations for line in sheet.lines if line.combinations} == {
        k: v for k, v in expected.items() if v
    }
    assert sheet.total_combinations == sum(expected.values())


@pytest.mark.parametrize("wager_id", sorted(WAGERS))
def test_one_deck_brute_force(wager_id: str) -> None:
    # A whole deck by brute force over unordered player pairs (faster than permutations).
    wager = get_wager(wager_id)
    expected: Counter[str] = Counter()
    for i, j in itertools.combinations(range(52), 2):
        for k in range(52):
            if k not in (i, j):
                expected[wager.outcome(ALL_CARDS[i], ALL_CARDS[j], ALL_CARDS[k])] += 1
    sheet = par_sheet(wager_id, 1)
    assert {line.outcome: line.combinations for line in sheet.lines} == {
        o: expected.get(o, 0) for o in wager.outcome_ids
    }


def test_six_deck_total_combinations() -> None:
    # The published figure: unordered player pair × upcard from 6 decks.
    assert par_sheet("trilux", 6).total_combinations == 15_039_960


@pytest.mark.parametrize(("decks", "edge"), [(6, "3.2386%"), (8, "2.7360%")])
def test_published_21_plus_3(decks: int, edge: str) -> None:
    sheet = par_sheet("three-card-poker", decks, "classic")
    assert f"{float(sheet.house_edge):.4%}" == edge


def test_top3_six_decks_exact() -> None:
    sheet = par_sheet("top3", 6, "A")
    assert sheet.house_edge == Fraction(13878, 125333)
    # Suited three-of-a-kind from 6 decks: 52 kinds × C(6,2) pairs × 4 upcards left.
    assert sheet.line("suited_three_of_a_kind").combinations == 52 * 15 * 4


def test_blazing_three_diamond_sevens_need_three_decks() -> None:
    assert par_sheet("blazing7s", 2).line("three_sevens_diamonds").combinations == 0
    assert par_sheet("blazing7s", 3).line("three_sevens_diamonds").combinations == 3  # C(3,2)·1
    six = par_sheet("blazing7s", 6)
    assert six.line("three_sevens_diamonds").combinations == 15 * 4
    # Two player sevens with a non-seven upcard: C(24,2) pairs × 288 non-sevens.
    assert six.line("two_sevens").combinations == 276 * 288


def test_upcard_luck_ace_jack_spades_count() -> None:
    sheet = par_sheet("upcard-luck", 6)
    # A♠ × J♠ pairs (36) × upcards 2-7 (6 ranks × 24 cards).
    assert sheet.line("ace_jack_spades").combinations == 36 * 144


def test_statistics_are_consistent() -> None:
    sheet = par_sheet("blazing7s", 6)
    probabilities = [line.probability for line in sheet.lines]
    assert sum(probabilities) == 1
    ev = sum(line.probability * line.pays for line in sheet.lines)
    assert sheet.expected_return == ev == -sheet.house_edge
    second = sum(line.probability * line.pays**2 for line in sheet.lines)
    assert sheet.variance == second - ev**2
    assert sheet.hit_frequency == 1 - sheet.line(LOSE).probability
    assert sheet.std_dev == pytest.approx(float(sheet.variance) ** 0.5)


def test_depleted_shoe_and_removal_errors() -> None:
    full = par_sheet("blazing7s", 6)
    fewer = par_sheet("blazing7s", Shoe.standard(6).remove("7d 7d 7d 7d 7d"))
    assert fewer.line("three_sevens_diamonds").combinations == 0
    assert fewer.total_combinations < full.total_combinations
    with pytest.raises(ShoeError, match="7♦"):
        Shoe.standard(1).remove("7d 7d")
    with pytest.raises(ShoeError, match="fewer than three cards"):
        par_sheet("trilux", Shoe.from_counts([1, 1] + [0] * 50))


def test_noncompliant_paytable_is_analysed_and_flagged() -> None:
    sheet = par_sheet("trilux", 6, "TLX-1")
    assert not sheet.compliant
    assert sheet.violations[0].startswith("§ 633c.11(i)")
    assert par_sheet("trilux", 1, "TLX-1").compliant
    assert not par_sheet("upcard-luck", 2).compliant
    assert par_sheet("upcard-luck", 2).violations[0].startswith("§ 633b.15(b)")


def test_all_sheets_cover_every_wager_paytable_and_deck_count() -> None:
    sheets = all_par_sheets()
    expected = sum(len(w.paytables) for w in WAGERS.values()) * 8
    assert len(sheets) == expected
    assert {(s.wager, s.paytable) for s in sheets if s.decks == 6 and s.compliant} == {
        ("trilux", "TLX-3"), ("upcard-luck", "standard"), ("top3", "A"), ("top3", "B"),
        ("blazing7s", "A"), ("three-card-poker", "classic"),
    }


def test_outcome_table_is_symmetric_and_matches_classifier() -> None:
    for wager_id, wager in WAGERS.items():
        table = outcome_table(wager_id)
        assert np.array_equal(table, table.transpose(1, 0, 2))
        rng = np.random.default_rng(7)
        for i, j, k in rng.integers(0, 52, size=(300, 3)):
            outcome = wager.outcome(ALL_CARDS[i], ALL_CARDS[j], ALL_CARDS[k])
            assert wager.outcome_ids[table[i, j, k]] == outcome


def test_count_outcomes_accepts_arrays() -> None:
    shoe = Shoe.standard(2).remove("As Ks")
    assert count_outcomes("trilux", shoe.array()).tolist() == count_outcomes("trilux", shoe).tolist()


def test_json_shape() -> None:
    data = par_sheet("top3", 6).to_json()
    assert data["exact"]["house_edge"] == "13878/125333"
    assert data["outcomes"][-1] == {**data["outcomes"][-1], "outcome": "lose", "pays": -1}
    assert set(data) >= {"wager", "decks", "paytable", "compliant", "violations",
                         "total_combinations", "outcomes", "house_edge", "hit_frequency",
                         "variance", "std_dev", "exact"}
