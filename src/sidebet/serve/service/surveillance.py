"""Surveillance of the live tables: for every table of the server, the
analysis of :mod:`sidebet.surveil` fed with the table's ``round-end`` events as the
database holds them, older than the operator's delay.

One :class:`TableWatch` per table keeps a :class:`~sidebet.surveil.Surveillance` and the
sequence number of the last event it read.  A report reads only the committed
``round-end`` events after that number (a plain ``SELECT`` of the log: neither the
table's lock nor the write lock is taken), feeds those older than the delay to the
analysis in the log's order and stops at the first newer one; so each round is valued
once, and a request costs the rounds that ended since the last one.  A table's watch has
its own lock: two reports of the same table wait for each other, never for a request of
the table.

The delay (``surveillance_delay``) keeps what the house sees behind the table: data newer
than the delay is not shown, so that surveillance cannot drive preferential shuffling.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sidebet.core.errors import SidebetError
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Event
from sidebet.serve.service.core import Core
from sidebet.serve.settings import Settings

if TYPE_CHECKING:
    from sidebet.regulation.house_rules import HouseRules
    from sidebet.surveil import AlarmRule, Decision, Surveillance

__all__ = ["BATCH", "TableWatch", "Watch"]


def _tests() -> str:
    from sidebet.surveil.analysis import TESTS

    return TESTS

BATCH = 500
"""``round-end`` events read from the database at a time."""
_AT = "%Y-%m-%dT%H:%M:%S.%fZ"
"""The log's time format (:func:`sidebet.serve.chain.utc_now`): it sorts as text."""


class TableWatch:
    """The surveillance of one table: the analysis, the last event read, the newest
    decisions (at most ``kept``) and the time of the last round analysed."""

    def __init__(self, table_id: int, decks: int, sides: dict[str, str], rule: AlarmRule,
                 kept: int, rules: HouseRules | None = None) -> None:
        from sidebet.surveil import Surveillance

        self.table_id = table_id
        self.lock = threading.Lock()
        self.seq = 0
        self.decisions: deque[Decision] = deque(maxlen=kept)
        self.last_game: str | None = None
        self.last_at: str | None = None
        self.error: str | None = None
        self.analysis: Surveillance | None = None
        try:
            self.analysis = Surveillance(decks, sides, rule, rules=rules,
                                         keep_decisions=False)
        except SidebetError as exc:  # a side wager the analysis cannot value: said, not hidden
            self.error = f"table {table_id}: {exc}"

    def catch_up(self, core: Core, cutoff: str) -> None:
        """Feed the analysis the table's rounds that ended at or before ``cutoff``, in
        the log's order, from the last event read on (the caller holds :attr:`lock`)."""
        while self.error is None:
            with core.sessions() as s:
                rows = s.execute(
                    select(Event.seq, Event.at, Event.payload)
                    .where(Event.table_id == self.table_id, Event.seq > self.seq,
                           Event.kind == "round-end")
                    .order_by(Event.seq).limit(BATCH)).all()
                voided = self._voided(s) if rows else set()
            for seq, at, payload in rows:
                if at > cutoff:
                    return
                data = json.loads(payload)
                if str(data.get("game")) in voided:  # a supervisor voided it: not played
                    self.seq, self.last_at = seq, at
                    continue
                self._observe(data, seq)
                if self.error is not None:
                    return
                self.seq, self.last_at = seq, at
            if len(rows) < BATCH:
                return

    def _voided(self, s: Session) -> set[str]:
        """The games voided (or declared misdeals) by a correction logged after the last
        event read: a dealer-assist table's void of its last round follows that round's
        ``round-end`` (corrections are rare: one plain ``SELECT``)."""
        games: set[str] = set()
        for payload in s.scalars(select(Event.payload).where(
                Event.table_id == self.table_id, Event.seq > self.seq,
                Event.kind == "correction")):
            data = json.loads(payload)
            if data.get("kind") in ("void", "misdeal"):
                games.add(str(data.get("game")))
        return games

    def _observe(self, payload: dict[str, Any], seq: int) -> None:
        from sidebet.surveil.readers import round_from_event

        try:
            rnd = round_from_event(payload, f"table {self.table_id} event {seq}")
            if self.analysis is not None:
                self.decisions.extend(self.analysis.observe(rnd))
        except SidebetError as exc:  # reported, and the table's analysis stops there
            self.error = str(exc)
            return
        self.last_game = rnd.game


