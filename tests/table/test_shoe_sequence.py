"""One shoe sequence for the table and the server: continuation, cut card, spans."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction

import pytest

from sidebet.core.cards import Card, parse_cards
from sidebet.core.errors import SidebetError
from sidebet.regulation.submission import TableConfig
from sidebet.serve import fair
from sidebet.serve.live import LiveTable
from sidebet.table import DealingShoe, Table
from sidebet.table.policy import play_out
from sidebet.table.shoe_sequence import ShoeSequence, ShoeSpan


def test_shoes_are_made_when_first_needed_and_the_cut_card_starts_the_next() -> None:
    made: list[int] = []

    def shoe_of(n: int) -> DealingShoe:
        made.append(n)
        return DealingShoe.seeded(1, n, Fraction(1, 13))  # cut card after 4 cards

    seq = ShoeSequence(shoe_of)
    assert made == [] and not seq.opened
    seq.begin_round()
    cards = [seq.draw() for _ in range(5)]
    assert made == [0] and seq.spans == [ShoeSpan(0, seq.current.commitment, 0, 5)]
    assert cards == [Card.from_index(i) for i in DealingShoe.seeded(1, 0).order[:5]]
    seq.begin_round()  # the cut card came out: the next round starts shoe 1
    assert seq.number == 1 and not seq.opened and seq.spans == []
    seq.draw()
    assert made == [0, 1] and [s.position for s in seq.finished] == [5]
    assert seq.spans == [ShoeSpan(1, seq.current.commitment, 0, 1)]


def test_a_shoe_that_cannot_be_made_leaves_the_sequence_as_it_was() -> None:
    def shoe_of(n: int) -> DealingShoe:
        if n:
            raise SidebetError(f"shoe {n} was never committed")
        return DealingShoe.stacked("As Kd")

    seq = ShoeSequence(shoe_of)
    seq.draw(), seq.draw()
    with pytest.raises(SidebetError, match="shoe 1 was never committed"):
        seq.draw()
    assert seq.number == 0 and seq.finished == [] and [s.cards for s in seq.spans] == [2]


def test_the_table_continues_into_the_next_shoe_with_two_spans() -> None:
    config = TableConfig(decks=1)
    config = replace(config, rules=replace(config.rules, penetration=Fraction(51, 52)))
    table = Table(config, 7, seed=5)
    spans: list[list[ShoeSpan]] = []
    while table.shoe_number < 6:
        r = table.new_round()
        for seat in range(1, 8):
            r.place_bet(seat, "blackjack", 10_00)
        r.close_bets()
        play_out(r)
        table.finish(r)
        spans.append(list(table.round_shoes))
    assert len(table.commitments) == table.shoe_number + 1
    assert any(len(r) == 2 for r in spans)  # a shoe ran out inside a round
    for round_spans in spans:
        for a, b in itertools.pairwise(round_spans):
            assert b.shoe == a.shoe + 1 and b.start == 0 and a.start + a.cards == 52
    assert table.revealed_dealt[0] == sum(s.cards for r in spans for s in r if s.shoe == 0)


def _live(seed_of: dict[int, bytes]) -> LiveTable:
    live = LiveTable(3, "t", TableConfig(decks=1), seats=1, unit=100, time_limit=0,
                     default_action="stand", seed_of=seed_of.get)
    live.apply("shoe-commit", {"shoe": 0, "commitment": fair.commitment(bytes(32)),
                               "decks": 1, "cut": 39}, "t")
    live.apply("sit", {"seat": 1, "account": 1, "name": "a"}, "t")
    return live


def test_the_server_seals_at_the_first_card_and_needs_the_next_shoe_committed() -> None:
    live = _live({0: bytes(32)})
    live.apply("shoe-stack", {"shoe": 0, "cards": "As Kd"}, "t")
    state = live.new_state({1: 100_00})
    cards = [state._draw() for _ in range(52)]
    assert cards[:2] == list(parse_cards("As Kd")) and live.sealed_now == [0]
    assert live.spans == [[0, 0, 52]] and live.current_shoe == 0
    with pytest.raises(SidebetError, match="table 3: shoe 1 was never committed"):
        state._draw()
    assert live.current_shoe == 0


def test_a_blind_shoe_deals_the_recorded_cards_and_a_known_one_checks_them() -> None:
    blind = _live({})
    blind.feed = list(parse_cards("7c"))
    assert blind.new_state()._draw() == parse_cards("7c")[0] and blind.shoes[0].blind
    with pytest.raises(SidebetError, match="shoe 0: no recorded card left to replay"):
        blind.new_state()._draw()
    known = _live({0: bytes(32)})
    first = Card.from_index(fair.shuffle(bytes(32), [], known.nonce(0), 1)[0])
    wrong = next(c for c in parse_cards("As Kd") if c != first)
    known.feed = [wrong]
    with pytest.raises(SidebetError, match="shoe 0: the card recorded at position 1 is not "
                                           f"the shuffle's {first.code}"):
        known.new_state()._draw()
