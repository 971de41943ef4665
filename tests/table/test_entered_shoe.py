"""Cards entered from outside (a dealer's screen, a reading shoe) and approved corrections."""

from __future__ import annotations

import pytest

from sidebet.core.cards import parse_cards
from sidebet.core.errors import RuleError, SidebetError
from sidebet.regulation.submission import TableConfig
from sidebet.table.corrections import Approval, CorrectionKind, correct_cards, void_round
from sidebet.table.entered_shoe import PHYSICAL, CardAwaited, EnteredShoe
from sidebet.table.policy import CHART, play_out
from sidebet.table.records import Phase, SideWager
from sidebet.table.shoe_sequence import ShoeSequence
from sidebet.table.state import RoundState

CONFIG = TableConfig(decks=2, side_wagers={"trilux": "TLX-2"})
OK = Approval("dealer ann", "supervisor sue", "card misread by the shoe")


def _enter(shoe: EnteredShoe, cards: str) -> None:
    for c in parse_cards(cards):
        shoe.enter(c, len(shoe.entered), source="reader 1", confidence=0.99)


def _round(cards: str = "7h Kc 8h 9h 2d 10d 5c 4s 3s 2c 6d") -> tuple[RoundState, EnteredShoe]:
    """Seat 1 (Blackjack 10, TriLux 5) and seat 2 (Blackjack 10) against the entered cards."""
    seq = ShoeSequence(lambda n: EnteredShoe(2))
    seq.begin_round()
    state = RoundState(CONFIG, 2, seq.draw)
    state.place_bet(1, "blackjack", 10_00)
    state.place_bet(1, "trilux", 5_00)
    state.place_bet(2, "blackjack", 10_00)
    _enter(seq.current, cards)
    state.close_bets()
    play_out(state, CHART)
    assert [s.commitment for s in seq.spans] == [PHYSICAL]
    return state, seq.current


def test_a_round_is_dealt_and_settled_from_the_entered_cards() -> None:
    state, shoe = _round()
    assert state.phase is Phase.DONE
    deal = [c.code for c in state.dealt[:6]]
    assert deal == ["7h", "Kc", "8h", "9h", "2d", "10d"]  # seats' firsts, upcard, seconds, hole
    side = next(r for r in state.records if isinstance(r, SideWager))
    assert (side.seat, side.outcome, side.amount) == (1, "straight_flush", 20 * 5_00)
    assert shoe.position == len(state.dealt) == 9 and shoe.pending == 2
    assert shoe.entered[0].confidence == 0.99


def test_the_engine_waits_for_a_card_not_entered() -> None:
    shoe = EnteredShoe(2)
    state = RoundState(CONFIG, 1, shoe.deal)
    state.place_bet(1, "blackjack", 10_00)
    _enter(shoe, "As Kd 9h")
    with pytest.raises(CardAwaited, match="card 4 of the shoe has not been entered yet"):
        state.close_bets()


def test_an_impossible_or_out_of_order_card_is_refused_and_changes_nothing() -> None:
    shoe = EnteredShoe(1)
    shoe.enter("As", 0)
    with pytest.raises(RuleError) as impossible:
        shoe.enter("as", 1)
    assert impossible.value.rule == "interpretation 1" and not impossible.value.conflict
    assert "A♠ is not left in a shoe of 1 deck" in str(impossible.value)
    with pytest.raises(RuleError) as order:
        shoe.enter("Kd", 3)
    assert order.value.rule == "§ 633a.7(a)-(f)" and order.value.conflict
    assert "card 4 of the shoe is out of the dealing order: card 2 is next" in str(order.value)
    assert not shoe.can_enter("Zz", 1) and "Zz" in str(shoe.verify_enter("Zz", 1))
    assert len(shoe.entered) == 1 and shoe.pending == 1
    shoe.enter("Kd", 1)  # the right card in the right place is still accepted


def test_a_waiting_card_is_corrected_on_approval_a_dealt_one_is_not() -> None:
    shoe = EnteredShoe(1)
    _enter(shoe, "As Kd")
    shoe.deal()
    with pytest.raises(SidebetError, match="someone other than who asked"):
        shoe.correct(1, "Qd", asked_by="ann", approved_by="ann", reason="misread")
    with pytest.raises(RuleError, match="not waiting to be dealt"):
        shoe.correct(0, "Qd", asked_by="ann", approved_by="sue", reason="misread")
    with pytest.raises(RuleError, match="not left"):
        shoe.correct(1, "As", asked_by="ann", approved_by="sue", reason="misread")
    fix = shoe.correct(1, "Qd", asked_by="ann", approved_by="sue", reason="misread")
    assert (fix.was.code, fix.card.code, shoe.deal().code) == ("Kd", "Qd", "Qd")
    assert shoe.can_enter("Kd", 2)  # the misread card is back in the shoe


def test_a_void_reverses_every_money_move_exactly() -> None:
    state, _ = _round()
    before = {s: state.ledger.player_net(s) for s in (1, 2)}
    assert before[1] != 0
    fix = void_round("T1-R1", state.ledger.entries, OK)
    for seat in (1, 2):
        assert fix.player_net(seat) == -before[seat]
    assert fix.house_net() == -state.ledger.house_net()
    assert fix.to_json()["approved_by"] == "supervisor sue"


def test_a_misdeal_mid_round_returns_the_stakes_on_the_layout() -> None:
    seq = EnteredShoe(2)
    state = RoundState(CONFIG, 1, seq.deal)
    state.place_bet(1, "blackjack", 10_00)
    state.place_bet(1, "trilux", 5_00)
    fix = void_round("T1-R2", state.ledger.entries, OK, misdeal=True)
    assert fix.kind is CorrectionKind.MISDEAL
    assert fix.player_net(1) == 15_00 and fix.house_net() == 0


def test_corrected_cards_redo_the_round_and_its_money() -> None:
    state, _ = _round()
    true_cards = list(state.dealt)
    true_cards[2] = parse_cards("8c")[0]  # the upcard was the 8 of clubs
    fix, redo = correct_cards("T1-R1", state, true_cards, OK)
    assert redo.phase is Phase.DONE
    side = next(r for r in redo.records if isinstance(r, SideWager))
    assert (side.outcome, side.amount) == ("straight", 9 * 5_00)
    for seat in (1, 2):
        assert state.ledger.player_net(seat) + fix.player_net(seat) == redo.ledger.player_net(
            seat)
    with pytest.raises(SidebetError, match="appears 3 times"):
        correct_cards("T1-R1", state, parse_cards("7h 7h 7h 9h 2d 10d 5c 4s 3s"), OK)
    with pytest.raises(SidebetError, match="needs more than"):
        correct_cards("T1-R1", state, true_cards[:7], OK)
    blackjack = list(state.dealt)
    blackjack[0], blackjack[3] = parse_cards("As Kh")  # seat 1's recorded hit no longer fits
    with pytest.raises(SidebetError, match="void the round instead"):
        correct_cards("T1-R1", state, blackjack, OK)


def test_cards_not_dealt_are_taken_back() -> None:
    shoe = EnteredShoe(1)
    for i, code in enumerate(["As", "Kd", "7c"]):
        shoe.enter(code, i)
    assert shoe.deal().code == "As"
    with pytest.raises(RuleError, match="not waiting to be dealt"):
        shoe.discard(0)  # dealt
    assert [c.code for c in shoe.discard(1)] == ["Kd", "7c"]
    assert shoe.pending == 0 and len(shoe.entered) == 1
    shoe.enter("Kd", 1)  # back in the count: the one Kd of the deck enters again
    with pytest.raises(RuleError, match="not left"):
        shoe.enter("As", 2)
