"""The rules of one Blackjack hand, written once, in small integer codes.

* :mod:`~sidebet.regulation.base_game.codes`: rank classes, actions, decision codes and chart codes
  (parsed once into a first choice and a fallback);
* :mod:`~sidebet.regulation.base_game.legality`: which actions a hand may take, given the hand, the
  house rules and the phase;
* :mod:`~sidebet.regulation.base_game.payout`: how a finished hand settles, chip by chip.

Every function here is a plain function of integers and booleans, so the numba kernels
(:mod:`sidebet.sim.kernels`, :mod:`sidebet.exact.blackjack._kernels`) compile it and the table
engine (:mod:`sidebet.table.state`) and the exact analyser call it as plain Python.  None
of these modules imports numba or any other part of sidebet.
"""
