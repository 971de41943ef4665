"""The one builder: warm the caches and compile the kernels ahead of time.

``python -m sidebet.warm`` (run by ``make run``) runs :func:`sidebet.warm.steps.warm`;
:mod:`sidebet.warm.extension` builds the compiled extension that
:mod:`sidebet.native.extension` loads.  Nothing below this package imports it.
"""
