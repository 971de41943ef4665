"""Settling one side wager: outcome, odds, exact money and citation (sidebet.regulation.side_settlement)."""

from __future__ import annotations

import pytest

from sidebet.core.cards import Card, parse_cards
from sidebet.core.errors import CardError, RuleError, ShoeError
from sidebet.core.money import parse_money as m
from sidebet.regulation.side_settlement import payout, settle, settle_outcome
from sidebet.regulation.submission import Limits, TableConfig
from sidebet.regulation.wagers import LOSE, get_wager

# (wager, paytable, decks, player, upcard, outcome, pays, citation): one row per paytable line.
LINES = [
    ("trilux", "TLX-1", 1, "Qh Kh", "Ah", "straight_flush", 20, "§ 633c.11(h)"),
    ("trilux", "TLX-1", 1, "7c 7d", "7h", "three_of_a_kind", 15, "§ 633c.11(h)"),
    ("trilux", "TLX-1", 1, "2c 3d", "4h", "straight", 9, "§ 633c.11(h)"),
    ("trilux", "TLX-1", 1, "2c 9c", "Jc", "flush", 6, "§ 633c.11(h)"),
    ("trilux", "TLX-2", 2, "Ah 2h", "3h", "straight_flush", 20, "§ 633c.11(h)"),
    ("trilux", "TLX-2", 2, "7c 7c", "7h", "three_of_a_kind", 15, "§ 633c.11(h)"),
    ("trilux", "TLX-2", 2, "Qc Kd", "Ah", "straight", 9, "§ 633c.11(h)"),
    ("trilux", "TLX-2", 2, "Kh Ah", "2h", "flush", 5, "§ 633c.11(h)"),
    ("trilux", "TLX-3", 4, "Qh Kh", "Ah", "straight_flush", 25, "§ 633c.11(h)"),
    ("trilux", "TLX-3", 6, "7d 7d", "7d", "three_of_a_kind", 15, "§ 633c.11(h)"),
    ("trilux", "TLX-3", 8, "Ac 2d", "3h", "straight", 8, "§ 633c.11(h)"),
    ("trilux", "TLX-3", 6, "2c 9c", "Jc", "flush", 5, "§ 633c.11(h)"),
    ("upcard-luck", "standard", 6, "As Js", "5d", "ace_jack_spades", 80, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 4, "As Qs", "2d", "blackjack", 8, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 8, "Ac Jc", "7d", "blackjack", 8, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 6, "5c 4d", "7h", "total_9_to_11", 4, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 6, "6c 5d", "2h", "total_9_to_11", 4, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 6, "As 8d", "7h", "total_18_to_20", 3, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 6, "As 9d", "3h", "total_18_to_20", 3, "§ 633b.15(g)"),
    ("upcard-luck", "standard", 6, "10c 8d", "6h", "total_18_to_20", 3, "§ 633b.15(g)"),
    ("top3", "A", 6, "9h 9h", "9h", "suited_three_of_a_kind", 270, "§ 633c.7(e)"),
    ("top3", "A", 6, "Ah 2h", "3h", "straight_flush", 180, "§ 633c.7(e)"),
    ("top3", "A", 6, "9h 9c", "9d", "three_of_a_kind", 90, "§ 633c.7(e)"),
    ("top3", "B", 3, "As As", "As", "suited_three_of_a_kind", 1000, "§ 633c.7(e)"),
    ("top3", "B", 6, "Qs Ks", "As", "straight_flush", 100, "§ 633c.7(e)"),
    ("top3", "B", 6, "9h 9c", "9h", "three_of_a_kind", 70, "§ 633c.7(e)"),
    ("blazing7s", "A", 3, "7d 7d", "7d", "three_sevens_diamonds", 5000, "§ 633b.20(e)"),
    ("blazing7s", "A", 6, "7s 7s", "7s", "three_sevens_suited", 2000, "§ 633b.20(e)"),
    ("blazing7s", "A", 6, "7h 7d", "7h", "three_sevens_same_color", 1000, "§ 633b.20(e)"),
    ("blazing7s", "A", 6, "7c 7d", "7s", "three_sevens", 500, "§ 633b.20(e)"),
    ("blazing7s", "A", 6, "7c 7d", "Ks", "two_sevens", 40, "§ 633b.20(e)"),
    ("blazing7s", "A", 6, "7c 8d", "7s", "one_seven", 2, "§ 633b.20(e)"),
    ("three-card-poker", "classic", 6, "Qh Kh", "Ah", "straight_flush", 9,
     "§ 633a.6(e)(9), interpretation 11"),
    ("three-card-poker", "classic", 6, "7c 7d", "7h", "three_of_a_kind", 9,
     "§ 633a.6(e)(9), interpretation 11"),
    ("three-card-poker", "classic", 6, "Ac 2d", "3h", "straight", 9,
     "§ 633a.6(e)(9), interpretation 11"),
    ("three-card-poker", "classic", 6, "2c 9c", "Jc", "flush", 9,
     "§ 633a.6(e)(9), interpretation 11"),
]

