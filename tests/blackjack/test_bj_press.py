"""The TriLux Deluxe Press advisor (interpretation 7)."""

from __future__ import annotations

import pytest

from sidebet.core.cards import parse_cards
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.ev import decision_evs
from sidebet.exact.blackjack.press import press_advice, press_chart
from sidebet.exact.par import par_sheet
from sidebet.regulation.house_rules import HouseRules


def advice(text: str, decks: int = 6):  # type: ignore[no-untyped-def]
    p, q, up = parse_cards(text)
    return press_advice((p, q), up, Shoe.standard(decks).remove([p, q, up]), HouseRules())


def test_blackjack_press_pays_even_money_unless_dealer_blackjack() -> None:
    adv = advice("As Ks Qs")  # straight flush and a player Blackjack against a 10
    assert adv.trilux == "straight_flush" and adv.press and adv.play == "blackjack"
    unseen = Shoe.standard(6).remove("As Ks Qs")
    aces = sum(n for r, n in unseen.rank_counts().items() if r.blackjack_value == 11)
    assert adv.ev_per_unit == pytest.approx(1 - aces / unseen.total, abs=1e-15)


def test_press_value_is_best_play_times_no_blackjack() -> None:
    adv = advice("9h Th Jh")
    cards = parse_cards("9h Th Jh")
    evs = decision_evs(cards[:2], cards[2], Shoe.standard(6).remove(cards))
    unseen = Shoe.standard(6).remove(cards)
    aces = sum(n for r, n in unseen.rank_counts().items() if r.blackjack_value == 11)
    nb = 1 - aces / unseen.total
    assert adv.ev_per_unit == pytest.approx(evs.stand * nb, abs=1e-12)
    assert adv.press and adv.play == "stand"


def test_collect_on_a_stiff_hand() -> None:
    adv = advice("5c 7c Tc")  # a flush: 12 against a 10
    assert adv.trilux == "flush" and not adv.press and adv.ev_per_unit < 0
    assert advice("2c 9d Kh").trilux is None


def test_chart_agrees_with_advice_and_par_sheet() -> None:
    chart = press_chart(6)
    cell = chart.cells[(8, 9, 9)]
    assert cell.ev_per_unit == pytest.approx(advice("9h Th Jh").ev_per_unit, abs=1e-12)
    sheet = par_sheet("trilux", 6)
    p_win = sum(line.combinations for line in sheet.lines if line.outcome != "lose")
    p_win /= sheet.total_combinations
    assert sum(c.win_probability for c in chart.cells.values()) == pytest.approx(p_win, abs=1e-12)
    s = chart.summary
    assert s.paytable == "TLX-3"
    assert s.optimal > max(s.always, 0.0) and s.never == 0.0
    assert 0 < s.press_share < 1
    assert s.trilux_return == pytest.approx(-float(sheet.house_edge), abs=1e-12)
