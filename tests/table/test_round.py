"""A whole round per ch. 633a with the side wagers and the Press, on stacked shoes."""

from __future__ import annotations

import pytest

from sidebet.core.errors import RuleError
from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard
from sidebet.regulation.submission import Limits, TableConfig
from sidebet.table import Move, Phase, Step

from .helpers import full_table, stacked


def steps(state) -> list[Step]:  # type: ignore[no-untyped-def]
    return [r.step for r in state.records]


# ----- bets -----------------------------------------------------------------------------


def test_side_wager_needs_blackjack_wager_first() -> None:
    r = stacked("")
    with pytest.raises(RuleError) as err:
        r.place_bet(1, "trilux", 5_00)
    assert err.value.rule == "§ 633c.11(c)"
    assert r.records == [] and len(r.ledger) == 0


def test_trilux_over_twice_refused_and_state_unchanged() -> None:
    r = stacked("")
    r.place_bet(1, "blackjack", 20_00)
    before = r.snapshot()
    assert not r.can_place_bet(1, "trilux", 50_00)
    with pytest.raises(RuleError) as err:
        r.place_bet(1, "trilux", 50_00)
    assert str(err.value).startswith("§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice")
    assert r.snapshot() == before
    r.place_bet(1, "trilux", 40_00)


def test_top3_refused_without_three_card_poker() -> None:
    r = stacked("")
    r.place_bet(1, "blackjack", 10_00)
    with pytest.raises(RuleError) as err:
        r.place_bet(1, "top3", 5_00)
    assert err.value.rule == "§ 633c.7(c)"
    r.place_bet(1, "three-card-poker", 5_00)
    r.place_bet(1, "top3", 5_00)


def test_upcard_luck_limit_and_table_limits() -> None:
    cfg = TableConfig(decks=6, side_wagers={"upcard-luck": "standard"},
                      limits={"blackjack": Limits(10_00, 500_00)})
    r = stacked("", config=cfg)
    with pytest.raises(RuleError, match="below the table minimum"):
        r.place_bet(1, "blackjack", 5_00)
    with pytest.raises(RuleError, match="exceeds the table maximum"):
        r.place_bet(1, "blackjack", 600_00)
    r.place_bet(1, "blackjack", 10_00)
    with pytest.raises(RuleError) as err:
        r.place_bet(1, "upcard-luck", 11_00)
    assert err.value.rule.startswith("§ 633b.15")
    with pytest.raises(RuleError, match="does not offer"):
        r.place_bet(1, "trilux", 5_00)


def test_no_more_bets_needs_a_blackjack_wager_and_closes_betting() -> None:
    r = stacked("9c 9d 9h 9s")
    assert not r.can_close_bets()
    with pytest.raises(RuleError):
        r.close_bets()
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    with pytest.raises(RuleError, match="no more bets"):
        r.place_bet(1, "blazing7s", 5_00)


def test_illegal_action_leaves_state_unchanged() -> None:
    r = stacked("Qh Kh 7c 5d 9s")
    r.place_bet(1, "blackjack", 10_00)
    before = r.snapshot()
    for act in (r.hit, r.stand, r.double, r.split, r.surrender):
        with pytest.raises(RuleError):
            act()
    assert r.snapshot() == before


# ----- side wagers settle first ---------------------------------------------------------


def test_side_wagers_settle_before_any_further_card_and_card_reader() -> None:
    # seat 1: 7h 7d, upcard 7s (three 7s), hole Ad -> no dealer BJ check under a 7
    r = stacked("7h Kc 7d As")  # upcard K, hole A: dealer Blackjack found by the reader
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "blazing7s", 5_00)
    r.place_bet(1, "trilux", 5_00)
    r.close_bets()
    s = steps(r)
    assert s.index(Step.SIDE_WAGER) > s.index(Step.DEAL)
    assert s.index(Step.PEEK) > max(i for i, x in enumerate(s) if x is Step.SIDE_WAGER)
    assert r.phase is Phase.DONE and r.dealer_blackjack
    b7 = r.side_settlements(1)
    assert [x.wager for x in b7] == ["trilux", "blazing7s"]
    assert b7[1].outcome == "two_sevens" and b7[1].net == 40 * 5_00
    assert r.ledger.player_net(1, "blazing7s") == 200_00
    assert r.ledger.player_net(1, "blackjack") == -10_00
    assert len(r.dealt) == 4


