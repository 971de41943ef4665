"""Dealer-assist tables: the staff (dealers, supervisors, card-reading shoes), cards entered
from a dealer's screen or a reading shoe, the dealer acting for a seat's player, a new
shoe, corrections a supervisor approves, and the dealer's screen (what to pay or collect,
seat by seat in the regulations' order, § 633c.11(d)).

The table engine decides: :class:`~sidebet.table.entered_shoe.EnteredShoe` whether a card
may be entered, :class:`~sidebet.table.RoundState` every decision and payment,
:mod:`sidebet.table.corrections` what a correction moves.  This service persists their
answers like every other change (:meth:`~sidebet.serve.service.core.Core.run`)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sidebet.core.errors import SidebetError, Violation
from sidebet.core.money import Cents, format_money
from sidebet.regulation.wagers import get_wager
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.live import LiveTable
from sidebet.serve.models import Account, Game, GamePlayer, StaffTables
from sidebet.serve.physical import PhysicalTable
from sidebet.serve.security import Caller
from sidebet.serve.service.accounts import Accounts
from sidebet.serve.service.core import Core, Tx
from sidebet.serve.service.oplog import log_action
from sidebet.serve.service.rounds import Rounds
from sidebet.table import Phase, Step

__all__ = ["DEALER", "DEVICE", "HOUSE_WIDE", "STAFF_ROLES", "SUPERVISOR", "Dealer"]

DEALER, SUPERVISOR, DEVICE = "dealer", "supervisor", "device"
STAFF_ROLES = (DEALER, SUPERVISOR, DEVICE)
"""The roles an operator gives staff: a dealer enters cards and acts for the seats, a
supervisor approves corrections, a device (a card-reading shoe) only enters cards."""
HOUSE_WIDE = "all"
"""The assignment of a supervisor of every dealer-assist table."""


def _role(caller: Caller, *roles: str) -> None:
    if caller.role not in roles:
        v = Violation(HOUSE, f"this is a task of the {' or '.join(roles)} role, not of "
                             f"the {caller.role} role")
        raise ApiError(403, str(v), (v,))


def _physical(live: LiveTable | None) -> PhysicalTable:
    if not isinstance(live, PhysicalTable):
        v = Violation(HOUSE, "this table deals the server's shoe: it is not a dealer-assist "
                             "table")
        raise ApiError(409, str(v), (v,))
    return live


def _refused(exc: SidebetError, status: int = 409) -> ApiError:
    v = Violation(HOUSE, str(exc))
    return ApiError(status, str(exc), (v,))


class Dealer:
    """The dealer-assist tables' operations over the core and the rounds."""

    def __init__(self, core: Core, accounts: Accounts, rounds: Rounds) -> None:
        self.core = core
        self.accounts = accounts
        self.rounds = rounds

    # ----- staff ------------------------------------------------------------------------

    def add_staff(self, caller: Caller, name: str, password: str, role: str,
                  tables: list[int] | str) -> dict[str, Any]:
        """A staff account and the dealer-assist tables it works at (an operator's task,
        logged)."""
        if not caller.operator:
            raise ApiError(403, "only an operator adds staff")
        if role not in STAFF_ROLES:
            raise ApiError(422, f"a staff role is one of {', '.join(STAFF_ROLES)}")
        self.accounts.check_new(name, password)
        tables = self._check_tables(role, tables)
        try:
            with self.core.writing(), self.core.sessions.begin() as s:
                acct = self.accounts.add(s, name, password, role)
                s.add(_assignment(acct.id, tables))
                log_action(s, caller, "add-staff", f"account {name}",
                           {"role": role, "tables": tables})
                return {"id": acct.id, "name": acct.name, "role": acct.role,
                        "tables": tables}
        except IntegrityError:
            raise ApiError(409, f"the name {name!r} is taken") from None

    def assign(self, caller: Caller, name: str, tables: list[int] | str) -> dict[str, Any]:
        """The dealer-assist tables staff account ``name`` works at from now on (an
        operator's task, logged; it replaces the account's assignment at once)."""
        if not caller.operator:
            raise ApiError(403, "only an operator assigns staff to tables")
        with self.core.writing(), self.core.sessions.begin() as s:
            acct = s.scalar(select(Account).where(Account.name == name))
            if acct is None or acct.role not in STAFF_ROLES:
                raise ApiError(404, f"no staff account {name!r}")
            tables = self._check_tables(acct.role, tables)
            s.merge(_assignment(acct.id, tables))
            log_action(s, caller, "assign-staff", f"account {name}", {"tables": tables})
            return {"id": acct.id, "name": acct.name, "role": acct.role, "tables": tables}

    def _check_tables(self, role: str, tables: list[int] | str) -> list[int] | str:
        """The assignment, its tables sorted: only a supervisor is house-wide, and each
        table named is a dealer-assist table."""
        if isinstance(tables, str):
            if tables != HOUSE_WIDE or role != SUPERVISOR:
                raise ApiError(422, f"only a supervisor works at every table, not a {role}: "
                                    "name the tables")
            return tables
        for table_id in tables:
            if not isinstance(self.core.tables.get(table_id), PhysicalTable):
                raise ApiError(422, f"table {table_id} is not a dealer-assist table")
        return sorted(set(tables))

    def _posted(self, caller: Caller, table_id: int) -> None:
        """403 unless staff ``caller`` works at dealer-assist table ``table_id`` (read at
        every request, so a changed assignment counts at once; another table is refused
        later with its own reason)."""
        if not isinstance(self.core.tables.get(table_id), PhysicalTable):
            return
        with self.core.sessions() as s:
            row = s.get(StaffTables, caller.id)
            if row is not None and (row.house_wide or table_id in json.loads(row.tables)):
                return
        v = Violation(HOUSE, f"{caller.name} is not assigned to table {table_id}: an "
                             "operator assigns the staff's tables")
        raise ApiError(403, str(v), (v,))

    # ----- cards ------------------------------------------------------------------------

    def enter_card(self, caller: Caller, table_id: int, position: int, card: str,
                   confidence: float | None, key: str | None) -> tuple[int, Any]:
        """A card drawn from the physical shoe, at its position (0 first): refused unless
        the engine accepts it (409 out of the dealing order, 422 not left in the shoe);
        the decision waiting for it is applied once its cards are all in.  The same card
        sent again for a position it already holds (a device whose answer was lost) is
        answered 200 and changes nothing."""
        _role(caller, DEALER, DEVICE)
        self._posted(caller, table_id)
        source = f"{caller.role} {caller.name}"
        fingerprint = canonical(["card", table_id, position, card, confidence])

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = _physical(tx.table)
            shoe = live.shoe
            if live.entered_as(card, position):  # sent again (its answer lost): no change
                return 200, {"table": live.id, "shoe": live.current_shoe,
                             "position": position, "card": shoe.entered[position].card.code,
                             "next_position": len(shoe.entered), "applied": None,
                             "seq": live.seq}
            refusal = live.verify_card(card, position)
            if refusal is not None:
                raise ApiError(409 if position != len(shoe.entered) else 422, str(refusal),
                               (refusal,))
            self.core.append(s, tx, "card", {"shoe": live.current_shoe, "position": position,
                                             "card": card, "source": source,
                                             "confidence": confidence, "by": caller.id})
            entered = shoe.entered[-1]
            applied = self._apply_ready(s, tx, live)
            return 201, {"table": live.id, "shoe": live.current_shoe, "position": position,
                         "card": entered.card.code, "next_position": len(shoe.entered),
                         "applied": applied, "seq": live.seq}

        return self.core.run(caller, key, fingerprint, table_id, work)

    def undo_card(self, caller: Caller, table_id: int, position: int,
                  key: str | None) -> tuple[int, Any]:
        """The dealer takes back the last card entered (at ``position``), not yet dealt:
        refused (409) for any other card."""
        _role(caller, DEALER)
        self._posted(caller, table_id)

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = _physical(tx.table)
            shoe = live.shoe
            if position != len(shoe.entered) - 1 or position < shoe.position:
                v = Violation(HOUSE, f"only the last card entered and not yet dealt can be "
                                     f"taken back; card {position + 1} cannot")
                raise ApiError(409, str(v), (v,))
            card = shoe.entered[position].card.code
            self.core.append(s, tx, "card-undo", {"shoe": live.current_shoe,
                                                  "position": position, "card": card,
                                                  "by": caller.id})
            return 201, {"table": live.id, "shoe": live.current_shoe, "position": position,
                         "card": card, "next_position": len(shoe.entered), "applied": None,
                         "seq": live.seq}

        return self.core.run(caller, key, canonical(["card-undo", table_id, position]),
                             table_id, work)

    def _apply_ready(self, s: Session, tx: Tx, live: PhysicalTable) -> dict[str, Any] | None:
        """Apply the decision that waited for its cards, once they are all entered."""
        decision = live.ready()
        if decision is None or live.awaiting is None:
            return None
        seat, actor = live.awaiting["seat"], live.awaiting["actor"]
        record = self.rounds.perform(s, tx, decision, seat, actor, auto=False)
        return record.to_json()

    def new_shoe(self, caller: Caller, table_id: int, key: str | None) -> tuple[int, Any]:
        """The dealer starts a new (shuffled) physical shoe, between rounds."""
        _role(caller, DEALER)
        self._posted(caller, table_id)

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = _physical(tx.table)
            if live.round_open:
                raise _refused(SidebetError("a new shoe is started between rounds"))
            self.core.append(s, tx, "shoe-new", {"shoe": live.current_shoe + 1,
                                                 "by": caller.id})
            return 201, {"table": live.id, "shoe": live.current_shoe, "seq": live.seq}

        return self.core.run(caller, key, canonical(["shoe-new", table_id]), table_id, work)

    # ----- the dealer acting for a seat ---------------------------------------------------

    def act(self, caller: Caller, table_id: int, seat: int, step: Step,
            amount: str | None = None, wager: str | None = None, key: str | None = None
            ) -> tuple[int, Any]:
        """A seat's decision entered by the dealer (the player's signal at the table)."""
        _role(caller, DEALER)
        self._posted(caller, table_id)

        def staff(live: LiveTable) -> None:
            _physical(live)
            if seat not in live.seat_accounts:
                raise ApiError(404, f"no player sits at seat {seat} of table {live.id}")

        return self.rounds.act(caller, table_id, seat, step, amount, wager, key=key,
                               staff=staff)

    # ----- corrections ------------------------------------------------------------------

    def ask(self, caller: Caller, table_id: int, kind: str, reason: str,
            position: int | None, card: str | None, key: str | None) -> tuple[int, Any]:
        """A dealer asks for a correction; a supervisor approves it (:meth:`approve`)."""
        _role(caller, DEALER)
        self._posted(caller, table_id)
        fingerprint = canonical(["ask", table_id, kind, reason, position, card])

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = _physical(tx.table)
            try:
                asked = live.ask(kind, reason, caller.name, position=position, card=card)
            except SidebetError as exc:
                raise _refused(exc, 422 if kind not in ("void", "misdeal", "card") else 409
                               ) from None
            asked["request"] = live.seq + 1
            self.core.append(s, tx, "correction-asked", asked)
            return 201, {"request": asked["request"], "kind": kind, "round": asked["round"],
                         "seq": live.seq}

        return self.core.run(caller, key, fingerprint, table_id, work)

    def approve(self, caller: Caller, table_id: int, request: int, key: str | None
                ) -> tuple[int, Any]:
        """A supervisor approves correction ``request``: the engine carries it out and its
        ledger entries move the wallets (:mod:`sidebet.table.corrections`)."""
        _role(caller, SUPERVISOR)
        self._posted(caller, table_id)

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = _physical(tx.table)
            asked = live.asked.get(request)
            if asked is None:
                raise ApiError(404, f"no correction request {request} awaits approval")
            try:
                fix = live.correct(request, caller.name)
            except SidebetError as exc:
                raise _refused(exc) from None
            moves, house = self.rounds.move_money(s, tx, live, [*fix.entries, *fix.redone])
            payload = {"request": request, **fix.to_json(), "round": asked["round"],
                       "moves": {str(a): d for a, d in sorted(moves.items())},
                       "house": house}
            self.core.append(s, tx, "correction", payload, applied=True)
            if fix.kind.value in ("void", "misdeal"):
                self._void_game(s, live, str(asked["game"]), payload)
            else:
                self.rounds.end_if_done(s, tx)
                if live.round_open:
                    self._apply_ready(s, tx, live)
            return 201, {"request": request, "kind": fix.kind.value, "moves":
                         {str(a): format_money(d) for a, d in sorted(moves.items())},
                         "house": format_money(house), "seq": live.seq}

        return self.core.run(caller, key, canonical(["approve", table_id, request]), table_id,
                             work)

    @staticmethod
    def _void_game(s: Session, live: PhysicalTable, game: str,
                   correction: dict[str, Any]) -> None:
        """The game record of a voided round: its status ``void`` and the correction (a
        round voided in progress gets its players, so that each finds it)."""
        row = s.get(Game, game)
        if row is None:
            return
        row.ended_at = row.ended_at or utc_now()
        if row.record:
            record = json.loads(row.record)
        else:
            record = {"game": game, "table": row.table_id, "round": row.round_no,
                      "started_at": row.started_at, "ended_at": row.ended_at}
            state = live.state
            for seat, acct in sorted(live.round_accounts.items()):
                if state is not None and state.bets(seat):
                    s.add(GamePlayer(game_id=game, seat=seat, account_id=acct))
        record["status"] = "void"
        record["correction"] = correction
        row.status, row.record = "void", canonical(record)

    # ----- the dealer's screen ------------------------------------------------------------

    def screen(self, caller: Caller, table_id: int) -> dict[str, Any]:
        """What the dealer sees: the cards entered and waiting, the decision waiting, the
        dealer's cards as on the felt (the hole card face down until the engine turns it),
        and after the deal, seat by seat in the regulations' order (§ 633c.11(d): farthest to
        the dealer's right first), what to pay or collect on each side wager with its
        paytable line and citation, then the Press offers, then the rest of the round."""
        _role(caller, DEALER, SUPERVISOR)
        self._posted(caller, table_id)
        with self.core.lock(table_id):
            live = _physical(self.core.live(table_id))
            return _screen(live)


