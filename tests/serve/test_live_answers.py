"""The engine answers as the server did before it did (``tests/fixtures/engine-answers.json``,
written by the server's own pre-checks, views and redaction): ``RoundState.answer``,
``LiveTable.legal`` and ``LiveTable.view`` and the public events, event by event of the
exported log and decision by decision of random rounds."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sidebet.core.cards import parse_cards
from sidebet.core.money import parse_money
from sidebet.regulation.submission import table_config_from_dict
from sidebet.serve.live import LiveTable
from sidebet.serve.service.core import public_event
from sidebet.table import DealingShoe, RoundState
from sidebet.table.records import (
    KINDS,
    Bet,
    CloseBets,
    Double,
    Insurance,
    Press,
    Record,
    Step,
    record_from_json,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@cache
def _data() -> dict[str, Any]:
    return dict(json.loads((FIXTURES / "engine-answers.json").read_text(encoding="utf-8")))


def _decision(seat: int, step: Step, cents: int | None, wager: str | None) -> Record:
    if step is Step.BET:
        assert wager is not None and cents is not None
        return Bet(seat, wager, cents)
    if step is Step.CLOSE_BETS:
        return CloseBets(seat=seat)
    if step is Step.PRESS:
        assert cents is not None
        return Press(seat, cents)
    if step is Step.INSURANCE:
        assert cents is not None
        return Insurance(seat, cents)
    if step is Step.DOUBLE:
        return Double(seat, amount=cents)
    return KINDS[step](seat=seat)


def _check(answer: Any, seat: int, results: list[int], *, loose: bool = False) -> None:
    """``answer(decision)`` is the engine's answer where the server checked it."""
    data = _data()
    for (step_text, cents, wager), index in zip(data["probes"], results, strict=True):
        step = Step(step_text)
        expected = data["results"][index]
        got = answer(_decision(seat, step, cents, wager))
        where = (seat, step_text, cents, wager)
        if expected[0] == "ok":
            assert got.allowed, (where, got)
            continue
        status, message, violations = expected
        assert not got.allowed and got.conflict == (status == 409), (where, got)
        if loose and step not in (Step.BET, Step.CLOSE_BETS):
            continue  # before any round: refused as a conflict, in the engine's words
        assert [[v.rule, v.message] for v in got.violations] == violations, where
        assert "; ".join(str(v) for v in got.violations) == message, where


def _replay_log() -> int:
    """Replay the exported log, checking every event as it is applied; the events."""
    lines = (FIXTURES / "server-table-log.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines[1:]]
    seeds = {int(e["payload"]["shoe"]): bytes.fromhex(e["payload"]["server_seed"])
             for e in events if e["kind"] == "shoe-reveal"}
    first = events[0]["payload"]
    live = LiveTable(1, first["name"], table_config_from_dict(first["config"], source="t"),
                     seats=int(first["seats"]), unit=int(first["unit"]),
                     time_limit=int(first["time_limit"]),
                     default_action=first["default_action"], seed_of=seeds.get)
    for ev, step in zip(events, _data()["log"]["steps"], strict=True):
        assert step["seq"] == ev["seq"]
        if ev["kind"] == "action":
            live.feed = list(parse_cards(" ".join(ev["payload"]["dealt"])))
        live.apply(ev["kind"], ev["payload"], ev["at"])
        live.seq = ev["seq"]
        _check_log_step(ev, live, step)
    return len(events)


def _public_view(view: dict[str, Any]) -> dict[str, Any]:
    """The recorded view less each seat's account id and chips, which the table's state
    no longer shows (other players' data is private)."""
    return {**view, "seats": [{k: v for k, v in seat.items() if k not in ("account", "chips")}
                              for seat in view["seats"]]}


def _check_log_step(ev: dict[str, Any], live: LiveTable, step: dict[str, Any]) -> None:
    assert live.view() == _public_view(step["view"]), ev["seq"]
    public = public_event(ev, live.hide_hole, live.round_no)
    assert public == (ev if step["public"] is None else step["public"]), ev["seq"]
    chips = {s: 1000_00 for s in live.seat_accounts}
    for seat, results in step["probes"].items():
        _check(lambda d: live.answer(d, chips), int(seat), results,
               loose=step["state_is_none"] and not live.round_open)


def test_the_log_replays_to_the_same_views_events_and_answers() -> None:
    assert _replay_log() == 88


def _sorted_wagers(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**x, "wagers": sorted(x["wagers"])} if "wagers" in x else x for x in legal]


@pytest.mark.parametrize("n", range(12))
def test_random_rounds_answer_as_the_server_did(n: int) -> None:
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
