"""The database schema (SQLAlchemy 2), the same on SQLite and PostgreSQL.

Money is integer cents (``BigInteger``); times are UTC ISO-8601 text
(``2026-01-02T03:04:05.678901Z``), which sorts as time and hashes the same on every
database.  The event log (:class:`Event`) is append-only: rows are inserted, never updated
or deleted.  Alembic migrations (``sidebet/serve/migrations``) create it; a test checks
the migrated schema equals these models.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Double,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Account",
    "Base",
    "ClusterMember",
    "Event",
    "ExclusionEntry",
    "Game",
    "GamePlayer",
    "GameTable",
    "HouseKey",
    "IdempotentRequest",
    "OperatorAction",
    "PlayerLimits",
    "ReadBucket",
    "Seat",
    "ShoeSeed",
    "SigninFailure",
    "StaffTables",
    "TableOwner",
    "TableSnapshot",
    "Token",
    "WalletTx",
]


class Base(DeclarativeBase):
    """Declarative base of every table."""


class Account(Base):
    """A player, an operator or the house (one row, ``role='house'``, holding the house's net)."""

    __tablename__ = "accounts"
    __table_args__ = (Index("uq_accounts_name_key", "name_key", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    name_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    """The name as compared with other players' (:func:`sidebet.serve.names.name_key`),
    unique."""
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), server_default="active")
    """``active``, or set by the operator: ``excluded``, ``suspended``, ``closed``."""
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)


class Token(Base):
    """A bearer or refresh token, stored as its SHA-256; both tokens of one sign-in share
    its ``session``; a token past ``expires_at`` is refused, a deleted one is revoked."""

    __tablename__ = "tokens"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created_at: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(8), server_default="access")
    session: Mapped[str] = mapped_column(String(32), server_default="", index=True)
    expires_at: Mapped[str] = mapped_column(String(32), server_default="")


class WalletTx(Base):
    """A deposit or withdrawal; one made by the payment provider keeps the provider's
    transaction id (``provider_id``), unique for good: a callback is applied once."""

    __tablename__ = "wallet_txs"
    __table_args__ = (Index("uq_wallet_txs_provider_id", "provider_id", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    idempotency_key: Mapped[str] = mapped_column(String(128))
    at: Mapped[str] = mapped_column(String(32))
    provider_id: Mapped[str | None] = mapped_column(String(100), nullable=True)


class IdempotentRequest(Base):
    """The first answer to a request with an ``Idempotency-Key`` (per account)."""

    __tablename__ = "idempotent_requests"
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    response: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(32), index=True)


class GameTable(Base):
    """A live table: its Rules Submission (as JSON) and house settings."""

    __tablename__ = "game_tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    config: Mapped[str] = mapped_column(Text)
    seats: Mapped[int] = mapped_column(Integer)
    unit: Mapped[int] = mapped_column(BigInteger)
    time_limit: Mapped[int] = mapped_column(Integer)
    default_action: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[str] = mapped_column(String(32))
    house_net: Mapped[int] = mapped_column(BigInteger, server_default="0")
    """What the table's finished rounds moved into (+) or out of (-) the house (one row
    per table, written once per round: no row every table's settlements update)."""


class Event(Base):
    """One entry of a table's append-only, hash-chained log."""

    __tablename__ = "events"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    at: Mapped[str] = mapped_column(String(32))
    payload: Mapped[str] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    epoch: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The fencing number of the table's owner that wrote it (PostgreSQL; ``None`` on
    SQLite's single process): a trigger refuses an event whose epoch is not the owner's."""


class ShoeSeed(Base):
    """A shoe's secret server seed (revealed in the log only after the shoe)."""

    __tablename__ = "shoe_seeds"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    shoe: Mapped[int] = mapped_column(Integer, primary_key=True)
    server_seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))


class Seat(Base):
    """Who sits where; an account sits at one seat of one table at most."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("account_id", name="uq_seats_account"),)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))


class Game(Base):
    """One round at one table (a game of § 810a.11)."""

    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    round_no: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[str] = mapped_column(String(32), index=True)
    ended_at: Mapped[str | None] = mapped_column(String(32), nullable=True)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)


class GamePlayer(Base):
    """A player's part in a game."""

    __tablename__ = "game_players"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)


