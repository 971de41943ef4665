"""The round: a player's decision at their seat, checked and applied by the table engine,
then its money moves, events and game record written (§ 633a.6-§ 633a.11; the game record
of § 810a.11)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.orm import Session

import sidebet
from sidebet.core.errors import RuleError, Violation
from sidebet.core.money import Cents, format_money
from sidebet.serve import fair
from sidebet.serve.anchor import sign_head
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.live import LiveTable, house_delta
from sidebet.serve.models import Account, Game, GamePlayer, GameTable, ShoeSeed
from sidebet.serve.security import Caller
from sidebet.serve.service.core import GAME_ID, Core, Tx, amount_of
from sidebet.serve.service.limits import Limits
from sidebet.serve.service.rows import read_rows
from sidebet.serve.service.tables import Tables
from sidebet.table import Phase, Record, Step
from sidebet.table.history import round_to_json
from sidebet.table.ledger import LedgerEntry, Move
from sidebet.table.model import BLACKJACK
from sidebet.table.records import (
    Bet,
    CloseBets,
    Double,
    Insurance,
    Press,
    Withdraw,
    play_decision,
)

__all__ = ["Rounds"]

_ACCOUNTS = cast(Table, Account.__table__)
_TABLES = cast(Table, GameTable.__table__)
_MOVE = (update(_ACCOUNTS).where(_ACCOUNTS.c.id == bindparam("acct"))
         .values(balance=_ACCOUNTS.c.balance + bindparam("delta")))
"""Money into (+) or out of (-) wallets, one statement for every wallet a decision moves."""
_BANK = (update(_TABLES).where(_TABLES.c.id == bindparam("tid"))
         .values(house_net=_TABLES.c.house_net + bindparam("amount")))
"""A round's house money added to its table's ``house_net``."""
_GAMES = cast(Table, Game.__table__)
_ENDED = (update(_GAMES).where(_GAMES.c.id == bindparam("game"))
          .values(status=bindparam("done"), ended_at=bindparam("ended"),
                  record=bindparam("text")))
"""A game row completed at its round's end (no ORM work: one statement)."""
_OPENED = insert(_GAMES).values(
    id=bindparam("game"), table_id=bindparam("tid"), round_no=bindparam("number"),
    status=bindparam("state"), started_at=bindparam("started"))
"""A game row as its round opens."""
_JOINED = insert(cast(Table, GamePlayer.__table__)).values(
    game_id=bindparam("game"), seat=bindparam("place"), account_id=bindparam("account"))
"""A player's part in a game."""


