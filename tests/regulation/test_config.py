"""Table configuration (Rules Submission), house rules and bet checks (sidebet.regulation.submission, sidebet.regulation.house_rules)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from sidebet.core.errors import ConfigError, RuleError, Violation
from sidebet.core.money import parse_money as m
from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard, HouseRules
from sidebet.regulation.submission import (
    Limits,
    TableConfig,
    bet_violations,
    load_table_config,
    table_config_from_dict,
    verify_bet,
)
from sidebet.regulation.wagers import BetContext


def rules_of(violations: list[Violation]) -> list[str]:
    return [v.rule for v in violations]


# --- house rules (interpretation 14) -----------------------------------------------


def test_house_rule_defaults_are_interpretation_14() -> None:
    rules = HouseRules()
    assert rules.dealer_hits_soft_17 is False
    assert rules.blackjack_pays is BlackjackPays.THREE_TO_TWO
    assert rules.blackjack_pays.odds == Fraction(3, 2)
    assert rules.double is DoubleRule.ANY_TWO
    assert rules.double_after_split is True
    assert rules.max_split_hands == 3
    assert rules.resplit_aces is False
    assert rules.hit_split_aces is False
    assert rules.late_surrender is True
    assert rules.insurance is True
    assert rules.hole_card is HoleCard.PEEK
    assert rules.peek is True
    assert rules.dealer_blackjack_takes_doubles is False
    assert rules.violations() == []
    assert rules.describe() == "S17, BJ 3:2, DA2, DAS, SP3, no RSA, LS, peek"
    assert TableConfig().decks == 6


@pytest.mark.parametrize(
    ("rule", "total", "soft", "allowed"),
    [
        (DoubleRule.ANY_TWO, 19, True, True),
        (DoubleRule.ANY_TWO, 5, False, True),
        (DoubleRule.NINE_TO_ELEVEN, 9, False, True),
        (DoubleRule.NINE_TO_ELEVEN, 8, False, False),
        (DoubleRule.NINE_TO_ELEVEN, 19, True, False),
        (DoubleRule.TEN_OR_ELEVEN, 11, False, True),
        (DoubleRule.TEN_OR_ELEVEN, 9, False, False),
        (DoubleRule.TEN_OR_ELEVEN, 12, False, False),
    ],
)
def test_double_rule(rule: DoubleRule, total: int, soft: bool, allowed: bool) -> None:
    assert rule.allows(total, soft) is allowed


def test_house_rule_violations() -> None:
    assert [str(v) for v in HouseRules(max_split_hands=1).violations()] == [
        "§ 601a.2: max_split_hands must be 2 to 4, not 1"
    ]
    assert rules_of(HouseRules(max_split_hands=5, penetration=Fraction(1)).violations()) == [
        "§ 601a.2",
        "§ 601a.2",
    ]
    assert HouseRules(dealer_hits_soft_17=True, blackjack_pays=BlackjackPays.SIX_TO_FIVE,
                      hole_card=HoleCard.AFTER_PLAYERS).describe().startswith("H17, BJ 6:5")


# --- table configuration checks ----------------------------------------------------


@pytest.mark.parametrize(
    ("decks", "paytable"), [(1, "TLX-1"), (2, "TLX-2"), (4, "TLX-3"), (6, "TLX-3"), (8, "TLX-3")]
)
def test_trilux_paytable_per_deck_count(decks: int, paytable: str) -> None:
    assert TableConfig(decks=decks, side_wagers={"trilux": paytable}).violations() == []
    assert TableConfig.for_wager("trilux", decks, paytable).violations() == []


@pytest.mark.parametrize(
    ("decks", "paytable", "required"),
    [(1, "TLX-3", "TLX-1"), (1, "TLX-2", "TLX-1"), (2, "TLX-3", "TLX-2"), (6, "TLX-1", "TLX-3"),
     (8, "TLX-2", "TLX-3")],
)
def test_trilux_wrong_paytable(decks: int, paytable: str, required: str) -> None:
    found = TableConfig(decks=decks, side_wagers={"trilux": paytable}).violations()
    assert rules_of(found) == ["§ 633c.11(i)"]
    assert f"the regulation requires {required}" in found[0].message


def test_tlx3_at_one_deck_message() -> None:
    [v] = TableConfig(decks=1, side_wagers={"trilux": "TLX-3"}).violations()
    assert str(v) == (
        "§ 633c.11(i): TriLux Deluxe paytable TLX-3 is not allowed with 1 deck; "
        "the regulation requires TLX-1"
    )


@pytest.mark.parametrize("decks", [3, 5, 7])
def test_trilux_refused_at_3_5_7_decks(decks: int) -> None:
    for paytable in ("TLX-1", "TLX-2", "TLX-3"):
        [v] = TableConfig(decks=decks, side_wagers={"trilux": paytable}).violations()
        assert v.rule == "§ 633c.11(i)"
        assert v.message == (
            f"TriLux Deluxe may be offered only with 1, 2, 4, 6 or 8 decks, not {decks}"
        )


@pytest.mark.parametrize("decks", [4, 6, 8])
def test_upcard_luck_allowed(decks: int) -> None:
    assert TableConfig.for_wager("upcard-luck", decks).violations() == []


@pytest.mark.parametrize("decks", [1, 2, 3, 5, 7])
def test_upcard_luck_refused(decks: int) -> None:
    [v] = TableConfig.for_wager("upcard-luck", decks).violations()
    assert str(v) == (
        f"§ 633b.15(b): Upcard Luck may be offered only with 4, 6 or 8 decks, not {decks}"
    )


def test_top3_without_three_card_poker() -> None:
    [v] = TableConfig(side_wagers={"top3": "A"}).violations()
    assert str(v) == "§ 633c.7(a): Top 3 may be offered only with the Three Card Poker wager"
    ok = TableConfig(side_wagers={"top3": "B", "three-card-poker": "classic"})
    assert ok.violations() == []


def test_for_wager_adds_what_it_requires() -> None:
    table = TableConfig.for_wager("top3", 6, "B")
    assert dict(table.side_wagers) == {"top3": "B", "three-card-poker": "classic"}
    assert table.paytable_name("top3") == "B"
    assert table.offers("three-card-poker")
    assert not table.offers("trilux")


@pytest.mark.parametrize("decks", range(1, 9))
def test_blazing7s_and_top3_any_deck_count(decks: int) -> None:
    assert TableConfig.for_wager("blazing7s", decks).violations() == []
    assert TableConfig.for_wager("top3", decks, "A").violations() == []


def test_every_violation_listed_at_once() -> None:
    table = TableConfig(
        decks=2,
        side_wagers={"trilux": "TLX-3", "upcard-luck": "standard", "top3": "A", "blazing7s": "Z"},
        rules=HouseRules(max_split_hands=9),
        limits={"blackjack": Limits(m("100"), m("10"))},
    )
    found = table.violations()
    assert rules_of(found) == [
        "§ 601a.2",  # max_split_hands
        "§ 633c.11(i)",
        "§ 633b.15(b)",
        "§ 633c.7(a)",
        "§ 601a.2",  # unknown Blazing 7's paytable
        "§ 601a.2",  # min > max
    ]
    with pytest.raises(RuleError) as info:
        table.verify()
    assert info.value.violations == tuple(found)
    assert info.value.rule == "§ 601a.2"
    assert str(info.value) == "; ".join(str(v) for v in found)


def test_doctest_example_three_violations() -> None:
    table = TableConfig(decks=2, side_wagers={"trilux": "TLX-3", "upcard-luck": "standard",
                                              "top3": "A"})
    assert rules_of(table.violations()) == ["§ 633c.11(i)", "§ 633b.15(b)", "§ 633c.7(a)"]


@pytest.mark.parametrize("decks", [0, 9])
def test_deck_count_out_of_range(decks: int) -> None:
    found = TableConfig(decks=decks).violations()
    assert rules_of(found) == ["interpretation 1"]


def test_unknown_wager_and_paytable() -> None:
    assert rules_of(TableConfig(side_wagers={"roulette": "x"}).violations()) == ["§ 601a.2"]
    [v] = TableConfig(side_wagers={"top3": "C", "three-card-poker": "classic"}).violations()
    assert "Top 3 has no paytable 'C'" in v.message


def test_paytable_name_of_a_wager_not_offered() -> None:
    with pytest.raises(RuleError, match=r"does not offer TriLux Deluxe"):
        TableConfig().paytable_name("trilux")


def test_table_min_above_max() -> None:
    table = TableConfig(limits={"trilux": Limits(m("50"), m("5"))},
                        side_wagers={"trilux": "TLX-3"})
    assert [str(v) for v in table.violations()] == [
        "§ 601a.2: trilux table minimum 50.00 exceeds its maximum 5.00"
    ]


# --- bet checks ---------------------------------------------------------------------


def bet(wager: str, amount: str, blackjack: str, tcp: str = "0", decks: int = 6,
        table: TableConfig | None = None) -> list[str]:
    t = table or TableConfig.for_wager(wager, decks)
    return [str(v) for v in bet_violations(t, wager, BetContext(m(amount), m(blackjack), m(tcp)))]


def test_trilux_exactly_twice_allowed() -> None:
    assert bet("trilux", "40.00", "20.00") == []
    assert bet("trilux", "0.02", "0.01") == []


def test_trilux_over_twice_refused() -> None:
    assert bet("trilux", "40.01", "20.00") == [
        "§ 633c.11(c): TriLux Deluxe wager 40.01 exceeds twice the Blackjack wager 20.00"
    ]
    assert bet("trilux", "50.00", "20.00") == [
        "§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00"
    ]


def test_trilux_exact_error_message() -> None:
    table = TableConfig.for_wager("trilux", 6)
    with pytest.raises(RuleError) as info:
        verify_bet(table, "trilux", BetContext(m("50"), m("20")))
    assert str(info.value) == (
        "§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00"
    )
    assert info.value.rule == "§ 633c.11(c)"


def test_upcard_luck_bet_limit() -> None:
    assert bet("upcard-luck", "20.00", "20.00") == []
    assert bet("upcard-luck", "20.01", "20.00") == [
        "§ 633b.15(d): Upcard Luck wager 20.01 exceeds the Blackjack wager 20.00"
    ]


def test_top3_needs_a_three_card_poker_bet() -> None:
    assert bet("top3", "5", "10", tcp="5") == []
    assert bet("top3", "5", "10") == [
        "§ 633c.7(c): Top 3 wager requires a Three Card Poker wager first"
    ]


@pytest.mark.parametrize(
    ("wager", "rule"),
    [
        ("trilux", "§ 633c.11(c)"),
        ("upcard-luck", "§ 633b.15(d)"),
        ("top3", "§ 633c.7(c)"),
        ("blazing7s", "§ 633b.20(b)"),
        ("three-card-poker", "§ 633a.6(d)"),
    ],
)
def test_no_blackjack_wager_refused(wager: str, rule: str) -> None:
    found = bet(wager, "5", "0", tcp="5")
    assert found[0].startswith(f"{rule}: ")
    assert "requires a Blackjack wager first" in found[0]
    with pytest.raises(RuleError):
        verify_bet(TableConfig.for_wager(wager, 6), wager, BetContext(m("5"), 0, m("5")))


@pytest.mark.parametrize("wager", ["trilux", "upcard-luck", "top3", "blazing7s", "three-card-poker"])
@pytest.mark.parametrize("amount", ["0", "-5"])
def test_side_wager_must_be_positive(wager: str, amount: str) -> None:
    found = bet(wager, amount, "10", tcp="5")
    assert any("must be a positive amount" in v for v in found)


def test_blazing7s_has_no_amount_cap() -> None:
    assert bet("blazing7s", "1000", "5") == []


def test_wager_not_offered_at_the_table() -> None:
    assert bet("trilux", "5", "10", table=TableConfig()) == [
        "§ 601a.2: this table's Rules Submission does not offer TriLux Deluxe"
    ]


def test_side_wager_table_limits() -> None:
    table = TableConfig(side_wagers={"blazing7s": "A"},
                        limits={"blazing7s": Limits(m("5"), m("100"))})
    assert bet("blazing7s", "5", "10", table=table) == []
    assert bet("blazing7s", "100", "10", table=table) == []
    assert bet("blazing7s", "4.99", "10", table=table) == [
        "§ 601a.2: Blazing 7's wager 4.99 is below the table minimum 5.00"
    ]
    assert bet("blazing7s", "100.01", "10", table=table) == [
        "§ 601a.2: Blazing 7's wager 100.01 exceeds the table maximum 100.00"
    ]


def test_several_bet_violations_at_once() -> None:
    table = TableConfig(side_wagers={"trilux": "TLX-3"}, limits={"trilux": Limits(None, m("25"))})
    assert bet("trilux", "50", "20", table=table) == [
        "§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00",
        "§ 601a.2: TriLux Deluxe wager 50.00 exceeds the table maximum 25.00",
    ]


def test_blackjack_wager_table_limits_checked() -> None:
    table = TableConfig(side_wagers={"blazing7s": "A"},
                        limits={"blackjack": Limits(m("10"), m("1000"))})
    assert bet("blazing7s", "5", "1", table=table) != []
    assert bet("blazing7s", "5", "5000", table=table) != []


# --- TOML loading -------------------------------------------------------------------

FULL = """
name = "Pit 2, table 14"
decks = 6

