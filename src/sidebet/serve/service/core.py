"""The service's core: the live tables in memory, the transaction runner, idempotency and
the event log's append.

Every request's writes are committed before it is acknowledged (:meth:`Core.run`).  A
table's requests are serialised by the table's lock.  An action is checked and applied by
the table engine on the in-memory :class:`~sidebet.serve.live.LiveTable`, then its
event(s), money moves, game rows and idempotency record are written in one transaction;
should that transaction fail, the table is rebuilt from its log, so memory never runs ahead
of the database for long and never of what is answered.  Events are broadcast to WebSocket
subscribers and the table's view published only after the commit.

On PostgreSQL each request is its own transaction, committed under the table's lock
(tables commit in parallel).  On SQLite (one writer) the table requests share one write
transaction, a savepoint each, committed by one thread for all of them (group commit,
:mod:`~sidebet.serve.service.batch`): the table's lock is released when the work is done,
and the answer waits for the commit; every other write first commits that batch and then
takes the process's write lock for its own transaction.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Engine, Executable, Table, delete, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from sidebet.core.errors import SidebetError, Violation
from sidebet.core.money import Cents, parse_money
from sidebet.regulation.submission import table_config_from_dict
from sidebet.serve.chain import GENESIS, canonical, chain_hash, utc_now
from sidebet.serve.db import migrate, unavailable, write_lock
from sidebet.serve.errors import ApiError, NotOwner
from sidebet.serve.live import LiveTable
from sidebet.serve.models import Event, GameTable, IdempotentRequest, ShoeSeed, TableSnapshot
from sidebet.serve.physical import PhysicalTable, is_physical
from sidebet.serve.recent import Recent
from sidebet.serve.security import Caller, TokenCache
from sidebet.serve.service.batch import GroupCommit, Ticket
from sidebet.serve.service.rows import write_rows
from sidebet.serve.settings import Settings
from sidebet.table.view import redact

__all__ = ["GAME_ID", "Core", "Tx", "Work", "amount_of", "public_event"]

Stored = tuple[str, int, str, str]
"""An answer to a keyed request: its request's fingerprint, status, JSON text and time."""
PURGE_EVERY = 10_000
"""Keyed requests between two purges of expired answers."""
ANSWERS_KEPT = 20_000
"""How many answers to keyed requests a process keeps in memory (the newest)."""
STATE_REF = "state@"
"""Stored in an answer in place of the table's state (which a retry reads anew)."""

_EVENTS = insert(cast(Table, Event.__table__))
_ANSWERS = insert(cast(Table, IdempotentRequest.__table__))
_TABLES = cast(Table, Event.__table__), cast(Table, IdempotentRequest.__table__)

GAME_ID = "sidebet-blackjack-side-wagers"
"""The game identifier stamped in the ``table`` event and every game record (§ 810a.11)."""


@dataclass
class Tx:
    """One transaction: the table it changes and what it will broadcast once committed."""

    table: LiveTable | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    action_seq: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    """The log's new rows, inserted together before the commit."""
    later: list[tuple[Executable, list[dict[str, Any]]]] = field(default_factory=list)
    """Writes nothing in the transaction reads back, sent with the log's rows
    (:meth:`Core.later`)."""


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


