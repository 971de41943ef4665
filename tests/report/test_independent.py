"""The independent classification of dealt hands (:mod:`sidebet.report.independent`)
against the wager modules' classifiers, on every triple a shoe of 1 to 8 decks can deal,
and on hand-picked hands read from the regulation text."""

from __future__ import annotations

import numpy as np
import pytest

from sidebet.core.cards import ALL_CARDS, parse_cards
from sidebet.regulation.wagers import WAGERS
from sidebet.report.independent import OUTCOMES, classify_codes, outcome_codes

CODES = np.arange(52**3, dtype=np.int64)
_P1, _P2, _UP = CODES // 2704, CODES // 52 % 52, CODES % 52


def _dealable(decks: int) -> np.ndarray:
    """The triple codes a ``decks``-deck shoe can deal (identical cards need copies)."""
    same = (_P1 == _P2).astype(np.int64) + (_P1 == _UP) + (_P2 == _UP)
    copies = np.where(same == 3, 3, np.where(same >= 1, 2, 1))
    return CODES[copies <= decks]


@pytest.fixture(scope="module")
def by_modules() -> dict[str, np.ndarray]:
    """Each wager's outcome index of every triple, by its own classifier."""
    out = {}
    for wid, w in WAGERS.items():
        index = {o: k for k, o in enumerate(OUTCOMES[w.section])}
        out[wid] = np.array([index[w.outcome(ALL_CARDS[a], ALL_CARDS[b], ALL_CARDS[c])]
                             for a in range(52) for b in range(52) for c in range(52)],
                            dtype=np.int8)
    return out


@pytest.mark.parametrize("decks", range(1, 9))
def test_both_classifications_agree_on_every_dealable_triple(
        by_modules: dict[str, np.ndarray], decks: int) -> None:
    codes = _dealable(decks)
    assert len(codes) == {1: 52 * 51 * 50, 2: 52**3 - 52}.get(decks, 52**3)
    for wid, w in WAGERS.items():
        mine = outcome_codes(w.section)[codes]
        theirs = by_modules[wid][codes]
        bad = codes[mine != theirs]
        assert bad.size == 0, (wid, [str(ALL_CARDS[c // 2704]) + str(ALL_CARDS[c // 52 % 52])
                                     + str(ALL_CARDS[c % 52]) for c in bad[:5]])
        if decks >= 3:  # every outcome can be dealt (three identical cards need three decks)
            assert set(np.unique(mine).tolist()) == set(range(len(OUTCOMES[w.section])))


@pytest.mark.parametrize(("wager", "cards", "outcome"), [
    ("trilux", "QH KH AH", "straight_flush"),
    ("trilux", "AH 2C 3D", "straight"),
    ("trilux", "KH AH 2H", "flush"),  # no wrap-around
    ("trilux", "7D 7D 7D", "three_of_a_kind"),  # suited trips paid as trips
    ("top3", "7D 7D 7D", "suited_three_of_a_kind"),
    ("top3", "2C 3C 4D", "lose"),
    ("upcard-luck", "AS JS 7C", "ace_jack_spades"),
    ("upcard-luck", "JS AS 2C", "ace_jack_spades"),
    ("upcard-luck", "AH KD 5C", "blackjack"),
    ("upcard-luck", "AH AD 5C", "lose"),  # 12
    ("upcard-luck", "AH 9D 5C", "total_18_to_20"),  # soft 20
    ("upcard-luck", "AH 9D 8C", "lose"),  # upcard not 2-7
    ("upcard-luck", "5H 6D 7C", "total_9_to_11"),
    ("blazing7s", "7D 7D 7D", "three_sevens_diamonds"),
    ("blazing7s", "7H 7D 7D", "three_sevens_same_color"),
    ("blazing7s", "7S 7S 7S", "three_sevens_suited"),
    ("blazing7s", "7S 7H 7S", "three_sevens"),
    ("blazing7s", "7S 7H 8S", "two_sevens"),
    ("blazing7s", "2S 7H 7S", "one_seven"),
])
def test_hands_read_from_the_regulation(wager: str, cards: str, outcome: str) -> None:
    a, b, c = (card.index for card in parse_cards(cards))
    section = WAGERS[wager].section
    got = classify_codes(section, np.array([a * 2704 + b * 52 + c]))
    assert OUTCOMES[section][int(got[0])] == outcome


def test_the_confirmation_calls_no_wager_classifier(monkeypatch: pytest.MonkeyPatch) -> None:
    from sidebet.regulation.submission import TableConfig
    from sidebet.regulation.wagers.base import Wager
    from sidebet.report.confirm import dealt_returns

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the confirmation asked a wager module to classify")

    from sidebet.exact.par import par_sheet

    exact = {w: float(par_sheet(w, 6, p).expected_return)
             for w, p in (("upcard-luck", "standard"), ("blazing7s", "A"))}
    monkeypatch.setattr(Wager, "outcome", refuse)  # what the confirmation used to call
    config = TableConfig(decks=6, side_wagers={"upcard-luck": "standard", "blazing7s": "A"})
    got = dealt_returns(config, 200_000, 5)
    for wid, (mean, var) in got.items():
        assert abs(mean - exact[wid]) < 5 * (var / 200_000) ** 0.5
