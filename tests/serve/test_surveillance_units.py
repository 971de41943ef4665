"""The server's surveillance in process (the services without HTTP): it reports while the
table's lock and the database's write lock are held by a request, values each round once
however often it is asked, and reports a log it cannot follow instead of failing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, select

from sidebet.serve.models import Event
from sidebet.serve.service.services import Services
from sidebet.serve.service.surveillance import Watch

from .harness import SIX_DECK
from .test_snapshots import _act, _player, _services

pytestmark = pytest.mark.postgres


def _rounds(sv: Services, t: int, players: list[Any], steps: int) -> None:
    for _ in range(steps):
        for seat, who in enumerate(players, 1):
            _act(sv, who, t, seat)


def _seated(sv: Services, *names: str) -> tuple[int, list[Any]]:
    """The 6-deck example table with ``names`` seated from seat 1."""
    t = sv.ensure_table(SIX_DECK, seats=7, time_limit=3600)
    players = [_player(sv, name) for name in names]
    for seat, who in enumerate(players, 1):
        sv.tables.sit(who, t, seat, None)
    return t, players


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Services, int, list[Any]]:
    sv = _services(tmp_path_factory.mktemp("watch-units"), surveillance_delay=0,
                   surveillance_warmup=2)
    t, players = _seated(sv, "watch-a", "watch-b")
    _rounds(sv, t, players, 8)
    return sv, t, players


def _ended(sv: Services, t: int) -> int:
    with sv.core.sessions() as s:
        return len(list(s.scalars(select(Event.seq).where(Event.table_id == t,
                                                          Event.kind == "round-end"))))


def test_a_report_waits_for_no_lock_of_the_table(table: tuple[Services, int, list[Any]]
                                                  ) -> None:
    sv, t, _ = table
    watch = Watch(sv.core, sv.core.settings)
    held, done = threading.Event(), threading.Event()

    def hold() -> None:  # a request of the table in its transaction
        with sv.core.lock(t), sv.core.writing():
            held.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        out: list[dict[str, Any]] = []
        reporter = threading.Thread(target=lambda: out.append(watch.report(t)))
        reporter.start()
        reporter.join(30)
        assert not reporter.is_alive(), "the report waited for the table's locks"
    finally:
        done.set()
        holder.join()
    assert out[0]["tables"][0]["rounds"] == _ended(sv, t) > 0


def test_each_round_is_valued_once(table: tuple[Services, int, list[Any]]) -> None:
    sv, t, players = table
    watch = Watch(sv.core, sv.core.settings)
    first = watch.report(t)["tables"][0]
    assert watch.report(t)["tables"][0] == first  # asked again: nothing new, nothing twice
    _rounds(sv, t, players, 4)
    again = watch.report(t, decisions=1000)["tables"][0]
    assert again["rounds"] == _ended(sv, t) > first["rounds"]
    seated = {p["player"] for p in again["players"]}
    assert seated == {"watch-a", "watch-b"}
    decided = {(d["game"], d["player"], d["wager"]) for d in again["decisions"]}
    assert len(decided) == len(again["decisions"]) == again["rounds"] * 2 * (
        1 + len(again["side_wagers"]))  # the Blackjack wager and each side wager


def test_a_log_it_cannot_follow_is_reported(tmp_path: Path) -> None:
    sv = _services(tmp_path, surveillance_delay=0)
    t, players = _seated(sv, "watch-c")
    _rounds(sv, t, players, 6)
    with sv.core.writing(), sv.core.sessions.begin() as s:  # the first round goes missing
        first = s.scalars(select(Event.seq).where(Event.table_id == t,
                                                  Event.kind == "round-end")).first()
        s.execute(delete(Event).where(Event.table_id == t, Event.seq == first))
    report = Watch(sv.core, sv.core.settings).report(t)["tables"][0]
    assert report["rounds"] == 0 and "a round is missing" in report["error"]