def test_side_wagers_settled_with_only_four_cards_dealt() -> None:
    r = stacked("7c 9h 8d 7s 10c")
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "trilux", 5_00)
    r.close_bets()
    assert r.phase is Phase.PRESS and len(r.dealt) == 4
    assert r.press_offers() == {1: 40_00}  # straight 8 to 1 (TLX-3)


# ----- the Press ------------------------------------------------------------------------


def _press_round(cards: str, press: int, trilux: int = 5_00, **rules: object):  # type: ignore[no-untyped-def]
    r = stacked(cards, **rules)
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "trilux", trilux)
    r.close_bets()
    r.press(1, press)
    return r


def test_press_paid_even_money_on_a_win() -> None:
    r = _press_round("7c 9h 8d 7s 10c", 40_00)
    r.stand()
    assert r.phase is Phase.DONE and r.hands[0].result == "win"
    assert r.ledger.player_net(1, "press") == 40_00
    assert r.ledger.player_net(1, "blackjack") == 10_00
    assert r.ledger.player_net(1, "trilux") == 40_00


def test_press_returned_on_push_and_lost_on_loss() -> None:
    r = _press_round("8c 10h 9d 7s", 40_00)
    r.stand()
    assert r.hands[0].result == "push" and r.ledger.player_net(1, "press") == 0
    r = _press_round("8c 10h 9d 9s", 40_00)
    r.stand()
    assert r.hands[0].result == "lose" and r.ledger.player_net(1, "press") == -40_00


def test_press_with_player_blackjack_pays_even_money() -> None:
    r = _press_round("Ah Qh Kh 5c", 125_00)  # Q K A of hearts: straight flush 25 to 1
    assert r.phase is Phase.DONE and r.hands[0].result == "blackjack"
    assert r.ledger.player_net(1, "blackjack") == 15_00
    assert r.ledger.player_net(1, "press") == 125_00


def test_press_void_and_returned_when_dealer_has_blackjack() -> None:
    r = _press_round("Jh Kh Qh As", 100_00)
    assert r.dealer_blackjack and r.phase is Phase.DONE
    assert r.ledger.player_net(1, "press") == 0
    entries = [e for e in r.ledger if e.wager == "press"]
    assert [e.move for e in entries] == [Move.STAKE, Move.RETURN]
    assert entries[1].citation == "§ 633c.11(f)"
    assert r.ledger.player_net(1, "trilux") == 125_00


def test_press_void_without_peek_too() -> None:
    r = _press_round("Jh Kh Qh As 5c", 100_00, hole_card=HoleCard.AFTER_PLAYERS)
    assert r.phase is Phase.PLAY and not r.can_surrender()
    r.hit()  # 25: busts, but the dealer's Blackjack takes only the original wager
    assert r.phase is Phase.DONE and r.dealer_blackjack
    assert r.ledger.player_net(1, "press") == 0
    assert r.ledger.player_net(1, "blackjack") == -10_00


def test_press_amount_rules() -> None:
    r = stacked("7c 9h 8d 7s 10c")
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "trilux", 5_00)
    r.close_bets()
    before = r.snapshot()
    for bad in (40_01, 41_00, 12_50, -1_00):
        assert not r.can_press(1, bad)
        with pytest.raises(RuleError) as err:
            r.press(1, bad)
        assert err.value.rule == "§ 633c.11(e)"
    assert r.snapshot() == before
    with pytest.raises(RuleError):
        r.hit()
    r.press(1, 0)  # collect everything
    assert r.phase is Phase.PLAY and r.hands[0].press == 0
    with pytest.raises(RuleError):
        r.press(1, 0)


def test_press_only_for_a_trilux_winner() -> None:
    r = stacked("7c 9h 8d 7s 10c 2c 3d 4h", seats=2)
    r.place_bet(1, "blackjack", 10_00)
    r.place_bet(1, "trilux", 5_00)
    r.place_bet(2, "blackjack", 10_00)
    r.place_bet(2, "trilux", 5_00)
    r.close_bets()  # seat 1: 7c 7s; seat 2: 9h 10c; upcard 8d
    assert r.press_offers() == {2: 40_00}  # 8 9 10 straight, 8 to 1 (TLX-3)
    with pytest.raises(RuleError, match="no winning TriLux"):
        r.press(1, 0)