[rules]
dealer_hits_soft_17 = true
blackjack_pays = "6:5"
double = "10-11"
double_after_split = false
max_split_hands = 4
resplit_aces = true
hit_split_aces = true
late_surrender = false
insurance = false
hole_card = "after-players"
dealer_blackjack_takes_doubles = true
penetration = 0.8

[limits]
min = "10.00"
max = 1000

[side_wagers.trilux]
paytable = "TLX-3"
min = "5.00"
max = 200.5

[side_wagers.upcard_luck]

[side_wagers.top3]
paytable = "B"

[side_wagers.tcp]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_full_file(tmp_path: Path) -> None:
    table = load_table_config(write(tmp_path, FULL))
    assert table.name == "Pit 2, table 14"
    assert table.decks == 6
    assert dict(table.side_wagers) == {
        "trilux": "TLX-3", "upcard-luck": "standard", "top3": "B", "three-card-poker": "classic",
    }
    assert table.limits["blackjack"] == Limits(1000, 100000)
    assert table.limits["trilux"] == Limits(500, 20050)
    assert "upcard-luck" not in table.limits
    assert table.rules == HouseRules(
        dealer_hits_soft_17=True,
        blackjack_pays=BlackjackPays.SIX_TO_FIVE,
        double=DoubleRule.TEN_OR_ELEVEN,
        double_after_split=False,
        max_split_hands=4,
        resplit_aces=True,
        hit_split_aces=True,
        late_surrender=False,
        insurance=False,
        hole_card=HoleCard.AFTER_PLAYERS,
        dealer_blackjack_takes_doubles=True,
        penetration=Fraction(4, 5),
    )
    assert table.violations() == []


