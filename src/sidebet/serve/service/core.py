"""The service's core: the live tables in memory, the transaction runner, idempotency and
the event log's append.

Every request's writes are committed before it is acknowledged (:meth:`Core.run`, the one
runner of every change).  A table's requests are serialised by the table's lock.  An action
is checked and applied by the table engine on the in-memory
:class:`~sidebet.serve.live.LiveTable`, then its event(s), money moves, game rows and
idempotency record are written in one transaction; should that transaction fail, the table
is rebuilt from its log, so memory never runs ahead of the database for long and never of
what is answered.  Events are broadcast to WebSocket subscribers and the table's view
published only after the commit.

On PostgreSQL each request is its own transaction, committed under the table's lock
(tables commit in parallel).  On SQLite (one writer) the table requests share one write
transaction, a savepoint each, committed by one thread for all of them (group commit,
:mod:`~sidebet.serve.service.batch`): the table's lock is released when the work is done,
and the answer waits for the commit; every other write first commits that batch and then
takes the process's write lock for its own transaction.  Either way a refusal's answer is
stored the same way as an acceptance's (in the same kind of transaction), and nothing is
held once a request is answered.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, cast

from sqlalchemy import Engine, Executable, Table, delete, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from sidebet.core.errors import SidebetError
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
from sidebet.serve.service.answers import STATE_REF, Answers, Slot, Stored, repeat, row
from sidebet.serve.service.batch import GroupCommit, Ticket
from sidebet.serve.service.rows import write_rows
from sidebet.serve.settings import Settings
from sidebet.table.view import redact

__all__ = ["GAME_ID", "Cluster", "Core", "Tx", "Work", "amount_of", "follow", "public_event"]

_TABLES = cast(Table, Event.__table__), cast(Table, IdempotentRequest.__table__)
_ANSWERS = insert(_TABLES[1])

_log = logging.getLogger(__name__)

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
    owed: dict[int, int] = field(default_factory=dict)
    """Wallet moves (cents, by account) among :attr:`later`, not yet in the balances the
    transaction reads: a read of a balance adds them."""


Work = Callable[[Session, Tx], tuple[int, Any]]
"""What a request does inside its transaction: its HTTP status and JSON answer."""


class _Answered(Exception):
    """The request's Idempotency-Key has a stored answer already."""


@dataclass(slots=True)
class _Outcome:
    """What a request answers once the transaction it ran in is committed: a stored answer
    to repeat (``first``), a refusal, or its own answer (``status``, ``text``, ``state``);
    ``new`` its answer stored now (kept in memory once committed), ``ticket`` its place in
    SQLite's group commit (waited for once the locks are released)."""

    first: Stored | None = None
    refusal: ApiError | None = None
    status: int = 0
    text: str = ""
    state: Any = None
    new: Stored | None = None
    ticket: Ticket | None = None


class Cluster(Protocol):
    """Several processes on one PostgreSQL (:class:`sidebet.serve.cluster.member.Member`):
    which tables this process writes, and under which fencing number."""

    def owns(self, table_id: int) -> bool:
        """Whether this process writes the table's log."""

    def epoch(self, table_id: int) -> int:
        """The fencing number written into the table's events (0: a new table's first
        events, before anyone owns it)."""

    def fenced(self, exc: BaseException, table_id: int) -> None:
        """Raise :class:`NotOwner` if ``exc`` is the database refusing the table's events
        as written under a stale fencing number."""

    def adopt(self, table_id: int) -> None:
        """Serve a table another process has created (when its log says it exists)."""

    def added(self, table_id: int) -> None:
        """A table is served here now (this process may claim it)."""

    def catch_up(self, table_id: int) -> None:
        """Apply to a table this process does not own the events committed since."""


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