def test_split_with_a_press_must_match_wager_plus_press() -> None:
    r = _press_round("8h 8s 8d 10c 10d 3c 10s", 20_00)  # 8 8 8: three-of-a-kind, 75.00 won
    assert r.split_cost() == 30_00
    rec = r.split()
    assert rec.amount == 30_00
    assert r.ledger.total(Move.STAKE, 1, "split") == 30_00
    r.stand()  # 8 10 = 18
    assert r.can_double() and r.double_limit() == 30_00  # new hand's wager: 30.00
    r.double()  # 8 3 10 = 21
    assert r.phase is Phase.DONE
    assert [h.result for h in r.hands] == ["push", "win"]
    assert r.ledger.player_net(1, "press") == 0
    assert r.ledger.player_net(1, "split") == 30_00
    assert r.ledger.player_net(1, "double") == 30_00


def test_double_with_a_press_up_to_the_whole_wager() -> None:
    r = _press_round("5h 7h 6h 10d 10c", 10_00)
    assert r.double_limit() == 20_00
    with pytest.raises(RuleError) as err:
        r.double(21_00)
    assert err.value.rule == "§ 633c.11(g)"
    r.double(20_00)
    assert r.hands[0].result == "win"
    assert r.ledger.player_net(1) == 125_00 + 10_00 + 10_00 + 20_00


def test_surrender_forfeits_half_of_wager_and_press() -> None:
    r = _press_round("10h 8h 6h 9c", 25_00)  # flush 5 to 1: 25.00 won
    assert r.can_surrender()
    r.surrender()
    assert r.hands[0].result == "surrender"
    assert r.ledger.player_net(1, "blackjack") + r.ledger.player_net(1, "press") == -17_50


# ----- dealer Blackjack, insurance, surrender --------------------------------------------


def test_dealer_blackjack_with_peek_ends_the_round_and_insurance_pays() -> None:
    r = stacked("10c Ah 9d Kd")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    assert r.phase is Phase.INSURANCE and r.insurance_offers() == {1: 5_00}
    with pytest.raises(RuleError) as err:
        r.insure(1, 6_00)
    assert err.value.rule == "interpretation 14"
    r.insure(1, 5_00)
    assert r.phase is Phase.DONE and r.dealer_blackjack and r.hands[0].result == "lose"
    assert r.ledger.player_net(1, "insurance") == 10_00
    assert r.ledger.player_net(1) == 0


def test_insurance_lost_when_no_dealer_blackjack() -> None:
    r = stacked("10c Ah 9d 7d")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.insure(1, 5_00)
    assert r.phase is Phase.PLAY
    r.stand()
    assert r.ledger.player_net(1, "insurance") == -5_00
    assert r.hands[0].result == "win"  # 19 against soft 18


def test_player_blackjack_pushes_a_dealer_blackjack() -> None:
    r = stacked("As Kh Kd Ac")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    assert r.phase is Phase.DONE and r.hands[0].result == "push"
    assert r.ledger.player_net(1) == 0


def test_dealer_blackjack_without_peek_takes_only_the_original_wager() -> None:
    for takes_doubles, expected in ((False, -10_00), (True, -20_00)):
        r = stacked("8c As 8d Kd 3c 9c 2c", hole_card=HoleCard.AFTER_PLAYERS,
                    dealer_blackjack_takes_doubles=takes_doubles)
        r.place_bet(1, "blackjack", 10_00)
        r.close_bets()
        r.insure(1, 0)
        assert r.phase is Phase.PLAY and not r.can_surrender()
        r.split()
        r.double()
        r.stand()
        assert r.phase is Phase.DONE and r.dealer_blackjack
        assert r.ledger.player_net(1, "split") == 0
        assert r.ledger.player_net(1) == expected
        assert any(e.citation == "§ 633a.11(d)" for e in r.ledger)


def test_surrender_returns_half_and_only_on_two_cards() -> None:
    r = stacked("10h 9s 6d 10c")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    assert Step.SURRENDER in r.legal_actions()
    r.surrender()
    assert r.ledger.player_net(1) == -5_00 and r.hands[0].result == "surrender"
    r = stacked("10h 9s 2d 10c 2c")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.hit()
    assert not r.can_surrender()
    r = stacked("10h 9s 6d 10c", late_surrender=False)
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    with pytest.raises(RuleError, match="not offered"):
        r.surrender()


# ----- splits and doubles ---------------------------------------------------------------


def test_resplit_limit() -> None:
    r = stacked("8c 6h 8d 10s 8h 8s 10c 10d 10h")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.split()
    assert r.can_split()
    r.split()
    assert len(r.hands_of(1)) == 3 and not r.can_split()
    with pytest.raises(RuleError, match="at most 3 hands"):
        r.split()
    r.stand()
    r.stand()
    r.stand()
    assert r.phase is Phase.DONE
    assert [h.result for h in r.hands] == ["win", "win", "win"]
    assert r.ledger.player_net(1) == 30_00


