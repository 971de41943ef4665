"""``sidebet simulate`` prints what ``tests/fixtures/simulate/`` holds (written by
``tests/fixtures/making/make_simulate.py``), byte for byte but
for the elapsed time and the rate."""

from __future__ import annotations

import pytest
from tests.fixtures.making import FIXTURES
from tests.fixtures.making.make_simulate import CASES, FOLDER, masked, simulate


@pytest.mark.parametrize("name", CASES)
def test_simulate_prints_what_it_printed(name: str) -> None:
    want = (FIXTURES / FOLDER / f"{name}.txt").read_text(encoding="utf-8")
    assert masked(simulate(name)) == masked(want)
