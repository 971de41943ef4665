"""The service's core: the live tables in memory, the transaction runner, idempotency and
the event log's append.

Every request is one database transaction, committed before it is acknowledged
(:meth:`Core.run`).  A table's requests are serialised by the table's lock; on SQLite every
write transaction also takes the process-wide write lock (SQLite has one writer).  An action
is checked and applied by the table engine on the in-memory
:class:`~sidebet.serve.live.LiveTable`, then its event(s), money moves, game rows and
idempotency record are written in one transaction; should that transaction fail, the table
is rebuilt from its log, so memory never runs ahead of the database.  Events are broadcast
to WebSocket subscribers only after the commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from sidebet.core.errors import SidebetError, Violation
from sidebet.core.money import Cents, parse_money
from sidebet.regulation.submission import table_config_from_dict
from sidebet.serve.chain import GENESIS, canonical, chain_hash, utc_now
from sidebet.serve.db import migrate, write_lock
from sidebet.serve.errors import ApiError
from sidebet.serve.live import LiveTable
from sidebet.serve.models import Event, GameTable, IdempotentRequest, ShoeSeed
from sidebet.serve.security import Caller
from sidebet.serve.settings import Settings
from sidebet.table.view import redact

__all__ = ["GAME_ID", "Core", "Tx", "Work", "amount_of", "public_event"]

GAME_ID = "sidebet-blackjack-side-wagers"
"""The game identifier stamped in the ``table`` event and every game record (§ 810a.11)."""


@dataclass
class Tx:
    """One transaction: the table it changes and what it will broadcast once committed."""

    table: LiveTable | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    action_seq: int = 0


Work = Callable[[Session, Tx], tuple[int, Any]]
"""What a request does inside its transaction: its HTTP status and JSON answer."""


class _Replay(Exception):
    """The request's Idempotency-Key has an answer already."""


def amount_of(text: str, largest: Cents, what: str = "amount") -> Cents:
    """Parse a money amount given as text (``"12.50"``) into cents, or refuse with 422
    (also when it is above ``largest``).

    >>> amount_of("12.50", 10**12)
    1250
    >>> amount_of("12.50", 1000)
    Traceback (most recent call last):
    ...
    sidebet.serve.errors.ApiError: amount: '12.50' is larger than the server accepts
    """
    try:
        cents = parse_money(text)
    except SidebetError as exc:
        raise ApiError(422, f"{what}: {exc}") from None
    if abs(cents) > largest:
        raise ApiError(422, f"{what}: {text!r} is larger than the server accepts")
    return cents


def public_event(ev: dict[str, Any], hide_hole: bool, current_round: int) -> dict[str, Any]:
    """An event as players see it: the hole card of the round in progress hidden."""
    payload = ev["payload"]
    if ev["kind"] == "action" and hide_hole and payload.get("round") == current_round:
        payload = {k: v for k, v in payload.items() if k != "dealt"}
        payload["records"] = redact(payload["records"], True)
        return {**ev, "payload": payload, "redacted": True}
    return ev