# Amounts that every wager accepts against a 20.00 Blackjack wager.
AMOUNTS = [m("5"), m("12.34"), m("0.01"), m("20")]


@pytest.mark.parametrize(
    ("wager", "paytable", "decks", "player", "upcard", "outcome", "pays", "citation"), LINES
)
@pytest.mark.parametrize("amount", AMOUNTS)
def test_every_paytable_line(
    wager: str, paytable: str, decks: int, player: str, upcard: str, outcome: str, pays: int,
    citation: str, amount: int,
) -> None:
    table = TableConfig.for_wager(wager, decks, paytable)
    s = settle(table, wager, amount, m("20"), player, upcard, required_bet=m("5"))
    assert (s.wager, s.paytable, s.outcome, s.pays) == (wager, paytable, outcome, pays)
    assert s.citation == citation
    assert s.amount == amount
    assert s.stake == amount
    assert s.winnings == pays * amount
    assert s.net == pays * amount
    assert s.won
    assert s.label == get_wager(wager).label(outcome)
    assert s.player == parse_cards(player)
    assert s.upcard == Card.parse(upcard)


def test_every_paytable_line_is_listed() -> None:
    from sidebet.regulation.wagers import WAGERS

    expected = {(w.id, t.name, line.outcome) for w in WAGERS.values() for t in w.paytables
                for line in t.lines}
    assert {(w, p, o) for w, p, _d, _pl, _u, o, _pa, _c in LINES} == expected


# (wager, paytable, decks, player, upcard, citation): losing hands.
LOSSES = [
    ("trilux", "TLX-3", 6, "Kc Ad", "2h", "§ 633c.11(d)(2)"),
    ("trilux", "TLX-1", 1, "2c 9d", "Kh", "§ 633c.11(d)(2)"),
    ("upcard-luck", "standard", 6, "As Js", "8d", "§ 633b.15(f)(1)"),
    ("upcard-luck", "standard", 6, "Ah Ad", "5d", "§ 633b.15(f)(2)"),
    ("upcard-luck", "standard", 6, "10c 7d", "5d", "§ 633b.15(f)(2)"),
    ("top3", "A", 6, "Ah 2h", "4h", "§ 633c.7(d)(1)"),
    ("top3", "B", 6, "Ah 2c", "3h", "§ 633c.7(d)(1)"),
    ("blazing7s", "A", 6, "8c 9d", "7s", "§ 633b.20(d)(1)"),
    ("three-card-poker", "classic", 6, "Kc Ad", "2h", "§ 633a.6(e)(9)"),
]


@pytest.mark.parametrize(("wager", "paytable", "decks", "player", "upcard", "citation"), LOSSES)
def test_losing_wager_is_collected(
    wager: str, paytable: str, decks: int, player: str, upcard: str, citation: str
) -> None:
    table = TableConfig.for_wager(wager, decks, paytable)
    s = settle(table, wager, m("12.34"), m("20"), player, upcard, required_bet=m("5"))
    assert s.outcome == LOSE
    assert s.label == "Lose"
    assert s.pays == -1
    assert (s.stake, s.winnings, s.net) == (0, 0, -m("12.34"))
    assert s.citation == citation
    assert not s.won


def test_suited_three_of_a_kind_in_trilux_pays_three_of_a_kind() -> None:
    table = TableConfig.for_wager("trilux", 6)
    s = settle(table, "trilux", m("10"), m("10"), "7d 7d", "7d")
    assert (s.outcome, s.pays, s.winnings) == ("three_of_a_kind", 15, m("150"))


@pytest.mark.parametrize(("paytable", "pays"), [("A", 270), ("B", 1000)])
def test_suited_three_of_a_kind_in_top3(paytable: str, pays: int) -> None:
    table = TableConfig.for_wager("top3", 6, paytable)
    s = settle(table, "top3", m("1"), m("10"), "Kc Kc", "Kc", required_bet=m("1"))
    assert (s.outcome, s.pays, s.stake, s.winnings, s.net) == (
        "suited_three_of_a_kind", pays, m("1"), pays * m("1"), pays * m("1"),
    )


@pytest.mark.parametrize("decks", [1, 2])
def test_three_diamond_sevens_need_three_decks(decks: int) -> None:
    table = TableConfig.for_wager("blazing7s", decks)
    with pytest.raises(CardError, match=r"7♦ cannot be dealt"):
        settle(table, "blazing7s", m("5"), m("10"), "7d 7d", "7d")
    with pytest.raises(ShoeError):
        settle(table, "blazing7s", m("5"), m("10"), "7d 7d", "7d")


def test_three_diamond_sevens_at_three_decks() -> None:
    table = TableConfig.for_wager("blazing7s", 3)
    s = settle(table, "blazing7s", m("5"), m("10"), "7d 7d", "7d")
    assert (s.outcome, s.pays, s.winnings, s.citation) == (
        "three_sevens_diamonds", 5000, m("25000"), "§ 633b.20(e)",
    )


@pytest.mark.parametrize("decks", [1, 2])
def test_suited_three_of_a_kind_impossible_below_three_decks(decks: int) -> None:
    table = TableConfig.for_wager("top3", decks, "B")
    with pytest.raises(ShoeError, match=r"9♥"):
        settle(table, "top3", m("5"), m("10"), "9h 9h", "9h", required_bet=m("5"))


def test_two_of_a_card_from_a_single_deck() -> None:
    table = TableConfig.for_wager("trilux", 1, "TLX-1")
    with pytest.raises(ShoeError, match=r"A♠ cannot be dealt: a 1-deck shoe holds only 1 A♠"):
        settle(table, "trilux", m("5"), m("10"), "As As", "2c")


def test_settle_refuses_a_bet_over_twice_with_exact_message() -> None:
    table = TableConfig.for_wager("trilux", 6)
    with pytest.raises(RuleError) as info:
        settle(table, "trilux", m("50"), m("20"), "Qh Kh", "Ah")
    assert str(info.value) == (
        "§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00"
    )
    s = settle(table, "trilux", m("40"), m("20"), "Qh Kh", "Ah")
    assert (s.stake, s.winnings, s.net) == (m("40"), m("1000"), m("1000"))


def test_settle_refuses_upcard_luck_over_the_blackjack_wager() -> None:
    table = TableConfig.for_wager("upcard-luck", 6)
    with pytest.raises(RuleError, match=r"^§ 633b.15\(d\): "):
        settle(table, "upcard-luck", m("20.01"), m("20"), "As Js", "5d")


def test_settle_refuses_top3_without_a_three_card_poker_bet() -> None:
    table = TableConfig.for_wager("top3", 6)
    with pytest.raises(RuleError, match=r"^§ 633c.7\(c\): "):
        settle(table, "top3", m("5"), m("10"), "9h 9c", "9d")


def test_settle_refuses_without_a_blackjack_wager() -> None:
    table = TableConfig.for_wager("blazing7s", 6)
    with pytest.raises(RuleError, match=r"requires a Blackjack wager first"):
        settle(table, "blazing7s", m("5"), 0, "7c 7d", "7s")