def test_load_empty_file_gives_defaults(tmp_path: Path) -> None:
    table = load_table_config(write(tmp_path, ""))
    assert table == TableConfig()


def test_load_reports_rule_violations_only_through_violations(tmp_path: Path) -> None:
    table = load_table_config(write(tmp_path, 'decks = 2\n[side_wagers.upcard-luck]\n'
                                              '[side_wagers.top3]\n'))
    assert rules_of(table.violations()) == ["§ 633b.15(b)", "§ 633c.7(a)"]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("decks = ", r"is not valid TOML"),
        ("decks = 6\ndecks = 8\n", r"is not valid TOML"),
        ("[rules\n", r"is not valid TOML"),
        ("colour = 'red'\n", r"unknown key\(s\) colour"),
        ("decks = 6\nfoo = 1\nbar = 2\n", r"unknown key\(s\) bar, foo"),
        ("decks = 'six'\n", r"decks must be a whole number"),
        ("decks = 6.0\n", r"decks must be a whole number"),
        ("decks = true\n", r"decks must be a whole number"),
        ("[rules]\nsurrender = true\n", r"\[rules\] has no setting 'surrender'"),
        ("[rules]\nblackjack_pays = '2:1'\n", r"blackjack_pays = '2:1' is not one of"),
        ("[rules]\ndouble = 'all'\n", r"double = 'all' is not one of"),
        ("[rules]\nhole_card = 'none'\n", r"hole_card = 'none' is not one of"),
        ("[rules]\nlate_surrender = 'yes'\n", r"late_surrender must be true or false"),
        ("[rules]\nmax_split_hands = 3.0\n", r"max_split_hands must be a whole number"),
        ("[rules]\nmax_split_hands = true\n", r"max_split_hands must be a whole number"),
        ("[rules]\npenetration = 'most'\n", r"penetration must be a number"),
        ("[rules]\npenetration = true\n", r"penetration must be a number"),
        ("[limits]\nmin = 'ten'\n", r"\[limits\] min"),
        ("[limits]\nmax = '1.005'\n", r"\[limits\] max"),
        ("[limits]\nmin = true\n", r"\[limits\] min"),
        ("[side_wagers]\ntrilux = 'TLX-3'\n", r"\[side_wagers.trilux\] must be a table"),
        ("[side_wagers.roulette]\n", r"unknown wager 'roulette'"),
        ("[side_wagers.trilux]\npaytable = 'TLX-3'\nodds = 5\n",
         r"\[side_wagers.trilux\] unknown key\(s\) odds"),
        ("[side_wagers.trilux]\nmin = 'x'\n", r"\[side_wagers.trilux\] min"),
    ],
)
def test_malformed_files(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        load_table_config(write(tmp_path, text))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read"):
        load_table_config(tmp_path / "nope.toml")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(ConfigError):
        load_table_config(path)


@pytest.mark.parametrize("text", ["rules = 5\n", "limits = 5\n", "side_wagers = 5\n"])
def test_section_that_is_not_a_table(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError):
        load_table_config(write(tmp_path, text))


def test_unknown_key_in_limits(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_table_config(write(tmp_path, "[limits]\nminimum = '10.00'\n"))


def test_table_config_from_dict_names_its_source() -> None:
    with pytest.raises(ConfigError, match=r"^here: unknown key\(s\) x"):
        table_config_from_dict({"x": 1}, source="here")
