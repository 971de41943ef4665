"""One round of Blackjack with the side wagers and the TriLux Deluxe Press, as a state machine.

The round follows the regulations' order: bets (§ 633a.6, § 633c.11(c), § 633b.15(d),
§ 633c.7(c), § 633b.20) → "no more bets" → the deal (§ 633a.7: a first card to each seat,
the dealer's upcard, a second card to each seat, the hole card) → every side wager settled
before any further card or card-reader check (§ 633c.11(d), § 633b.15(f), § 633c.7(d),
§ 633b.20(d); interpretation 13) → the Press offered to each TriLux Deluxe winner
(§ 633c.11(e)) → insurance under an ace (interpretation 14) → card-reader check (§ 633a.7,
interpretation 14) → each seat's hands in turn (§ 633a.7, § 633a.10, § 633a.11) → the dealer draws
(§ 633a.7) → settlement (§ 633a.7(g)).

Every decision has ``can_x`` (bool), ``verify_x`` (raises :class:`RuleError` naming the
rule; the state is unchanged) and ``x`` (acts and returns the frozen :class:`Record`).

The round is split three ways: this module holds the state and its transitions; the
checks behind ``can_x`` / ``verify_x`` are :mod:`sidebet.table.checks` (what a hand may
do comes from the hand rules, :mod:`sidebet.regulation.base_game.legality`); settlement is
:mod:`sidebet.table.booking` (what each chip comes to is
:mod:`sidebet.regulation.base_game.payout`; booking only moves money in the ledger).
The hands and seats are :mod:`sidebet.table.model`; :mod:`sidebet.table.actions` lists
the decisions on the hand to act, for the policies and the terminal.

Money rules (interpretation 7, § 633c.11(f)–(g)): a hand's chips are its ``bet`` (the
Blackjack wager, or the matched amount of a split hand), its ``press`` and its
``double``.  A Blackjack pays the bet at the table's odds (rounded down to the cent) and
the press even money; surrender returns half (rounded down) of bet and press; a dealer
Blackjack voids the press and returns it.

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table.dealing import DealingShoe
>>> shoe = DealingShoe.stacked("Qh Kh 7c 5d 9s")  # seat 1 Qh 7c; dealer Kh 5d, then 9s
>>> r = RoundState(TableConfig(decks=6), seats=1, draw=shoe.deal)
>>> r.place_bet(1, "blackjack", 10_00).step
<Step.BET: 'bet'>
>>> _ = r.close_bets()
>>> r.phase, [str(c) for c in r.hands[0].cards], str(r.upcard)
(<Phase.PLAY: 'play'>, ['Q♥', '7♣'], 'K♥')
>>> _ = r.stand()
>>> r.phase, r.hands[0].result, r.ledger.player_net(1)
(<Phase.DONE: 'done'>, 'win', 1000)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sidebet.core.cards import Card, Rank
from sidebet.core.errors import SidebetError
from sidebet.core.hands import HandValue, blackjack_value, is_blackjack
from sidebet.core.money import CENTS_PER_UNIT, Cents
from sidebet.regulation.base_game import legality as legal
from sidebet.regulation.base_game.payout import awaits_dealer
from sidebet.regulation.citations import (
    BETS,
    DEAL,
    DOUBLE,
    INSURANCE,
    PEEK,
    PLAY,
    PRESS,
    PRESS_SPLIT,
    SETTLE,
    SPLIT,
    SPLIT_DEALER_BJ,
    SURRENDER,
)
from sidebet.regulation.side_settlement import Settlement
from sidebet.regulation.submission import TableConfig
from sidebet.regulation.wagers import PRESSABLE, get_wager
from sidebet.table import answers, checks
from sidebet.table.actions import PLAY_ACTIONS
from sidebet.table.answers import Answer, decision
from sidebet.table.booking import book_hands, book_insurance
from sidebet.table.dealing import DealingShoe
from sidebet.table.ledger import Ledger, Move
from sidebet.table.model import BLACKJACK, MAX_SEATS, Hand, SeatState
from sidebet.table.options import Option, options
from sidebet.table.records import (
    Bet,
    CloseBets,
    Deal,
    DealerPlay,
    DealToHand,
    Double,
    Hit,
    Insurance,
    Peek,
    Phase,
    Press,
    Record,
    Settle,
    Split,
    Stand,
    Step,
    Surrender,
    Withdraw,
)
from sidebet.table.sides import press_offers, settle_side_wagers
from sidebet.table.view import TableView, snapshot, view

__all__ = ["RoundState"]


def _ten(card: Card) -> bool:
    return card.rank.blackjack_value == 10

R = TypeVar("R", bound=Record)


class RoundState:
    """One round at a table of ``seats`` seats (1..7, numbered from the dealer's left).

    ``draw`` deals the next card (e.g. :meth:`DealingShoe.deal`); ``unit`` is the table
    unit of the Press (§ 633c.11(e): whole units); ``chips`` maps a seat to the chips the
    player holds (``None``: unlimited).
    """

    def __init__(
        self,
        config: TableConfig,
        seats: int = 1,
        draw: Callable[[], Card] | None = None,
        *,
        unit: Cents = CENTS_PER_UNIT,
        chips: Mapping[int, Cents] | None = None,
    ) -> None:
        config.verify()
        if not 1 <= seats <= MAX_SEATS:
            raise SidebetError(f"a Blackjack table has 1 to {MAX_SEATS} seats, not {seats}")
        if unit <= 0:
            raise SidebetError("the table unit must be positive")
        if draw is None:
            draw = DealingShoe.shuffled(config.decks, penetration=config.rules.penetration).deal
        self.config = config
        self.rules = config.rules
        self.seat_count = seats
        self.unit = unit
        self._draw = draw
        self._chips = dict(chips) if chips is not None else None
        self.phase = Phase.BETTING
        self.records: list[Record] = []
        self.ledger = Ledger()
        self.dealt: list[Card] = []
        self.hands: list[Hand] = []
        self.dealer: list[Card] = []
        self.hole_revealed = False
        self.dealer_blackjack: bool | None = None
        """``None`` until known."""
        self._seats: dict[int, SeatState] = {s: SeatState() for s in range(1, seats + 1)}
        self._current: int | None = None

    # ----- views ----------------------------------------------------------------------

    @property
    def upcard(self) -> Card | None:
        """The dealer's upcard (after the deal)."""
        return self.dealer[0] if self.dealer else None

    @property
    def dealer_value(self) -> HandValue:
        """The dealer's total (all dealer cards)."""
        return blackjack_value(self.dealer)

    @property
    def hole_hidden(self) -> bool:
        """Whether the hole card is still hidden from the players (until the dealer's
        Blackjack is found, the dealer's turn, or the round settled)."""
        return not self.hole_revealed and self.phase is not Phase.DONE

    @property
    def seat_states(self) -> Mapping[int, SeatState]:
        """Every seat's :class:`SeatState` by seat number."""
        return self._seats

    def bets(self, seat: int) -> dict[str, Cents]:
        """The wagers placed at ``seat``: wager identifier -> cents."""
        return dict(self._seat(seat).bets)

    def side_settlements(self, seat: int | None = None) -> list[Settlement]:
        """Settled side wagers (of one seat or all, in settlement order)."""
        if seat is not None:
            return list(self._seat(seat).side)
        return [r for s in sorted(self._seats, reverse=True) for r in self._seats[s].side]

    def hands_of(self, seat: int) -> list[Hand]:
        """The seat's Blackjack hands in order."""
        return [h for h in self.hands if h.seat == seat]

    @property
    def current_hand(self) -> Hand | None:
        """The hand to act (phase PLAY), else ``None``."""
        if self.phase is not Phase.PLAY or self._current is None:
            return None
        return self.hands[self._current]

    @property
    def current_index(self) -> int | None:
        """Index of :attr:`current_hand` among the seat's hands."""
        hand = self.current_hand
        return None if hand is None else self.hands_of(hand.seat).index(hand)

    def press_offers(self) -> dict[int, Cents]:
        """Seats still to decide on the Press: seat -> the most they may press."""
        return press_offers(self._seats, self.unit) if self.phase is Phase.PRESS else {}

    def insurance_offers(self) -> dict[int, Cents]:
        """Seats still to decide on insurance: seat -> the most they may insure."""
        if self.phase is not Phase.INSURANCE:
            return {}
        return {
            s: st.bets[BLACKJACK] // 2
            for s, st in sorted(self._seats.items())
            if BLACKJACK in st.bets and st.insurance is None
        }

    @property
    def starting_chips(self) -> dict[int, Cents] | None:
        """The chips each seat held when the round began (``None``: unlimited)."""
        return None if self._chips is None else dict(self._chips)

    def chips(self, seat: int) -> Cents | None:
        """Chips the player at ``seat`` holds now (``None``: unlimited)."""
        if self._chips is None or seat not in self._chips:
            return None
        return self._chips[seat] + self.ledger.player_net(seat)

    def legal_actions(self) -> list[Step]:
        """The decisions possible now (for the current hand in phase PLAY)."""
        if self.phase is Phase.BETTING:
            out = [Step.BET]
            if self.can_close_bets():
                out.append(Step.CLOSE_BETS)
            return out
        if self.phase is Phase.PRESS:
            return [Step.PRESS]
        if self.phase is Phase.INSURANCE:
            return [Step.INSURANCE]
        if self.phase is Phase.PLAY:
            return [a.step for a in PLAY_ACTIONS if a.can(self)]
        return []

    # ----- bets -----------------------------------------------------------------------

    def _seat(self, seat: int) -> SeatState:
        if seat not in self._seats:
            raise SidebetError(f"seat {seat} is not at this table (seats 1 to {self.seat_count})")
        return self._seats[seat]

    can_place_bet, verify_place_bet = decision(
        answers.ask_bet,
        """Whether the bet may be placed now.""",
        """Raise :class:`RuleError` naming every rule the bet breaks.

        Blackjack wager first (§ 633a.6(d)); side wagers within their limits and
        prerequisites (:func:`sidebet.regulation.submission.bet_violations`).
        """)

    def place_bet(self, seat: int, wager: str, amount: Cents) -> Bet:
        """Place a wager (``"blackjack"`` or a side wager identifier) of ``amount`` cents."""
        self.verify_place_bet(seat, wager, amount)
        return self._bet(seat, wager, amount)

    def _bet(self, seat: int, wager: str, amount: Cents) -> Bet:
        wid = BLACKJACK if wager == BLACKJACK else get_wager(wager).id
        self._seats[seat].bets[wid] = amount
        cite = BETS if wid == BLACKJACK else get_wager(wid).section
        self.ledger.add(seat, wid, Move.STAKE, amount, "wager placed", cite)
        return self._log(Bet(seat, wid, amount, citation=cite))

    # ----- no more bets, the deal, side wagers -------------------------------------------

    can_close_bets, verify_close_bets = decision(
        answers.ask_close_bets,
        """Whether the dealer may call "no more bets" (some seat has a Blackjack wager).""",
        """Raise :class:`RuleError` unless the dealer may call "no more bets".""")

    def close_bets(self) -> CloseBets:
        """Call "no more bets", deal, and settle every side wager (§ 633a.7, § 633c.11(d))."""
        self.verify_close_bets()
        return self._close()

    def _close(self) -> CloseBets:
        rec = self._log(CloseBets(citation="§ 633c.11(c)"))
        playing = [s for s, st in sorted(self._seats.items()) if BLACKJACK in st.bets]
        firsts = {s: self._card() for s in playing}
        self.dealer.append(self._card())
        seconds = {s: self._card() for s in playing}
        self.dealer.append(self._card())
        for s in playing:
            self.hands.append(Hand(s, [firsts[s], seconds[s]], self._seats[s].bets[BLACKJACK]))
        order: list[Card] = [*firsts.values(), self.dealer[0], *seconds.values(), self.dealer[1]]
        self._log(Deal(tuple(order), citation=DEAL,
                       note="first card to each seat, upcard, second card to each seat, hole card"))
        for record in settle_side_wagers(self.config, self._seats, self.hands, self.dealer[0],
                                         self.ledger):
            self._log(record)
        if any(st.press_offer for st in self._seats.values()):
            self.phase = Phase.PRESS
        else:
            self._after_press()
        return rec

    def _card(self) -> Card:
        card = self._draw()
        self.dealt.append(card)
        return card

    # ----- the Press ------------------------------------------------------------------

    can_press, verify_press = decision(
        answers.ask_press,
        """Whether ``seat`` may press ``amount`` (0 = collect the winnings).""",
        """Raise :class:`RuleError` unless ``seat`` may press ``amount`` (§ 633c.11(e)).""")

    def press(self, seat: int, amount: Cents) -> Press:
        """Move ``amount`` of the pressable wager's winnings onto the Blackjack wager
        (§ 633c.11(e)); 0 collects them all."""
        self.verify_press(seat, amount)
        return self._press(seat, amount)

    def _press(self, seat: int, amount: Cents) -> Press:
        st = self._seats[seat]
        st.pressed = amount
        self.ledger.add(seat, "press", Move.STAKE, amount, f"{PRESSABLE.name} Press", PRESS)
        self.hands_of(seat)[0].press = amount
        rec = self._log(Press(seat, amount, citation=PRESS))
        if not self.press_offers():
            self._after_press()
        return rec

    # ----- insurance, the card reader -------------------------------------------------

    def _after_press(self) -> None:
        up = self.dealer[0]
        if up.rank is Rank.ACE and self.rules.insurance:
            self.phase = Phase.INSURANCE
        else:
            self._check_hole()

    can_insure, verify_insure = decision(
        answers.ask_insure,
        """Whether ``seat`` may take insurance of ``amount`` (0 declines).""",
        """Raise :class:`RuleError` unless ``seat`` may insure ``amount`` (interpretation 14).""")

    def insure(self, seat: int, amount: Cents) -> Insurance:
        """Take insurance of up to half the Blackjack wager (0 declines); pays 2 to 1."""
        self.verify_insure(seat, amount)
        return self._insure(seat, amount)

    def _insure(self, seat: int, amount: Cents) -> Insurance:
        self._seats[seat].insurance = amount
        self.ledger.add(seat, "insurance", Move.STAKE, amount, "insurance", INSURANCE)
        rec = self._log(Insurance(seat, amount, citation=INSURANCE))
        if not self.insurance_offers():
            self._check_hole()
        return rec

    def _check_hole(self) -> None:
        up = self.dealer[0]
        if self.rules.peek and (up.rank is Rank.ACE or _ten(up)):
            self.dealer_blackjack = is_blackjack(*self.dealer)
            self._log(Peek("blackjack" if self.dealer_blackjack else "no-blackjack",
                           citation=PEEK))
            self._settle_insurance()
            if self.dealer_blackjack:
                self.hole_revealed = True
                for h in self.hands:
                    h.done = True
                self._settle_hands()
                return
        elif self.rules.peek or not (up.rank is Rank.ACE or _ten(up)):
            self.dealer_blackjack = False  # no ace or 10-value upcard: no dealer Blackjack
        self.phase = Phase.PLAY
        self._current = -1
        self._advance()

    def _settle_insurance(self) -> None:
        for seat, st in sorted(self._seats.items(), reverse=True):
            if st.insurance:
                book_insurance(self.ledger, seat, st.insurance, bool(self.dealer_blackjack))

    # ----- playing the hands ------------------------------------------------------------

    def _advance(self) -> None:
        """Move to the next hand needing a decision, dealing second cards to split hands."""
        assert self._current is not None
        i = max(self._current, 0)
        while i < len(self.hands):
            hand = self.hands[i]
            if not hand.done and len(hand.cards) == 1:
                hand.cards.append(self._card())
                self._log(DealToHand(hand.seat, self._index(hand), (hand.cards[-1],),
                                     citation=SPLIT))
            if not hand.done and (self._seats[hand.seat].withdrawn or self._auto_done(hand)):
                hand.done = True
            if not hand.done:
                self._current = i
                return
            i += 1
        self._current = None
        self._dealer_turn()

    def _auto_done(self, hand: Hand) -> bool:
        may_hit = not legal.hit_refusal(hand.split_aces, self.rules.hit_split_aces)
        may_split = not checks.split_violations(self, hand, check_phase=False)
        return not legal.has_decision(hand.value.total, bool(hand.double), hand.surrendered,
                                      may_hit, may_split)

    can_hit, verify_hit = decision(
        answers.ask_on_hand(Hit),
        """Whether the current hand may draw a card.""",
        """Raise :class:`RuleError` unless the current hand may draw (§ 633a.7).""")

    def hit(self) -> Hit:
        """Draw a card to the current hand."""
        self.verify_hit()
        return self._hit()

    def _hit(self) -> Hit:
        hand = self.current_hand
        assert hand is not None
        hand.cards.append(self._card())
        return self._acted(Hit(hand.seat, self._index(hand), (hand.cards[-1],), citation=PLAY))

    can_stand, verify_stand = decision(
        answers.ask_on_hand(Stand),
        """Whether the current hand may stand (always, while it has a decision).""",
        """Raise :class:`RuleError` unless a hand is to act.""")

    def stand(self) -> Stand:
        """Stand on the current hand."""
        self.verify_stand()
        return self._stand()

    def _stand(self) -> Stand:
        hand = self.current_hand
        assert hand is not None
        hand.done = True
        return self._acted(Stand(hand.seat, self._index(hand), citation=PLAY))

    def double_limit(self) -> Cents:
        """The largest Double Down wager of the current hand: its whole wager including the
        press (§ 633c.11(g), interpretation 7)."""
        hand = self.current_hand
        return 0 if hand is None else hand.bet + hand.press

    can_double, verify_double = decision(
        answers.ask_double,
        """Whether the current hand may double (``amount`` default: the whole wager).""",
        """Raise :class:`RuleError` unless the current hand may double (§ 633a.10).""")

    def double(self, amount: Cents | None = None) -> Double:
        """Place a Double Down wager (default: the whole wager incl. the press) and take
        exactly one card."""
        self.verify_double(amount)
        return self._double(amount)

    def _double(self, amount: Cents | None) -> Double:
        hand = self.current_hand
        assert hand is not None
        amt = self.double_limit() if amount is None else amount
        hand.double = amt
        self.ledger.add(hand.seat, "double", Move.STAKE, amt, "Double Down wager", DOUBLE)
        hand.cards.append(self._card())
        return self._acted(Double(hand.seat, self._index(hand), amt, (hand.cards[-1],),
                                  citation=DOUBLE))

    def split_cost(self) -> Cents:
        """What splitting the current hand costs: the initial wager plus its press
        (§ 633c.11(g))."""
        hand = self.current_hand
        return 0 if hand is None else hand.bet + hand.press

    can_split, verify_split = decision(
        answers.ask_on_hand(Split),
        """Whether the current hand may be split.""",
        """Raise :class:`RuleError` unless the current hand may split (§ 633a.11).""")

    def split(self) -> Split:
        """Split the pair: the new hand's wager matches the initial wager plus the press
        (§ 633c.11(g)); the first hand receives its second card now, the new hand when its
        turn comes."""
        self.verify_split()
        return self._split()

    def _split(self) -> Split:
        hand = self.current_hand
        assert hand is not None and self._current is not None
        new = hand.split_off()
        cost = new.bet
        self.ledger.add(hand.seat, "split", Move.STAKE, cost,
                        "split: initial wager plus press matched", PRESS_SPLIT if hand.press
                        else SPLIT)
        self.hands.insert(self._current + 1, new)
        hand.cards.append(self._card())
        return self._acted(Split(hand.seat, self._index(hand), cost, (hand.cards[-1],),
                                 citation=SPLIT))

    can_surrender, verify_surrender = decision(
        answers.ask_on_hand(Surrender),
        """Whether the current hand may surrender.""",
        """Raise :class:`RuleError` unless the current hand may surrender (interpretation 14).""")

    def surrender(self) -> Surrender:
        """Give up the hand: half of the whole Blackjack wager including the press is
        forfeited (interpretation 7)."""
        self.verify_surrender()
        return self._surrender()

    def _surrender(self) -> Surrender:
        hand = self.current_hand
        assert hand is not None
        hand.surrendered = True
        return self._acted(Surrender(hand.seat, self._index(hand), citation=SURRENDER))

    def _index(self, hand: Hand) -> int:
        return self.hands_of(hand.seat).index(hand)

    def _acted(self, record: R) -> R:
        """Log a decision on the hand to act and move on to the next hand."""
        self._log(record)
        self._advance()
        return record

    # ----- the dealer and settlement ----------------------------------------------------

    def _dealer_turn(self) -> None:
        self.hole_revealed = True
        if self.dealer_blackjack is None:  # no card-reader: found only now
            self.dealer_blackjack = is_blackjack(*self.dealer)
            self._log(Peek("blackjack" if self.dealer_blackjack else "no-blackjack",
                           (self.dealer[1],), citation=SPLIT_DEALER_BJ,
                           note="hole card turned after the players"))
            self._settle_insurance()
        live = [h for h in self.hands if awaits_dealer(h.value.total, h.surrendered, h.is_natural)]
        while live and not self.dealer_blackjack and legal.dealer_draws(
                self.dealer_value.total, self.dealer_value.soft, self.rules.dealer_hits_soft_17):
            self.dealer.append(self._card())
        self._log(DealerPlay(tuple(self.dealer), str(self.dealer_value), citation="§ 633a.7",
                             note="hits soft 17" if self.rules.dealer_hits_soft_17
                             else "stands on all 17s"))
        self._settle_hands()

    def _settle_hands(self) -> None:
        book_hands(self.ledger, self.hands, bool(self.dealer_blackjack),
                   self.dealer_value.total, self.rules)
        self.phase = Phase.DONE
        self._current = None
        self._log(Settle(self.ledger.house_net(), citation=SETTLE, note="house net of the round"))

    # ----- records and snapshots --------------------------------------------------------

    def _log(self, record: R) -> R:
        self.records.append(record)
        return record

    def options(self, seat: int) -> tuple[Option, ...]:
        """What ``seat`` may do now (:func:`sidebet.table.options.options`)."""
        return options(self, seat)

    def answer(self, decision: Record) -> Answer:
        """Whether ``decision`` is allowed now, and why not
        (:func:`sidebet.table.answers.answer`); the state is unchanged."""
        return answers.answer(self, decision)

    def apply(self, decision: Record) -> Record:
        """Check ``decision`` once (:meth:`answer`) and take it: a decision asked for, or
        one recorded (replay).  Refused: :class:`RuleError` with the answer's violations
        and its ``conflict`` flag, the state unchanged; a dealer step (derived, never
        decided): :class:`SidebetError`."""
        self.answer(decision).check()
        match decision:
            case Bet(seat=seat, wager=wager, amount=amount):
                return self._bet(seat, wager, amount)
            case CloseBets():
                return self._close()
            case Press(seat=seat, amount=amount):
                return self._press(seat, amount)
            case Insurance(seat=seat, amount=amount):
                return self._insure(seat, amount)
            case Hit():
                return self._hit()
            case Stand():
                return self._stand()
            case Double(amount=amount):
                return self._double(amount)
            case Split():
                return self._split()
            case Surrender():
                return self._surrender()
            case Withdraw():
                return _withdraw(self, decision)
        raise AssertionError(f"no decision {decision.step.value}")  # answer() refuses

    def view(self, viewer: int | None) -> TableView:
        """What ``viewer`` (a seat, or ``None`` for an observer) may see now
        (:func:`sidebet.table.view.view`)."""
        return view(self, viewer)

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain JSON data (:func:`sidebet.table.view.snapshot`)."""
        return snapshot(self)


def _withdraw(rs: RoundState, decision: Withdraw) -> Withdraw:
    """The operator's withdrawal of a seat (:meth:`RoundState.do`): ``decision.seat`` taken
    out of the round: while bets are open its wagers are
    returned in full; after the deal its hands stand as they are (a split hand still
    gets its second card in turn) and are settled by the rules with the others, a
    Press offer is collected and insurance declined; no decision is left to it."""
    seat = decision.seat
    st = rs._seats[seat]
    st.withdrawn = True
    rec = rs._log(decision)
    if rs.phase is Phase.BETTING:
        for wid, amount in st.bets.items():
            rs.ledger.add(seat, wid, Move.RETURN, amount, "wager withdrawn",
                            decision.citation)
        st.bets.clear()
        return rec
    for hand in rs.hands_of(seat):
        if len(hand.cards) > 1:
            hand.done = True
    if seat in rs.press_offers():
        st.pressed = 0
        if not rs.press_offers():
            rs._after_press()
    elif seat in rs.insurance_offers():
        st.insurance = 0
        if not rs.insurance_offers():
            rs._check_hole()
    elif (acting := rs.current_hand) is not None and acting.seat == seat:
        rs._advance()
    return rec
