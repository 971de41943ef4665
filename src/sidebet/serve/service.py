"""The server's operations: each request is one database transaction, committed before it
is acknowledged.

A table's requests are serialised by the table's lock; on SQLite every write transaction
also takes the process-wide write lock (SQLite has one writer).  An action is checked and
applied by the table engine on the in-memory :class:`~sidebet.serve.live.LiveTable`, then its
event(s), money moves, game rows and idempotency record are written in one transaction;
should that transaction fail, the table is rebuilt from its log, so memory never runs ahead
of the database.  Events are broadcast to WebSocket subscribers only after the commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

import sidebet
from sidebet.core.errors import RuleError, SidebetError, Violation
from sidebet.core.money import Cents, format_money, parse_money
from sidebet.regulation.submission import TableConfig, table_config_from_dict
from sidebet.regulation.wagers import get_wager
from sidebet.serve import fair
from sidebet.serve.chain import EXPORT_FORMAT, GENESIS, canonical, chain_hash, utc_now
from sidebet.serve.db import migrate, write_lock
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.live import LiveTable, house_delta, redact
from sidebet.serve.models import (
    Account,
    Event,
    Game,
    GamePlayer,
    GameTable,
    IdempotentRequest,
    Seat,
    ShoeSeed,
    WalletTx,
)
from sidebet.serve.security import (
    Caller,
    authenticate,
    check_password,
    hash_password,
    issue_token,
    new_password,
    sign_in,
)
from sidebet.serve.settings import Settings
from sidebet.table import Phase, Record, Step
from sidebet.table.history import config_to_dict, round_to_json
from sidebet.table.ledger import Move

__all__ = ["Service"]

GAME_ID = "sidebet-blackjack-side-wagers"
"""The game identifier stamped in every game record (§ 810a.11)."""
DEFAULT_ACTIONS = ("stand", "surrender")


def amount_of(text: str, largest: Cents, what: str = "amount") -> Cents:
    """Parse a money amount given as text (``"12.50"``) into cents, or refuse with 422
    (also when it is above ``largest``)."""
    try:
        cents = parse_money(text)
    except SidebetError as exc:
        raise ApiError(422, f"{what}: {exc}") from None
    if abs(cents) > largest:
        raise ApiError(422, f"{what}: {text!r} is larger than the server accepts")
    return cents


class _Replay(Exception):
    """The request's Idempotency-Key has an answer already."""


@dataclass
class _Tx:
    """What one transaction will broadcast once committed."""

    table: LiveTable | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    action_seq: int = 0