class Rounds:
    """The rounds at every table: opening one with the first bet, each decision through the
    engine, and the end of the round with its game record and the shoes it reveals."""

    def __init__(self, core: Core, tables: Tables, signer: Ed25519PrivateKey | None = None,
                 limits: Limits | None = None) -> None:
        self.core = core
        self.tables = tables
        self.signer = signer
        """The operator's key that signs the chain's head at every round end."""
        self.limits = limits
        """The limits players set (a bet is checked against the loss limits)."""

    def act(self, caller: Caller, table_id: int, seat: int, step: Step,
            amount: str | None = None, wager: str | None = None, key: str | None = None,
            expected: int | None = None, staff: Callable[[LiveTable], None] | None = None
            ) -> tuple[int, Any]:
        """A player's decision at their seat, checked and applied by the engine; with
        ``expected`` (the last event the client saw) refused unless nothing happened since.
        ``staff`` (a dealer acting for the seat's player) checks the caller instead of the
        seat's ownership.  A decision whose cards are not entered yet (a dealer-assist
        table) is held (202) until they are."""
        cents = None if amount is None else amount_of(amount, self.core.settings.amount_max)
        fingerprint = canonical(["act", table_id, seat, step.value, cents, wager, expected])

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = tx.table
            at = seat  # the seat named; the one calling "no more bets" once all are done
            assert live is not None
            if staff is None:
                self.tables.own_seat(caller, live, seat)
            else:
                staff(live)
            if expected is not None and expected != live.seq:
                v = Violation(HOUSE, f"the table moved on: its last event is {live.seq}, "
                                     f"not {expected}")
                raise ApiError(409, str(v), (v,))
            if step is Step.CLOSE_BETS and staff is None and live.round_open \
                    and live.state is not None and live.state.phase is Phase.BETTING:
                # a player's call; a dealer calls "no more bets" for the whole table
                closer = self._ready(s, tx, seat)
                if closer is None:  # the betting round waits on other seats
                    return 201, {"record": {"step": "ready", "seat": seat,
                                            "waiting": live.not_done_betting()},
                                 "event": live.seq, "seq": live.seq, "state": live.view()}
                at = closer
            if self.limits is not None:  # the seat's player, whoever enters it
                self._check_loss(s, live.seat_accounts.get(at, caller.id), live, at,
                                 step, cents)
            chips = None if live.round_open else self._balances(s, live)
            decision = self._decision(live, at, step, cents, wager, chips)
            if chips is not None and step is Step.BET:
                self._open_round(s, tx, chips)
            try:
                held = live.awaits_cards(decision)
            except RuleError as err:
                raise ApiError.rule(409 if err.conflict else 422, err) from None
            if held:
                self.core.append(s, tx, "awaiting", {"round": live.round_no, "seat": at,
                                                     "actor": caller.id,
                                                     "decision": decision.to_json()})
                return 202, {"record": decision.to_json(), "event": live.seq,
                             "seq": live.seq, "state": live.view()}
            record = self.perform(s, tx, decision, at, caller.id, auto=False)
            return 201, {"record": record.to_json(), "event": tx.action_seq, "seq": live.seq,
                         "state": live.view()}

        return self.core.run(caller, key, fingerprint, table_id, work)

    def _ready(self, s: Session, tx: Tx, seat: int) -> int | None:
        """The seat is done betting (the deal called with a Blackjack wager) or sits the
        round out (called without one).  Once every seated player is, the seat that calls
        "no more bets" (§ 633c.11(c)): this one if it has a Blackjack wager, else one done
        that has; ``None`` while the betting round waits (its countdown runs on), so no
        seat's bets are closed by another's call."""
        live = tx.table
        assert live is not None and live.state is not None
        if seat not in live.done_betting:
            self.core.append(s, tx, "ready", {"round": live.round_no, "seat": seat})
        if live.not_done_betting():
            return None
        state = live.state
        return next((x for x in [seat, *sorted(live.done_betting)]
                     if BLACKJACK in state.bets(x)), None)

    def _check_loss(self, s: Session, account: int, live: LiveTable, seat: int, step: Step,
                    cents: Cents | None) -> None:
        """Refuse a decision that puts more money at risk (a bet, a double, a split, a
        Press, insurance) when the worst the round could now cost, its net so far less
        the new wager, would take the period's losses past a loss limit."""
        state = live.state if live.round_open else None
        extra: Cents | None = cents
        if step is Step.SPLIT or (step is Step.DOUBLE and cents is None):
            if state is None:
                return  # refused by the engine anyway
            extra = state.split_cost() if step is Step.SPLIT else state.double_limit()
        if step not in (Step.BET, Step.DOUBLE, Step.SPLIT, Step.PRESS, Step.INSURANCE) \
                or not extra or extra < 0 or self.limits is None:
            return
        net = 0 if state is None else state.ledger.player_net(seat)
        self.limits.check_bet(s, account, extra, max(0, -net))

    @staticmethod
    def _balances(s: Session, live: LiveTable) -> dict[int, Cents]:
        rows = read_rows(s.connection(), select(Account.id, Account.balance).where(
            Account.id.in_(list(live.seat_accounts.values()))))
        have = {int(a): int(b) for a, b in rows}
        return {seat: int(have.get(acct) or 0) for seat, acct in live.seat_accounts.items()}

    @staticmethod
    def _decision(live: LiveTable, seat: int, step: Step, cents: Cents | None,
                  wager: str | None, chips: dict[int, Cents] | None) -> Record:
        """The decision the request names (422 when the request lacks what the decision
        needs).  A bet that would open a round (``chips``: the seats' balances, no round
        open) is first put to the engine against a fresh round, since the round is opened
        before it is applied; every other decision is checked once, by the engine as it
        applies it (:meth:`Rounds.perform`)."""
        if step is Step.BET:
            if wager is None or cents is None:
                raise ApiError(422, "a bet names a wager and an amount")
            decision: Record = Bet(seat, wager, cents)
        elif step is Step.PRESS:
            if cents is None:
                raise ApiError(422, "the Press names an amount (0 collects)")
            decision = Press(seat, cents)
        elif step is Step.INSURANCE:
            if cents is None:
                raise ApiError(422, "insurance names an amount (0 declines)")
            decision = Insurance(seat, cents)
        elif step is Step.DOUBLE:
            decision = Double(seat=seat, amount=cents)
        else:
            decision = CloseBets(seat=seat) if step is Step.CLOSE_BETS \
                else play_decision(step, seat)
        if chips is not None:
            answer = live.answer(decision, chips)
            if not answer.allowed:
                raise ApiError.rule(409 if answer.conflict else 422,
                                    RuleError(answer.violations, conflict=answer.conflict))
        return decision

    def _open_round(self, s: Session, tx: Tx, balances: dict[int, Cents]) -> None:
        live = tx.table
        assert live is not None
        chips = {str(seat): c for seat, c in balances.items()}
        self.core.snapshot_if_due(s, tx)
        number = live.round_no + 1
        game = f"T{live.id}-R{number}"
        self.core.append(s, tx, "round-open", {"round": number, "game": game, "chips": chips,
                                               "accounts": {str(k): v for k, v
                                                            in live.seat_accounts.items()}})
        self.core.later(s, tx, _OPENED, [{"game": game, "tid": live.id, "number": number,
                                          "state": "in-progress",
                                          "started": live.round_started_at}])

    def perform(self, s: Session, tx: Tx, decision: Record, seat: int | None,
                actor: int | None, *, auto: bool, rule: str | None = None) -> Record:
        """Apply a verified decision (``actor``: the account that made it, ``None`` for the
        house's default), move its money, log it; commit the next shoe once one is
        shuffled, and end the round when it is done."""
        live = tx.table
        assert live is not None and live.state is not None
        live.sealed_now.clear()
        try:
            done = live.perform(decision)
        except RuleError as err:  # the engine's one check: 409 not open now, 422 a rule
            raise ApiError.rule(409 if err.conflict else 422, err) from None
        sealed = [{"shoe": n, "client_seeds": list(live.shoes[n].client_seeds)}
                  for n in live.sealed_now]
        record, entries = done.record, done.entries
        moves = live.moves(entries)
        if moves and self.core.later(s, tx, _MOVE, [{"acct": a, "delta": d}
                                                    for a, d in moves.items()]):
            for a, d in moves.items():  # the round's end reads the balances (seats freed)
                tx.owed[a] = tx.owed.get(a, 0) + d
        house = house_delta(entries)  # kept in live.house_pending until the round ends
        self.core.append(s, tx, "action", {
            "round": live.round_no, "seat": seat, "actor": actor, "auto": auto,
            "decision": record.to_json(), "records": done.records, "dealt": done.dealt,
            "ledger": [e.to_json() for e in entries],
            "moves": {str(a): d for a, d in sorted(moves.items())}, "house": house,
            "sealed": sealed, **({"rule": rule} if rule else {}),
        }, applied=True)
        tx.action_seq = live.seq
        for n in list(live.sealed_now):
            if n + 1 not in live.shoes:
                self.tables.commit_shoe(s, tx, n + 1)
        live.sealed_now.clear()
        self.end_if_done(s, tx)
        return record

    def withdraw(self, s: Session, tx: Tx, account: int, status: str, reason: str,
                 actor: int | None) -> None:
        """Take a player the operator has barred (her account ``status``) out of the
        table's round at once, in the transaction ``s``: her wagers returned while bets
        are open, else her hands standing as they are (a ``withdraw`` decision, ``actor``
        the operator, never a time-limit default); her seat freed now when she has no hand
        in play, else at the round's end (:meth:`Seating.after_round`)."""
        live = tx.table
        assert live is not None
        seat = live.seat_of(account)
        if seat is None:
            return
        why = f"the account is {status} by the operator"
        decision = Withdraw(seat, citation=f"{HOUSE}: {why}", note=reason)
        if live.round_open and live.round_accounts.get(seat) == account \
                and live.answer(decision).allowed:
            try:  # a dealer-assist table: held, like a decision, for the cards it needs
                held = live.awaits_cards(decision)
            except RuleError:  # another decision waits for its cards: tried again later
                return
            if held:
                self.core.append(s, tx, "awaiting", {"round": live.round_no, "seat": seat,
                                                     "actor": actor,
                                                     "decision": decision.to_json()})
                return
            self.perform(s, tx, decision, seat, actor, auto=False)
        if live.seat_accounts.get(seat) == account and not live.has_stakes(seat):
            self.tables.vacate(s, tx, seat, account, why)

    def move_money(self, s: Session, tx: Tx, live: LiveTable, entries: list[LedgerEntry]
                   ) -> tuple[dict[int, Cents], Cents]:
        """Move the wallets by a correction's ledger ``entries``: what each account and
        the house got (+) or gave (-).  The house's part is the table's: the correction
        added it to ``live.house_pending``; a round closed by it (a void) writes that to
        the table's ``house_net`` here, as a round's end does."""
        moves = live.moves(entries)
        if moves:
            s.execute(_MOVE, [{"acct": a, "delta": d} for a, d in moves.items()])
        if not live.round_open:
            self.bank_house(s, tx, live)
            live.house_pending = 0
        return moves, house_delta(entries)

    def bank_house(self, s: Session, tx: Tx, live: LiveTable) -> None:
        """Add the round's house money (``live.house_pending``) to the table's
        ``house_net``, once, as the round ends or a void closes it (nothing in the
        transaction reads it back: :meth:`Core.later`)."""
        if live.house_pending:
            self.core.later(s, tx, _BANK, [{"tid": live.id, "amount": live.house_pending}])

    def end_if_done(self, s: Session, tx: Tx) -> None:
        """End the round in progress once it has been played to its end."""
        live = tx.table
        assert live is not None
        if live.round_open and live.state is not None and live.state.phase is Phase.DONE:
            self._end_round(s, tx)

    def _end_round(self, s: Session, tx: Tx) -> None:
        live = tx.table
        assert live is not None and live.state is not None
        state = live.state
        ended = utc_now()
        game = f"T{live.id}-R{live.round_no}"
        players, joined = [], []
        for seat, acct in sorted(live.round_accounts.items()):
            bet = state.ledger.total(Move.STAKE, seat)
            if not bet:
                continue
            start = live.round_chips.get(seat, 0)
            net = state.ledger.player_net(seat)
            won = state.ledger.total(Move.RETURN, seat) + state.ledger.total(Move.WIN, seat)
            players.append({"seat": seat, "account": acct, "player": live.names.get(acct),
                            "credits_start": format_money(start),
                            "credits_end": format_money(start + net),
                            "total_bet": format_money(bet), "total_won": format_money(won),
                            "net": format_money(net)})
            joined.append({"game": game, "place": seat, "account": acct})
        spans = [{"shoe": n, "commitment": live.shoes[n].commitment, "start": start,
                  "cards": count} for n, start, count in live.spans]
        first = live.shoes[live.spans[0][0]].commitment if live.spans else None
        history = round_to_json(state, first)
        history["fair_shoes"] = spans
        config = live.config
        record = {
            "game": game, "table": live.id, "table_name": live.name, "round": live.round_no,
            "status": "complete", "started_at": live.round_started_at, "ended_at": ended,
            "game_identifier": GAME_ID, "game_version": sidebet.__version__,
            "algorithm": live.algorithm,
            "paytables": {"blackjack": config.rules.blackjack_pays.value,
                          **dict(config.side_wagers)},
            "players": players,
            "outcome": {"dealer": " ".join(c.code for c in state.dealer),
                        "hands": [h.to_json() for h in state.hands],
                        "side": [x.to_json() for x in state.side_settlements()],
                        "house_net": format_money(state.ledger.house_net())},
            "history": history,
        }
        self.core.later(s, tx, _ENDED, [{"game": game, "done": "complete", "ended": ended,
                                         "text": canonical(record)}])  # row of round-open
        if joined:  # nothing in this transaction reads them back
            self.core.later(s, tx, _JOINED, joined)
        self.bank_house(s, tx, live)  # the house's net of the round, once, on the table's row
        self.core.append(s, tx, "round-end", {"round": live.round_no, "game": game,
                                              "record": record})
        current = live.current_shoe
        for n, shoe in sorted(live.shoes.items()):
            if not shoe.revealed and (n < current or (n == current and shoe.needs_shuffle)):
                seed = s.get(ShoeSeed, (live.id, n))
                assert seed is not None
                self.core.append(s, tx, "shoe-reveal", {
                    "shoe": n, "server_seed": seed.server_seed, "commitment": shoe.commitment,
                    "client_seeds": list(shoe.client_seeds), "nonce": live.nonce(n),
                    "algorithm": fair.ALGORITHM})
        self.tables.seating.after_round(s, tx)
        if self.signer is not None:  # the chain's head, signed by the operator's key
            self.core.append(s, tx, "head", sign_head(self.signer, live.id, live.seq,
                                                      live.head))