class OperatorAction(Base):
    """An operator's action, with who did it (the operators' log)."""

    __tablename__ = "operator_actions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[str] = mapped_column(String(32), index=True)
    operator_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    operator_name: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(200))
    detail: Mapped[str] = mapped_column(Text)


class PlayerLimits(Base):
    """The limits a player set (cents per rolling day, week, month; ``None``: none),
    the session reminder and the self-exclusion's end; a raised limit waits in
    ``pending`` (JSON) until ``pending_from``."""

    __tablename__ = "player_limits"
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    limits: Mapped[str] = mapped_column(Text)
    pending: Mapped[str | None] = mapped_column(Text, nullable=True)
    pending_from: Mapped[str | None] = mapped_column(String(32), nullable=True)
    excluded_until: Mapped[str | None] = mapped_column(String(32), nullable=True)


class TableSnapshot(Base):
    """A table's state between rounds as of event ``seq`` of its log, whose hash is
    ``head`` (checked against the log when the table is loaded from it)."""

    __tablename__ = "table_snapshots"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    head: Mapped[str] = mapped_column(String(64))
    at: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(Text)


class StaffTables(Base):
    """The dealer-assist tables a staff account works at (an operator assigns them):
    ``tables`` a JSON list of table ids; ``house_wide`` a supervisor of every table."""

    __tablename__ = "staff_tables"
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    tables: Mapped[str] = mapped_column(Text)
    house_wide: Mapped[bool] = mapped_column(Boolean, default=False)


class TableOwner(Base):
    """Which process owns a table (PostgreSQL): the owner's fencing number (``epoch``, one
    more at each takeover), its member id and the address that takes its forwarded writes.
    The owner also holds the table's advisory lock, released when its connection ends."""

    __tablename__ = "table_owners"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    epoch: Mapped[int] = mapped_column(Integer)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    address: Mapped[str | None] = mapped_column(String(200), nullable=True)
    at: Mapped[str] = mapped_column(String(32))


class ClusterMember(Base):
    """A server process on the database (PostgreSQL), with its forwarding address and the
    time of its last heartbeat."""

    __tablename__ = "cluster_members"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    address: Mapped[str] = mapped_column(String(200))
    seen_at: Mapped[str] = mapped_column(String(32))


class SigninFailure(Base):
    """Failed sign-ins of one name or one address (PostgreSQL: shared by every process of
    the database), keyed by a SHA-256 of the kind and the value: the failures counted since
    ``window_start``, and ``locked_until`` (seconds of the database's clock)."""

    __tablename__ = "signin_failures"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    window_start: Mapped[float] = mapped_column(Double)
    locked_until: Mapped[float] = mapped_column(Double)


class ReadBucket(Base):
    """The read rate of one address (PostgreSQL: shared by every process of the database),
    keyed by a SHA-256 of the address: a token bucket's ``tokens`` as of ``at`` (seconds of
    the database's clock) and whether its last request was ``granted``.  Unlogged on
    PostgreSQL: a crash forgets it (every bucket full again), and no write waits for the
    disk."""

    __tablename__ = "read_buckets"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    tokens: Mapped[float] = mapped_column(Double)
    at: Mapped[float] = mapped_column(Double)
    granted: Mapped[bool] = mapped_column(Boolean)


class HouseKey(Base):
    """The house's signing keys in the order they signed (the last one signs now): every
    process of the database must present it, and a rotation appends the next."""

    __tablename__ = "house_keys"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    public: Mapped[str] = mapped_column(String(64), unique=True)
    at: Mapped[str] = mapped_column(String(32))


class ExclusionEntry(Base):
    """A name on a regulator's self-exclusion list (imported from its CSV), by its
    :func:`~sidebet.serve.names.name_key`: refused at sign-up and sign-in from ``since``
    until ``until`` (``None``: for good)."""

    __tablename__ = "exclusion_list"
    name_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    since: Mapped[str] = mapped_column(String(32))
    until: Mapped[str | None] = mapped_column(String(32), nullable=True)
    imported_at: Mapped[str] = mapped_column(String(32))