class Service:
    """Everything the routes call, under ``settings`` (its limits; its test-only seed and
    stacked shoes).  ``broadcast`` receives ``(table id, event)`` after each commit (the
    app forwards it to WebSocket subscribers)."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.test_seed = settings.test_seed
        self.test_stack = settings.test_stack
        """TESTS ONLY: operators may stack the next shoe (:meth:`stack_shoe`)."""
        migrate(engine)
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self._write = write_lock(engine)
        self.tables: dict[int, LiveTable] = {}
        self.locks: dict[int, threading.RLock] = {}
        self._tables_lock = threading.Lock()
        self.broadcast: Callable[[int, dict[str, Any]], None] = lambda _t, _e: None
        password = settings.operator_password
        self.operator_note = self._bootstrap(
            None if password is None else password.get_secret_value())
        for table_id in self._table_ids():
            self.tables[table_id] = self._load(table_id)
            self.locks[table_id] = threading.RLock()

    # ----- set-up and recovery ----------------------------------------------------------

    def _bootstrap(self, operator_password: str | None) -> str | None:
        """Create the house account and, on first start, the operator ``operator``."""
        with self._writing(), self.sessions.begin() as s:
            if s.scalar(select(Account).where(Account.role == "house")) is None:
                s.add(Account(name="house", password_hash="!", role="house", balance=0,
                              created_at=utc_now()))
            op = s.scalar(select(Account).where(Account.name == "operator"))
            if op is None:
                generated = operator_password is None
                password = operator_password or new_password()
                s.add(Account(name="operator", password_hash=hash_password(password),
                              role="operator", balance=0, created_at=utc_now()))
                if generated:
                    return f"operator account 'operator' created with password {password}"
                return None
            if operator_password is not None and not check_password(operator_password,
                                                                     op.password_hash):
                op.password_hash = hash_password(operator_password)
        return None

    def _table_ids(self) -> list[int]:
        with self.sessions() as s:
            return list(s.scalars(select(GameTable.id).order_by(GameTable.id)))

    def _seed_lookup(self, table_id: int) -> Callable[[int], bytes]:
        def seed_of(shoe: int) -> bytes:
            with self.sessions() as s:
                row = s.get(ShoeSeed, (table_id, shoe))
                if row is None:
                    raise SidebetError(f"table {table_id}: shoe {shoe} has no seed")
                return bytes.fromhex(row.server_seed)
        return seed_of

    def _load(self, table_id: int) -> LiveTable:
        """Rebuild a table from its log (checking the hash chain and that the engine
        reproduces every stored record)."""
        with self.sessions() as s:
            row = s.get(GameTable, table_id)
            assert row is not None
            config = table_config_from_dict(json.loads(row.config), source=f"table {table_id}")
            live = LiveTable(table_id, row.name, config, seats=row.seats, unit=row.unit,
                             time_limit=row.time_limit, default_action=row.default_action,
                             seed_of=self._seed_lookup(table_id))
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
        self.tables[table_id] = self._load(table_id)

    # ----- transactions -----------------------------------------------------------------

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        if self._write is None:
            yield
        else:
            with self._write:
                yield

    def _lock(self, table_id: int) -> threading.RLock:
        with self._tables_lock:
            if table_id not in self.tables:
                raise ApiError(404, f"no table {table_id}")
            return self.locks[table_id]

    def run(
        self,
        caller: Caller | None,
        key: str | None,
        fingerprint: str,
        table_id: int | None,
        work: Callable[[Session, _Tx], tuple[int, Any]],
    ) -> tuple[int, Any]:
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
        lock = self._lock(table_id) if table_id is not None else contextlib.nullcontext()
        with lock:
            if key is not None and caller is not None:
                first = self._first_answer(caller.id, key, fingerprint)
                if first is not None:
                    return first
            tx = _Tx(self.tables.get(table_id) if table_id is not None else None)
            try:
                with self._writing(), self.sessions.begin() as s:
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
        with contextlib.suppress(IntegrityError), self._writing(), self.sessions.begin() as s:
            s.add(IdempotentRequest(account_id=account, key=key, fingerprint=fingerprint,
                                    status=err.status, response=canonical(err.body()),
                                    at=utc_now()))

    def _append(self, s: Session, tx: _Tx, kind: str, payload: dict[str, Any],
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

    # ----- accounts ---------------------------------------------------------------------

    def create_account(self, name: str, password: str) -> dict[str, Any]:
        """A new player account (balance 0)."""
        lim = self.settings
        if not 1 <= len(name) <= lim.name_max or not name.isprintable() \
                or name.strip() != name:
            raise ApiError(422, f"a name is 1 to {lim.name_max} printable characters without "
                                "surrounding spaces")
        if not lim.password_min <= len(password) <= lim.password_max:
            raise ApiError(422, f"a password is {lim.password_min} to {lim.password_max} "
                                "characters")
        try:
            with self._writing(), self.sessions.begin() as s:
                acct = Account(name=name, password_hash=hash_password(password), role="player",
                               balance=0, created_at=utc_now())
                s.add(acct)
                s.flush()
                return {"id": acct.id, "name": acct.name, "role": acct.role}
        except IntegrityError:
            raise ApiError(409, f"the name {name!r} is taken") from None

    def login(self, name: str, password: str) -> dict[str, Any]:
        """A new bearer token for the account."""
        with self.sessions() as s:
            acct = sign_in(s, name, password)
        with self._writing(), self.sessions.begin() as s:
            token = issue_token(s, acct.id)
        return {"token": token, "token_type": "bearer", "account": acct.id, "role": acct.role}

    def authenticate(self, token: str) -> Caller:
        """The account of a bearer token (401 otherwise)."""
        with self.sessions() as s:
            return authenticate(s, token)

    def me(self, caller: Caller) -> dict[str, Any]:
        """The caller's account, balance and seat."""
        with self.sessions() as s:
            acct = s.get(Account, caller.id)
            seat = s.scalar(select(Seat).where(Seat.account_id == caller.id))
            assert acct is not None
            return {"id": acct.id, "name": acct.name, "role": acct.role,
                    "balance": format_money(acct.balance),
                    "seat": None if seat is None else {"table": seat.table_id,
                                                       "seat": seat.seat}}

    # ----- the wallet -------------------------------------------------------------------

    def wallet(self, caller: Caller) -> dict[str, Any]:
        """Balance and transactions."""
        with self.sessions() as s:
            acct = s.get(Account, caller.id)
            assert acct is not None
            txs = s.scalars(select(WalletTx).where(WalletTx.account_id == caller.id)
                            .order_by(WalletTx.id))
            return {"balance": format_money(acct.balance),
                    "transactions": [self._tx_json(t) for t in txs]}

    @staticmethod
    def _tx_json(t: WalletTx) -> dict[str, Any]:
        return {"id": t.id, "kind": t.kind, "amount": format_money(t.amount),
                "balance_after": format_money(t.balance_after), "at": t.at,
                "idempotency_key": t.idempotency_key}

    def wallet_move(self, caller: Caller, kind: str, amount_text: str, key: str | None
                    ) -> tuple[int, Any]:
        """A deposit or withdrawal (idempotent by its ``Idempotency-Key``, required)."""
        if key is None:
            raise ApiError(422, "a deposit or withdrawal needs an Idempotency-Key header")
        amount = amount_of(amount_text, self.settings.amount_max)
        if amount <= 0:
            raise ApiError(422, f"the amount must be positive, not {format_money(amount)}")
        if caller.role != "player":
            raise ApiError(403, "only players have a wallet")
        with self.sessions() as s:
            seat = s.scalar(select(Seat).where(Seat.account_id == caller.id))
        table_id = None if seat is None else seat.table_id
        fingerprint = canonical(["wallet", kind, amount])

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            row = s.scalar(select(Seat).where(Seat.account_id == caller.id))
            if (row is None) != (table_id is None) or (row and row.table_id != table_id):
                raise ApiError(409, "the account changed seats meanwhile; try again")
            live = tx.table
            if kind == "withdrawal":
                done = s.execute(update(Account).where(Account.id == caller.id,
                                                       Account.balance >= amount)
                                 .values(balance=Account.balance - amount))
                if done.rowcount != 1:  # type: ignore[attr-defined]
                    raise ApiError(409, f"the wallet holds less than {format_money(amount)}")
                # checked after the row lock: a concurrent sit waits for it or is seen here
                if live is not None or s.scalar(select(Seat).where(
                        Seat.account_id == caller.id)) is not None:
                    raise ApiError(409, "leave the table before withdrawing",
                                   (Violation(HOUSE, "leave the table before withdrawing"),))
            else:
                seat_no = None if row is None else row.seat
                if live is not None and seat_no is not None and live.round_open:
                    if not live.in_betting:
                        raise ApiError(409, "a seated player deposits between rounds or "
                                            "while bets are open",
                                       (Violation(HOUSE, "deposit between rounds or while "
                                                         "bets are open"),))
                    chips = live.round_chips.get(seat_no, 0) + amount
                    self._append(s, tx, "round-chips", {"chips": {str(seat_no): chips},
                                                        "accounts": {str(seat_no): caller.id}})
                s.execute(update(Account).where(Account.id == caller.id)
                          .values(balance=Account.balance + amount))
            balance = s.scalar(select(Account.balance).where(Account.id == caller.id))
            assert balance is not None
            t = WalletTx(account_id=caller.id, kind=kind, amount=amount, balance_after=balance,
                         idempotency_key=key, at=utc_now())
            s.add(t)
            s.flush()
            return 201, self._tx_json(t)

        return self.run(caller, key, fingerprint, table_id, work)

    # ----- tables -----------------------------------------------------------------------

    def create_table(self, caller: Caller, submission: str, *, seats: int, unit: str,
                     time_limit: int, default_action: str, key: str | None
                     ) -> tuple[int, Any]:
        """A new table from a Rules Submission (TOML text); a non-compliant one is refused
        with every violation."""
        if not caller.operator:
            raise ApiError(403, "only an operator creates tables")
        config = parse_submission(submission, self.settings.table_name_max)
        if not 1 <= seats <= 7:
            raise ApiError(422, f"a Blackjack table has 1 to 7 seats, not {seats}")
        unit_cents = amount_of(unit, self.settings.amount_max, "unit")
        if unit_cents <= 0:
            raise ApiError(422, "the table unit must be positive")
        if not 0 <= time_limit <= self.settings.time_limit_max:
            raise ApiError(422, f"time_limit is 0 (none) to {self.settings.time_limit_max} "
                                "seconds")
        if default_action not in DEFAULT_ACTIONS:
            raise ApiError(422, f"default_action is one of {', '.join(DEFAULT_ACTIONS)}")
        fingerprint = canonical(["table", submission, seats, unit_cents, time_limit,
                                 default_action])

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            name = config.name or "table"
            row = GameTable(name=name, config=canonical(config_to_dict(config)), seats=seats,
                            unit=unit_cents, time_limit=time_limit,
                            default_action=default_action, created_at=utc_now())
            s.add(row)
            s.flush()
            live = LiveTable(row.id, name, config, seats=seats, unit=unit_cents,
                             time_limit=time_limit, default_action=default_action,
                             seed_of=self._seed_lookup(row.id))
            tx.table = live
            self._append(s, tx, "table", {"name": name, "config": config_to_dict(config),
                                          "seats": seats, "unit": unit_cents,
                                          "time_limit": time_limit,
                                          "default_action": default_action,
                                          "game": GAME_ID, "version": sidebet.__version__,
                                          "algorithm": fair.ALGORITHM})
            self._commit_shoe(s, tx, 0)
            created.append(live)
            return 201, self._table_info(live)

        created: list[LiveTable] = []
        answer = self.run(caller, key, fingerprint, None, work)
        for live in created:
            with self._tables_lock:
                self.locks[live.id] = threading.RLock()
                self.tables[live.id] = live
        return answer

    def ensure_table(self, submission: str, *, seats: int = 7, time_limit: int = 0) -> int:
        """The table of this submission's name, created (by the operator) if missing."""
        config = parse_submission(submission, self.settings.table_name_max)
        for tid, live in self.tables.items():
            if live.name == (config.name or "table"):
                return tid
        with self.sessions() as s:
            op = s.scalar(select(Account).where(Account.name == "operator"))
            assert op is not None
        _, body = self.create_table(Caller(op.id, op.name, op.role), submission, seats=seats,
                                    unit="1.00", time_limit=time_limit,
                                    default_action="stand", key=None)
        return int(body["id"])

    def _commit_shoe(self, s: Session, tx: _Tx, number: int) -> None:
        live = tx.table
        assert live is not None
        seed = fair.new_server_seed() if self.test_seed is None else fair.test_server_seed(
            self.test_seed, live.id, number)
        digest = fair.commitment(seed)
        s.add(ShoeSeed(table_id=live.id, shoe=number, server_seed=seed.hex(), commitment=digest))
        decks = live.config.decks
        cut = 52 * decks * live.config.rules.penetration.numerator \
            // live.config.rules.penetration.denominator
        self._append(s, tx, "shoe-commit", {"shoe": number, "commitment": digest, "decks": decks,
                                            "cut": cut, "algorithm": fair.ALGORITHM})

    def table_info(self, table_id: int) -> dict[str, Any]:
        """The table's rules, paytables and limits as shown to players, and its state."""
        with self._lock(table_id):
            return self._table_info(self._live(table_id))

    def _table_info(self, live: LiveTable) -> dict[str, Any]:
        config = live.config
        wagers = []
        for wid, pt in config.side_wagers.items():
            wager = get_wager(wid)
            table = wager.paytable(pt)
            wagers.append({"id": wid, "name": wager.name, "section": wager.section,
                           "paytable": table.name,
                           "lines": [{"outcome": ln.outcome, "label": wager.label(ln.outcome),
                                      "pays": ln.pays, "citation": ln.citation}
                                     for ln in table.lines]})
        return {"id": live.id, "name": live.name, "seats": live.seats,
                "unit": format_money(live.unit), "time_limit": live.time_limit,
                "default_action": live.default_action, "submission": config_to_dict(config),
                "side_wagers": wagers, "algorithm": fair.ALGORITHM,
                "state": live.view()}

    def _live(self, table_id: int) -> LiveTable:
        live = self.tables.get(table_id)
        if live is None:
            raise ApiError(404, f"no table {table_id}")
        return live

    def list_tables(self) -> list[dict[str, Any]]:
        """Every table, briefly."""
        out = []
        for tid in sorted(self.tables):
            live = self.tables[tid]
            out.append({"id": tid, "name": live.name, "seats": live.seats,
                        "occupied": sorted(live.seat_accounts), "decks": live.config.decks,
                        "side_wagers": dict(live.config.side_wagers),
                        "limits": config_to_dict(live.config).get("limits", {})})
        return out

    def state(self, table_id: int) -> dict[str, Any]:
        """The table's live state (hole card hidden)."""
        lock = self._lock(table_id)
        with lock:
            return self._live(table_id).view()

    # ----- seats ------------------------------------------------------------------------

    def _own_seat(self, caller: Caller, live: LiveTable, seat: int) -> None:
        if not 1 <= seat <= live.seats:
            raise ApiError(404, f"table {live.id} has seats 1 to {live.seats}, not {seat}")
        if live.seat_accounts.get(seat) != caller.id:
            raise ApiError(403, f"seat {seat} is not yours",
                           (Violation(HOUSE, f"a player acts only on their own seat; seat "
                                             f"{seat} is not yours"),))

    def sit(self, caller: Caller, table_id: int, seat: int, key: str | None) -> tuple[int, Any]:
        """Take a free seat (one seat at one table per account)."""
        if caller.role != "player":
            raise ApiError(403, "only players sit at a table")

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            if not 1 <= seat <= live.seats:
                raise ApiError(404, f"table {live.id} has seats 1 to {live.seats}, not {seat}")
            # lock the account row first: a concurrent withdrawal then sees this seat
            s.execute(select(Account.balance).where(Account.id == caller.id).with_for_update())
            if seat in live.seat_accounts:
                raise ApiError(409, f"seat {seat} is taken",
                               (Violation(HOUSE, f"seat {seat} is taken"),))
            if s.scalar(select(Seat).where(Seat.account_id == caller.id)) is not None:
                raise ApiError(409, "you are already seated (one seat at a time)",
                               (Violation(HOUSE, "one seat at one table at a time"),))
            s.add(Seat(table_id=live.id, seat=seat, account_id=caller.id))
            self._append(s, tx, "sit", {"seat": seat, "account": caller.id, "name": caller.name})
            if live.round_open and live.in_betting:
                balance = s.scalar(select(Account.balance).where(Account.id == caller.id))
                self._append(s, tx, "round-chips", {"chips": {str(seat): balance},
                                                    "accounts": {str(seat): caller.id}})
            s.flush()
            return 201, {"table": live.id, "seat": seat, "state": live.view()}

        return self.run(caller, key, canonical(["sit", table_id, seat]), table_id, work)

    def leave(self, caller: Caller, table_id: int, seat: int, key: str | None
              ) -> tuple[int, Any]:
        """Leave a seat with no chips in the round in progress."""

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            self._own_seat(caller, live, seat)
            if live.has_stakes(seat):
                raise ApiError(409, "you have wagers in the round in progress",
                               (Violation(HOUSE, "leave once your wagers are settled"),))
            row = s.get(Seat, (live.id, seat))
            if row is not None:
                s.delete(row)
            self._append(s, tx, "leave", {"seat": seat, "account": caller.id})
            if live.round_open and live.in_betting:
                self._append(s, tx, "round-chips", {"chips": {str(seat): 0},
                                                    "accounts": {str(seat): None}})
            return 201, {"table": live.id, "seat": seat, "state": live.view()}

        return self.run(caller, key, canonical(["leave", table_id, seat]), table_id, work)

    def client_seed(self, caller: Caller, table_id: int, seat: int, seed: str, key: str | None
                    ) -> tuple[int, Any]:
        """Add a client seed to the next shoe not yet shuffled."""
        longest = self.settings.client_seed_max
        if not 1 <= len(seed) <= longest or not seed.isprintable():
            raise ApiError(422, f"a client seed is 1 to {longest} printable characters")

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            self._own_seat(caller, live, seat)
            shoe = next((sh for n, sh in sorted(live.shoes.items()) if not sh.sealed), None)
            if shoe is None:  # pragma: no cover - a next shoe is always committed
                raise ApiError(409, "no shoe awaits its shuffle")
            self._append(s, tx, "client-seed", {"shoe": shoe.number, "seat": seat,
                                                "account": caller.id, "seed": seed})
            return 201, shoe.to_json()

        return self.run(caller, key, canonical(["seed", table_id, seat, seed]), table_id, work)

    def stack_shoe(self, table_id: int, cards: str) -> dict[str, Any]:
        """TESTS ONLY: the next shoe not yet shuffled deals ``cards`` first (a
        ``shoe-stack`` event; the shoe is marked stacked and no audit calls it fair)."""
        from collections import Counter

        from sidebet.core.cards import parse_cards

        if not self.test_stack:
            raise ApiError(404, "stacked shoes are a test-only setting")
        try:
            parsed = parse_cards(cards)
        except SidebetError as exc:
            raise ApiError(422, f"cards: {exc}") from None

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            shoe = next((sh for _, sh in sorted(live.shoes.items()) if not sh.sealed), None)
            if shoe is None:  # pragma: no cover - a next shoe is always committed
                raise ApiError(409, "no shoe awaits its shuffle")
            have = Counter(c.index for c in parsed)
            if any(n > shoe.decks for n in have.values()) or len(parsed) > shoe.cut:
                raise ApiError(422, f"a {shoe.decks}-deck shoe cannot deal {cards!r} "
                                    "before its cut card")
            self._append(s, tx, "shoe-stack", {"shoe": shoe.number,
                                               "cards": " ".join(c.code for c in parsed)})
            return 201, shoe.to_json()

        return self.run(None, None, "", table_id, work)[1]  # type: ignore[no-any-return]

    def shoes(self, table_id: int) -> list[dict[str, Any]]:
        """Every shoe's commitment; revealed shoes with their server seed."""
        with self._lock(table_id):
            live = self._live(table_id)
            out = [sh.to_json() for _, sh in sorted(live.shoes.items())]
        with self.sessions() as s:
            for item in out:
                if item["revealed"]:
                    row = s.get(ShoeSeed, (table_id, item["shoe"]))
                    assert row is not None
                    item["server_seed"] = row.server_seed
                    item["nonce"] = live.nonce(item["shoe"])
        return out

    # ----- the round --------------------------------------------------------------------

    def act(self, caller: Caller, table_id: int, seat: int, step: Step,
            amount: str | None = None, wager: str | None = None, key: str | None = None,
            expected: int | None = None) -> tuple[int, Any]:
        """A player's decision at their seat, checked and applied by the engine; with
        ``expected`` (the last event the client saw) refused unless nothing happened since."""
        cents = None if amount is None else amount_of(amount, self.settings.amount_max)
        fingerprint = canonical(["act", table_id, seat, step.value, cents, wager, expected])

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            self._own_seat(caller, live, seat)
            if expected is not None and expected != live.seq:
                v = Violation(HOUSE, f"the table moved on: its last event is {live.seq}, "
                                     f"not {expected}")
                raise ApiError(409, str(v), (v,))
            chips = None if live.round_open else self._balances(s, live)
            decision = self._decision(live, seat, step, cents, wager, chips)
            if chips is not None and step is Step.BET:
                self._open_round(s, tx, chips)
            record = self._perform(s, tx, decision, seat, caller.id, auto=False)
            return 201, {"record": record.to_json(), "event": tx.action_seq, "seq": live.seq,
                         "state": live.view()}

        return self.run(caller, key, fingerprint, table_id, work)

    @staticmethod
    def _balances(s: Session, live: LiveTable) -> dict[int, Cents]:
        out = {}
        for seat, acct in live.seat_accounts.items():
            balance = s.scalar(select(Account.balance).where(Account.id == acct))
            out[seat] = int(balance or 0)
        return out

    def _decision(self, live: LiveTable, seat: int, step: Step, cents: Cents | None,
                  wager: str | None, chips: dict[int, Cents] | None) -> Record:
        """The decision record, after the engine has verified it: 409 when the action is
        not open to this seat now, 422 when its amount or wager breaks a rule."""
        legal = {item["action"] for item in live.legal(seat)}
        state = live.state if live.round_open else None
        if step is Step.BET:
            if wager is None or cents is None:
                raise ApiError(422, "a bet names a wager and an amount")
            if "bet" not in legal:
                raise self._conflict(live, seat, step)
            check = state if state is not None else live.new_state(chips)
            try:
                check.verify_place_bet(seat, wager, cents)
            except RuleError as err:
                raise ApiError.rule(422, err) from None
            return Record(Step.BET, seat=seat, wager=wager, amount=cents)
        if step is Step.CLOSE_BETS:
            if "deal" not in legal:
                raise self._conflict(live, seat, step)
            return Record(Step.CLOSE_BETS)
        if step.value not in legal:
            raise self._conflict(live, seat, step)
        assert state is not None
        try:
            if step is Step.PRESS:
                if cents is None:
                    raise ApiError(422, "the Press names an amount (0 collects)")
                state.verify_press(seat, cents)
                return Record(Step.PRESS, seat=seat, amount=cents)
            if step is Step.INSURANCE:
                if cents is None:
                    raise ApiError(422, "insurance names an amount (0 declines)")
                state.verify_insure(seat, cents)
                return Record(Step.INSURANCE, seat=seat, amount=cents)
            if step is Step.DOUBLE:
                state.verify_double(cents)
                return Record(Step.DOUBLE, seat=seat, amount=cents)
        except RuleError as err:
            raise ApiError.rule(422, err) from None
        return Record(step, seat=seat)

    def _conflict(self, live: LiveTable, seat: int, step: Step) -> ApiError:
        """409: the action is not open to ``seat`` now; the engine's own refusal when it
        has one, else whose turn it is."""
        state = live.state if live.round_open or step not in (Step.BET, Step.CLOSE_BETS) \
            else None
        verify: dict[Step, Callable[[], None]] = {}
        if state is not None:
            verify = {
                Step.BET: lambda: state.verify_place_bet(seat, "blackjack", 1),
                Step.CLOSE_BETS: state.verify_close_bets,
                Step.PRESS: lambda: state.verify_press(seat, 0),
                Step.INSURANCE: lambda: state.verify_insure(seat, 0),
                Step.HIT: state.verify_hit,
                Step.STAND: state.verify_stand,
                Step.DOUBLE: state.verify_double,
                Step.SPLIT: state.verify_split,
                Step.SURRENDER: state.verify_surrender,
            }
        check = verify.get(step)
        if check is not None:
            try:
                check()
            except RuleError as err:
                return ApiError.rule(409, err)
        if step is Step.CLOSE_BETS:
            if state is None:
                v = Violation("§ 633a.6(d)", "no seat has placed a Blackjack wager")
            else:
                v = Violation("§ 633a.6(d)", f"seat {seat} has no Blackjack wager; a seat "
                                             "with one calls the deal")
            return ApiError(409, str(v), (v,))
        hand = state.current_hand if state is not None else None
        if hand is not None:
            v = Violation("§ 633a.7", f"it is seat {hand.seat}'s turn, not seat {seat}'s")
        elif step is Step.BET:
            v = Violation("§ 633a.6(d)", f"seat {seat} has placed every wager the table offers")
        else:
            phase = state.phase.value if state is not None else "betting"
            v = Violation("§ 633a.7", f"seat {seat} has no {step.value} decision now "
                                      f"(phase {phase})")
        return ApiError(409, str(v), (v,))

    def _open_round(self, s: Session, tx: _Tx, balances: dict[int, Cents]) -> None:
        live = tx.table
        assert live is not None
        chips = {str(seat): c for seat, c in balances.items()}
        number = live.round_no + 1
        game = f"T{live.id}-R{number}"
        self._append(s, tx, "round-open", {"round": number, "game": game, "chips": chips,
                                           "accounts": {str(k): v for k, v
                                                        in live.seat_accounts.items()}})
        s.add(Game(id=game, table_id=live.id, round_no=number, status="in-progress",
                   started_at=live.round_started_at, ended_at=None, record=None))

    def _perform(self, s: Session, tx: _Tx, decision: Record, seat: int | None,
                 actor: int | None, *, auto: bool) -> Record:
        live = tx.table
        assert live is not None and live.state is not None
        live.sealed_now.clear()
        try:
            done = live.perform(decision)
        except RuleError as err:  # verified above; the engine has the last word
            raise ApiError.rule(409, err) from None
        sealed = [{"shoe": n, "client_seeds": list(live.shoes[n].client_seeds)}
                  for n in live.sealed_now]
        record, entries = done.record, done.entries
        moves = live.moves(entries)
        for acct, delta in moves.items():
            s.execute(update(Account).where(Account.id == acct)
                      .values(balance=Account.balance + delta))
        house = house_delta(entries)
        if house:
            s.execute(update(Account).where(Account.role == "house")
                      .values(balance=Account.balance + house))
        self._append(s, tx, "action", {
            "round": live.round_no, "seat": seat, "actor": actor, "auto": auto,
            "decision": record.to_json(), "records": done.records, "dealt": done.dealt,
            "ledger": [e.to_json() for e in entries],
            "moves": {str(a): d for a, d in sorted(moves.items())}, "house": house,
            "sealed": sealed,
        }, applied=True)
        tx.action_seq = live.seq
        for n in list(live.sealed_now):
            if n + 1 not in live.shoes:
                self._commit_shoe(s, tx, n + 1)
        live.sealed_now.clear()
        if live.state.phase is Phase.DONE:
            self._end_round(s, tx)
        return record

    def _end_round(self, s: Session, tx: _Tx) -> None:
        live = tx.table
        assert live is not None and live.state is not None
        state = live.state
        ended = utc_now()
        game = f"T{live.id}-R{live.round_no}"
        players = []
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
            s.add(GamePlayer(game_id=game, seat=seat, account_id=acct))
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
            "algorithm": fair.ALGORITHM,
            "paytables": {"blackjack": config.rules.blackjack_pays.value,
                          **dict(config.side_wagers)},
            "players": players,
            "outcome": {"dealer": " ".join(c.code for c in state.dealer),
                        "hands": [h.to_json() for h in state.hands],
                        "side": [x.to_json() for x in state.side_settlements()],
                        "house_net": format_money(state.ledger.house_net())},
            "history": history,
        }
        row = s.get(Game, game)
        assert row is not None
        row.status, row.ended_at, row.record = "complete", ended, canonical(record)
        self._append(s, tx, "round-end", {"round": live.round_no, "game": game,
                                          "record": record})
        current = live.current_shoe
        for n, shoe in sorted(live.shoes.items()):
            if not shoe.revealed and (n < current or (n == current and shoe.needs_shuffle)):
                seed = s.get(ShoeSeed, (live.id, n))
                assert seed is not None
                self._append(s, tx, "shoe-reveal", {"shoe": n, "server_seed": seed.server_seed,
                                                    "commitment": shoe.commitment,
                                                    "client_seeds": list(shoe.client_seeds),
                                                    "nonce": live.nonce(n),
                                                    "algorithm": fair.ALGORITHM})

    # ----- the time limit ---------------------------------------------------------------

    def due(self, now: datetime | None = None) -> list[int]:
        """Tables whose pending decision is past the time limit."""
        now = now or datetime.now(UTC)
        out = []
        for tid, live in list(self.tables.items()):
            if live.time_limit and live.pending() and live.last_at:
                last = datetime.strptime(live.last_at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
                if (now - last).total_seconds() >= live.time_limit:
                    out.append(tid)
        return out

    def apply_default(self, table_id: int) -> None:
        """Give the table's default action to whoever is past the time limit: deal once
        bets are in; collect the Press; decline insurance; the house's default (stand, or
        surrender where allowed) for the hand to act."""

        def work(s: Session, tx: _Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            state = live.state
            if state is None or not live.pending() or table_id not in self.due():
                return 200, None
            if state.phase is Phase.BETTING:
                self._perform(s, tx, Record(Step.CLOSE_BETS), None, None, auto=True)
            elif state.phase is Phase.PRESS:
                for seat in list(state.press_offers()):
                    self._perform(s, tx, Record(Step.PRESS, seat=seat, amount=0), seat, None,
                                  auto=True)
            elif state.phase is Phase.INSURANCE:
                for seat in list(state.insurance_offers()):
                    self._perform(s, tx, Record(Step.INSURANCE, seat=seat, amount=0), seat,
                                  None, auto=True)
            elif state.phase is Phase.PLAY and state.current_hand is not None:
                seat = state.current_hand.seat
                step = Step.SURRENDER if (live.default_action == "surrender"
                                          and state.can_surrender()) else Step.STAND
                self._perform(s, tx, Record(step, seat=seat), seat, None, auto=True)
            return 200, None

        self.run(None, None, "", table_id, work)

    # ----- events, games, export, reconciliation ----------------------------------------

    def events(self, table_id: int, since: int, limit: int = 1000) -> list[dict[str, Any]]:
        """Events after ``since`` as players may see them (hole card of the round in
        progress hidden)."""
        with self._lock(table_id):
            live = self._live(table_id)
            hide, current = live.hide_hole, live.round_no
            with self.sessions() as s:
                rows = list(s.scalars(select(Event).where(Event.table_id == table_id,
                                                          Event.seq > since)
                                      .order_by(Event.seq).limit(limit)))
        return [public_event({"seq": r.seq, "kind": r.kind, "at": r.at,
                              "payload": json.loads(r.payload)}, hide, current) for r in rows]

    def export(self, table_id: int) -> Iterator[str]:
        """The table's whole log as JSON lines: a header, then every event as stored."""
        self._live(table_id)
        with self.sessions() as s:
            rows = list(s.scalars(select(Event).where(Event.table_id == table_id)
                                  .order_by(Event.seq)))
        yield canonical({"format": EXPORT_FORMAT, "table": table_id, "exported_at": utc_now(),
                         "events": len(rows), "head": rows[-1].hash if rows else GENESIS}) + "\n"
        for r in rows:
            yield canonical({"table": table_id, "seq": r.seq, "kind": r.kind, "at": r.at,
                             "payload": json.loads(r.payload), "prev": r.prev_hash,
                             "hash": r.hash}) + "\n"

    def games(self, caller: Caller, *, player: str | None, table: int | None,
              since: str | None, until: str | None, limit: int) -> list[dict[str, Any]]:
        """Game records (§ 810a.11) by player, table and time; a player sees their own."""
        with self.sessions() as s:
            q = select(Game).order_by(Game.started_at, Game.id)
            account = None
            if player is not None:
                account = s.scalar(select(Account.id).where(Account.name == player))
                if account is None:
                    return []
            if not caller.operator:
                if account is not None and account != caller.id:
                    raise ApiError(403, "a player sees only their own games")
                account = caller.id
            if account is not None:
                q = q.where(Game.id.in_(select(GamePlayer.game_id)
                                        .where(GamePlayer.account_id == account)))
            if table is not None:
                q = q.where(Game.table_id == table)
            if since is not None:
                q = q.where(Game.started_at >= since)
            if until is not None:
                q = q.where(Game.started_at <= until)
            rows = list(s.scalars(q.limit(limit)))
        return [self._game_json(g) for g in rows]

    @staticmethod
    def _game_json(g: Game) -> dict[str, Any]:
        if g.record is not None:
            return dict(json.loads(g.record))
        return {"game": g.id, "table": g.table_id, "round": g.round_no, "status": g.status,
                "started_at": g.started_at, "ended_at": None}

    def game(self, caller: Caller, game_id: str) -> dict[str, Any]:
        """One game record."""
        with self.sessions() as s:
            g = s.get(Game, game_id)
            if g is None:
                raise ApiError(404, f"no game {game_id}")
            mine = s.scalar(select(GamePlayer).where(GamePlayer.game_id == game_id,
                                                     GamePlayer.account_id == caller.id))
        if not caller.operator and mine is None:
            raise ApiError(403, "a player sees only their own games")
        return self._game_json(g)

    def reconcile(self) -> dict[str, Any]:
        """Money conservation: balances (players and house) plus chips on the layout equal
        deposits less withdrawals."""
        with self.sessions() as s:
            deposits = s.scalar(select(func.coalesce(func.sum(WalletTx.amount), 0))
                                .where(WalletTx.kind == "deposit")) or 0
            withdrawals = s.scalar(select(func.coalesce(func.sum(WalletTx.amount), 0))
                                   .where(WalletTx.kind == "withdrawal")) or 0
            balances = s.scalar(select(func.coalesce(func.sum(Account.balance), 0))) or 0
            house = s.scalar(select(Account.balance).where(Account.role == "house")) or 0
            negative = s.scalar(select(func.count()).select_from(Account)
                                .where(Account.balance < 0, Account.role != "house")) or 0
        layout = 0
        for tid, live in list(self.tables.items()):
            with self.locks[tid]:
                if live.round_open and live.state is not None:
                    layout += sum(live.state.ledger.open_stakes().values())
        return {"deposits": int(deposits), "withdrawals": int(withdrawals),
                "balances": int(balances), "house": int(house), "layout": int(layout),
                "negative_balances": int(negative),
                "conserved": int(balances) + layout == int(deposits) - int(withdrawals)}


def public_event(ev: dict[str, Any], hide_hole: bool, current_round: int) -> dict[str, Any]:
    """An event as players see it: the hole card of the round in progress hidden."""
    payload = ev["payload"]
    if ev["kind"] == "action" and hide_hole and payload.get("round") == current_round:
        payload = {k: v for k, v in payload.items() if k != "dealt"}
        payload["records"] = redact(payload["records"], True)
        return {**ev, "payload": payload, "redacted": True}
    return ev


def parse_submission(text: str, name_max: int) -> TableConfig:
    """A Rules Submission from TOML text: 422 with every violation (and its citation)
    when it is not compliant, or when its name is longer than ``name_max``."""
    try:
        data = tomllib.loads(text)
        config = table_config_from_dict(data, source="submission")
    except tomllib.TOMLDecodeError as exc:
        raise ApiError(422, f"the submission is not valid TOML: {exc}") from None
    except SidebetError as exc:
        raise ApiError(422, str(exc)) from None
    if len(config.name) > name_max or not config.name.isprintable():
        raise ApiError(422, f"the table's name is at most {name_max} printable characters")
    found = config.violations()
    if found:
        raise ApiError(422, "; ".join(str(v) for v in found), tuple(found))
    return config
