"""What surveillance reads of a round: the cards it drew from which shoe, who sat where,
the side wagers each seat placed and what they returned.

A :class:`RoundSeen` is built from the engine's own records (:func:`round_seen`), the same
records a hand history (:mod:`sidebet.table.history`) and the server's log hold, so that the
analysis decides nothing about a round the engine did not record.

>>> from sidebet.table.records import Bet, Deal, SideWager
>>> from sidebet.core.cards import parse_cards
>>> recs = [Bet(1, "blackjack", 10_00), Bet(1, "blazing7s", 5_00),
...         Deal(parse_cards("7h 9c 7d 2s")),
...         SideWager(1, "blazing7s", 25_00, parse_cards("7h 7d 9c"), "two-sevens")]
>>> r = round_seen("R1", recs, parse_cards("7h 9c 7d 2s"), [(0, 0, 4)], {1: "ann"})
>>> r.bets, r.nets, r.players
({1: {'blackjack': 1000, 'blazing7s': 500}}, {1: {'blazing7s': 2500}}, {1: 'ann'})
>>> r.hands, r.dealer == (parse_cards("9c")[0].index, parse_cards("2s")[0].index)
({1: (22, 21)}, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sidebet.core.cards import Card
from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents
from sidebet.table.ledger import LedgerEntry
from sidebet.table.records import (
    Bet,
    Deal,
    DealerPlay,
    DealToHand,
    Double,
    Hit,
    Record,
    SideWager,
    Split,
)

__all__ = ["BLACKJACK", "RoundSeen", "Span", "round_seen"]

BLACKJACK = "blackjack"
"""The base game's wager identifier (a seat without it is not in the round)."""


@dataclass(frozen=True, slots=True)
class Span:
    """Consecutive cards of a round from one shoe: the shoe's number at the table, the
    position of the first of them in that shoe and how many."""

    shoe: int
    start: int
    cards: int


@dataclass(frozen=True, slots=True)
class RoundSeen:
    """One round as surveillance sees it.

    ``cards`` in dealing order (card indices 0..51), split over ``spans``; ``players`` the
    player at each seat in the round; ``bets`` each seat's wagers placed before the deal,
    the Blackjack wager (``"blackjack"``) and the side wagers (cents; a side wager not
    placed is absent); ``nets`` what each settled side wager returned (cents, the stake
    excluded: −stake for a loss), and the Blackjack wager's net (doubles and splits
    included) when the round's ledger was given; ``hands`` the cards of each
    seat's hands and ``dealer`` the dealer's (what a player who follows only their own
    results and the dealer's can know).
    """

    game: str
    spans: tuple[Span, ...]
    cards: tuple[int, ...]
    players: Mapping[int, str]
    bets: Mapping[int, Mapping[str, Cents]]
    nets: Mapping[int, Mapping[str, Cents]]
    hands: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    dealer: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if sum(s.cards for s in self.spans) != len(self.cards):
            raise SidebetError(f"round {self.game}: its shoe spans hold "
                               f"{sum(s.cards for s in self.spans)} cards, it dealt "
                               f"{len(self.cards)}")

    def shoe_cards(self) -> list[tuple[Span, tuple[int, ...]]]:
        """Each span with its cards."""
        out: list[tuple[Span, tuple[int, ...]]] = []
        at = 0
        for s in self.spans:
            out.append((s, self.cards[at:at + s.cards]))
            at += s.cards
        return out


def _cards_seen(records: Sequence[Record], seats: Sequence[int]
                ) -> tuple[dict[int, tuple[int, ...]], tuple[int, ...]]:
    """Each seat's cards and the dealer's: the deal (a first card to each seat, the upcard,
    a second card to each seat, the hole card; § 633a.7(a)-(f)), then the cards drawn."""
    hands: dict[int, list[int]] = {s: [] for s in seats}
    dealer: list[int] = []
    for rec in records:
        if isinstance(rec, Deal):
            k = len(seats)
            idx = [c.index for c in rec.cards]
            if len(idx) == 2 * k + 2:
                for n, s in enumerate(seats):
                    hands[s] += [idx[n], idx[k + 1 + n]]
                dealer = [idx[k], idx[-1]]
        elif isinstance(rec, Hit | Double | Split | DealToHand):
            hands.setdefault(rec.seat, []).extend(c.index for c in rec.cards)
        elif isinstance(rec, DealerPlay) and rec.cards:
            dealer = [c.index for c in rec.cards]
    return {s: tuple(v) for s, v in hands.items()}, tuple(dealer)


def round_seen(game: str, records: Iterable[Record], cards: Sequence[Card],
               spans: Sequence[tuple[int, int, int]],
               players: Mapping[int, str] | None = None,
               ledger: Iterable[LedgerEntry] | None = None) -> RoundSeen:
    """A round from the engine's records, its cards in dealing order (``RoundState.dealt``,
    a history's ``"cards"``), the shoe spans ``(shoe, start, cards)`` they came from, the
    player at each seat (default ``"seat N"``) and the round's ledger (``RoundState.ledger``,
    a history's ``final.ledger``: the Blackjack wager's net; without it, none)."""
    recs = list(records)
    bets: dict[int, dict[str, Cents]] = {}
    nets: dict[int, dict[str, Cents]] = {}
    seats: set[int] = set()
    for rec in recs:
        if isinstance(rec, Bet):
            seats.add(rec.seat)
            bets.setdefault(rec.seat, {})[rec.wager] = rec.amount
        elif isinstance(rec, SideWager):
            nets.setdefault(rec.seat, {})[rec.wager] = rec.amount
    for e in ledger or ():
        if e.wager == BLACKJACK:
            net = nets.setdefault(e.seat, {})
            net[BLACKJACK] = net.get(BLACKJACK, 0) + e.player_delta
    names = dict(players or {})
    who = {s: names.get(s, f"seat {s}") for s in sorted(seats)}
    hands, dealer = _cards_seen(recs, sorted(s for s in seats if BLACKJACK in bets.get(s, {})))
    return RoundSeen(game, tuple(Span(*s) for s in spans), tuple(c.index for c in cards),
                     who, bets, nets, hands, dealer)
