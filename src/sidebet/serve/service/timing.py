"""The time limit: a decision left past the table's time limit gets the table's default
action (a house rule of the table, published with its settings); an operator may end a
stuck round at once by the same default actions.  A player whose account the operator has
barred gets none: she is taken out of the round first
(:meth:`~sidebet.serve.service.rounds.Rounds.withdraw`), and the clock does that at once
for a control made by a process that serves no table (``sidebet account``)."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sidebet.serve.live import LiveTable
from sidebet.serve.models import Account
from sidebet.serve.security import Caller
from sidebet.serve.service.core import Core, Tx
from sidebet.serve.service.oplog import log_action
from sidebet.serve.service.rounds import Rounds
from sidebet.serve.service.rows import read_rows
from sidebet.table import Phase, Step
from sidebet.table.records import CloseBets, Insurance, Press, play_decision

__all__ = ["Timing", "run_clock"]

_log = logging.getLogger("sidebet.serve")


class Timing:
    """Which tables are past their time limit, and their default actions."""

    def __init__(self, core: Core, rounds: Rounds) -> None:
        self.core = core
        self.rounds = rounds

    def due(self, now: datetime | None = None) -> list[int]:
        """Tables whose pending decision is past its deadline (:meth:`LiveTable.deadline`:
        the betting countdown, or the time limit)."""
        now = now or datetime.now(UTC)
        out = []
        for tid, live in list(self.core.tables.items()):
            if not self.core.owns(tid):
                continue  # its owner's clock
            deadline = live.deadline()
            if deadline is not None and now >= datetime.strptime(
                    deadline, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC):
                out.append(tid)
        return out

    def barred(self) -> list[int]:
        """Tables served here where a player whose account is barred is seated and not
        yet withdrawn from the round (one query)."""
        seated = {a: tid for tid, live in list(self.core.tables.items())
                  if self.core.owns(tid) for seat, a in list(live.seat_accounts.items())
                  if not live.withdrawn(seat)}
        if not seated:
            return []
        with self.core.sessions() as s:
            found = read_rows(s.connection(), select(Account.id).where(
                Account.id.in_(list(seated)), Account.status != "active"))
        return sorted({seated[int(a)] for a, in found})

    def withdraw_barred(self, table_id: int) -> None:
        """Take every barred player out of the table's round and seat, in one
        transaction."""

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            assert tx.table is not None
            self._withdraw_barred(s, tx, tx.table)
            return 200, None

        self.core.run(None, None, "", table_id, work)

    def _withdraw_barred(self, s: Session, tx: Tx, live: LiveTable) -> None:
        accounts = list(live.seat_accounts.values())
        if not accounts:
            return
        for account, status, reason in s.execute(select(
                Account.id, Account.status, Account.status_reason).where(
                Account.id.in_(accounts), Account.status != "active")).all():
            self.rounds.withdraw(s, tx, int(account), str(status), str(reason or ""), None)

    def apply_default(self, table_id: int, *, now: bool = False) -> int:
        """Give the table's default action to whoever is past the time limit (``now``:
        whoever is to act, time limit or not): deal once bets are in; collect the Press;
        decline insurance; the house's default (stand, or surrender where allowed) for the
        hand to act.  How many decisions were made."""

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            state = live.state
            if state is None or not live.pending() or (not now and table_id not in self.due()):
                return 200, 0
            if now:
                rule = "house rule: the operator ended the round by the default actions"
            elif state.phase is Phase.BETTING and live.betting_seconds:
                rule = f"house rule: the betting countdown of {live.betting_seconds} s ended"
            else:
                rule = (f"house rule: the time limit of {live.time_limit} s ran out; the "
                        f"table's default action")
            perform = partial(self.rounds.perform, rule=rule)
            before = len(live.decisions)
            self._withdraw_barred(s, tx, live)  # never a default for a barred player
            state = live.state
            if state is None or not live.pending():
                return 200, len(live.decisions) - before
            if state.phase is Phase.BETTING:
                perform(s, tx, CloseBets(), None, None, auto=True)
            elif state.phase is Phase.PRESS:
                for seat in list(state.press_offers()):
                    perform(s, tx, Press(seat, 0), seat, None,
                            auto=True)
            elif state.phase is Phase.INSURANCE:
                for seat in list(state.insurance_offers()):
                    perform(s, tx, Insurance(seat, 0), seat, None,
                            auto=True)
            elif state.phase is Phase.PLAY and state.current_hand is not None:
                seat = state.current_hand.seat
                step = Step.SURRENDER if (live.default_action == "surrender"
                                          and state.can_surrender()) else Step.STAND
                perform(s, tx, play_decision(step, seat), seat, None, auto=True)
            return 200, len(live.decisions) - before

        return int(self.core.run(None, None, "", table_id, work)[1])

    def end_round(self, who: Caller, table_id: int) -> dict[str, Any]:
        """End the round in progress by the default actions (an operator's order, logged):
        bets are closed, every decision left takes its default, as the time limit would."""
        live = self.core.live(table_id)
        was_open = live.round_open
        made = 0
        for _ in range(200):  # a round has far fewer decisions than this
            live = self.core.live(table_id)
            if not live.round_open:
                break
            step = self.apply_default(table_id, now=True)
            if step == 0:
                break
            made += step
        with self.core.writing(), self.core.sessions.begin() as s:
            log_action(s, who, "end-round", f"table {table_id}",
                       {"round": live.round_no, "defaults": made, "was_open": was_open})
        return {"table": table_id, "ended": was_open and not live.round_open,
                "defaults": made}


def run_clock(timing: Timing, stop: threading.Event, interval: float) -> None:
    """Take barred players out of their rounds and apply default actions to tables past
    their time limit, every ``interval`` seconds, until ``stop`` is set."""
    while not stop.wait(interval):
        for table_id in timing.barred():
            try:
                timing.withdraw_barred(table_id)
            except Exception:  # keep the clock running
                _log.exception("withdrawing a barred player at table %s failed", table_id)
        for table_id in timing.due():
            try:
                timing.apply_default(table_id)
            except Exception:  # keep the clock running; the table was rebuilt from its log
                _log.exception("default action at table %s failed", table_id)
