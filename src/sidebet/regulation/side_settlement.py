"""Settling one side wager: outcome, odds and exact money.

"N to 1" returns the stake together with N times it (interpretation 4); a losing wager
is collected.  Every settlement carries the citation of the paytable line that paid it
(or of the subsection that collects it).

>>> from sidebet.regulation.submission import TableConfig
>>> table = TableConfig.for_wager("trilux", 6)
>>> s = settle(table, "trilux", 10_00, 20_00, "Qh Kh", "Ah")
>>> s.outcome, s.pays, s.stake, s.winnings, s.net, s.citation
('straight_flush', 25, 1000, 25000, 25000, '§ 633c.11(h)')
>>> settle(table, "trilux", 50_00, 20_00, "Qh Kh", "Ah")
Traceback (most recent call last):
...
sidebet.core.errors.RuleError: § 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sidebet.core.cards import Card, format_cards, parse_cards
from sidebet.core.errors import CardError, RuleError, Violation
from sidebet.core.money import Cents, format_money
from sidebet.core.shoe import Shoe
from sidebet.regulation.submission import TableConfig, bet_violations
from sidebet.regulation.wagers import LOSE, BetContext, Paytable, Wager, get_wager

__all__ = ["CAP_RULE", "Settlement", "capped", "payout", "settle", "settle_outcome"]

@dataclass(frozen=True, slots=True)
class Settlement:
    """The result of one side wager.  Money in cents.

    ``stake`` is the wager returned to the player (0 when it loses), ``winnings`` the
    ``pays`` × amount paid on top, ``net`` the player's gain (negative when collected).
    """

    wager: str
    paytable: str
    outcome: str
    label: str
    pays: int
    amount: Cents
    stake: Cents
    winnings: Cents
    net: Cents
    citation: str
    player: tuple[Card, Card]
    upcard: Card
    capped_at: Cents | None = None
    """The posted maximum payout the winnings were cut to (``None``: paid in full)."""

    @property
    def won(self) -> bool:
        """Whether the wager won."""
        return self.outcome != LOSE

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict; money as decimal strings (``"250.00"``)."""
        return {
            "wager": self.wager,
            "paytable": self.paytable,
            "outcome": self.outcome,
            "label": self.label,
            "pays": self.pays,
            "bet": format_money(self.amount),
            "stake": format_money(self.stake),
            "winnings": format_money(self.winnings),
            "net": format_money(self.net),
            "citation": self.citation,
            "player": format_cards(self.player),
            "upcard": str(self.upcard),
        } | ({} if self.capped_at is None else {"capped_at": format_money(self.capped_at)})


def payout(pays: int, amount: Cents) -> tuple[Cents, Cents, Cents]:
    """``(stake returned, winnings, net)`` of ``amount`` at ``pays`` to 1 (-1: lost).

    >>> payout(8, 5_00), payout(-1, 5_00)
    ((500, 4000, 4000), (0, 0, -500))
    """
    if pays < 0:
        return 0, 0, -amount
    return amount, pays * amount, pays * amount


CAP_RULE = "§ 601a.2"
"""What caps a win: the maximum payout posted in the table's Rules Submission."""


def capped(winnings: Cents, cap: Cents | None) -> Cents:
    """Winnings cut to a posted maximum payout (``None``: no limit).

    >>> capped(500_000_00, 25_000_00), capped(4_000, None)
    (2500000, 4000)
    """
    return winnings if cap is None else min(winnings, cap)


def settle_outcome(
    wager: Wager, paytable: Paytable, outcome: str, amount: Cents, player: Sequence[Card],
    upcard: Card, cap: Cents | None = None,
) -> Settlement:
    """The settlement of a known outcome (used by the table engine and :func:`settle`);
    winnings above ``cap``, the table's posted maximum payout, are cut to it."""
    pays = paytable.pays(outcome)
    first, second = player
    citation = (
        wager.lose_citation(first, second, upcard)
        if outcome == LOSE
        else paytable.line(outcome).citation
    )
    stake, winnings, net = payout(pays, amount)
    limit = None
    if capped(winnings, cap) < winnings:
        limit = cap
        winnings = net = capped(winnings, cap)
        citation += (f"; winnings cut to the posted maximum payout {format_money(winnings)} "
                     f"({CAP_RULE}, the table's Rules Submission)")
    return Settlement(
        wager=wager.id,
        paytable=paytable.name,
        outcome=outcome,
        label=wager.label(outcome),
        pays=pays,
        amount=amount,
        stake=stake,
        winnings=winnings,
        net=net,
        citation=citation,
        player=(first, second),
        upcard=upcard,
        capped_at=limit,
    )


def _cards(player: Sequence[Card] | str, upcard: Card | str) -> tuple[tuple[Card, Card], Card]:
    cards = parse_cards(player) if isinstance(player, str) else tuple(player)
    if len(cards) != 2:
        raise CardError(f"the player's initial hand has two cards, not {len(cards)}")
    up = Card.parse(upcard) if isinstance(upcard, str) else upcard
    return (cards[0], cards[1]), up


def settle(
    table: TableConfig,
    wager: str | Wager,
    amount: Cents,
    blackjack_bet: Cents,
    player: Sequence[Card] | str,
    upcard: Card | str,
    required_bet: Cents = 0,
) -> Settlement:
    """Settle one side wager at ``table`` (§ 633c.11(d), § 633b.15(f), § 633c.7(d),
    § 633b.20(d)).

    Raises :class:`RuleError` if the table may not offer the wager as configured or the
    bet breaks a rule, and :class:`CardError` if the cards cannot come from the shoe.
    """
    w = get_wager(wager) if isinstance(wager, str) else wager
    paytable = w.paytable(table.paytable_name(w.id))
    problems: list[Violation] = table.violations()
    problems.extend(
        bet_violations(table, w, BetContext(amount, blackjack_bet, required_bet))
    )
    if problems:
        raise RuleError(problems)
    (first, second), up = _cards(player, upcard)
    Shoe.standard(table.decks).check_dealable((first, second, up))
    return settle_outcome(w, paytable, w.outcome(first, second, up), amount, (first, second), up,
                          table.payout_limit(w.id))
