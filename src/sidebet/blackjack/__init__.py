"""Exact blackjack analysis: dealer probabilities, decision EVs, strategy, house edge, Press."""