def test_settle_refuses_a_non_compliant_table_listing_everything() -> None:
    table = TableConfig(decks=2, side_wagers={"upcard-luck": "standard", "top3": "A"})
    with pytest.raises(RuleError) as info:
        settle(table, "upcard-luck", m("30"), m("20"), "As Js", "5d")
    assert [v.rule for v in info.value.violations] == ["§ 633b.15(b)", "§ 633c.7(a)", "§ 633b.15(d)"]


def test_settle_refuses_a_wager_the_table_does_not_offer() -> None:
    with pytest.raises(RuleError, match=r"does not offer TriLux Deluxe"):
        settle(TableConfig(), "trilux", m("5"), m("10"), "Qh Kh", "Ah")


def test_settle_side_wager_table_limits() -> None:
    table = TableConfig(side_wagers={"blazing7s": "A"}, limits={"blazing7s": Limits(m("5"), None)})
    with pytest.raises(RuleError, match=r"below the table minimum 5.00"):
        settle(table, "blazing7s", m("1"), m("10"), "7c 7d", "7s")


@pytest.mark.parametrize("player", ["7c", "7c 7d 7h", ""])
def test_player_hand_has_two_cards(player: str) -> None:
    table = TableConfig.for_wager("blazing7s", 6)
    with pytest.raises(CardError, match=r"two cards"):
        settle(table, "blazing7s", m("5"), m("10"), player, "7s")


def test_settle_accepts_cards_and_wager_objects() -> None:
    table = TableConfig.for_wager("blazing7s", 6)
    s = settle(table, get_wager("blazing7s"), m("5"), m("10"), parse_cards("7c 8d"), Card.parse("7s"))
    assert s.outcome == "one_seven"


def test_side_wager_settles_on_the_first_three_cards_only() -> None:
    # Interpretation 13: the settlement takes only the player's two cards and the upcard,
    # so nothing later in the round (hole card, hits, the hand's result) can change it.
    table = TableConfig.for_wager("upcard-luck", 6)
    s = settle(table, "upcard-luck", m("5"), m("10"), "As Js", "5d")
    assert (s.outcome, s.net) == ("ace_jack_spades", m("400"))


def test_to_json() -> None:
    table = TableConfig.for_wager("trilux", 6)
    s = settle(table, "trilux", m("10"), m("20"), "Qh Kh", "Ah")
    assert s.to_json() == {
        "wager": "trilux",
        "paytable": "TLX-3",
        "outcome": "straight_flush",
        "label": "Straight flush",
        "pays": 25,
        "bet": "10.00",
        "stake": "10.00",
        "winnings": "250.00",
        "net": "250.00",
        "citation": "§ 633c.11(h)",
        "player": "Q♥ K♥",
        "upcard": "A♥",
    }
    lost = settle(table, "trilux", m("10"), m("20"), "2c 9d", "Kh").to_json()
    assert (lost["stake"], lost["winnings"], lost["net"]) == ("0.00", "0.00", "-10.00")


@pytest.mark.parametrize(
    ("pays", "amount", "expected"),
    [
        (8, 500, (500, 4000, 4000)),
        (1, 1, (1, 1, 1)),
        (5000, 1234, (1234, 6_170_000, 6_170_000)),
        (-1, 500, (0, 0, -500)),
        (-1, 1, (0, 0, -1)),
    ],
)
def test_payout(pays: int, amount: int, expected: tuple[int, int, int]) -> None:
    # Interpretation 4: "N to 1" returns the stake plus N times it.
    assert payout(pays, amount) == expected


def test_settle_outcome_directly() -> None:
    wager = get_wager("top3")
    s = settle_outcome(wager, wager.paytable("B"), "straight_flush", m("2"),
                       parse_cards("Ah 2h"), Card.parse("3h"))
    assert (s.pays, s.winnings, s.citation) == (100, m("200"), "§ 633c.7(e)")
    lost = settle_outcome(wager, wager.paytable("B"), LOSE, m("2"),
                          parse_cards("Ah 2h"), Card.parse("4h"))
    assert (lost.net, lost.citation) == (-m("2"), "§ 633c.7(d)(1)")
