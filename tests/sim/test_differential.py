"""The kernel against the table engine: the same seeded shoes, the same policies, the
identical per-round ledger (net per seat per wager).

The engine's default play policy (``BASIC``, the exact basic strategy for the table's
rules) is compared with the kernel's default strategy (``exact``), the engine's
``PressByAdvice`` with ``--press advice``; the published chart (``CHART`` /
``--strategy chart``) and the simple press rule are compared too."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidebet.core.cards import ALL_CARDS
from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard, HouseRules
from sidebet.regulation.wagers import get_wager
from sidebet.sim import SimSpec, default_sides, resolve_sides, run_orders
from sidebet.table import (
    BASIC,
    CHART,
    ExactStrategy,
    PressByAdvice,
    PressBySimpleRule,
    play_out,
)
from sidebet.table.dealing import shuffled_order

from .engine_compare import PLAY, PRESS, compare

CASES = [
    pytest.param(6, 3, HouseRules(), "advice", None, id="6d-3seats-default-advice"),
    pytest.param(6, 2, HouseRules(), "rule", None, id="6d-2seats-default-rule"),
    pytest.param(6, 1, HouseRules(), "all", Fraction(4, 5), id="6d-1seat-press-all"),
    pytest.param(6, 2, HouseRules(hole_card=HoleCard.AFTER_PLAYERS), "all", None,
                 id="no-peek"),
    pytest.param(6, 2, HouseRules(hole_card=HoleCard.AFTER_PLAYERS,
                                  dealer_blackjack_takes_doubles=True), "all", None,
                 id="no-peek-takes-doubles"),
    pytest.param(8, 2, HouseRules(dealer_hits_soft_17=True, resplit_aces=True,
                                  hit_split_aces=True, max_split_hands=4), "all", None,
                 id="h17-rsa-hsa-sp4"),
    pytest.param(2, 4, HouseRules(blackjack_pays=BlackjackPays.SIX_TO_FIVE,
                                  double=DoubleRule.TEN_OR_ELEVEN, late_surrender=False,
                                  max_split_hands=2), "all", None, id="2d-6to5-d10-sp2"),
    pytest.param(1, 7, HouseRules(), "all", Fraction(9, 10), id="1d-7seats-runs-out"),
    pytest.param(4, 1, HouseRules(double=DoubleRule.NINE_TO_ELEVEN, resplit_aces=True),
                 "advice", Fraction(1, 2), id="4d-d9-11-rsa"),
]

CHART_CASES = [
    pytest.param(6, 3, HouseRules(), "rule", None, id="chart-6d-3seats-default-rule"),
    pytest.param(6, 2, HouseRules(hole_card=HoleCard.AFTER_PLAYERS), "advice", None,
                 id="chart-no-peek-advice"),
    pytest.param(2, 4, HouseRules(blackjack_pays=BlackjackPays.SIX_TO_FIVE,
                                  double=DoubleRule.TEN_OR_ELEVEN, late_surrender=False,
                                  max_split_hands=2), "all", None, id="chart-2d-6to5-d10-sp2"),
    pytest.param(4, 1, HouseRules(double=DoubleRule.NINE_TO_ELEVEN, resplit_aces=True),
                 "rule", Fraction(1, 2), id="chart-4d-d9-11-rsa"),
]


def test_defaults_are_the_exact_strategy_and_advisor() -> None:
    """The engine's default play policy and the kernel's default strategy are the exact
    basic strategy; the engine's and the kernel's ``advice`` press the exact advisor."""
    assert SimSpec().strategy == "exact"
    assert PLAY["exact"] is BASIC and isinstance(BASIC, ExactStrategy)
    assert play_out.__defaults__ is not None and play_out.__defaults__[0] is BASIC
    assert PRESS["advice"] is PressByAdvice and PRESS["rule"] is PressBySimpleRule
    assert "exact" in BASIC.name and "exact" in PressByAdvice.name
    assert "chart" in CHART.name and "not exact" in PressBySimpleRule.name


def _check(decks: int, seats: int, rules: HouseRules, press: str, pen: Fraction | None,
           strategy: str) -> None:
    spec = SimSpec(decks=decks, seats=seats, rules=rules, press=press, penetration=pen,
                   strategy=strategy, sides=resolve_sides(list(default_sides(decks)), decks))
    rounds, mismatches = compare(spec, seed=5, rounds=600)
    assert rounds == 600
    assert not mismatches, "\n".join(
        f"round {m.round} seat {m.seat} {m.what}: engine {m.engine} kernel {m.kernel}\n  "
        + "\n  ".join(m.records) for m in mismatches[:2]
    )


@pytest.mark.slow
@pytest.mark.parametrize(("decks", "seats", "rules", "press", "pen"), CASES)
def test_kernel_matches_engine_round_by_round(decks: int, seats: int, rules: HouseRules,
                                              press: str, pen: Fraction | None) -> None:
    """The default engine policy (``BASIC``) against the default kernel strategy."""
    _check(decks, seats, rules, press, pen, SimSpec().strategy)


@pytest.mark.slow
@pytest.mark.parametrize(("decks", "seats", "rules", "press", "pen"), CHART_CASES)
def test_chart_kernel_matches_chart_engine(decks: int, seats: int, rules: HouseRules,
                                           press: str, pen: Fraction | None) -> None:
    """``--strategy chart`` against the engine's ``CHART``."""
    _check(decks, seats, rules, press, pen, "chart")


