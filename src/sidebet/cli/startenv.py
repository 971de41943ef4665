"""Environment variables the command line sets for itself where the user has not.

numpy's OpenBLAS starts a thread per core when numpy is imported, for linear algebra no
command does (the kernels are sidebet's own; the simulator's workers are processes), so
``OPENBLAS_NUM_THREADS`` is 1 unless chosen.  :mod:`sidebet.cli.main` applies these
before any command module imports numpy; a resident process's fork applies them to the
client's environment, and its fingerprint reads the environment with them applied.

>>> with_defaults({"OPENBLAS_NUM_THREADS": "4"})["OPENBLAS_NUM_THREADS"]
'4'
>>> with_defaults({})["OPENBLAS_NUM_THREADS"]
'1'
"""

from __future__ import annotations

import os

__all__ = ["DEFAULTS", "apply", "with_defaults"]

DEFAULTS = {"OPENBLAS_NUM_THREADS": "1"}
"""Each variable's value where the user has not set one."""


def with_defaults(env: dict[str, str]) -> dict[str, str]:
    """``env`` with :data:`DEFAULTS` where it has no value."""
    return {**DEFAULTS, **env}


def apply() -> None:
    """Set :data:`DEFAULTS` in this process's environment where it has no value."""
    for name, value in DEFAULTS.items():
        os.environ.setdefault(name, value)
