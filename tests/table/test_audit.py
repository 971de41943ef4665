"""The audit refuses every history that is not exactly what the table dealt and paid,
including consistent forgeries built with the engine itself."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from sidebet.core.errors import SidebetError
from sidebet.table import DealingShoe, Table
from sidebet.table.history import (
    MAX_HISTORY_BYTES,
    dumps,
    load_history,
    loads,
    round_to_json,
    session_to_json,
)
from sidebet.table.policy import play_out
from sidebet.table.session_audit import audit, verify

from .helpers import full_table


def _play(table: Table, rounds: int, bet: int = 10_00,
          history: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    history = [] if history is None else history
    for _ in range(rounds):
        r = table.new_round()
        for s in range(1, table.seats + 1):
            r.place_bet(s, "blackjack", bet)
        r.close_bets()
        play_out(r)
        table.finish(r)
        history.append(round_to_json(r, shoes=table.round_shoes))
    return history


def _table(seed: int | None = 3, seats: int = 3, decks: int = 1,
           penetration: Fraction = Fraction(1, 2)) -> Table:
    cfg = full_table(decks)
    cfg = replace(cfg, rules=replace(cfg.rules, penetration=penetration))
    return Table(cfg, seats, seed=seed, chips=1000_00)


def _session(seed: int | None = 3, rounds: int = 8, ended: bool = True) -> dict[str, Any]:
    table = _table(seed)
    return session_to_json(table, _play(table, rounds), reveal_current=ended)


def _refused(data: dict[str, Any], match: str) -> None:
    with pytest.raises(SidebetError, match=match):
        verify(loads(dumps(data)))


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    return _session()


def test_an_honest_session_passes_and_says_what_it_checked(good: dict[str, Any]) -> None:
    report = audit(loads(dumps(good)))
    assert report.rounds == report.audited == 8 and report.shoes >= 3
    assert report.not_checked == ()
    assert report.header().startswith("session of 8 rounds replayed (seed 3); ")
    unseeded = _session(seed=None)
    assert audit(loads(dumps(unseeded))).audited == 8


def test_no_check_is_skipped_because_a_key_is_missing(good: dict[str, Any]) -> None:
    for key in ("shoes", "final", "chips", "commitment", "config", "unit", "seats", "cards",
                "records"):
        bad = copy.deepcopy(good)
        del bad["rounds"][2][key]
        _refused(bad, f"round 3: no '{key}'")
    for key in ("seed", "chips", "commitments", "shoes", "ended", "abandoned", "config"):
        bad = copy.deepcopy(good)
        del bad[key]
        _refused(bad, f"session: no '{key}'")
    bad = copy.deepcopy(good)
    del bad["shoes"][1]["dealt"]
    _refused(bad, "shoe 2: no 'dealt'")


def test_every_round_is_settled_with_its_final_state(good: dict[str, Any]) -> None:
    table = _table()
    history = _play(table, 2)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    history.append(round_to_json(r))  # an unfinished round, honestly replayable
    _refused(session_to_json(table, history, reveal_current=True),
             "round 3: the round is not settled")
    bad = copy.deepcopy(good)
    bad["rounds"][1]["final"]["phase"] = "play"
    _refused(bad, "round 2: the replay does not reproduce the recorded final state")


def test_a_revealed_shoe_must_be_real() -> None:
    # An unseeded table whose shoe is replaced by a consistent forgery: 52 aces of spades
    # with a matching commitment.
    table = _table(seed=None)
    forged = DealingShoe([Card_AS] * 52, salt=b"s" * 32, cut=26, decks=1)
    table.shoe = forged
    table.commitments[0] = forged.commitment
    data = session_to_json(table, _play(table, 3), reveal_current=True)
    _refused(data, "shoe 1: the revealed order is not 1 deck of 52 standard cards")


Card_AS = 51  # index of the ace of spades


def test_a_seeded_shoe_must_be_the_one_its_seed_makes() -> None:
    # The session claims seed 3 but its first shoe is seed 4's, consistently committed.
    table = _table(seed=3)
    other = DealingShoe.seeded(1, 4, Fraction(1, 2))
    table.shoe, table.commitments[0] = other, other.commitment
    data = session_to_json(table, _play(table, 3), reveal_current=True)
    _refused(data, "shoe 1: the revealed order is not the one seed 3 produces")
    # the right order with another (consistent) salt
    table = _table(seed=3)
    good_order = table.shoe.order
    salted = DealingShoe(good_order, salt=b"x" * 32, cut=26, decks=1, seed=3)
    table.shoe, table.commitments[0] = salted, salted.commitment
    data = session_to_json(table, _play(table, 3), reveal_current=True)
    _refused(data, "shoe 1: the salt is not the one seed 3 produces")


def test_money_is_chained_round_to_round(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    bad["rounds"][3]["chips"]["1"] = "5000.00"
    _refused(bad, "round 4: it does not start with the chips the previous round ended with")
    bad = copy.deepcopy(good)
    bad["chips"] = "2000.00"
    _refused(bad, "round 1: it does not start with the chips the session started with")
    # An engine-built forgery of round 2 with a larger bet on the same cards and decisions:
    # it replays perfectly, but round 3 no longer starts with what round 2 paid.
    table = _table()
    history = _play(table, 4)
    forged_table = _table()
    forged = _play(forged_table, 1)
    _play(forged_table, 1, bet=20_00, history=forged)
    assert forged[1]["cards"] == history[1]["cards"]
    assert forged[1]["records"] != history[1]["records"]
    history[1] = forged[1]
    _refused(session_to_json(table, history, reveal_current=True), "round 3: it does "
             "not start with the chips the previous round ended with")


def test_configuration_seats_and_unit_are_the_sessions(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    bad["rounds"][2]["config"]["rules"]["blackjack_pays"] = "6:5"
    _refused(bad, "round 3: ")
    bad = copy.deepcopy(good)
    bad["config"]["rules"]["dealer_hits_soft_17"] = True
    _refused(bad, "round 1: its table configuration is not the session's")
    bad = copy.deepcopy(good)
    bad["unit"] = "5.00"
    _refused(bad, "round 1: table unit 1.00, the session's is 5.00")
    bad = copy.deepcopy(good)
    bad["seats"] = 4
    _refused(bad, "round 1: 3 seats, the session has 4")


def test_rounds_cut_off_dropped_or_reordered_are_refused(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    del bad["rounds"][-1]
    _refused(bad, "it dealt .* cards but the rounds account for")
    bad = copy.deepcopy(good)
    bad["rounds"][1], bad["rounds"][2] = bad["rounds"][2], bad["rounds"][1]
    _refused(bad, "round 2: ")
    bad = copy.deepcopy(good)
    del bad["shoes"][0]
    _refused(bad, "shoe 1: finished but not revealed")
    bad = copy.deepcopy(good)
    bad["shoes"][-1]["dealt"] += 1
    _refused(bad, "it dealt .* cards but the rounds account for")
    bad = copy.deepcopy(good)
    bad["ended"] = False
    _refused(bad, "revealed, but the session says it did not end")


def test_a_round_spliced_from_another_table_is_refused() -> None:
    # Both tables are honest engine output with the same configuration; only the seed
    # differs.  Round 2 of the other table replays perfectly, but it is not this shoe's.
    table, other = _table(seed=3), _table(seed=4)
    history, foreign = _play(table, 3), _play(other, 3)
    history[1] = foreign[1]
    _refused(session_to_json(table, history, reveal_current=True), "round 2: ")


def test_a_new_shoe_before_the_cut_card_is_refused(good: dict[str, Any]) -> None:
    # Dropping the last round of a finished shoe makes the next round start a new shoe
    # while the cut card was still in.
    rounds = good["rounds"]
    k = next(i for i in range(1, len(rounds))
             if rounds[i]["shoes"][0]["shoe"] != rounds[i - 1]["shoes"][-1]["shoe"])
    bad = copy.deepcopy(good)
    del bad["rounds"][k - 1]
    with pytest.raises(SidebetError, match=f"round {k}: "):
        verify(loads(dumps(bad)))


def test_unrevealed_rounds_are_reported_never_claimed() -> None:
    data = _session(ended=False)
    report = audit(loads(dumps(data)))
    assert 0 < report.audited < report.rounds == 8
    missing = report.rounds - report.audited
    text = f"{missing} round{'s' if missing > 1 else ''} could not be audited (shoe not revealed)"
    assert text in report.header()


def test_an_old_session_format_is_read_and_says_what_it_cannot_show(
        good: dict[str, Any]) -> None:
    old = copy.deepcopy(good)
    old["format"] = "sidebet-session/1"
    del old["ended"], old["abandoned"]
    for shoe in old["shoes"]:
        del shoe["dealt"]
    report = audit(loads(dumps(old)))
    assert "whether rounds were cut off at the end could not be checked" in report.header()
    old["format"] = "sidebet-session/3"
    with pytest.raises(SidebetError, match="not a hand history"):
        loads(dumps(old))


def test_an_abandoned_round_accounts_for_its_cards_and_is_reported() -> None:
    table = _table()
    history = _play(table, 3)
    r = table.new_round()
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    abandoned = round_to_json(r, shoes=table.round_shoes)
    data = session_to_json(table, history, reveal_current=True, abandoned=abandoned)
    report = audit(loads(dumps(data)))
    assert "round 4 was abandoned unfinished" in report.header()
    bad = copy.deepcopy(data)
    bad["abandoned"] = None
    _refused(bad, "it dealt .* cards but the rounds account for")


@pytest.mark.parametrize("text, match", [
    ('{"format": "sidebet-session/2", "x": ' + "[" * 50_000 + "]" * 50_000 + "}",
     "nested too deeply"),
    ('{"format": "sidebet-round/1", "seats": 1' + "0" * 5000 + "}", "digits"),
    ('{"format": "sidebet-round/1", "seats": NaN}', "non-integer"),
    ('{"format": "sidebet-round/1", "seats": 1e999999}', "non-integer"),
    ("[]", "not a hand history"),
])
def test_hostile_json_is_one_error(text: str, match: str) -> None:
    with pytest.raises(SidebetError, match=match):
        loads(text)


def test_hostile_history_files(tmp_path: Path, good: dict[str, Any]) -> None:
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(SidebetError, match="not UTF-8"):
        load_history(binary)
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(MAX_HISTORY_BYTES + 10)
    with pytest.raises(SidebetError, match="larger than"):
        load_history(huge)
    for mutate, match in [
        (lambda d: d["rounds"][0].__setitem__("seats", 10**30), "out of range"),
        (lambda d: d.__setitem__("seed", -1), "seed -1 is out of range"),
        (lambda d: d["rounds"][0].__setitem__("unit", "1e999999999"), "round 1: "),
        (lambda d: d["rounds"][0]["records"].append([[]]), "round 1: a record is not"),
        (lambda d: d["rounds"][0]["records"][0].__setitem__("amount", "9" * 3000),
         "round 1: "),
        (lambda d: d["shoes"][0].__setitem__("salt", "zz"), "shoe 1: its salt is not hex"),
        (lambda d: d["config"].__setitem__("decks", 10**6), "a shoe holds 1 to 8 decks"),
        (lambda d: d.__setitem__("rounds", {"a": 1}), "session: 'rounds' has the wrong"),
    ]:
        bad = json.loads(json.dumps(good))
        mutate(bad)
        _refused(bad, match)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _leaves(v, (*path, k))] or [path]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _leaves(v, (*path, i))] or [path]
    return [path]


@pytest.mark.slow
def test_any_mutated_value_is_refused_with_one_error_never_a_crash(
        good: dict[str, Any]) -> None:
    import random

    rng = random.Random(9)
    leaves = _leaves(good)
    hostile: list[Any] = [None, -1, 0, 10**39, True, "", "x" * 5000, "1e999999999", [],
                          {}, [[[]]], {"a": {}}, "As", "-5.00", "nan"]
    for _ in range(300):
        bad = json.loads(json.dumps(good))
        path = rng.choice(leaves)
        node = bad
        for key in path[:-1]:
            node = node[key]
        if not path:
            continue
        node[path[-1]] = rng.choice(hostile)
        try:
            verify(loads(dumps(bad)))
        except SidebetError as exc:
            assert "\n" not in str(exc)
