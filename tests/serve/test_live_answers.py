"""The engine answers as ``tests/fixtures/engine-answers.json`` records (first written by
the server's own pre-checks, now by ``tests/fixtures/making/make_engine_answers.py``):
``RoundState.answer``, ``LiveTable.legal`` and ``LiveTable.view`` and the public events,
event by event of the exported log and decision by decision of random rounds; and the
fixture is what its script writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.making import FIXTURES, make_engine_answers
from tests.fixtures.making.make_engine_answers import (
    apply_event,
    decision,
    log_events,
    log_table,
    result,
)

from sidebet.core.cards import parse_cards
from sidebet.core.money import parse_money
from sidebet.regulation.submission import table_config_from_dict
from sidebet.serve.live import LiveTable
from sidebet.serve.service.core import public_event
from sidebet.table import Answer, DealingShoe, RoundState
from sidebet.table.records import Record, Step, record_from_json


@cache
def _data() -> dict[str, Any]:
    return dict(json.loads((FIXTURES / "engine-answers.json").read_text(encoding="utf-8")))


def _check(answer: Callable[[Record], Answer], seat: int, results: list[int]) -> None:
    """``answer(decision)`` is the recorded answer to every probe decision of ``seat``."""
    data = _data()
    for (step_text, cents, wager), index in zip(data["probes"], results, strict=True):
        d = decision(seat, Step(step_text), cents, wager)
        assert result(d, answer(d)) == data["results"][index], (seat, step_text, cents, wager)


def _replay_log() -> int:
    """Replay the exported log, checking every event as it is applied; the events."""
    events = log_events()
    live = log_table(events)
    for ev, step in zip(events, _data()["log"]["steps"], strict=True):
        assert step["seq"] == ev["seq"]
        chips = apply_event(live, ev)
        assert live.view() == step["view"], ev["seq"]
        public = public_event(ev, live.hide_hole, live.round_no)
        assert public == (ev if step["public"] is None else step["public"]), ev["seq"]
        for seat, results in step["probes"].items():
            _check(partial(live.answer, chips=chips), int(seat), results)
    return len(events)


def test_the_log_replays_to_the_same_views_events_and_answers() -> None:
    assert _replay_log() == 88


def _sorted_wagers(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**x, "wagers": sorted(x["wagers"])} if "wagers" in x else x for x in legal]


@pytest.mark.parametrize("n", range(12))
def test_random_rounds_answer_as_recorded(n: int) -> None:
    item = _data()["rounds"][n]
    rnd = item["round"]
    chips = rnd["chips"]
    state = RoundState(table_config_from_dict(rnd["config"], source="t"), int(rnd["seats"]),
                       DealingShoe.stacked(parse_cards(rnd["cards"])).deal,
                       unit=parse_money(rnd["unit"]),
                       chips=None if chips is None else {int(s): parse_money(c)
                                                         for s, c in chips.items()})
    live = LiveTable(1, "t", state.config, seats=state.seat_count, unit=state.unit,
                     time_limit=0, default_action="stand", seed_of=lambda k: None)
    live.seat_accounts = {s: s for s in range(1, state.seat_count + 1)}
    live.round_open, live.state = True, state
    decisions = [record_from_json(r) for r in rnd["records"]]
    decisions = [d for d in decisions if d.is_decision]
    applied = 0
    for point in item["points"]:
        while applied < point["decisions"]:
            state.apply(decisions[applied])
            applied += 1
        # the fixture's JSON has its keys sorted: the table's side wagers are in name order
        assert {str(s): _sorted_wagers(live.legal(s)) for s in live.seat_accounts} == {
            s: _sorted_wagers(legal) for s, legal in point["legal"].items()}
        for seat, results in point["probes"].items():
            _check(state.answer, int(seat), results)
    assert [r.to_json() for r in state.records] == rnd["records"]


def test_the_fixture_is_what_its_script_writes(tmp_path: Path) -> None:
    (path,) = make_engine_answers.write(tmp_path)
    assert path.read_bytes() == (FIXTURES / path.name).read_bytes()