def test_split_aces_one_card_each_and_no_resplit() -> None:
    r = stacked("Ac 6h Ad 10s As 9c 5c")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.split()
    assert r.phase is Phase.DONE  # both aces got one card and stood
    assert [str(h.value) for h in r.hands] == ["soft 12", "soft 20"]
    r = stacked("Ac 6h Ad 10s As 9c 9d 5c 10h", resplit_aces=True)
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.split()
    assert r.legal_actions() == [Step.STAND, Step.SPLIT]
    r.split()
    assert len(r.hands) == 3 and r.phase is Phase.DONE


def test_split_ace_and_ten_is_not_a_blackjack() -> None:
    r = stacked("Ac 6h Ad 10s Kc Kd 2c")
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.split()
    assert [h.result for h in r.hands] == ["win", "win"]
    assert r.ledger.player_net(1) == 20_00


def test_double_rules() -> None:
    r = stacked("10h 9s 6d 10c", double=DoubleRule.TEN_OR_ELEVEN)
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    with pytest.raises(RuleError, match="not offered"):
        r.double()
    r = stacked("5h 9s 3d 10c 2c 10d", double_after_split=False)
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.hit()
    with pytest.raises(RuleError, match="first two cards"):
        r.double()


@pytest.mark.parametrize("das", [True, False])
def test_no_double_after_split_covers_both_split_hands(das: bool) -> None:
    # 8-8 against a 6 splits; each hand draws a 3 (11): both may double only with DAS.
    r = stacked("8h 6d 8c 10c 3d 3h 10s 10h 10d", double_after_split=das)
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    r.split()
    assert r.current_hand is not None and r.current_hand.value.total == 11
    assert r.can_double() is das
    if not das:
        with pytest.raises(RuleError, match="after a split"):
            r.double()
        r.stand()
        assert r.current_hand is not None and r.current_hand.value.total == 11
        assert not r.can_double()


def test_six_to_five_blackjack() -> None:
    r = stacked("As 9d Kh 9c", blackjack_pays=BlackjackPays.SIX_TO_FIVE)
    r.place_bet(1, "blackjack", 10_00)
    r.close_bets()
    assert r.ledger.player_net(1) == 12_00
    r = stacked("As 9d Kh 9c", blackjack_pays=BlackjackPays.SIX_TO_FIVE)
    r.place_bet(1, "blackjack", 7_35)  # 8.82: whole cents
    r.close_bets()
    assert r.ledger.player_net(1) == 8_82


def test_dealer_hits_soft_17() -> None:
    for h17, result in ((False, "push"), (True, "lose")):
        r = stacked("10c Ah 7d 6s 3c", dealer_hits_soft_17=h17)
        r.place_bet(1, "blackjack", 10_00)
        r.close_bets()
        r.insure(1, 0)
        r.stand()
        assert r.hands[0].result == result


# ----- several seats ----------------------------------------------------------------------


def test_multi_seat_deal_settle_and_play_order() -> None:
    # seats 1 and 3 bet, seat 2 sits out: 1st cards to 1, 3; upcard; 2nd cards; hole
    r = stacked("7c 7d 9h 7h 7s 10c 10d 2c", seats=3)
    for seat in (1, 3):
        r.place_bet(seat, "blackjack", 10_00)
        r.place_bet(seat, "blazing7s", 1_00)
    r.close_bets()
    assert [str(c) for c in r.hands_of(1)[0].cards] == ["7♣", "7♥"]
    assert [str(c) for c in r.hands_of(3)[0].cards] == ["7♦", "7♠"]
    assert str(r.upcard) == "9♥" and r.hands_of(2) == []
    assert [s.wager for s in r.side_settlements()] == ["blazing7s", "blazing7s"]
    side = [x.seat for x in r.records if x.step is Step.SIDE_WAGER]
    assert side == [3, 1]  # farthest to the dealer's right first
    assert r.current_hand is not None and r.current_hand.seat == 1
    r.stand()
    assert r.current_hand is not None and r.current_hand.seat == 3
    r.hit()  # 7 7 10 = 24
    assert r.phase is Phase.DONE
    assert r.ledger.player_net(1, "blazing7s") == 40_00
    assert r.ledger.player_net(3, "blackjack") == -10_00


def test_not_offered_trilux_at_three_decks() -> None:
    with pytest.raises(RuleError):
        stacked("", config=TableConfig(decks=3, side_wagers={"trilux": "TLX-3"}))
    full_table(1)
