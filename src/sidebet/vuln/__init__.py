"""Counting vulnerability of the side wagers: effects of removal, counts, perfect play,
the counter's simulation, countermeasures.

Modules: :mod:`~sidebet.vuln.eor` (exact effects of removal), :mod:`~sidebet.vuln.tags`
(count systems), :mod:`~sidebet.vuln.side_ev` and :mod:`~sidebet.vuln.side_ev_kernel` (exact EV
of a composition, kept up to date card by card), :mod:`~sidebet.vuln.counter` (the
simulation of a counter on real rounds) and :mod:`~sidebet.vuln.summary` (tables, JSON
and plots).  Import the submodules; this package imports nothing heavy.
"""