class Watch:
    """The surveillance of every table of ``core``, under the operator's settings."""

    def __init__(self, core: Core, settings: Settings) -> None:
        self.core = core
        self.settings = settings
        self._tables: dict[int, TableWatch] = {}
        self._lock = threading.Lock()
        self._rule: AlarmRule | None = None

    @property
    def rule(self) -> AlarmRule:
        """The alarm the operator set (``surveillance_alpha``, ``_horizon``, ``_delta``,
        ``_warmup``)."""
        if self._rule is None:
            from sidebet.surveil import AlarmRule

            st = self.settings
            self._rule = AlarmRule(alpha=st.surveillance_alpha, horizon=st.surveillance_horizon,
                                   delta=st.surveillance_delta, warmup=st.surveillance_warmup)
        return self._rule

    def _watch(self, table_id: int) -> TableWatch:
        with self._lock:
            watch = self._tables.get(table_id)
            if watch is None:
                config = self.core.live(table_id).config
                watch = TableWatch(table_id, config.decks, dict(config.side_wagers), self.rule,
                                   self.settings.surveillance_decisions_kept, config.rules)
                self._tables[table_id] = watch
            return watch

    def cutoff(self, now: datetime | None = None) -> str:
        """The newest time whose data may be shown (now less the delay), as log text."""
        now = now or datetime.now(UTC)
        return (now - timedelta(seconds=self.settings.surveillance_delay)).strftime(_AT)

    def report(self, table_id: int | None = None, player: str | None = None,
               decisions: int = 0) -> dict[str, Any]:
        """Every table's surveillance (or ``table_id``'s) up to the delay: the alarms,
        each player's statistics on each side wager, and the newest ``decisions``
        betting decisions of each table (``player``: that player's only)."""
        ids = sorted(self.core.tables) if table_id is None else [table_id]
        if table_id is not None and table_id not in self.core.tables:
            raise ApiError(404, f"no table {table_id}")
        cutoff = self.cutoff()
        rule = self.rule
        tables: list[dict[str, Any]] = []
        alarms: list[dict[str, Any]] = []
        for tid in ids:
            watch = self._watch(tid)
            with watch.lock:
                watch.catch_up(self.core, cutoff)
                item = self._table(watch, player, decisions)
            tables.append(item)
            alarms.extend({"table": tid, "table_name": item["name"], **a}
                          for a in item.pop("alarms"))
        return {
            "delay_seconds": self.settings.surveillance_delay, "as_of": cutoff,
            "alarm_rule": {"test": _tests(), "alpha": rule.alpha,
                           "horizon_decisions": rule.horizon, "delta": rule.delta,
                           "warmup": rule.warmup, "threshold": round(rule.threshold, 6)},
            "alarms": alarms, "tables": tables}

    def _table(self, watch: TableWatch, player: str | None, decisions: int
               ) -> dict[str, Any]:
        live = self.core.live(watch.table_id)
        a = watch.analysis
        players: list[dict[str, Any]] = []
        alarms: list[dict[str, Any]] = []
        if a is not None:
            threshold = a.rule.threshold
            players = [t.to_json(threshold) for t in a.players.values()
                       if player is None or t.player == player]
            alarms = [t.alarm_json() for t in a.alarms()
                      if player is None or t.player == player]
        shown = [d for d in watch.decisions if player is None or d.player == player]
        return {
            "table": watch.table_id, "name": live.name, "decks": live.config.decks,
            "side_wagers": [] if a is None else list(a.sides),
            "full_shoe_edge_float": {} if a is None else {
                w: float(e) for w, e in zip(a.wagers, a.edge.full_shoe, strict=True)},
            "rounds": 0 if a is None else a.rounds, "last_game": watch.last_game,
            "last_round_at": watch.last_at, "error": watch.error, "alarms": alarms,
            "players": players,
            "decisions": [d.to_json() for d in shown[-decisions:]] if decisions else []}
