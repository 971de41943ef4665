"""The five side wagers: classifiers, paytables and registry (sidebet.regulation.wagers)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sidebet.core.cards import ALL_CARDS, Card, parse_cards
from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import (
    LOSE,
    REGULATED,
    WAGERS,
    CountKind,
    EVCategory,
    Wager,
    blazing7s,
    get_wager,
    help_ids,
    help_required,
    three_card_poker,
    top3,
    trilux,
    upcard_luck,
)


def outcome(wager: str, player: str, upcard: str) -> str:
    first, second = parse_cards(player)
    return get_wager(wager).outcome(first, second, Card.parse(upcard))


# --- registry ---------------------------------------------------------------------


def test_each_wager_declares_what_the_rest_of_sidebet_reads() -> None:
    """The short label (pages), EV category and counts (counting analyses), the wagers it
    requires and its place in the help: declared on the wager, read from the registry."""
    shorts = [w.short for w in WAGERS.values()]
    assert shorts == ["TLX", "UL", "T3", "B7", "3CP"] and len(set(shorts)) == len(shorts)
    assert {w.id: w.ev_category for w in WAGERS.values()} == {
        "trilux": EVCategory.POKER_HAND, "upcard-luck": EVCategory.UPCARD_CLASS,
        "top3": EVCategory.POKER_HAND, "blazing7s": EVCategory.SEVENS,
        "three-card-poker": EVCategory.POKER_HAND}
    assert WAGERS["blazing7s"].counts == (CountKind.SEVENS,)
    assert WAGERS["upcard-luck"].counts == ()
    assert help_ids() == "trilux, upcard-luck, top3, blazing7s or three-card-poker"
    assert help_required("{name} brings its {required} wager.") == (
        "Top 3 brings its Three Card Poker wager.")


def test_registry() -> None:
    assert sorted(WAGERS) == ["blazing7s", "three-card-poker", "top3", "trilux", "upcard-luck"]
    assert REGULATED == ("trilux", "upcard-luck", "top3", "blazing7s")
    for wager_id, wager in WAGERS.items():
        assert wager.id == wager_id


@pytest.mark.parametrize(
    ("name", "wager_id"),
    [
        ("TriLux", "trilux"),
        ("trilux-deluxe", "trilux"),
        ("upcard_luck", "upcard-luck"),
        ("UpcardLuck", "upcard-luck"),
        (" top3 ", "top3"),
        ("blazing-7s", "blazing7s"),
        ("blazing7", "blazing7s"),
        ("3cp", "three-card-poker"),
        ("tcp", "three-card-poker"),
        ("three_card_poker", "three-card-poker"),
    ],
)
def test_get_wager_aliases(name: str, wager_id: str) -> None:
    assert get_wager(name).id == wager_id


def test_get_wager_unknown() -> None:
    with pytest.raises(SidebetError, match=r"unknown wager 'roulette'"):
        get_wager("roulette")


@pytest.mark.parametrize(
    ("wager_id", "section"),
    [
        ("trilux", "§ 633c.11"),
        ("upcard-luck", "§ 633b.15"),
        ("top3", "§ 633c.7"),
        ("blazing7s", "§ 633b.20"),
        ("three-card-poker", "§ 633a.6(e)(9)"),
    ],
)
def test_sections(wager_id: str, section: str) -> None:
    assert get_wager(wager_id).section == section


# --- paytables (every line) ------------------------------------------------------

PAYTABLES: dict[tuple[str, str], dict[str, int]] = {
    ("trilux", "TLX-1"): {"straight_flush": 20, "three_of_a_kind": 15, "straight": 9, "flush": 6},
    ("trilux", "TLX-2"): {"straight_flush": 20, "three_of_a_kind": 15, "straight": 9, "flush": 5},
    ("trilux", "TLX-3"): {"straight_flush": 25, "three_of_a_kind": 15, "straight": 8, "flush": 5},
    ("upcard-luck", "standard"): {
        "ace_jack_spades": 80, "blackjack": 8, "total_9_to_11": 4, "total_18_to_20": 3,
    },
    ("top3", "A"): {"suited_three_of_a_kind": 270, "straight_flush": 180, "three_of_a_kind": 90},
    ("top3", "B"): {"suited_three_of_a_kind": 1000, "straight_flush": 100, "three_of_a_kind": 70},
    ("blazing7s", "A"): {
        "three_sevens_diamonds": 5000,
        "three_sevens_suited": 2000,
        "three_sevens_same_color": 1000,
        "three_sevens": 500,
        "two_sevens": 40,
        "one_seven": 2,
    },
    ("three-card-poker", "classic"): {
        "straight_flush": 9, "three_of_a_kind": 9, "straight": 9, "flush": 9,
    },
}

CITATIONS = {
    "trilux": "§ 633c.11(h)",
    "upcard-luck": "§ 633b.15(g)",
    "top3": "§ 633c.7(e)",
    "blazing7s": "§ 633b.20(e)",
}


@pytest.mark.parametrize(("key", "lines"), list(PAYTABLES.items()), ids=lambda v: str(v))
def test_paytable_lines(key: tuple[str, str], lines: dict[str, int]) -> None:
    wager_id, name = key
    wager = get_wager(wager_id)
    table = wager.paytable(name)
    assert {line.outcome: line.pays for line in table.lines} == lines
    # Lines are listed highest first, in the order of the wager's outcomes.
    assert tuple(line.outcome for line in table.lines) == wager.outcome_ids[:-1]
    assert table.pays(LOSE) == -1
    for outcome_id, pays in lines.items():
        assert table.pays(outcome_id) == pays
        if wager_id in CITATIONS:
            assert table.line(outcome_id).citation == CITATIONS[wager_id]
            assert table.from_seed_texts


def test_every_paytable_is_tested() -> None:
    assert {(w.id, t.name) for w in WAGERS.values() for t in w.paytables} == set(PAYTABLES)


@pytest.mark.parametrize(
    ("wager_id", "default"),
    [("trilux", "TLX-3"), ("upcard-luck", "standard"), ("top3", "A"), ("blazing7s", "A"),
     ("three-card-poker", "classic")],
)
def test_default_paytables(wager_id: str, default: str) -> None:
    assert get_wager(wager_id).paytable().name == default


def test_paytable_lookup_is_case_insensitive_and_unknown_refused() -> None:
    assert get_wager("trilux").paytable("tlx-1").name == "TLX-1"
    assert get_wager("top3").paytable("b").name == "B"
    with pytest.raises(SidebetError, match=r"Top 3 has no paytable 'C'"):
        get_wager("top3").paytable("C")
    with pytest.raises(KeyError):
        get_wager("top3").paytable("A").line("flush")


def test_three_card_poker_paytable_is_labelled_not_from_seed_texts() -> None:
    # Interpretation 11.
    table = three_card_poker.WAGER.paytable("classic")
    assert table.from_seed_texts is False
    assert "interpretation 11" in table.note
    assert "not taken from the seed texts" in table.note
    assert all("interpretation 11" in line.citation for line in table.lines)


def test_trilux_paytable_by_decks() -> None:
    # § 633c.11(i), interpretation 5.
    assert trilux.PAYTABLE_BY_DECKS == {1: "TLX-1", 2: "TLX-2", 4: "TLX-3", 6: "TLX-3", 8: "TLX-3"}


def test_labels_and_outcome_ids() -> None:
    for wager in WAGERS.values():
        assert wager.outcome_ids[-1] == LOSE
        assert wager.label(LOSE) == "Lose"
        for o in wager.outcomes:
            assert wager.label(o.id) == o.label
    assert get_wager("upcard-luck").label("ace_jack_spades") == "Ace Spades and Jack Spades"


# --- TriLux Deluxe (§ 633c.11) ------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "upcard", "expected"),
    [
        ("Qh Kh", "Ah", "straight_flush"),
        ("Ah 2h", "3h", "straight_flush"),
        ("2h 3h", "Ah", "straight_flush"),
        ("5d 7d", "6d", "straight_flush"),
        ("7c 7d", "7h", "three_of_a_kind"),
        ("7d 7d", "7d", "three_of_a_kind"),  # suited three-of-a-kind paid as three-of-a-kind
        ("As As", "As", "three_of_a_kind"),
        ("2c 3d", "4h", "straight"),
        ("Ac 2d", "3h", "straight"),
        ("Qc Kd", "Ah", "straight"),
        ("Kc Ad", "2h", None),  # no wrap-around
        ("Kh Ah", "2h", "flush"),  # K-A-2 suited is only a flush
        ("2c 9c", "Jc", "flush"),
        ("2c 9d", "Kh", None),
        ("7c 7d", "8h", None),
        ("As Js", "5d", None),
    ],
)
def test_trilux(player: str, upcard: str, expected: str | None) -> None:
    assert outcome("trilux", player, upcard) == (expected or LOSE)
    first, second = parse_cards(player)
    assert trilux.classify(first, second, Card.parse(upcard)) == expected


# --- Upcard Luck (§ 633b.15) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "upcard", "expected"),
    [
        ("As Js", "5d", "ace_jack_spades"),
        ("Js As", "5d", "ace_jack_spades"),
        ("As Qs", "5d", "blackjack"),
        ("Ac Jc", "5d", "blackjack"),
        ("As Jh", "2c", "blackjack"),
        ("Ah Js", "7c", "blackjack"),
        ("10d Ad", "4c", "blackjack"),
        ("Ks Ac", "6c", "blackjack"),
        ("5c 4d", "7h", "total_9_to_11"),
        ("5c 5d", "7h", "total_9_to_11"),
        ("6c 5d", "2h", "total_9_to_11"),
        ("2c 7d", "3h", "total_9_to_11"),
        ("As 8d", "7h", "total_18_to_20"),  # soft 19
        ("Ah 7c", "7d", "total_18_to_20"),  # soft 18
        ("As 9d", "4h", "total_18_to_20"),  # soft 20
        ("10c 8d", "2h", "total_18_to_20"),
        ("9c 9d", "3h", "total_18_to_20"),
        ("Kc Qd", "6h", "total_18_to_20"),
        ("4c 4d", "5h", None),  # 8
        ("2c 2d", "5h", None),  # 4
        ("10c 2d", "5h", None),  # 12
        ("Ah Ad", "5h", None),  # A-A is 12
        ("10c 7d", "5h", None),  # 17
        ("9c 8d", "5h", None),  # 17
        ("As 6d", "5h", None),  # soft 17
        ("As 2d", "5h", None),  # soft 13
    ],
)
def test_upcard_luck(player: str, upcard: str, expected: str | None) -> None:
    assert outcome("upcard-luck", player, upcard) == (expected or LOSE)


@pytest.mark.parametrize("upcard", ["2c", "3d", "4h", "5s", "6c", "7d"])
def test_upcard_luck_wins_with_upcards_2_to_7(upcard: str) -> None:
    assert outcome("upcard-luck", "10c 8d", upcard) == "total_18_to_20"
    assert outcome("upcard-luck", "As Js", upcard) == "ace_jack_spades"


@pytest.mark.parametrize("upcard", ["8c", "9d", "10h", "Js", "Qc", "Kd", "Ah", "As"])
@pytest.mark.parametrize("player", ["As Js", "As Qs", "5c 5d", "10c 8d", "As 8d"])
def test_upcard_luck_loses_with_upcards_8_to_ace(player: str, upcard: str) -> None:
    assert outcome("upcard-luck", player, upcard) == LOSE


def test_upcard_luck_totals_boundaries() -> None:
    # Every hard two-card total without an ace: 9-11 and 18-20 win, the rest lose.
    for a in range(2, 11):
        for b in range(2, 11):
            player = f"{a}c {b}d"
            total = a + b
            got = outcome("upcard-luck", player, "5h")
            if 9 <= total <= 11:
                assert got == "total_9_to_11", player
            elif 18 <= total <= 20:
                assert got == "total_18_to_20", player
            else:
                assert got == LOSE, player


# --- Top 3 (§ 633c.7) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "upcard", "expected"),
    [
        ("9h 9h", "9h", "suited_three_of_a_kind"),
        ("As As", "As", "suited_three_of_a_kind"),
        ("Ah 2h", "3h", "straight_flush"),
        ("Qs Ks", "As", "straight_flush"),
        ("Js 9s", "10s", "straight_flush"),
        ("9h 9c", "9h", "three_of_a_kind"),
        ("9h 9c", "9d", "three_of_a_kind"),
        ("Ah 2h", "4h", None),  # flush only
        ("Ah 2c", "3h", None),  # straight only
        ("Kh Ah", "2h", None),  # K-A-2 suited: only a flush
        ("9h 9c", "8h", None),
    ],
)
def test_top3(player: str, upcard: str, expected: str | None) -> None:
    assert outcome("top3", player, upcard) == (expected or LOSE)
    first, second = parse_cards(player)
    assert top3.classify(first, second, Card.parse(upcard)) == expected


def test_top3_requires_three_card_poker() -> None:
    assert [r.id for r in top3.WAGER.requires] == ["three-card-poker"]
    assert top3.WAGER.requires_rule == "§ 633c.7(a)"


# --- Three Card Poker (§ 633a.6(e)(9)) ----------------------------------------------


@pytest.mark.parametrize(
    ("player", "upcard", "expected"),
    [
        ("Qh Kh", "Ah", "straight_flush"),
        ("7d 7d", "7d", "three_of_a_kind"),
        ("Ac 2d", "3h", "straight"),
        ("2c 9c", "Jc", "flush"),
        ("Kc Ad", "2h", None),
    ],
)
def test_three_card_poker(player: str, upcard: str, expected: str | None) -> None:
    assert outcome("three-card-poker", player, upcard) == (expected or LOSE)


# --- Blazing 7's (§ 633b.20) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "upcard", "expected"),
    [
        ("7d 7d", "7d", "three_sevens_diamonds"),
        ("7s 7s", "7s", "three_sevens_suited"),
        ("7h 7h", "7h", "three_sevens_suited"),
        ("7c 7c", "7c", "three_sevens_suited"),
        ("7h 7d", "7h", "three_sevens_same_color"),  # red, mixed suits
        ("7d 7d", "7h", "three_sevens_same_color"),
        ("7c 7s", "7s", "three_sevens_same_color"),  # black
        ("7c 7d", "7s", "three_sevens"),  # mixed colours
        ("7h 7s", "7d", "three_sevens"),
        ("7c 7d", "Ks", "two_sevens"),
        ("7d 7d", "8d", "two_sevens"),
        ("7c 7d", "Ad", "two_sevens"),
        ("7c 8d", "7s", "one_seven"),  # a dealer 7 does not lift one player 7
        ("8d 7c", "7c", "one_seven"),
        ("7c 8d", "2s", "one_seven"),
        ("8c 9d", "7s", None),
        ("8c 9d", "2s", None),
    ],
)
def test_blazing7s(player: str, upcard: str, expected: str | None) -> None:
    assert outcome("blazing7s", player, upcard) == (expected or LOSE)
    first, second = parse_cards(player)
    assert blazing7s.classify(first, second, Card.parse(upcard)) == expected


def test_blazing7s_two_sevens_with_any_non_seven_upcard() -> None:
    for up in ALL_CARDS:
        if up.rank != 7:
            assert outcome("blazing7s", "7c 7h", str(up)) == "two_sevens"


# --- properties (all wagers) ---------------------------------------------------------

cards = st.sampled_from(ALL_CARDS)
wagers = st.sampled_from(list(WAGERS.values()))


@given(wager=wagers, first=cards, second=cards, upcard=cards)
def test_classifier_is_symmetric_in_the_players_cards(
    wager: Wager, first: Card, second: Card, upcard: Card
) -> None:
    assert wager.classify(first, second, upcard) == wager.classify(second, first, upcard)
    assert wager.outcome(first, second, upcard) == wager.outcome(second, first, upcard)


@given(wager=wagers, first=cards, second=cards, upcard=cards)
def test_outcome_is_always_a_known_outcome(
    wager: Wager, first: Card, second: Card, upcard: Card
) -> None:
    got = wager.outcome(first, second, upcard)
    assert got in wager.outcome_ids
    assert wager.paytable().pays(got) >= (-1 if got == LOSE else 1)


@pytest.mark.parametrize(
    "wager",
    [trilux.WAGER, upcard_luck.WAGER, top3.WAGER, blazing7s.WAGER, three_card_poker.WAGER],
    ids=lambda w: w.id,
)
def test_classifier_symmetric_exhaustive(wager: Wager) -> None:
    for i, first in enumerate(ALL_CARDS):
        for second in ALL_CARDS[i:]:
            for upcard in ALL_CARDS[::5]:
                a = wager.outcome(first, second, upcard)
                assert a == wager.outcome(second, first, upcard)
                assert a in wager.outcome_ids


def test_wager_rules_are_inspectable_data() -> None:
    from fractions import Fraction

    from sidebet.regulation.wagers import PRESSABLE, WAGERS

    tlx, ul, t3 = WAGERS["trilux"], WAGERS["upcard-luck"], WAGERS["top3"]
    assert (tlx.max_bet_ratio, tlx.max_bet_rule) == (Fraction(2), "§ 633c.11(c)")
    assert (ul.max_bet_ratio, ul.max_bet_rule) == (Fraction(1), "§ 633b.15(d)")
    assert tlx.deck_counts == frozenset({1, 2, 4, 6, 8}) and tlx.decks_rule == "§ 633c.11(i)"
    assert ul.deck_counts == frozenset({4, 6, 8}) and ul.decks_rule == "§ 633b.15(b)"
    assert WAGERS["blazing7s"].deck_counts is None
    assert PRESSABLE is tlx and tlx.pressable and not any(
        w.pressable for w in WAGERS.values() if w is not tlx)
    assert (t3.requires, t3.requires_rule, t3.requires_bet_rule) == (
        (WAGERS["three-card-poker"],), "§ 633c.7(a)", "§ 633c.7(c)")
    assert tlx.max_bet(20_00) == 40_00 and WAGERS["blazing7s"].max_bet(20_00) is None


def test_the_terminal_table_derives_from_the_wager_rules() -> None:
    from sidebet.cli.play_cmds import default_table

    tlx = {1: "TLX-1", 2: "TLX-2", 4: "TLX-3", 6: "TLX-3", 8: "TLX-3"}
    for decks in range(1, 9):
        expected = {"blazing7s": "A", "three-card-poker": "classic", "top3": "A"}
        if decks in tlx:
            expected["trilux"] = tlx[decks]
        if decks in (4, 6, 8):
            expected["upcard-luck"] = "standard"
        assert default_table(decks).side_wagers == dict(sorted(expected.items())), decks


def test_no_trilux_literal_outside_its_module() -> None:
    import ast
    from pathlib import Path

    import sidebet

    root = Path(sidebet.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "regulation" / "wagers" / "trilux.py":
            continue
        tree = ast.parse(path.read_text())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef)
                and n.body and isinstance(n.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and node.value == "trilux"
                    and id(node) not in docs):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []
