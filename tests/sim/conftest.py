"""Fixtures of the simulator's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sidebet.sim import compiled, plain_kernel


@pytest.fixture(scope="module")
def plain(aot_built: Path) -> Iterator[Path]:
    """The session's cache folder, with the extension and the plain library built
    (``tests/conftest.py``), set as ``SIDEBET_CACHE_DIR`` for the module."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIDEBET_CACHE_DIR", str(aot_built))
        mp.delenv("SIDEBET_AOT", raising=False)
        assert compiled.load_extension() is not None and plain_kernel.available()
        yield aot_built
