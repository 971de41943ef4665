"""The engine against brute-force enumeration of every deal on tiny shoes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sidebet.exact.blackjack import dealer_rows, engine
from sidebet.exact.blackjack._kernels import LANES
from sidebet.exact.blackjack._tables import comp_table
from sidebet.exact.blackjack.dealer_rows import dealer_outcomes
from sidebet.exact.blackjack.engine import (
    analyse,
    no_bj_prob,
    split_moments,
    split_second,
)
from sidebet.exact.blackjack.strategy import total_dependent_analysis
from sidebet.regulation.house_rules import HouseRules

from .brute import Player, add, dealer_no_bj, split_value
from .brute import split_moments as brute_split_moments

TOL = 1e-12
# A, 2..9, T
SMALL = (2, 1, 1, 1, 2, 2, 2, 2, 2, 8)


def with_cards(shoe: tuple[int, ...], *cards: int) -> tuple[int, ...]:
    out = shoe
    for c in cards:
        out = add(out, c)
    return out


@pytest.mark.parametrize("h17", [False, True])
@pytest.mark.parametrize("up", range(10))
def test_dealer_probabilities_match_enumeration(h17: bool, up: int) -> None:
    unseen = SMALL
    shoe = np.array(with_cards(unseen, up), dtype=np.int64)
    table = comp_table(1)
    d = dealer_outcomes(table, np.array([table.index[(0,) * 10]]), shoe, h17)
    brute = dealer_no_bj(unseen, up, h17)
    for t in range(17, 22):
        assert d[table.index[(0,) * 10], up, t - 17] == pytest.approx(
            float(brute.get(t, 0)), abs=TOL
        )
    bust = no_bj_prob(unseen, up) - d[table.index[(0,) * 10], up].sum()
    assert bust == pytest.approx(float(brute.get(22, 0)), abs=TOL)


@pytest.mark.parametrize("h17", [False, True])
def test_dealer_rows_walked_together_match_enumeration(
    h17: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many rows in one call (the kernel walks them in lanes, over threads): each row
    equals the enumeration of its own shoe, and the table is the same bit for bit
    whatever the number of threads."""
    up = 5
    shoe = np.array(with_cards(SMALL, up), dtype=np.int64)
    table = comp_table(1)
    fits = np.all(table.comps <= shoe - np.eye(10, dtype=np.int64)[up], axis=1)
    rows = np.flatnonzero(fits & (table.ncards <= 3)).astype(np.int64)
    assert len(rows) > 3 * LANES
    alone = dealer_outcomes(table, rows, shoe, h17)
    for threads in (2, 3):
        monkeypatch.setattr(dealer_rows, "_threads", lambda n, k=threads: k)
        assert np.array_equal(dealer_outcomes(table, rows, shoe, h17), alone)
    for row in rows[:: max(1, len(rows) // 12)]:
        comp = tuple(int(x) for x in table.comps[row])
        unseen = tuple(a - b for a, b in zip(SMALL, comp, strict=True))
        brute = dealer_no_bj(unseen, up, h17)
        for t in range(17, 22):
            assert alone[row, up, t - 17] == pytest.approx(float(brute.get(t, 0)), abs=TOL)


@pytest.mark.parametrize("h17", [False, True])
def test_the_pruned_dealer_walk_is_the_plain_one_bit_for_bit(
    h17: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small shoe's dealer table skips the hands no row of a lane group can be dealt
    and adds the terms node by node: the same table, bit for bit, as the plain walk, on
    one deck (where it is used) and on two (where it is not)."""
    table = comp_table(5)
    rows = np.arange(table.comps.shape[0], dtype=np.int64)
    for decks in (1, 2):
        shoe = np.array((4 * decks,) * 9 + (16 * decks,), dtype=np.int64)
        got = []
        for prune in (False, True):
            monkeypatch.setattr(dealer_rows, "prune_dealer", lambda s, p=prune: p)
            got.append(dealer_outcomes(table, rows, shoe, h17))
        assert got[0].tobytes() == got[1].tobytes()


def test_split_pairs_on_threads_are_the_same_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pairs' split values are dealt among threads: the same bits whatever the number
    of threads, and with the value arrays kept from one pair to the next (each pair
    reads only rows it wrote) the same as each pair alone."""
    shoe = (4,) * 9 + (16,)
    rules = HouseRules(max_split_hands=4)
    a = analyse(shoe, rules)
    table, dealer = dealer_rows.base_tables(shoe, False, dealer_rows.extra_pairs(rules))
    arr = np.asarray(shoe, dtype=np.int64)
    alone = [engine._split_pair(arr, rules, table, dealer, a.hs_dec, a.two_dec, p, cross=False)
             for p in range(10)]
    for threads in (1, 2, 3):
        monkeypatch.setattr(engine, "idle_cores", lambda k=threads: k)
        split, own, hands = engine._split_all(arr, rules, table, dealer, a.hs_dec, a.two_dec)
        for p in range(10):
            for got, want in ((split, alone[p].ev), (own, alone[p].own),
                              (hands, alone[p].hands)):
                assert got[p].tobytes() == want.tobytes()


HANDS = [(9, 5), (9, 6), (0, 5), (4, 5), (1, 9), (0, 0), (7, 7), (2, 3)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("h17", "up"), [(False, 0), (False, 5), (False, 9), (True, 0), (True, 4)]
)
@pytest.mark.parametrize("hand", HANDS)
def test_stand_hit_double_match_enumeration(h17: bool, up: int, hand: tuple[int, int]) -> None:
    unseen = SMALL
    rules = HouseRules(dealer_hits_soft_17=h17)
    a = analyse(with_cards(unseen, up, *hand), rules)
    counts = with_cards((0,) * 10, *hand)
    player = Player(up, h17)
    vals = a.values(counts, up)
    for action in ("stand", "hit", "double"):
        assert vals[action] == pytest.approx(
            float(player.value(counts, unseen, action)), abs=TOL
        ), action


def test_multi_card_hand_values() -> None:
    unseen = SMALL
    a = analyse(with_cards(unseen, 9, 1, 2, 3), HouseRules())
    counts = with_cards((0,) * 10, 1, 2, 3)
    player = Player(9, False)
    vals = a.values(counts, 9)
    assert set(vals) == {"stand", "hit"}
    for action in ("stand", "hit"):
        assert vals[action] == pytest.approx(
            float(player.value(counts, unseen, action)), abs=TOL
        )


SPLIT_SHOE = (3, 1, 0, 1, 1, 1, 2, 3, 3, 7)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pair", "up", "max_hands", "das", "rsa", "hsa"),
    [
        (9, 9, 2, True, False, False),
        (9, 9, 3, True, False, False),
        (9, 5, 4, True, False, False),
        (8, 0, 3, False, False, False),
        (7, 6, 3, True, False, False),
        (0, 5, 2, True, False, False),
        (0, 9, 3, True, True, False),
        (0, 5, 3, True, True, True),
    ],
)
def test_split_matches_casino_order_enumeration(
    pair: int, up: int, max_hands: int, das: bool, rsa: bool, hsa: bool
) -> None:
    rules = HouseRules(
        max_split_hands=max_hands, double_after_split=das, resplit_aces=rsa, hit_split_aces=hsa
    )
    shoe = SPLIT_SHOE
    a = analyse(shoe, rules)
    unseen = add(add(add(shoe, up, -1), pair, -1), pair, -1)
    eff_hands = max_hands if (pair != 0 or rsa) else 2
    mean, second, own = brute_split_moments(
        pair, up, unseen, eff_hands, False, hsa, lambda hand: a.post_split_action(hand, up)
    )
    assert a.split[pair, up] == pytest.approx(float(mean), abs=TOL)
    # the second moment, exact: the hands' own squares (a drawn pair card that starts a
    # new hand is valued as a new hand) and the cross terms between hands that share a shoe
    m = split_moments(a, pair)
    assert m.own[up] == pytest.approx(float(own), abs=TOL)
    assert m.second[up] == pytest.approx(float(second), abs=TOL)
    assert split_second(a)[pair, up] == m.second[up]
    assert a.split_own[pair, up] == m.own[up]


@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    small=st.lists(st.integers(0, 2), min_size=9, max_size=9),
    tens=st.integers(6, 9),
    hand=st.tuples(st.integers(0, 9), st.integers(0, 9)),
    up=st.integers(0, 9),
)
def test_random_small_shoes(
    small: list[int], tens: int, hand: tuple[int, int], up: int
) -> None:
    unseen = (*small, tens)
    assume(sum((c + 1) * k for c, k in enumerate(unseen)) >= 75)
    rules = HouseRules()
    a = analyse(with_cards(unseen, up, *hand), rules)
    counts = with_cards((0,) * 10, *hand)
    assume(sum((c + 1) * k for c, k in enumerate(counts)) <= 21 and counts != (1,) + (0,) * 8 + (1,))
    player = Player(up, False)
    vals = a.values(counts, up)
    for action in ("stand", "hit", "double"):
        assert vals[action] == pytest.approx(
            float(player.value(counts, unseen, action)), abs=TOL
        ), action


@pytest.mark.slow
@pytest.mark.parametrize(("hand", "up"), [((9, 5), 9), ((1, 3), 5), ((0, 4), 3), ((7, 7), 8)])
def test_fixed_total_dependent_play_matches_enumeration(hand: tuple[int, int], up: int) -> None:
    """Values under the total-dependent strategy (a fixed play, not the best by cards)."""
    shoe = with_cards(SPLIT_SHOE, *hand, up)
    rules = HouseRules(max_split_hands=2)
    a, _codes = total_dependent_analysis(shoe, rules)
    unseen = add(shoe, up, -1)
    for c in hand:
        unseen = add(unseen, c, -1)
    counts = with_cards((0,) * 10, *hand)

    def policy(h: tuple[int, ...]) -> str:
        return "hit" if a.hs_dec[a.row(h), up] else "stand"

    player = Player(up, False, policy)
    vals = a.values(counts, up)
    for action in ("stand", "hit", "double"):
        assert vals[action] == pytest.approx(
            float(player.value(counts, unseen, action)), abs=TOL
        ), action
    if hand[0] == hand[1]:
        p = hand[0]
        brute = split_value(
            p, up, unseen, 2, False, False, lambda h: a.post_split_action(h, up)
        )
        assert a.split[p, up] == pytest.approx(float(brute), abs=TOL)


@pytest.mark.parametrize("h17", [False, True])
@pytest.mark.parametrize("shoe", [(4,) * 9 + (16,), (3, 4, 2, 4, 4, 1, 4, 4, 3, 14),
                                  (22, 24, 19, 24, 20, 24, 23, 24, 21, 90)])
def test_one_upcard_dealer_rows_are_every_upcards_bit_for_bit(
    shoe: tuple[int, ...], h17: bool
) -> None:
    """The trie cut to one upcard gives that upcard's dealer outcomes with the same bits as
    the whole trie, on small shoes (pruned) and large ones, and touches no other upcard."""
    table = comp_table(dealer_rows.extra_pairs(HouseRules()))
    arr = np.asarray(shoe, dtype=np.int64)
    rows = np.arange(0, table.comps.shape[0], 7, dtype=np.int64)
    whole = np.zeros((table.comps.shape[0], 10, 5))
    dealer_rows.fill_dealer(table, rows, arr, h17, whole)
    for up in range(10):
        one = np.zeros_like(whole)
        dealer_rows.fill_dealer(table, rows, arr, h17, one, up)
        assert one[:, up].tobytes() == whole[:, up].tobytes()
        assert not np.delete(one, up, axis=1).any()


@pytest.mark.parametrize("focus", [(1, 0, 0, 0, 0, 0, 0, 0, 0, 1), (0, 1, 1, 0, 0, 0, 0, 0, 0, 0),
                                   (0, 0, 0, 0, 0, 0, 0, 2, 0, 0), (0, 0, 0, 0, 0, 0, 0, 0, 0, 2)])
def test_an_analysis_focused_on_one_upcard_values_it_as_every_upcards(
    focus: tuple[int, ...]
) -> None:
    """A focused analysis against one upcard: the same values, decisions and split values
    against it, to the bit, as the focused analysis against every upcard."""
    shoe = (21, 23, 24, 22, 24, 20, 24, 23, 24, 91)
    for rules in (HouseRules(), HouseRules(dealer_hits_soft_17=True, max_split_hands=4)):
        every = analyse.__wrapped__(shoe, rules, focus)
        for up in (0, 4, 9):
            one = analyse.__wrapped__(shoe, rules, focus, up)
            for name in ("stand", "stand2", "hit", "hit2", "dbl", "dbl2", "split", "hs_dec",
                         "two_dec"):
                assert getattr(one, name)[:, up].tobytes() == \
                    getattr(every, name)[:, up].tobytes(), name
            key = tuple(focus)
            assert one.values(key, up) == every.values(key, up)


def test_dealer_tables_kept_are_bounded() -> None:
    """An analysis of every round a counter values keeps only the last few dealer tables."""
    assert dealer_rows.base_tables.cache_info().maxsize == dealer_rows.BASE_TABLES_KEPT
