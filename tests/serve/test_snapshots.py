"""Snapshots and retention: a table loaded from its last snapshot is the table replayed from
its whole log; a snapshot the chain does not vouch for is refused; a retry's answer holds
a reference to the table's state, not the state; expired answers are purged.

In process, on a fresh database (SQLite, or PostgreSQL in the ``postgres`` lane): the
services without HTTP, since what is tested is the log, not the transport
(``test_recovery.py`` restarts real processes)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from sidebet.serve.db import make_engine
from sidebet.serve.models import Event, IdempotentRequest, TableSnapshot
from sidebet.serve.security import Caller
from sidebet.serve.service.services import Services
from sidebet.serve.settings import load_settings
from sidebet.table import Step

from .harness import ROUTE_STEPS, SIX_DECK, database_url, simple_action

pytestmark = pytest.mark.postgres


def _services(tmp: Path, **settings: Any) -> Services:
    url = database_url(tmp)
    return Services.open(make_engine(url), load_settings(
        database_url=url, operator_password="operator-secret-1", test_seed="tests",
        **settings))


def _player(sv: Services, name: str) -> Caller:
    sv.accounts.create(name, "password-" + name)
    me = sv.accounts.authenticate(sv.accounts.login(name, "password-" + name)["token"])
    sv.wallet.move(me, "deposit", "1000.00", uuid.uuid4().hex)
    return me


def _act(sv: Services, who: Caller, t: int, seat: int) -> bool:
    """One simple legal action of ``seat`` through the services; False if it has none."""
    chosen = simple_action(sv.tables.published(t).view, seat)
    if chosen is None:
        return False
    route, body = chosen
    body = body or {}
    sv.rounds.act(who, t, seat, ROUTE_STEPS[route], body.get("amount"), body.get("wager"),
                  key=uuid.uuid4().hex)
    return True


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Services, int]:
    """A table with two players after some rounds, a snapshot every 8 events."""
    sv = _services(tmp_path_factory.mktemp("snap"), snapshot_every=8)
    _, info = sv.tables.create(sv.accounts.operator(), SIX_DECK, seats=7, unit="1.00",
                               time_limit=3600, default_action="stand", key=None)
    t = int(info["id"])
    players = [_player(sv, "snap-a"), _player(sv, "snap-b")]
    for seat, who in enumerate(players, 1):
        sv.tables.sit(who, t, seat, None)
    for _ in range(24):
        for seat, who in enumerate(players, 1):
            _act(sv, who, t, seat)
    _act(sv, players[0], t, 1)  # a round in progress
    return sv, t


def test_loaded_from_a_snapshot_is_replayed_from_the_whole_log(
        played: tuple[Services, int]) -> None:
    sv, t = played
    with sv.core.sessions() as s:
        snaps = list(s.scalars(select(TableSnapshot.seq).where(TableSnapshot.table_id == t)))
        kinds = [k for k in s.scalars(select(Event.kind).where(Event.table_id == t))]
    assert len(snaps) >= 3 and kinds.count("snapshot") == len(snaps)
    fast, full, live = sv.core.load(t), sv.core.load(t, snapshots=False), sv.core.live(t)
    assert fast.snapshot_seq == max(snaps) and full.snapshot_seq == 0
    for table in (fast, full):
        assert (table.seq, table.head, table.round_no) == (live.seq, live.head, live.round_no)
    assert fast.view() == full.view() and fast.published == full.published
    assert fast.state is not None and full.state is not None and live.state is not None
    assert fast.state.records == full.state.records == live.state.records


def test_a_snapshot_the_chain_does_not_vouch_for_is_skipped_and_reported(
        played: tuple[Services, int], tmp_path: Path) -> None:
    """A damaged snapshot does not stop the server: the table is rebuilt from its whole
    log and the fault reported (``GET /api/reconcile``'s ``faults``)."""
    sv, t = played
    full = sv.core.load(t, snapshots=False).view()
    with sv.core.sessions.begin() as s:
        snap = s.scalars(select(TableSnapshot).where(TableSnapshot.table_id == t)
                         .order_by(TableSnapshot.seq.desc())).first()
        assert snap is not None
        honest = snap.state
        snap.state = honest.replace('"snap-b"', '"snap-x"')
    sv.core.faults.clear()
    loaded = sv.core.load(t)
    assert loaded.snapshot_seq == 0 and loaded.view() == full
    assert len(sv.core.faults) == 1
    assert "not the state its snapshot event records" in sv.core.faults[0]
    assert "rebuilt from its whole log" in sv.core.faults[0]
    with sv.core.sessions.begin() as s:
        s.execute(update(TableSnapshot).where(TableSnapshot.table_id == t,
                                              TableSnapshot.seq == snap.seq)
                  .values(state=honest, head="0" * 64))
    assert sv.core.load(t).view() == full
    assert "does not match the log's hash chain" in sv.core.faults[-1]
    with sv.core.sessions.begin() as s:
        s.execute(update(TableSnapshot).where(TableSnapshot.table_id == t,
                                              TableSnapshot.seq == snap.seq)
                  .values(head=snap.head, state="{not json"))
    sv.core.load_all()  # as at a start: the server comes up
    assert sv.core.live(t).view() == full and "cannot be read" in sv.core.faults[-1]
    assert sv.operator.reconcile()["faults"] == sv.core.faults
    with sv.core.sessions.begin() as s:
        s.execute(update(TableSnapshot).where(TableSnapshot.table_id == t,
                                              TableSnapshot.seq == snap.seq)
                  .values(state=honest))
    sv.core.faults.clear()
    assert sv.core.load(t).view() == full and sv.core.faults == []


def test_answers_hold_a_reference_to_the_state_and_expire(tmp_path: Path) -> None:
    sv = _services(tmp_path, idempotency_ttl=60)
    _, info = sv.tables.create(sv.accounts.operator(), SIX_DECK, seats=7, unit="1.00",
                               time_limit=3600, default_action="stand", key=None)
    t = int(info["id"])
    who = _player(sv, "ref-a")
    sv.tables.sit(who, t, 1, None)
    first = sv.rounds.act(who, t, 1, Step.BET, "10.00", "blackjack", key="k1")
    with sv.core.sessions() as s:
        row = s.get(IdempotentRequest, (who.id, "k1"))
        assert row is not None and '"state@":true' in row.response
        assert '"seats"' not in row.response
    sv.core.reload(t)
    sv.core.answers.clear()  # as after a restart: the answer comes from the database
    again = sv.rounds.act(who, t, 1, Step.BET, "10.00", "blackjack", key="k1")
    assert again[0] == first[0] and again[1]["state"] == sv.core.live(t).published.view
    assert {**again[1], "state": None} == {**first[1], "state": None}
    with sv.core.sessions.begin() as s:
        s.execute(update(IdempotentRequest).values(at="2000-01-01T00:00:00.000000Z"))
    assert sv.core.purge_answers() >= 2  # the deposit's and the bet's
    with sv.core.sessions() as s:
        assert s.get(IdempotentRequest, (who.id, "k1")) is None
