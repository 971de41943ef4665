"""One record type per kind of step: fields, JSON forms and refusals."""

from __future__ import annotations

import dataclasses

import pytest

from sidebet.core.cards import parse_cards
from sidebet.core.errors import SidebetError
from sidebet.table.records import (
    DECISIONS,
    KINDS,
    Bet,
    CloseBets,
    Deal,
    Double,
    Hit,
    Peek,
    Record,
    Settle,
    SideWager,
    Stand,
    Step,
    play_decision,
    record_from_json,
)


def test_every_step_has_its_kind() -> None:
    assert set(KINDS) == set(Step)
    for step, kind in KINDS.items():
        assert kind.step is step and issubclass(kind, Record)
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen
        assert not hasattr(kind(**_minimal(kind)), "__dict__")  # slotted
    assert {k for k, kind in KINDS.items() if kind(**_minimal(kind)).is_decision} == DECISIONS


def _minimal(kind: type[Record]) -> dict[str, object]:
    values = {"seat": 1, "hand": 0, "wager": "blackjack", "amount": 500,
              "cards": parse_cards("As"), "outcome": "x"}
    return {f.name: values[f.name] for f in dataclasses.fields(kind)
            if f.default is dataclasses.MISSING}


def test_each_kind_has_only_its_fields() -> None:
    names = {kind.step: [f.name for f in dataclasses.fields(kind)] for kind in KINDS.values()}
    assert names[Step.BET] == ["seat", "wager", "amount", "citation"]
    assert names[Step.HIT] == ["seat", "hand", "cards", "citation"]
    assert names[Step.STAND] == ["seat", "hand", "citation"]
    assert names[Step.DEAL] == ["cards", "citation", "note"]
    assert names[Step.SETTLE] == ["amount", "citation", "note"]
    with pytest.raises(TypeError):
        Bet(1, "blackjack")


def test_json_forms_keep_their_keys_and_omissions() -> None:
    assert Bet(2, "trilux", 5_00, "§ 633c.11").to_json() == {
        "step": "bet", "seat": 2, "wager": "trilux", "amount": "5.00",
        "citation": "§ 633c.11"}
    assert CloseBets(citation="§ 633c.11(c)").to_json() == {
        "step": "no-more-bets", "citation": "§ 633c.11(c)"}
    assert Peek("no-blackjack", citation="§ 633a.7").to_json() == {
        "step": "card-reader", "outcome": "no-blackjack", "citation": "§ 633a.7"}
    hole = Peek("blackjack", parse_cards("Kd"), "§ 633a.11(d)", "late")
    assert list(hole.to_json()) == ["step", "cards", "outcome", "citation", "note"]
    side = SideWager(3, "top3", -1_00, parse_cards("As Kd 2c"), "lose", "§ 633c.7", "lose")
    assert list(side.to_json()) == ["step", "seat", "wager", "amount", "cards", "outcome",
                                    "citation", "note"]
    assert Stand(1).to_json() == {"step": "stand", "seat": 1}
    assert Settle(0).to_json() == {"step": "settle", "amount": "0.00"}
    for rec in (hole, side, Double(1, 0, 7_00, parse_cards("9c"), "§ 633a.10")):
        assert record_from_json(rec.to_json()) == rec


def test_describe_as_before() -> None:
    assert Bet(1, "blackjack", 10_00, "§ 633a.6(d)").describe() == \
        "seat 1 bet blackjack 10.00 [§ 633a.6(d)]"
    deal = Deal(parse_cards("As Kd 7c 2h"), "§ 633a.7(a)-(f)", "first card")
    assert deal.describe() == "dealer deal A♠ K♦ 7♣ 2♥ (first card) [§ 633a.7(a)-(f)]"
    assert deal.hole == parse_cards("2h")[0]
    assert Peek("blackjack").describe() == "dealer card-reader -> blackjack"


def test_play_decision_builds_the_kind() -> None:
    assert play_decision(Step.HIT, 3) == Hit(3)
    assert play_decision(Step.DOUBLE, 1) == Double(1)
    with pytest.raises(SidebetError, match="bet is not a decision on a hand"):
        play_decision(Step.BET, 1)


@pytest.mark.parametrize(("data", "message"), [
    ({"step": "bet", "wager": "blackjack", "amount": "1.00"}, "a bet record names no seat"),
    ({"step": "hit", "seat": 1, "wager": "blackjack"}, "a hit record has no 'wager'"),
    ({"step": "hit", "seat": 1, "colour": "red"}, "a hit record has no 'colour'"),
    ({"step": "hit", "seat": "1"}, "a hit record's 'seat' has the wrong type"),
    ({"step": "hit", "seat": True}, "a hit record's 'seat' has the wrong type"),
    ({"step": "settle", "amount": 5}, "a settle record's 'amount' has the wrong type"),
])
def test_malformed_json_is_refused(data: dict[str, object], message: str) -> None:
    with pytest.raises(SidebetError, match=message):
        record_from_json(data)