def test_no_double_after_split_matches_engine() -> None:
    spec = SimSpec(decks=6, seats=2, rules=HouseRules(double_after_split=False))
    _, mismatches = compare(spec, seed=5, rounds=1500)
    assert not mismatches


def test_side_only_rounds_deal_the_initial_cards() -> None:
    """Side-only rounds deal first cards, upcard, second cards, hole card; outcomes come
    from the outcome tables (checked here against the classifiers)."""
    spec = SimSpec(decks=6, seats=3, sides=resolve_sides(["trilux", "upcard-luck", "blazing7s"],
                                                         6), side_only=True)
    orders = np.stack([shuffled_order(6, 40 + k) for k in range(4)])
    run = run_orders(spec, orders, 10_000)
    inp = spec.inputs()
    per_round = 2 * 3 + 2
    rounds_per_shoe = -(-spec.cut // per_round)
    assert run.result.rounds == 4 * rounds_per_shoe
    for r in range(run.result.rounds):
        shoe, k = divmod(r, rounds_per_shoe)
        cards = orders[shoe, k * per_round:(k + 1) * per_round]
        up = ALL_CARDS[cards[3]]
        for s in range(3):
            first, second = ALL_CARDS[cards[s]], ALL_CARDS[cards[4 + s]]
            combo = int(run.trace[r, s])
            for w, wid in enumerate(inp.wagers):
                want = get_wager(wid).outcome(first, second, up)
                assert inp.outcome_ids[w][inp.combo_outcomes[combo, w]] == want


EXACT_RULES = [
    pytest.param(6, HouseRules(), id="6d-default"),
    pytest.param(2, HouseRules(dealer_hits_soft_17=True, resplit_aces=True,
                               hit_split_aces=True, max_split_hands=4), id="2d-h17-rsa-hsa"),
    pytest.param(8, HouseRules(hole_card=HoleCard.AFTER_PLAYERS,
                               double=DoubleRule.NINE_TO_ELEVEN), id="8d-no-peek-d9-11"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("decks", "rules"), EXACT_RULES)
@pytest.mark.parametrize("press", ["all", "advice"])
def test_exact_strategy_arrays_play_like_the_analyser(decks: int, rules: HouseRules,
                                                      press: str) -> None:
    """``--strategy exact``: the kernel's arrays play the exact analyser's basic strategy
    exactly as the engine's :class:`ExactStrategy` (``Strategy.action``) does."""
    spec = SimSpec(decks=decks, seats=3, rules=rules, strategy="exact", press=press,
                   sides=resolve_sides(list(default_sides(decks)), decks))
    _, mismatches = compare(spec, seed=9, rounds=600, play=ExactStrategy())
    assert not mismatches, "\n".join(
        f"round {m.round} seat {m.seat} {m.what}: engine {m.engine} kernel {m.kernel}\n  "
        + "\n  ".join(m.records) for m in mismatches[:2]
    )


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10**6),
    decks=st.sampled_from([1, 2, 4, 6, 8]),
    seats=st.integers(1, 7),
    press=st.sampled_from(["none", "all", "rule"]),  # advice: the cases above (2 s each)
    strategy=st.sampled_from(["exact", "chart"]),
    pen=st.sampled_from([None, Fraction(1, 2), Fraction(9, 10)]),
    bet=st.integers(1, 5),
    h17=st.booleans(),
    pays=st.sampled_from(list(BlackjackPays)),
    double=st.sampled_from(list(DoubleRule)),
    das=st.booleans(),
    hands=st.integers(2, 4),
    rsa=st.booleans(),
    hsa=st.booleans(),
    ls=st.booleans(),
    hole=st.sampled_from(list(HoleCard)),
    doubles=st.booleans(),
)
def test_random_tables_match_engine(seed: int, decks: int, seats: int, press: str,
                                    strategy: str, pen: Fraction | None, bet: int, h17: bool,
                                    pays: BlackjackPays, double: DoubleRule, das: bool,
                                    hands: int, rsa: bool, hsa: bool, ls: bool,
                                    hole: HoleCard, doubles: bool) -> None:
    rules = HouseRules(dealer_hits_soft_17=h17, blackjack_pays=pays, double=double,
                       double_after_split=das, max_split_hands=hands, resplit_aces=rsa,
                       hit_split_aces=hsa, late_surrender=ls, hole_card=hole,
                       dealer_blackjack_takes_doubles=doubles)
    spec = SimSpec(decks=decks, seats=seats, rules=rules, press=press, penetration=pen,
                   strategy=strategy, bet=bet, side_bet=bet, sides=resolve_sides(list(default_sides(decks)), decks))
    _, mismatches = compare(spec, seed=seed, rounds=120)
    assert not mismatches, "\n".join(
        f"round {m.round} seat {m.seat} {m.what}: engine {m.engine} kernel {m.kernel}\n  "
        + "\n  ".join(m.records) for m in mismatches[:1]
    )
