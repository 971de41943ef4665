"""The one builder: warm the caches and compile the kernels ahead of time.

``python -m sidebet.warm`` (run by ``make run``) runs :func:`sidebet.warm.steps.warm`;
:mod:`sidebet.warm.extension` builds the compiled extension that
:mod:`sidebet.native.extension` loads.  Nothing below this package imports it.
"""

# first, before numba can be imported (the extension's build): numba's caches are checked
from sidebet.native import numba_cache  # noqa: F401
