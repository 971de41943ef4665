"""Exact blackjack analysis: dealer probabilities, decision EVs, strategy, house edge, Press.

See ``docs/blackjack.md``.

>>> from sidebet.regulation.house_rules import HouseRules
>>> basic_strategy(HouseRules(), 6).hard[(16, 9)]
'Rh'
"""

from sidebet.exact.blackjack.dealer import DealerOdds, dealer_probabilities
from sidebet.exact.blackjack.engine import Analysis, analyse
from sidebet.exact.blackjack.ev import DecisionEVs, decision_evs
from sidebet.exact.blackjack.house_edge import HouseEdge, house_edge
from sidebet.exact.blackjack.press import PressAdvice, PressChart, press_advice, press_chart
from sidebet.exact.blackjack.strategy import Strategy, basic_strategy, composition_strategy

__all__ = [
    "Analysis",
    "DealerOdds",
    "DecisionEVs",
    "HouseEdge",
    "PressAdvice",
    "PressChart",
    "Strategy",
    "analyse",
    "basic_strategy",
    "composition_strategy",
    "dealer_probabilities",
    "decision_evs",
    "house_edge",
    "press_advice",
    "press_chart",
]
