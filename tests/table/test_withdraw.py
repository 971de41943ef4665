"""The operator's withdrawal of a seat (a ``withdraw`` decision): hand-picked rounds, each
replayed from its hand history to the same records."""

from __future__ import annotations

import pytest

from sidebet.core.errors import RuleError
from sidebet.regulation.submission import TableConfig
from sidebet.table.dealing import DealingShoe
from sidebet.table.history import replay, round_to_json
from sidebet.table.ledger import Move
from sidebet.table.records import Phase, Step, Withdraw
from sidebet.table.state import RoundState

CONTROL = Withdraw(2, citation="house rule: the account is excluded by the operator",
                   note="problem gambling")


def table(cards: str, seats: int = 2) -> RoundState:
    r = RoundState(TableConfig(decks=6), seats, DealingShoe.stacked(cards).deal,
                   chips=dict.fromkeys(range(1, seats + 1), 100_00))
    for seat in range(1, seats + 1):
        r.place_bet(seat, "blackjack", 10_37 * seat)
    return r


def replayed(r: RoundState) -> None:
    assert replay(round_to_json(r)).records == r.records


def test_while_bets_are_open_the_wagers_are_returned_exactly() -> None:
    r = table("Qh 9c Kh 7c 5d 6s 9s")
    assert r.apply(CONTROL) == CONTROL
    assert r.bets(2) == {} and r.chips(2) == 100_00 and r.ledger.player_net(2) == 0
    assert r.ledger.on_layout(2) == 0 and r.phase is Phase.BETTING
    again = r.answer(CONTROL)
    assert again.conflict and "no wager" in str(again.violations[0])
    r.close_bets()
    assert [h.seat for h in r.hands] == [1]  # the round goes on without her
    r.stand()
    replayed(r)


def test_after_the_deal_her_hand_stands_and_the_others_play_on() -> None:
    # seat 1 Qh 4c, seat 2 9c 5d; dealer Kh 6s; then 2s to seat 1, 9h to the dealer
    r = table("Qh 9c Kh 4c 5d 6s 2s 9h")
    r.close_bets()
    assert r.current_hand is not None and r.current_hand.seat == 1
    r.apply(CONTROL)
    assert r.hands_of(2)[0].done and r.current_hand.seat == 1
    assert Step.STAND not in [o.step for o in r.options(2)]
    r.hit()
    r.stand()
    assert r.phase is Phase.DONE and r.dealer_value.total == 25
    assert r.hands_of(2)[0].cards == r.hands[1].cards and len(r.hands[1].cards) == 2
    assert r.ledger.player_net(2) == 20_74  # her 14 stood; the dealer busts: settled
    replayed(r)


def test_the_hand_to_act_stands_at_once() -> None:
    r = table("Qh 9c Kh 7c 5d 6s 9s")
    r.close_bets()
    r.apply(Withdraw(1, citation="house rule"))
    assert r.current_hand is not None and r.current_hand.seat == 2
    assert len(r.hands_of(1)[0].cards) == 2 and r.hands_of(1)[0].done
    r.stand()
    assert r.phase is Phase.DONE
    assert r.ledger.player_net(1) == 10_37  # 17 against the dealer's 25: settled by the rules
    replayed(r)


def test_a_pending_insurance_decision_is_declined() -> None:
    # dealer Ah up, 7d hole: no Blackjack
    r = table("Qh 9c Ah 7c 5d 7d")
    r.close_bets()
    assert r.phase is Phase.INSURANCE and set(r.insurance_offers()) == {1, 2}
    r.apply(CONTROL)
    assert set(r.insurance_offers()) == {1} and r.seat_states[2].insurance == 0
    r.insure(1, 0)
    assert r.phase is Phase.PLAY and r.current_hand is not None and r.current_hand.seat == 1
    r.stand()
    assert r.phase is Phase.DONE and r.ledger.total(Move.STAKE, 2, "insurance") == 0
    replayed(r)


def test_nothing_to_withdraw_once_settled() -> None:
    r = table("Qh 9c Kh 7c 5d 6s 9s")
    r.close_bets()
    r.stand()
    r.stand()
    with pytest.raises(RuleError, match="the round is settled"):
        r.apply(CONTROL)
