"""Histories and logs written before the engine's seams (``tests/fixtures``) still audit,
replay and come out again byte for byte; ``sidebet play`` writes the saved sessions again
(``tests/fixtures/making/make_play_sessions.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.making import FIXTURES
from tests.fixtures.making.make_play_sessions import SESSIONS, play

from sidebet.core.errors import SidebetError
from sidebet.serve.chain import canonical
from sidebet.serve.log_audit import audit_lines
from sidebet.table.history import dumps, load_history, replay, rounds_of
from sidebet.table.records import record_from_json
from sidebet.table.session_audit import audit

HEADERS = {
    "play-session-1deck-3seats": "session of 8 rounds replayed (seed 0); 3 revealed shoes "
                                 "match their commitments; 8 rounds' cards audited against "
                                 "them",
    "play-session-1deck-7seats": "session of 4 rounds replayed (seed 18); 3 revealed shoes "
                                 "match their commitments; 4 rounds' cards audited against "
                                 "them",
    "play-session-after-players-abandoned": "session of 6 rounds replayed (seed 16); 2 "
                                            "revealed shoes match their commitments; 6 "
                                            "rounds' cards audited against them; round 7 "
                                            "was abandoned unfinished (its wagers are not "
                                            "settled)",
}


def _records(data: dict[str, Any]) -> list[dict[str, Any]]:
    rounds = rounds_of(data)
    if data.get("abandoned"):
        rounds = [*rounds, data["abandoned"]]
    return [r for rnd in rounds for r in rnd["records"]]


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_saved_session_audits_and_replays(name: str) -> None:
    data = load_history(FIXTURES / f"{name}.json")
    assert audit(data).header() == HEADERS[name]
    for rnd in rounds_of(data):
        state = replay(rnd)
        assert [r.to_json() for r in state.records] == rnd["records"]
        assert state.snapshot() == rnd["final"]


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_records_come_out_byte_for_byte(name: str) -> None:
    records = _records(load_history(FIXTURES / f"{name}.json"))
    again = [record_from_json(r).to_json() for r in records]
    assert dumps({"records": again}) == dumps({"records": records})


def test_the_fixtures_hold_every_kind_of_step() -> None:
    steps = {r["step"] for name in SESSIONS
             for r in _records(load_history(FIXTURES / f"{name}.json"))}
    assert steps == {"bet", "no-more-bets", "deal", "side-wager", "press", "insurance",
                     "card-reader", "hit", "stand", "double", "split", "surrender",
                     "deal-to-hand", "dealer-play", "settle"}


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_sidebet_play_writes_the_same_file_again(name: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.json"
    play(name, out)
    assert out.read_bytes() == (FIXTURES / f"{name}.json").read_bytes()


def _log() -> list[str]:
    return (FIXTURES / "server-table-log.jsonl").read_text(encoding="utf-8").splitlines()


def test_exported_log_audits() -> None:
    with pytest.raises(SidebetError, match="its head is not signed"):
        audit_lines(_log())  # exported before heads were signed: refused unless asked
    assert audit_lines(_log(), unsigned=True).lines() == [
        "table 1: hash chain of 88 events verified",
        "signed heads verified (Ed25519): 0",
        "shoes verified (commitment, client seeds, shuffle): 1",
        "actions replayed through the engine: 58",
        "rounds verified (replay, cards, totals): 7",
        "NOT verified: the chain's head: the log is not signed (an export from before signed "
        "heads), so a log cut short, or rewritten with its chain recomputed, passes every "
        "other check",
        "NOT verified: shoe 0 was stacked for a test (event 5): its order is not its fair "
        "shuffle",
        "NOT verified: round 8 is in progress (its actions were replayed; its result is not "
        "known yet)",
        "NOT verified: shoe 2's shuffle: its server seed is not revealed yet (the shoe is in "
        "use); its 6 cards were replayed as the log records them",
    ]


def test_exported_log_records_come_out_byte_for_byte() -> None:
    events = [json.loads(line) for line in _log()[1:]]
    actions = [e["payload"] for e in events if e["kind"] == "action"]
    decisions = [a["decision"] for a in actions]
    records = [r for a in actions for r in a["records"]]
    records += [r for e in events if e["kind"] == "round-end"
                for r in e["payload"]["record"]["history"]["records"]]
    for data in decisions + records:
        assert canonical(record_from_json(data).to_json()) == canonical(data)
    for e in events:
        if e["kind"] == "round-end":
            history = e["payload"]["record"]["history"]
            assert [r.to_json() for r in replay(history).records] == history["records"]
