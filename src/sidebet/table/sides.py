"""The side wagers of a round: their settlement right after the deal, and the Press a win
of the pressable wager offers.

Every seat's side wagers are settled, the seat farthest to the dealer's right first and
each seat's wagers in the registry's order (§ 633c.11(d), § 633b.15(f), § 633c.7(d),
§ 633b.20(d)), each win cut to what its posted maximum payout and the round's aggregate
limit leave (§ 601a.2).  A win of the pressable wager (:data:`~sidebet.regulation.wagers.
PRESSABLE`) may then be pressed onto the Blackjack wager in whole table units
(§ 633c.11(e)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sidebet.core.cards import Card
from sidebet.core.money import Cents
from sidebet.regulation.side_settlement import settle_outcome
from sidebet.regulation.submission import ROUND, TableConfig
from sidebet.regulation.wagers import WAGERS
from sidebet.table.booking import book_side_wager
from sidebet.table.ledger import Ledger
from sidebet.table.model import Hand, SeatState
from sidebet.table.records import SideWager

__all__ = ["press_offers", "settle_side_wagers"]


def side_cap(config: TableConfig, wager: str, paid: Cents) -> Cents | None:
    """The most ``wager`` may still pay this round: its posted maximum payout and what the
    round's aggregate limit leaves after ``paid`` (§ 601a.2)."""
    own = config.payout_limits.get(wager)
    whole = config.payout_limits.get(ROUND)
    left = None if whole is None else max(whole - paid, 0)
    found = [v for v in (own, left) if v is not None]
    return min(found) if found else None


def settle_side_wagers(config: TableConfig, seats: Mapping[int, SeatState],
                       hands: Sequence[Hand], upcard: Card, ledger: Ledger) -> list[SideWager]:
    """Settle and book every side wager of ``seats`` against ``upcard``, offer the Press
    to each seat winning the pressable wager, and give the records in order."""
    out: list[SideWager] = []
    paid: Cents = 0
    for seat in sorted(seats, reverse=True):  # farthest to the dealer's right first
        st = seats[seat]
        hand = next((h for h in hands if h.seat == seat), None)
        for wid, wager in WAGERS.items():
            if wid not in st.bets or hand is None:
                continue
            table = wager.paytable(config.paytable_name(wid))
            first, second = hand.cards
            s = settle_outcome(wager, table, wager.outcome(first, second, upcard),
                               st.bets[wid], (first, second), upcard, side_cap(config, wid, paid))
            paid += s.winnings
            st.side.append(s)
            book_side_wager(ledger, seat, s)
            if wager.pressable and s.won:
                st.press_offer = s.winnings
            out.append(SideWager(seat, wid, s.net, (first, second, upcard), s.outcome,
                                 citation=s.citation,
                                 note=f"{s.label}, {s.pays} to 1" if s.won else "lose"))
    return out


def press_offers(seats: Mapping[int, SeatState], unit: Cents) -> dict[int, Cents]:
    """Seats still to decide on the Press: seat -> the most they may press, the winnings
    in whole table units (§ 633c.11(e))."""
    return {s: st.press_offer // unit * unit for s, st in sorted(seats.items())
            if st.press_offer and st.pressed is None}