TOKENS_CHANNEL = "sidebet_tokens"
"""The PostgreSQL channel a revocation is announced on (``<account>:<session>``), so that
every process of the database drops its cached tokens at once."""
LIMITS_CHANNEL = "sidebet_limits"
"""The PostgreSQL channel a change of a player's limits row is announced on
(``<account>``, sent in the change's transaction), so that every process drops its copy."""


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
        self._answers: OrderedDict[tuple[int, str], Stored] = OrderedDict()
        self._answers_lock = threading.Lock()
        self._keyed = 0
        self.tokens = TokenCache()
        """Bearer tokens found valid (a revocation calls ``tokens.forget`` once committed)."""
        self.limit_rows: Recent[int, tuple[str, str | None, str | None, str | None] | None]
        self.limit_rows = Recent()
        """Players' limits rows read lately (``None``: no row), by account: forgotten by
        :meth:`limits_changed` and, from another process, by ``NOTIFY``."""
        self.broadcast: Callable[[int, dict[str, Any]], None] = lambda _t, _e: None
        self.epochs: dict[int, int] | None = None
        """The tables this process owns, with their fencing numbers (several processes on
        one PostgreSQL: :mod:`sidebet.serve.cluster`); ``None``: it owns every table."""
        self.on_added: Callable[[int], None] = lambda _t: None
        """Called with a table's id once it is served here (a cluster member may claim
        it)."""
        self.batch = None if self._write is None else GroupCommit(
            self.sessions, self._write, self._finish)
        """SQLite's group commit of the table requests (``None`` on PostgreSQL)."""
        self.stale: set[int] = set()
        """Tables whose memory ran ahead of a failed transaction and which could not be
        rebuilt at once (PostgreSQL unreachable): rebuilt by their next request."""
        self._fresh_seeds: dict[tuple[int, int], bytes] = {}
        """Server seeds drawn by this process (read before their commit is certain)."""

    def revoked(self, account: int, session: str | None = None) -> None:
        """Drop the cached tokens of ``account`` (of one sign-in, with ``session``) once
        their revocation has committed: here, and on PostgreSQL in every other process of
        the database too (``NOTIFY`` on :data:`TOKENS_CHANNEL`, heard by
        :class:`~sidebet.serve.cluster.listen.Listener`)."""
        self.tokens.forget(account, session)
        if self._write is None:  # PostgreSQL: other processes may hold the token
            with self.engine.begin() as conn:
                conn.execute(text("SELECT pg_notify(:channel, :payload)"),
                             {"channel": TOKENS_CHANNEL, "payload": f"{account}:{session or ''}"})

    def limits_changed(self, s: Session, account: int) -> None:
        """Announce, in the transaction ``s`` that changes ``account``'s limits row, that
        every process's copy of it is stale (PostgreSQL: ``NOTIFY`` on
        :data:`LIMITS_CHANNEL`, delivered at the commit); forget it here at once, and call
        ``limit_rows.forget`` again once committed."""
        self.limit_rows.forget(account)
        if self._write is None:
            s.execute(text("SELECT pg_notify(:channel, :payload)"),
                      {"channel": LIMITS_CHANNEL, "payload": str(account)})

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
            fresh = self._fresh_seeds.get((table_id, shoe))
            if fresh is not None:
                return fresh
            with self.sessions() as s:
                row = s.get(ShoeSeed, (table_id, shoe))
                if row is None:
                    raise SidebetError(f"table {table_id}: shoe {shoe} has no seed")
                return bytes.fromhex(row.server_seed)
        return seed_of

    def load(self, table_id: int, snapshots: bool = True) -> LiveTable:
        """Rebuild a table from its log (checking the hash chain and that the engine
        reproduces every stored record): from its last snapshot on, unless
        ``snapshots`` is false."""
        with self.sessions() as s:
            row = s.get(GameTable, table_id)
            assert row is not None
            config = table_config_from_dict(json.loads(row.config), source=f"table {table_id}")
            first = s.scalar(select(Event.payload).where(Event.table_id == table_id,
                                                         Event.seq == 1))
            kind = PhysicalTable if first is not None and is_physical(json.loads(first)) \
                else LiveTable
            live = kind(table_id, row.name, config, seats=row.seats, unit=row.unit,
                        time_limit=row.time_limit, default_action=row.default_action,
                        seed_of=self.seed_lookup(table_id))
            self._follow(s, live, self._restore(s, live) if snapshots else GENESIS)
            live.sealed_now.clear()
        live.publish()
        return live

    @staticmethod
    def _follow(s: Session, live: LiveTable, prev: str) -> list[dict[str, Any]]:
        """Apply to ``live`` the events of its log after ``live.seq`` (whose hash is
        ``prev``), checking the hash chain; the events applied."""
        applied = []
        for ev in s.scalars(select(Event).where(Event.table_id == live.id,
                                                Event.seq > live.seq).order_by(Event.seq)):
            if ev.seq != live.seq + 1 or ev.prev_hash != prev or ev.hash != chain_hash(
                    prev, live.id, ev.seq, ev.kind, ev.at, ev.payload):
                raise SidebetError(f"table {live.id}: event {ev.seq} breaks the hash chain")
            payload = json.loads(ev.payload)
            live.apply(ev.kind, payload, ev.at)
            live.seq, live.head, prev = ev.seq, ev.hash, ev.hash
            applied.append({"seq": ev.seq, "kind": ev.kind, "at": ev.at, "payload": payload,
                            "round": live.round_no})
        return applied

    @staticmethod
    def _restore(s: Session, live: LiveTable) -> str:
        """Put the table's last snapshot (if any) into ``live``, once its head is checked
        against the log: the event it names must be in the log, intact, with that hash.
        The chain's hash from there on (:data:`GENESIS` without a snapshot)."""
        snap = s.scalars(select(TableSnapshot).where(TableSnapshot.table_id == live.id)
                         .order_by(TableSnapshot.seq.desc()).limit(1)).first()
        if snap is None:
            return GENESIS
        ev = s.get(Event, (live.id, snap.seq + 1))
        if ev is None or ev.kind != "snapshot" or ev.prev_hash != snap.head or \
                ev.hash != chain_hash(ev.prev_hash, live.id, ev.seq, ev.kind, ev.at, ev.payload):
            raise SidebetError(f"table {live.id}: the snapshot at event {snap.seq} does not "
                               "match the log's hash chain")
        live.restore(json.loads(snap.state))
        if json.loads(ev.payload).get("digest") != live.snapshot_digest():
            raise SidebetError(f"table {live.id}: the snapshot at event {snap.seq} is not "
                               "the state its snapshot event records")
        if live.seq != snap.seq or live.head != snap.head:
            raise SidebetError(f"table {live.id}: the snapshot at event {snap.seq} is not "
                               "the state it names")
        live.snapshot_seq = snap.seq
        return snap.head

    def snapshot_if_due(self, s: Session, tx: Tx) -> None:
        """Store the table's state between rounds once ``snapshot_every`` events have
        passed since the last snapshot (in the transaction that opens the next round),
        and a ``snapshot`` event with its digest, which puts it in the hash chain."""
        live = tx.table
        assert live is not None
        if live.seq - live.snapshot_seq < self.settings.snapshot_every:
            return
        s.add(TableSnapshot(table_id=live.id, seq=live.seq, head=live.head, at=utc_now(),
                            state=canonical(live.snapshot())))
        live.snapshot_seq = live.seq
        self.append(s, tx, "snapshot", {"seq": live.seq, "digest": live.snapshot_digest()})

    def purge_answers(self) -> int:
        """Delete the answers to keyed requests older than ``idempotency_ttl`` seconds
        (a retry after that is a new request); how many were deleted."""
        cutoff = (datetime.now(UTC) - timedelta(seconds=self.settings.idempotency_ttl)
                  ).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        with self.writing(), self.sessions.begin() as s:
            gone = s.execute(delete(IdempotentRequest).where(IdempotentRequest.at < cutoff))
            count = int(getattr(gone, "rowcount", 0) or 0)
        with self._answers_lock:
            for key in [k for k, v in self._answers.items() if v[3] < cutoff]:
                del self._answers[key]
        return count

    def reload(self, table_id: int) -> None:
        """Replace a table's memory by its state rebuilt from the database."""
        self.tables[table_id] = self.load(table_id)

    def rebuild(self, table_id: int) -> None:
        """:meth:`reload` after a failed transaction; should the database be unreadable
        now (a lost connection), the table is marked :attr:`stale` instead and reloaded
        before its next request."""
        try:
            self.reload(table_id)
        except Exception:
            self.stale.add(table_id)

    def add_table(self, live: LiveTable) -> None:
        """Serve a table (newly created, or rebuilt at start) with its own lock."""
        with self._tables_lock:
            self._locks[live.id] = threading.RLock()
            live.publish()
            self.tables[live.id] = live
        self.on_added(live.id)

    def lock(self, table_id: int) -> threading.RLock:
        """The lock that serialises the table's requests (404: no such table)."""
        if table_id not in self.tables:
            self.adopt(table_id)
        with self._tables_lock:
            if table_id not in self.tables:
                raise ApiError(404, f"no table {table_id}")
            return self._locks[table_id]

    def live(self, table_id: int) -> LiveTable:
        """The table in memory (404: no such table)."""
        live = self.tables.get(table_id)
        if live is None:
            self.adopt(table_id)
            live = self.tables.get(table_id)
        if live is None:
            raise ApiError(404, f"no table {table_id}")
        return live

    # ----- ownership: several processes on one PostgreSQL (sidebet.serve.cluster) -------

    def owns(self, table_id: int) -> bool:
        """Whether this process writes the table's log."""
        return self.epochs is None or table_id in self.epochs

    def check_owner(self, table_id: int | None) -> None:
        """Refuse to write a table this process does not own (:class:`NotOwner`: the
        request is forwarded to the owner)."""
        if table_id is not None and not self.owns(table_id):
            raise NotOwner(table_id)

    def epoch_of(self, table_id: int) -> int | None:
        """The fencing number this process writes into the table's events (``None``: one
        process, no fence; 0: a new table's first events, before anyone owns it)."""
        return None if self.epochs is None else self.epochs.get(table_id, 0)

    def fenced(self, exc: BaseException, tx: Tx) -> None:
        """Raise :class:`NotOwner` if the database refused the transaction's events as
        written under a stale fencing number (another process has taken the table over)."""
        if isinstance(exc, DBAPIError) and "sidebet-fence" in str(exc.orig) and \
                tx.table is not None and self.epochs is not None:
            self.epochs.pop(tx.table.id, None)
            raise NotOwner(tx.table.id) from exc

    def adopt(self, table_id: int) -> None:
        """Follow a table another process has created (when its log says it exists)."""
        if self.epochs is None or not 0 < table_id < 2**31:  # ids are 32-bit integers
            return
        with self.sessions() as s:
            if s.get(GameTable, table_id) is None:
                return
        live = self.load(table_id)
        with self._tables_lock:
            if table_id in self.tables:
                return
        self.add_table(live)

    def catch_up(self, table_id: int) -> None:
        """Apply to a table this process does not own the events its owner has committed
        since, publish its view and broadcast them (rebuilt from the log on any doubt)."""
        lock = self.lock(table_id)
        with lock:
            live = self.tables[table_id]
            try:
                with self.sessions() as s:
                    new = self._follow(s, live, live.head or GENESIS)
                live.sealed_now.clear()
            except Exception:
                self.reload(table_id)
                live = self.tables[table_id]
                new = []
            live.publish()
            for ev in new:
                self.broadcast(table_id, public_event(ev, live.hide_hole, live.round_no))

    def take(self, table_id: int, epoch: int) -> None:
        """Own a table under fencing number ``epoch``, its memory caught up with its log."""
        assert self.epochs is not None
        with self.lock(table_id):
            self.catch_up(table_id)
            self.epochs[table_id] = epoch

    def give_up(self, table_id: int) -> None:
        """Stop writing a table (another process may take it over)."""
        assert self.epochs is not None
        with self.lock(table_id):
            self.epochs.pop(table_id, None)

    # ----- transactions -----------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the process's write lock (SQLite; nothing on PostgreSQL)."""
        if self._write is None:
            yield
        else:
            with self._write:
                if self.batch is not None:  # the table requests' batch first
                    self.batch.flush()
                yield

    def run(self, caller: Caller | None, key: str | None, fingerprint: str,
            table_id: int | None, work: Work) -> tuple[int, Any]:
        """Do ``work`` in one transaction under the table's lock; with an
        ``Idempotency-Key`` store its answer (a refusal too) and answer a retry with it.

        An answer's ``state`` (the table's view) is stored as a reference: a retry gets
        the first answer with the table's state as it is at the retry.  A database that
        cannot serve it now (a connection lost: :func:`~sidebet.serve.db.lost`) is a 503;
        the request was not acknowledged, and a retry under its key gets its answer if it
        was committed after all."""
        try:
            return self._run(caller, key, fingerprint, table_id, work)
        except DBAPIError as exc:
            raise unavailable(exc) from None

    def _run(self, caller: Caller | None, key: str | None, fingerprint: str,
             table_id: int | None, work: Work) -> tuple[int, Any]:
        fingerprint = hashlib.sha256(fingerprint.encode()).hexdigest()
        keyed = key is not None and caller is not None
        if key is not None and caller is not None:
            longest = self.settings.idempotency_key_max
            if not 1 <= len(key) <= longest:
                raise ApiError(422, f"Idempotency-Key must be 1 to {longest} characters")
            first = self._answers.get((caller.id, key))
            if first is not None:
                return self._replay(first, fingerprint, key, table_id)
        if self.batch is not None and table_id is not None:
            return self._run_batched(caller, key, fingerprint, table_id, work)
        lock = self.lock(table_id) if table_id is not None else contextlib.nullcontext()
        with lock:
            self.check_owner(table_id)
            if table_id in self.stale:  # its memory ran ahead of a failed transaction
                self.reload(table_id)
                self.stale.discard(table_id)
            if key is not None and caller is not None:
                first = self._answers.get((caller.id, key))
                if first is not None:
                    return self._replay(first, fingerprint, key, table_id)
            tx = Tx(self.tables.get(table_id) if table_id is not None else None)
            try:
                with self.writing(), self.sessions.begin() as s:
                    # a table's keyed requests: answers in memory (above) and the primary
                    # key at the commit; others are looked up first
                    if key is not None and caller is not None and table_id is None and s.get(
                            IdempotentRequest, (caller.id, key)) is not None:
                        raise _Replay
                    status, body = work(s, tx)
                    state = body.pop("state", None) if (
                        table_id is not None and isinstance(body, dict)) else None
                    text = canonical(body if state is None else {**body, STATE_REF: True})
                    s.flush()
                    write_rows(s.connection(), _TABLES[0], tx.rows, _TABLES[1], None if (
                        key is None or caller is None) else {
                        "account_id": caller.id, "key": key, "fingerprint": fingerprint,
                        "status": status, "response": text, "at": utc_now()}, tx.later)
            except ApiError as err:
                if tx.table is not None and tx.events and tx.table.id in self.tables:
                    self.reload(tx.table.id)
                if key is not None and caller is not None:
                    first = self._stored(caller.id, key)  # answered before this process
                    if first is not None:
                        return self._replay(first, fingerprint, key, table_id)
                    self._store_refusal(caller.id, key, fingerprint, err)
                raise
            except (_Replay, IntegrityError) as exc:
                # the same key committed meanwhile (PostgreSQL: by a concurrent request)
                if tx.table is not None and tx.events and tx.table.id in self.tables:
                    self.reload(tx.table.id)
                first = None if key is None or caller is None else self._stored(caller.id, key)
                if first is None:
                    if isinstance(exc, IntegrityError):
                        raise ApiError(409, "a concurrent request conflicted; try again"
                                       ) from None
                    raise AssertionError("replayed key without a first answer") from None
                return self._replay(first, fingerprint, str(key), table_id)
            except BaseException as exc:
                if tx.table is not None and tx.table.id in self.tables:
                    self.rebuild(tx.table.id)
                self.fenced(exc, tx)
                raise
            if keyed:
                assert caller is not None and key is not None
                self._answered(caller.id, key, (fingerprint, status, text, utc_now()))
            live = tx.table
            if live is not None:
                live.publish()
            for ev in tx.events:
                assert live is not None
                self.broadcast(live.id, public_event(ev, live.hide_hole, live.round_no))
        body = json.loads(text)  # the first answer reads as every retry's
        if state is not None:
            del body[STATE_REF]
            body["state"] = state
        return status, body

    def remember_seed(self, table_id: int, shoe: int, seed: bytes) -> None:
        """A server seed just drawn: shuffles read it from here until a restart."""
        self._fresh_seeds[table_id, shoe] = seed

    def _finish(self, ticket: Ticket) -> None:
        """A committed request of the batch: its view published, its events broadcast."""
        live, shown = ticket.table, ticket.published
        if live is None or shown is None:
            return
        live.published = shown
        for ev in ticket.events:
            self.broadcast(live.id, public_event(ev, shown.hide_hole, shown.round_no))

    def _run_batched(self, caller: Caller | None, key: str | None, fingerprint: str,
                     table_id: int, work: Work) -> tuple[int, Any]:
        """:meth:`run` for a table's request on SQLite (the key checked, no answer in
        memory): its work in a savepoint of the batch under the table's lock, its answer
        once the batch is committed."""
        batch = self.batch
        assert batch is not None and self._write is not None
        keyed = key is not None and caller is not None
        refusal: ApiError | None = None
        with self.lock(table_id), self._write:
            if key is not None and caller is not None:
                first = self._answers.get((caller.id, key))
                if first is not None:
                    return self._replay(first, fingerprint, key, table_id)
            if table_id in batch.poisoned:  # its memory ran ahead of a failed commit
                batch.poisoned.discard(table_id)
                self.reload(table_id)
            tx = Tx(self.tables[table_id])
            s = batch.session()
            point = s.begin_nested()
            try:
                status, body = work(s, tx)
                state = body.pop("state", None) if isinstance(body, dict) else None
                text = canonical(body if state is None else {**body, STATE_REF: True})
                s.flush()
                conn = s.connection()
                if tx.rows:
                    conn.execute(_EVENTS, tx.rows)
                if key is not None and caller is not None:
                    conn.execute(_ANSWERS, {
                        "account_id": caller.id, "key": key, "fingerprint": fingerprint,
                        "status": status, "response": text, "at": utc_now()})
                point.commit()
            except (ApiError, IntegrityError) as exc:
                point.rollback()
                if tx.events:  # memory changed: rebuilt from the log, this batch committed
                    batch.flush()
                    self.reload(table_id)
                elif keyed:  # a first answer may wait in the batch
                    batch.flush()
                first = None if key is None or caller is None else self._stored(caller.id, key)
                if first is not None:  # answered before (before this process, or meanwhile)
                    return self._replay(first, fingerprint, str(key), table_id)
                if isinstance(exc, IntegrityError):
                    raise ApiError(409, "a concurrent request conflicted; try again") from None
                if key is None or caller is None or exc.status in (401, 404, 503):
                    raise
                refusal, text, status, state = exc, canonical(exc.body()), exc.status, None
                with s.begin_nested():
                    s.connection().execute(_ANSWERS, {
                        "account_id": caller.id, "key": key, "fingerprint": fingerprint,
                        "status": status, "response": text, "at": utc_now()})
                ticket = batch.add(Ticket(None, None, []))
            except BaseException:
                point.rollback()
                if tx.events:
                    batch.flush()
                    self.reload(table_id)
                raise
            else:
                live = tx.table
                assert live is not None
                ticket = batch.add(Ticket(live, live.current(), tx.events))
        try:
            ticket.wait()  # the answer waits for its commit
        except Exception:
            raise ApiError(503, "the database could not commit the request; try again") \
                from None
        if keyed:
            assert caller is not None and key is not None
            self._answered(caller.id, key, (fingerprint, status, text, utc_now()))
        if refusal is not None:
            raise refusal
        body = json.loads(text)
        if state is not None:
            del body[STATE_REF]
            body["state"] = state
        return status, body

    def _remember(self, account: int, key: str, answer: Stored) -> None:
        """Keep an answer in memory (the newest ``idempotency_cache`` of them)."""
        with self._answers_lock:
            answers = self._answers
            answers[(account, key)] = answer
            while len(answers) > ANSWERS_KEPT:
                answers.popitem(last=False)

    def _answered(self, account: int, key: str, answer: Stored) -> None:
        """Keep a committed request's answer (:meth:`_remember`), and purge the old stored
        answers every ``PURGE_EVERY`` of them."""
        self._remember(account, key, answer)
        self._keyed += 1
        if self._keyed % PURGE_EVERY == 0:
            self.purge_answers()

    def _stored(self, account: int, key: str) -> Stored | None:
        """The stored answer of ``(account, key)``, from the database."""
        with self.sessions() as s:
            row = s.get(IdempotentRequest, (account, key))
            if row is None:
                return None
            return row.fingerprint, row.status, row.response, row.at

    def _replay(self, first: Stored, fingerprint: str, key: str,
                table_id: int | None) -> tuple[int, Any]:
        """The first answer to a request, given again (or 422 for another request under
        the same key); its state is the table's now."""
        stored_print, status, text, _ = first
        if stored_print != fingerprint:
            raise ApiError(422, f"Idempotency-Key {key!r} was used for a different request")
        body = json.loads(text)
        if status >= 400:
            raise ApiError(status, body["detail"], tuple(
                Violation(v["rule"], v["message"]) for v in body["violations"]))
        if body.pop(STATE_REF, False) and table_id is not None:
            body["state"] = self.live(table_id).published.view
        return status, body

    def _store_refusal(self, account: int, key: str, fingerprint: str, err: ApiError) -> None:
        if err.status in (401, 404, 503):
            return
        text = canonical(err.body())
        with contextlib.suppress(IntegrityError), self.writing(), self.sessions.begin() as s:
            s.execute(insert(IdempotentRequest), {
                "account_id": account, "key": key, "fingerprint": fingerprint,
                "status": err.status, "response": text, "at": utc_now()})
        self._remember(account, key, (fingerprint, err.status, text, utc_now()))

    def later(self, s: Session, tx: Tx, statement: Executable,
              params: list[dict[str, Any]]) -> None:
        """Execute ``statement`` with ``params`` in the transaction, a write that nothing
        after it in the transaction reads back: on PostgreSQL sent with the log's rows in
        the transaction's last message (:func:`~sidebet.serve.service.rows.write_rows`),
        on SQLite at once.  Its every value is a ``bindparam`` named in ``params``."""
        if self._write is None:
            tx.later.append((statement, params))
        else:
            s.execute(statement, params)

    def append(self, s: Session, tx: Tx, kind: str, payload: dict[str, Any],
               applied: bool = False) -> None:
        """Add an event to the table's log (applying it to memory unless ``applied``)."""
        live = tx.table
        assert live is not None
        seq, at, text = live.seq + 1, utc_now(), canonical(payload)
        digest = chain_hash(live.head or GENESIS, live.id, seq, kind, at, text)
        tx.rows.append({"table_id": live.id, "seq": seq, "kind": kind, "at": at,
                        "payload": text, "prev_hash": live.head or GENESIS, "hash": digest,
                        "epoch": self.epoch_of(live.id)})
        tx.events.append({"seq": seq, "kind": kind, "at": at, "payload": payload,
                          "round": live.round_no})
        if not applied:
            live.apply(kind, payload, at)
        else:
            live.last_at = at
        live.seq, live.head = seq, digest
