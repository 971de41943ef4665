"""The exact house edge agrees with a Monte Carlo run of the table engine itself.

The table engine (``sidebet.table``) plays seeded rounds with its default policy, the exact
total-dependent basic strategy for the table's rules; the mean result must lie within
three standard errors of :func:`sidebet.exact.blackjack.house_edge` for the same strategy.  (The
simulator's larger runs check the same thing to a much tighter interval.)
"""

from __future__ import annotations

import math

import pytest

from sidebet.exact.blackjack import house_edge
from sidebet.regulation.house_rules import BlackjackPays, HouseRules
from sidebet.regulation.submission import TableConfig
from sidebet.table import Table
from sidebet.table.policy import play_out

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "rules",
    [HouseRules(), HouseRules(dealer_hits_soft_17=True, blackjack_pays=BlackjackPays.SIX_TO_FIVE)],
    ids=["default", "h17-6to5"],
)
def test_engine_monte_carlo_agrees_with_exact_house_edge(rules: HouseRules) -> None:
    rounds = 12_000
    table = Table(TableConfig(decks=6, side_wagers={}, rules=rules), seats=1, seed=11,
                  chips=10**12)
    total = 0.0
    squares = 0.0
    for _ in range(rounds):
        state = table.new_round()
        state.place_bet(1, "blackjack", 100)
        state.close_bets()
        play_out(state)
        table.finish(state)
        net = state.ledger.player_net(1) / 100
        total += net
        squares += net * net
    mean = total / rounds
    standard_error = math.sqrt((squares / rounds - mean * mean) / rounds)
    exact = float(house_edge(6, rules, "td").player_ev)
    assert abs(mean - exact) < 3 * standard_error, (mean, exact, standard_error)