class Core:
    """The database, the live tables rebuilt from their logs, and the runner every change
    goes through.  ``broadcast`` receives ``(table id, event)`` after each commit (the app
    forwards it to WebSocket subscribers).  Read ``tables``; change it only through
    :meth:`add_table` and :meth:`reload`."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        migrate(engine)
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self._write = write_lock(engine)
        self.tables: dict[int, LiveTable] = {}
        self._locks: dict[int, threading.RLock] = {}
        self._tables_lock = threading.Lock()
        self.broadcast: Callable[[int, dict[str, Any]], None] = lambda _t, _e: None

    # ----- the live tables --------------------------------------------------------------

    def load_all(self) -> None:
        """Rebuild every table of the database from its log."""
        with self.sessions() as s:
            ids = list(s.scalars(select(GameTable.id).order_by(GameTable.id)))
        for table_id in ids:
            self.add_table(self.load(table_id))

    def seed_lookup(self, table_id: int) -> Callable[[int], bytes]:
        """The server seed of a shoe of ``table_id``, read from the database."""
        def seed_of(shoe: int) -> bytes:
            with self.sessions() as s:
                row = s.get(ShoeSeed, (table_id, shoe))
                if row is None:
                    raise SidebetError(f"table {table_id}: shoe {shoe} has no seed")
                return bytes.fromhex(row.server_seed)
        return seed_of

    def load(self, table_id: int) -> LiveTable:
        """Rebuild a table from its log (checking the hash chain and that the engine
        reproduces every stored record)."""
        with self.sessions() as s:
            row = s.get(GameTable, table_id)
            assert row is not None
            config = table_config_from_dict(json.loads(row.config), source=f"table {table_id}")
            live = LiveTable(table_id, row.name, config, seats=row.seats, unit=row.unit,
                             time_limit=row.time_limit, default_action=row.default_action,
                             seed_of=self.seed_lookup(table_id))
            prev = GENESIS
            for ev in s.scalars(select(Event).where(Event.table_id == table_id)
                                .order_by(Event.seq)):
                if ev.seq != live.seq + 1 or ev.prev_hash != prev or ev.hash != chain_hash(
                        prev, table_id, ev.seq, ev.kind, ev.at, ev.payload):
                    raise SidebetError(f"table {table_id}: event {ev.seq} breaks the hash chain")
                live.apply(ev.kind, json.loads(ev.payload), ev.at)
                live.seq, live.head, prev = ev.seq, ev.hash, ev.hash
            live.sealed_now.clear()
        return live

    def reload(self, table_id: int) -> None:
        """Replace a table's memory by its state rebuilt from the database."""
        self.tables[table_id] = self.load(table_id)

    def add_table(self, live: LiveTable) -> None:
        """Serve a table (newly created, or rebuilt at start) with its own lock."""
        with self._tables_lock:
            self._locks[live.id] = threading.RLock()
            self.tables[live.id] = live

    def lock(self, table_id: int) -> threading.RLock:
        """The lock that serialises the table's requests (404: no such table)."""
        with self._tables_lock:
            if table_id not in self.tables:
                raise ApiError(404, f"no table {table_id}")
            return self._locks[table_id]

    def live(self, table_id: int) -> LiveTable:
        """The table in memory (404: no such table)."""
        live = self.tables.get(table_id)
        if live is None:
            raise ApiError(404, f"no table {table_id}")
        return live

    # ----- transactions -----------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the process's write lock (SQLite; nothing on PostgreSQL)."""
        if self._write is None:
            yield
        else:
            with self._write:
                yield

    def run(self, caller: Caller | None, key: str | None, fingerprint: str,
            table_id: int | None, work: Work) -> tuple[int, Any]:
        """Do ``work`` in one transaction under the table's lock; with an
        ``Idempotency-Key`` store its answer (a refusal too) and answer a retry with it."""
        fingerprint = hashlib.sha256(fingerprint.encode()).hexdigest()
        if key is not None and caller is not None:
            longest = self.settings.idempotency_key_max
            if not 1 <= len(key) <= longest:
                raise ApiError(422, f"Idempotency-Key must be 1 to {longest} characters")
            first = self._first_answer(caller.id, key, fingerprint)
            if first is not None:
                return first
        lock = self.lock(table_id) if table_id is not None else contextlib.nullcontext()
        with lock:
            if key is not None and caller is not None:
                first = self._first_answer(caller.id, key, fingerprint)
                if first is not None:
                    return first
            tx = Tx(self.tables.get(table_id) if table_id is not None else None)
            try:
                with self.writing(), self.sessions.begin() as s:
                    if key is not None and caller is not None and s.get(
                            IdempotentRequest, (caller.id, key)) is not None:
                        raise _Replay
                    status, body = work(s, tx)
                    text = canonical(body)
                    body = json.loads(text)  # the first answer reads as every retry's
                    if key is not None and caller is not None:
                        s.add(IdempotentRequest(account_id=caller.id, key=key,
                                                fingerprint=fingerprint, status=status,
                                                response=text, at=utc_now()))
            except ApiError as err:
                if tx.table is not None and tx.events and tx.table.id in self.tables:
                    self.reload(tx.table.id)
                if key is not None and caller is not None:
                    self._store_refusal(caller.id, key, fingerprint, err)
                raise
            except (_Replay, IntegrityError) as exc:
                # the same key committed meanwhile (PostgreSQL: by a concurrent request)
                if tx.table is not None and tx.events and tx.table.id in self.tables:
                    self.reload(tx.table.id)
                first = None if key is None or caller is None else self._first_answer(
                    caller.id, key, fingerprint)
                if first is None:
                    if isinstance(exc, IntegrityError):
                        raise ApiError(409, "a concurrent request conflicted; try again"
                                       ) from None
                    raise AssertionError("replayed key without a first answer") from None
                return first
            except BaseException:
                if tx.table is not None and tx.table.id in self.tables:
                    self.reload(tx.table.id)
                raise
            live = tx.table
            for ev in tx.events:
                assert live is not None
                self.broadcast(live.id, public_event(ev, live.hide_hole, live.round_no))
            return status, body

    def _first_answer(self, account: int, key: str, fingerprint: str) -> tuple[int, Any] | None:
        with self.sessions() as s:
            row = s.get(IdempotentRequest, (account, key))
            if row is None:
                return None
            if row.fingerprint != fingerprint:
                raise ApiError(422, f"Idempotency-Key {key!r} was used for a different request")
            body = json.loads(row.response)
            if row.status >= 400:
                raise ApiError(row.status, body["detail"], tuple(
                    Violation(v["rule"], v["message"]) for v in body["violations"]))
            return row.status, body

    def _store_refusal(self, account: int, key: str, fingerprint: str, err: ApiError) -> None:
        if err.status in (401, 404, 503):
            return
        with contextlib.suppress(IntegrityError), self.writing(), self.sessions.begin() as s:
            s.add(IdempotentRequest(account_id=account, key=key, fingerprint=fingerprint,
                                    status=err.status, response=canonical(err.body()),
                                    at=utc_now()))

    def append(self, s: Session, tx: Tx, kind: str, payload: dict[str, Any],
               applied: bool = False) -> None:
        """Add an event to the table's log (applying it to memory unless ``applied``)."""
        live = tx.table
        assert live is not None
        seq, at, text = live.seq + 1, utc_now(), canonical(payload)
        digest = chain_hash(live.head or GENESIS, live.id, seq, kind, at, text)
        s.add(Event(table_id=live.id, seq=seq, kind=kind, at=at, payload=text,
                    prev_hash=live.head or GENESIS, hash=digest))
        tx.events.append({"seq": seq, "kind": kind, "at": at, "payload": payload,
                          "round": live.round_no})
        if not applied:
            live.apply(kind, payload, at)
        else:
            live.last_at = at
        live.seq, live.head = seq, digest
