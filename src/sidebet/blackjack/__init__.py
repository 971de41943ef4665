"""Exact blackjack analysis: dealer probabilities, decision EVs, strategy, house edge, Press.

See ``docs/blackjack.md``.

>>> from sidebet.rules import HouseRules
>>> basic_strategy(HouseRules(), 6).hard[(16, 9)]
'Rh'
"""

from sidebet.blackjack.dealer import DealerOdds, dealer_probabilities
from sidebet.blackjack.engine import Analysis, analyse
from sidebet.blackjack.ev import DecisionEVs, decision_evs
from sidebet.blackjack.house_edge import HouseEdge, house_edge
from sidebet.blackjack.press import PressAdvice, PressChart, press_advice, press_chart
from sidebet.blackjack.strategy import Strategy, basic_strategy, composition_strategy

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
