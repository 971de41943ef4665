"""Sharing a kernel's work among threads (:mod:`sidebet.native.threads`)."""

from __future__ import annotations

import pytest

from sidebet.native import threads


def test_idle_cores_leave_out_the_busy_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "usable_cores", lambda: 4)
    for load, idle in ((0.0, 4), (0.9, 4), (1.5, 4), (2.2, 3), (3.9, 2), (4.0, 1), (50.0, 1)):
        monkeypatch.setattr(threads.os, "getloadavg", lambda value=load: (value,) * 3)
        assert threads.idle_cores() == idle


def test_run_parts_runs_every_part_and_raises_a_threads_error() -> None:
    done: list[int] = []

    def work(part: int) -> None:
        if part == 3:
            raise ValueError("part 3")
        done.append(part)

    with pytest.raises(ValueError, match="part 3"):
        threads.run_parts(work, [1, 2, 3, 4])
    assert sorted(done) == [1, 2, 4]  # the other parts still ran to the end
