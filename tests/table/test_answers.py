"""The engine answers, once, what a seat may do now and why not: options, answer, apply, view."""

from __future__ import annotations

import pytest

from sidebet.core.errors import RuleError, SidebetError
from sidebet.table import RoundState
from sidebet.table.answers import Answer
from sidebet.table.records import (
    Bet,
    CloseBets,
    Deal,
    Double,
    Hit,
    Insurance,
    Press,
    Record,
    Split,
    Stand,
    Step,
)
from sidebet.table.view import HIDDEN, redact

from .helpers import stacked


def _steps(state: RoundState, seat: int) -> list[str]:
    return [o.step.value for o in state.options(seat)]


def test_apply_checks_once_and_says_conflict_or_rule() -> None:
    r = stacked("8h 9c 5d 8d 7s 10s 2c 4h", seats=2)
    asked: list[Record] = []
    answer = r.answer
    r.answer = lambda d: (asked.append(d), answer(d))[1]
    r.apply(Bet(1, "blackjack", 10_00))
    assert asked == [Bet(1, "blackjack", 10_00)]
    with pytest.raises(RuleError) as refused:
        r.apply(Bet(2, "blackjack", 0))
    assert not refused.value.conflict and refused.value.rule == "§ 633a.6(d)"
    with pytest.raises(RuleError) as refused:
        r.apply(CloseBets(seat=2))
    assert refused.value.conflict
    assert str(refused.value) == ("§ 633a.6(d): seat 2 has no Blackjack wager; a seat with "
                                  "one calls the deal")
    r.apply(Bet(2, "blackjack", 10_00))
    r.apply(CloseBets(seat=2))
    assert r.records[-2] == CloseBets(citation="§ 633c.11(c)")  # the engine's names no seat
    records = list(r.records)
    with pytest.raises(RuleError) as refused:
        r.apply(Hit(seat=2))
    assert refused.value.conflict
    assert str(refused.value) == "§ 633a.7: it is seat 1's turn, not seat 2's"
    with pytest.raises(RuleError) as refused:
        r.apply(Hit(seat=1, hand=1))
    assert refused.value.conflict and "hand 1 is to act, not hand 2" in str(refused.value)
    with pytest.raises(RuleError) as refused:
        r.apply(Double(1, amount=10_01))
    assert not refused.value.conflict
    assert r.records == records  # refusals change nothing
    done = r.apply(Hit(seat=1, hand=0))
    assert isinstance(done, Hit) and done.hand == 0 and done.cards and done.citation


def test_options_carry_what_the_player_needs() -> None:
    r = stacked("9s As 9h 8h 5d")  # seat 1: 9s 9h against an ace
    r.place_bet(1, "blackjack", 10_00)
    assert r.options(1)[0].wagers[0] == "trilux"
    r.place_bet(1, "trilux", 5_00)
    r.close_bets()
    assert r.phase.value == "insurance"
    (opt,) = r.options(1)
    assert opt.step is Step.INSURANCE and opt.most == 5_00 and opt.unit is None
    r.apply(Insurance(1, 0))
    opts = {o.step: o for o in r.options(1)}
    assert opts[Step.DOUBLE].most == 10_00 and opts[Step.SPLIT].cost == 10_00
    assert r.options(2) == () and r.options(9) == ()


def test_press_option_and_unit() -> None:
    r = stacked("2h Kh 4h 9h 5c")  # 2h 4h and the upcard Kh: a TriLux Deluxe flush
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "trilux", 10_00)
    r.close_bets()
    (opt,) = r.options(1)
    assert opt.step is Step.PRESS and opt.unit == 1_00 and opt.most is not None
    a = r.answer(Press(1, 50))
    assert a == Answer(False, a.violations, False) and "whole table units" in str(a.violations[0])
    assert r.answer(Press(1, opt.most)).allowed


def test_verify_and_can_are_the_answer() -> None:
    r = stacked("8h 9c 5d 8d 7s 10s")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    for kind in (Hit, Stand, Split):
        assert getattr(r, f"can_{kind.step.value}")() == r.answer(kind(1)).allowed
    assert r.can_double(10_01) is False and r.can_double(5_00) is True
    with pytest.raises(RuleError) as refused:
        r.verify_press(1, 0)
    assert refused.value.conflict
    with pytest.raises(SidebetError, match="dealer step"):
        r.answer(Deal(()))


def test_a_first_bet_against_a_fresh_round_with_chips() -> None:
    r = RoundState(stacked("As").config, 2, chips={1: 5_00, 2: 0})
    a = r.answer(Bet(1, "blackjack", 10_00))
    assert not a.allowed and not a.conflict and str(a.violations[-1]) == "seat 1 holds only 5.00"
    assert r.answer(Bet(1, "blackjack", 5_00)).allowed
    assert [o.wagers[0] for o in r.options(2)] == ["blackjack"]


def test_view_hides_the_hole_card_until_the_engine_turns_it() -> None:
    r = stacked("10h Ah 9d Kd", hole_card="after-players")
    r.place_bet(1, "blackjack", 10_00)
    assert r.view(None).dealer == () and r.hole_hidden
    r.close_bets()
    r.apply(Insurance(1, 0))
    v = r.view(None)
    assert v.dealer == ("Ah", HIDDEN) and v.dealer_blackjack is None
    deal = next(x for x in v.records if x["step"] == "deal")
    assert deal["cards"] == "10h Ah 9d ??"
    assert v.options == () and [o.step for o in r.view(1).options] == [Step.HIT, Step.STAND,
                                                                        Step.DOUBLE]
    assert redact([x.to_json() for x in r.records], True) == [dict(x) for x in v.records]
    r.stand()
    v = r.view(None)
    assert v.dealer == ("Ah", "Kd") and v.dealer_blackjack is True and not r.hole_hidden
    assert [dict(x) for x in v.records] == [x.to_json() for x in r.records]
    assert v.to_json()["dealer"] == {"cards": "Ah Kd", "blackjack": True}


def test_split_cost_in_the_option_includes_the_press() -> None:
    s = stacked("8h 9h 8h 2c 3d")  # 8h 8h + 9h: a flush for the TriLux Deluxe
    s.place_bet(1, "blackjack", 10_00)
    s.place_bet(1, "trilux", 5_00)
    s.close_bets()
    (press,) = s.options(1)
    assert press.most is not None
    s.apply(Press(1, 5_00))
    opts = {o.step: o for o in s.options(1)}
    assert opts[Step.SPLIT].cost == 15_00 and opts[Step.DOUBLE].most == 15_00
    assert s.apply(Split(1)).amount == 15_00