def _assignment(account: int, tables: list[int] | str) -> StaffTables:
    house_wide = isinstance(tables, str)
    return StaffTables(account_id=account, house_wide=house_wide,
                       tables="[]" if house_wide else canonical(tables))


def _money(cents: Cents | None) -> str | None:
    return None if cents is None else format_money(cents)


def _screen(live: PhysicalTable) -> dict[str, Any]:
    state = live.state
    shoe = live.shoe
    shown = state is not None and (live.round_open or state.phase is Phase.DONE) \
        and live.round_no not in live.voided
    out: dict[str, Any] = {
        "table": live.id, "name": live.name, "seq": live.seq, "round": live.round_no,
        "round_open": live.round_open, "voided": live.round_no in live.voided,
        "phase": state.phase.value if shown and state is not None else "betting",
        "shoe": {"shoe": live.current_shoe, "decks": shoe.decks, "entered": len(shoe.entered),
                 "dealt": shoe.position, "next_position": len(shoe.entered),
                 "waiting": [c.code for c in live.waiting]},
        "awaiting": None if live.awaiting is None else {
            "seat": live.awaiting["seat"], "action": live.awaiting["decision"]["step"]},
        "dealer": "", "instructions": [], "press": [], "seats": [], "results": [],
        "corrections": [dict(v) for _, v in sorted(live.asked.items())],
    }
    for seat in range(1, live.seats + 1):
        acct = live.seat_accounts.get(seat)
        item: dict[str, Any] = {"seat": seat, "player": None if acct is None
                                else live.names.get(acct), "legal": live.legal(seat)}
        if shown and state is not None:
            item["bets"] = {w: format_money(a) for w, a in state.bets(seat).items()}
            item["hands"] = [h.to_json() for h in state.hands_of(seat)]
        out["seats"].append(item)
    if not shown or state is None:
        out["next"] = "take the bets; then no more bets and deal"
        return out
    out["dealer"] = " ".join(state.view(None).dealer)  # the hole card hidden, as on the felt
    for seat, st in ((s, x) for s in range(live.seats, 0, -1)  # the engine's order:
                     for x in state.side_settlements(s)):     # § 633c.11(d)
        wager = get_wager(st.wager)
        out["instructions"].append({
            "seat": seat, "wager": st.wager, "name": wager.name, "outcome": st.outcome,
            "line": st.label, "pays": st.pays, "stake": format_money(st.amount),
            "action": "pay" if st.won else "collect",
            "amount": format_money(st.winnings if st.won else st.amount),
            "citation": st.citation})
    offers = state.press_offers()
    for seat, seat_state in sorted(state.seat_states.items(), reverse=True):
        if seat_state.press_offer:
            out["press"].append({"seat": seat, "winnings": format_money(seat_state.press_offer),
                                 "max": _money(offers.get(seat)),
                                 "pressed": _money(seat_state.pressed)})
    if state.phase is Phase.DONE:
        out["results"] = [{"seat": s, "net": format_money(state.ledger.player_net(s))}
                          for s in sorted(state.seat_states) if state.bets(s)]
    out["next"] = _next(live)
    return out


def _next(live: PhysicalTable) -> str:
    state = live.state
    assert state is not None
    if live.awaiting is not None:
        return (f"deal card {len(live.shoe.entered) + 1} of the shoe (seat "
                f"{live.awaiting['seat']}: {str(live.awaiting['decision']['step']).replace('-', ' ')})")
    phase = state.phase
    if phase is Phase.BETTING:
        return "take the bets; then no more bets and deal"
    if phase is Phase.PRESS:
        return "offer the Press: seat " + ", ".join(str(s) for s in state.press_offers())
    if phase is Phase.INSURANCE:
        return "offer insurance: seat " + ", ".join(str(s) for s in state.insurance_offers())
    if phase is Phase.PLAY and state.current_hand is not None:
        return f"seat {state.current_hand.seat} to act"
    return "the round is settled"