def follow(s: Session, live: LiveTable, prev: str) -> list[dict[str, Any]]:
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
        self.answers = Answers()
        """The newest answers to keyed requests (:mod:`~sidebet.serve.service.answers`)."""
        self.tokens = TokenCache()
        """Bearer tokens found valid (a revocation calls ``tokens.forget`` once committed)."""
        self.limit_rows: Recent[int, tuple[str, str | None, str | None, str | None] | None]
        self.limit_rows = Recent()
        """Players' limits rows read lately (``None``: no row), by account: forgotten by
        :meth:`limits_changed` and, from another process, by ``NOTIFY``."""
        self.broadcast: Callable[[int, dict[str, Any]], None] = lambda _t, _e: None
        self.cluster: Cluster | None = None
        """This process as one of several on one PostgreSQL (:mod:`sidebet.serve.cluster`);
        ``None``: it owns every table."""
        self.stale: set[int] = set()
        """Tables whose memory ran ahead of a failed transaction or commit and which could
        not be rebuilt at once (the database unreachable): rebuilt by their next request."""
        self.batch = None if self._write is None else GroupCommit(
            self.sessions, self._write, self._finish, self.stale)
        """SQLite's group commit of the table requests (``None`` on PostgreSQL)."""
        self._fresh_seeds: dict[tuple[int, int], bytes] = {}
        """Server seeds drawn by this process (read before their commit is certain)."""
        self.faults: list[str] = []
        """What this process found damaged and worked around (a snapshot skipped), for
        the operator (``GET /api/reconcile``)."""

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
        ``snapshots`` is false.  A snapshot the log does not vouch for (or that cannot be
        read) is skipped, the table rebuilt from its whole log, and the fault kept in
        :attr:`faults` and logged."""
        with self.sessions() as s:
            row = s.get(GameTable, table_id)
            assert row is not None
            config = table_config_from_dict(json.loads(row.config), source=f"table {table_id}")
            first = s.scalar(select(Event.payload).where(Event.table_id == table_id,
                                                         Event.seq == 1))
            kind = PhysicalTable if first is not None and is_physical(json.loads(first)) \
                else LiveTable

            def fresh() -> LiveTable:
                made = kind(table_id, row.name, config, seats=row.seats, unit=row.unit,
                            time_limit=row.time_limit, default_action=row.default_action,
                            seed_of=self.seed_lookup(table_id))
                made.betting_seconds = self.settings.betting_seconds
                return made

            live, prev = fresh(), GENESIS
            if snapshots:
                try:
                    prev = self._restore(s, live)
                except (SidebetError, ValueError, KeyError, TypeError) as exc:
                    why = str(exc) if isinstance(exc, SidebetError) else \
                        f"table {table_id}: its last snapshot cannot be read ({exc!r})"
                    fault = f"{why}; the snapshot was skipped, the table rebuilt from its " \
                            "whole log"
                    self.faults.append(fault)
                    _log.warning("%s", fault)
                    live = fresh()
            follow(s, live, prev)
            live.sealed_now.clear()
        live.publish()
        return live

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
        self.answers.drop_before(cutoff)
        return count

    def reload(self, table_id: int) -> None:
        """Replace a table's memory by its state rebuilt from the database (on SQLite held
        with the write lock: the group commit's work is committed first)."""
        if self.batch is not None:
            self.batch.flush()
        self.tables[table_id] = self.load(table_id)

    def rebuild(self, table_id: int) -> None:
        """:meth:`reload` after a failed transaction; should the database be unreadable
        now (a lost connection), the table is marked :attr:`stale` instead and reloaded
        before its next request."""
        if table_id not in self.tables:
            return
        try:
            self.reload(table_id)
        except Exception:
            self.stale.add(table_id)

    def add_table(self, live: LiveTable, new_only: bool = False) -> None:
        """Serve a table (newly created, or rebuilt at start) with its own lock (unless
        ``new_only`` and it is served already)."""
        with self._tables_lock:
            if new_only and live.id in self.tables:
                return
            self._locks[live.id] = threading.RLock()
            live.publish()
            self.tables[live.id] = live
        if self.cluster is not None:
            self.cluster.added(live.id)

    def _known(self, table_id: int) -> None:
        """Serve a table another process of the cluster has created, if it exists."""
        if table_id not in self.tables and self.cluster is not None:
            self.cluster.adopt(table_id)

    def lock(self, table_id: int) -> threading.RLock:
        """The lock that serialises the table's requests (404: no such table)."""
        self._known(table_id)
        with self._tables_lock:
            if table_id not in self.tables:
                raise ApiError(404, f"no table {table_id}")
            return self._locks[table_id]

    def live(self, table_id: int) -> LiveTable:
        """The table in memory (404: no such table)."""
        self._known(table_id)
        live = self.tables.get(table_id)
        if live is None:
            raise ApiError(404, f"no table {table_id}")
        return live

    def owns(self, table_id: int) -> bool:
        """Whether this process writes the table's log."""
        return self.cluster is None or self.cluster.owns(table_id)

    def current(self, table_id: int) -> None:
        """Bring a table another process owns up to its log before a read of it (one
        query), so that a read here is as current as one at the owner; nothing for a
        table this process writes (404: no such table)."""
        self.live(table_id)
        if self.cluster is not None and not self.cluster.owns(table_id):
            self.cluster.catch_up(table_id)

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

    @contextlib.contextmanager
    def _transaction(self, batched: bool) -> Iterator[Session]:
        """A request's transaction: a savepoint in SQLite's group commit (``batched``,
        held with the write lock; committed with the batch), else its own."""
        if batched:
            assert self.batch is not None
            s = self.batch.session()
            with s.begin_nested():
                yield s
        else:
            with self.writing(), self.sessions.begin() as s:
                yield s

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
        slot = None if key is None or caller is None else (caller.id, key)
        if slot is not None:
            longest = self.settings.idempotency_key_max
            if not 1 <= len(slot[1]) <= longest:
                raise ApiError(422, f"Idempotency-Key must be 1 to {longest} characters")
        out = _Outcome(first=None if slot is None else self.answers.get(slot))
        if out.first is None:
            batched = self.batch is not None and table_id is not None
            with contextlib.ExitStack() as held:  # the table's lock (and the write lock)
                if table_id is not None:
                    held.enter_context(self.lock(table_id))
                if batched:
                    held.enter_context(cast(threading.Lock, self._write))
                try:
                    self._attempt(out, slot, fingerprint, table_id, work, batched)
                finally:
                    if batched and out.ticket is None:  # nothing of it waits for a commit
                        cast(GroupCommit, self.batch).idle()
        if out.ticket is not None:
            try:
                out.ticket.wait()  # the answer waits for its commit
            except Exception:
                raise ApiError(503, "the database could not commit the request; try again"
                               ) from None
        if out.new is not None:
            assert slot is not None
            if self.answers.keep(slot, out.new):
                self.purge_answers()
        if out.first is not None:
            return repeat(out.first, fingerprint, str(key), lambda: self.live(
                cast(int, table_id)).published.view)
        if out.refusal is not None:
            raise out.refusal
        body = json.loads(out.text)  # the first answer reads as every retry's
        if out.state is not None:
            del body[STATE_REF]
            body["state"] = out.state
        return out.status, body

    def _attempt(self, out: _Outcome, slot: Slot | None, fingerprint: str,
                 table_id: int | None, work: Work, batched: bool) -> None:
        """:meth:`run`'s part under the locks: ``work`` done and its writes made (or
        refused, its refusal stored), what to answer put in ``out``."""
        if table_id is not None and not self.owns(table_id):
            raise NotOwner(table_id)  # forwarded to the owner
        if table_id in self.stale:  # its memory ran ahead of a failed transaction
            self.reload(table_id)
            self.stale.discard(table_id)
        out.first = None if slot is None else self.answers.get(slot)
        if out.first is not None:
            return
        tx = Tx(self.tables.get(table_id) if table_id is not None else None)
        try:
            with self._transaction(batched) as s:
                # a table's keyed requests: answers in memory (above) and the primary key
                # at the commit; others are looked up first
                if slot is not None and table_id is None and s.get(
                        IdempotentRequest, slot) is not None:
                    raise _Answered
                out.status, body = work(s, tx)
                out.state = body.pop("state", None) if (
                    table_id is not None and isinstance(body, dict)) else None
                out.text = canonical(body if out.state is None else {**body, STATE_REF: True})
                s.flush()
                if slot is not None:
                    out.new = (fingerprint, out.status, out.text, utc_now())
                write_rows(s.connection(), _TABLES[0], tx.rows, _TABLES[1],
                           None if out.new is None else row(cast(Slot, slot), out.new),
                           tx.later)
        except (ApiError, IntegrityError, _Answered) as exc:
            out.new = None
            if tx.table is not None and tx.events:  # memory ran ahead: rebuilt from the log
                self.rebuild(tx.table.id)
            if slot is None:
                if isinstance(exc, IntegrityError):
                    raise ApiError(409, "a concurrent request conflicted; try again") from None
                raise
            self._refused(out, slot, fingerprint, exc, batched)
            return
        except BaseException as exc:
            if tx.table is not None:
                self.rebuild(tx.table.id)
                if self.cluster is not None:
                    self.cluster.fenced(exc, tx.table.id)
            raise
        live = tx.table
        if batched:  # published and broadcast by the group commit, once committed
            assert live is not None and self.batch is not None
            out.ticket = self.batch.add(Ticket(live, live.current(), tx.events))
            return
        if live is not None:
            live.publish()
        for ev in tx.events:
            assert live is not None
            self.broadcast(live.id, public_event(ev, live.hide_hole, live.round_no))

    def _refused(self, out: _Outcome, slot: Slot, fingerprint: str, exc: Exception,
                 batched: bool) -> None:
        """A keyed request refused (or its key found answered): the key's stored answer
        repeated if it has one, else the refusal stored as its answer (but 401, 404 and
        503, which a retry may not get) and given."""
        with self._transaction(batched) as s:
            if isinstance(exc, ApiError) and exc.status not in (401, 404, 503):
                refusal = (fingerprint, exc.status, canonical(exc.body()), utc_now())
                try:
                    with s.begin_nested():
                        s.execute(_ANSWERS, row(slot, refusal))
                    out.refusal, out.new = exc, refusal
                except IntegrityError:  # answered before
                    pass
            if out.refusal is None:
                found = s.get(IdempotentRequest, slot)
                out.first = None if found is None else (
                    found.fingerprint, found.status, found.response, found.at)
        if batched:  # answered once the batch holding it (or the first answer) is committed
            assert self.batch is not None
            out.ticket = self.batch.add(Ticket(None, None, []))
        if out.refusal is None and out.first is None:
            if isinstance(exc, ApiError):
                raise exc
            raise ApiError(409, "a concurrent request conflicted; try again") from None

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

    def later(self, s: Session, tx: Tx, statement: Executable,
              params: list[dict[str, Any]]) -> bool:
        """Execute ``statement`` with ``params`` in the transaction, a write that nothing
        after it in the transaction reads back: on PostgreSQL sent with the log's rows in
        the transaction's last message (:func:`~sidebet.serve.service.rows.write_rows`),
        on SQLite at once.  Its every value is a ``bindparam`` named in ``params``.
        Whether it was put off."""
        if self._write is None:
            tx.later.append((statement, params))
            return True
        s.execute(statement, params)
        return False

    def append(self, s: Session, tx: Tx, kind: str, payload: dict[str, Any],
               applied: bool = False) -> None:
        """Add an event to the table's log (applying it to memory unless ``applied``)."""
        live = tx.table
        assert live is not None
        seq, at, text = live.seq + 1, utc_now(), canonical(payload)
        digest = chain_hash(live.head or GENESIS, live.id, seq, kind, at, text)
        tx.rows.append({"table_id": live.id, "seq": seq, "kind": kind, "at": at,
                        "payload": text, "prev_hash": live.head or GENESIS, "hash": digest,
                        "epoch": None if self.cluster is None
                        else self.cluster.epoch(live.id)})
        tx.events.append({"seq": seq, "kind": kind, "at": at, "payload": payload,
                          "round": live.round_no})
        if not applied:
            live.apply(kind, payload, at)
        else:
            live.last_at = at
        live.seq, live.head = seq, digest
