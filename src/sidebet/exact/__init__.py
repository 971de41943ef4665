"""The exact analysers: PAR sheets, outcome tables, blackjack (:mod:`sidebet.exact.blackjack`).

Its modules define numba kernels, so numba's caches are checked first, before numba can be
imported (:mod:`sidebet.native.numba_cache`).
"""

from sidebet.native import numba_cache  # noqa: F401
