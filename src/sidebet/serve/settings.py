"""The table server's settings: the one place that reads the environment.

Each setting is read from ``SIDEBET_<NAME>`` (``SIDEBET_DATABASE_URL``,
``SIDEBET_OPERATOR_PASSWORD``, ``SIDEBET_PASSWORD_MAX``, ...); the options of ``sidebet
serve`` override them (:func:`load_settings`).  Widths the database schema fixes (a name
is a 64-character column, an ``Idempotency-Key`` a 128-character one, a table's name a
200-character one) may be lowered, never raised.

>>> s = load_settings(port=9000)
>>> s.port, s.password_min, s.amount_max
(9000, 8, 1000000000000)
>>> load_settings(events_page=10, events_page_max=5)
Traceback (most recent call last):
...
sidebet.core.errors.SidebetError: settings: events_page 10 is above events_page_max 5
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from sidebet.core.errors import SidebetError

__all__ = ["DEFAULT_URL", "ENV_PREFIX", "Settings", "env_name", "load_settings"]

ENV_PREFIX = "SIDEBET_"
"""Every setting's environment variable is this prefix and its name in capitals."""

DEFAULT_URL = "sqlite:///sidebet.db"
"""The embedded default: a SQLite file in the working folder, created on first start."""


class Settings(BaseSettings):
    """Everything ``sidebet serve`` can be told: where it keeps its data and listens, the
    operator's password, the limits it enforces on requests, and two switches for tests."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True, extra="forbid",
                                      use_attribute_docstrings=True)

    # ----- where and who --------------------------------------------------------------

    database_url: str = DEFAULT_URL
    """SQLAlchemy URL: ``sqlite:///FILE`` (created on first start) or
    ``postgresql+psycopg://USER@HOST/DB``."""
    host: str = "127.0.0.1"
    """The address to listen on."""
    port: int = Field(default=8000, ge=0, le=65535)
    """The TCP port to listen on."""
    tls_cert: Path | None = None
    """A PEM certificate (chain): with ``tls_key``, the server speaks HTTPS and WSS itself
    (every port it listens on, the cluster's forwarding port too)."""
    tls_key: Path | None = None
    """The private key (PEM) of ``tls_cert``."""
    hsts_max_age: int = Field(default=31_536_000, ge=0)
    """``Strict-Transport-Security: max-age`` sent with every answer given over HTTPS (by
    the server's own TLS, or a trusted proxy's ``X-Forwarded-Proto: https``); 0: none."""
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    """Addresses and networks (``10.0.0.0/8``) of the reverse proxies whose
    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed: only their forwarded client
    addresses count for the sign-in and read limits (``[]``: none; ``["*"]``: every
    sender, only where no client can reach the server but through a proxy)."""
    operator_password: SecretStr | None = None
    """The password of the account ``operator``: set (or reset) at start; when unset, one
    is generated when the account is first created and printed once."""
    tables: tuple[Path, ...] = ()
    """Rules Submissions (TOML) to open as tables at start, unless a table of that name
    exists."""
    table_seats: int = Field(default=7, ge=1, le=7)
    """Seats of the tables opened at start."""
    table_time_limit: int = Field(default=30, ge=1)
    """Seconds to act at the tables opened at start."""

    # ----- limits on requests -----------------------------------------------------------

    amount_max: int = Field(default=10**12, ge=1, le=10**15)
    """The largest amount of money, in cents, a request may name."""
    name_max: int = Field(default=64, ge=1, le=64)
    """The longest account name."""
    password_min: int = Field(default=8, ge=1)
    """The shortest password."""
    password_max: int = Field(default=256, ge=1, le=4096)
    """The longest password."""
    client_seed_max: int = Field(default=256, ge=1, le=4096)
    """The longest client seed."""
    wager_id_max: int = Field(default=40, ge=1, le=200)
    """The longest wager identifier a bet may name."""
    idempotency_key_max: int = Field(default=128, ge=1, le=128)
    """The longest ``Idempotency-Key``."""
    submission_max: int = Field(default=100_000, ge=1, le=10_000_000)
    """The longest Rules Submission (characters of TOML)."""
    table_name_max: int = Field(default=200, ge=1, le=200)
    """The longest table name a Rules Submission may give."""
    time_limit_max: int = Field(default=3600, ge=0)
    """The longest time limit, in seconds, a table may have."""
    events_page: int = Field(default=200, ge=1)
    """Events answered by ``GET /api/tables/{id}/events`` when no ``limit`` is given."""
    events_page_max: int = Field(default=1000, ge=1)
    """The largest ``limit`` of ``GET /api/tables/{id}/events``."""
    games_page: int = Field(default=100, ge=1)
    """Game records answered by ``GET /api/games`` when no ``limit`` is given."""
    games_page_max: int = Field(default=1000, ge=1)
    """The largest ``limit`` of ``GET /api/games``."""
    stream_batch: int = Field(default=1000, ge=1)
    """Events per database read when a WebSocket catches up."""
    clock_interval: float = Field(default=0.2, gt=0, le=60)
    """Seconds between two looks for tables past their time limit."""
    snapshot_every: int = Field(default=1000, ge=1)
    """Events between two snapshots of a table (taken when a round opens), so that a start
    replays only the events since the last one."""
    idempotency_ttl: int = Field(default=86_400, ge=60)
    """Seconds an ``Idempotency-Key``'s answer is kept; older answers are purged."""

    # ----- security ------------------------------------------------------------------------

    signin_account_failures: int = Field(default=5, ge=1)
    """Wrong passwords for one name from one address within ``signin_window`` before the
    name is locked at that address (guesses from elsewhere never lock its owner out)."""
    signin_address_failures: int = Field(default=20, ge=1)
    """Failed sign-ins from one address within ``signin_window`` before it is locked."""
    signin_window: float = Field(default=300.0, gt=0)
    """Seconds over which failed sign-ins are counted."""
    signin_lockout: float = Field(default=60.0, gt=0, le=86400)
    """Seconds a locked name or address waits; the lock always expires."""
    token_ttl: int = Field(default=8 * 3600, ge=1)
    """Seconds a bearer token is valid (``POST /api/tokens/refresh`` gives a new one)."""
    refresh_ttl: int = Field(default=30 * 86400, ge=1)
    """Seconds a refresh token is valid."""
    body_max: int = Field(default=1 << 20, ge=1024)
    """The largest request body, in bytes (413 above)."""
    header_max: int = Field(default=16384, ge=1024)
    """The largest total size of a request's headers, in bytes (431 above)."""
    reserved_names: tuple[str, ...] = ("operator", "house", "admin", "administrator", "root",
                                       "dealer", "pitboss", "cashier", "support", "system",
                                       "sidebet", "casino")
    """Names no player may take, nor any name that reads as one of them (case, accents,
    digits, separators and Unicode look-alikes aside)."""

    read_rate: float = Field(default=20.0, gt=0)
    """Reads of a table's events and stream per second per address (429 beyond)."""
    read_burst: int = Field(default=100, ge=1)
    """Reads of a table's events and stream an address may make at once."""

    # ----- tables that keep moving --------------------------------------------------------

    time_limit_default: int = Field(default=30, ge=1)
    """Seconds to act at a table created without a time limit (the house's default action
    follows)."""
    sit_out_rounds: int = Field(default=3, ge=1)
    """Rounds in a row a seated player may sit out before the seat is freed."""
    betting_seconds: int = Field(default=20, ge=1, le=3600)
    """The betting countdown every seat sees: seconds from a round's first bet until the
    house closes the bets (earlier once every seated player has called the deal or sat the
    round out)."""

    # ----- money and the audit's anchor -------------------------------------------------

    money_mode: Literal["play", "real"] = "play"
    """``play``: players credit themselves play money; ``real``: deposits and withdrawals
    come only from an operator or the payment provider's signed callback."""
    payment_secret: SecretStr | None = None
    """The HMAC-SHA256 key of the payment provider's callbacks (real money)."""
    payment_window: int = Field(default=300, ge=1, le=86400)
    """Seconds a payment callback's signed timestamp may be away from the server's clock
    (older or newer: refused with 401)."""
    limit_raise_delay: int = Field(default=86400, ge=0)
    """Seconds before a raised or removed deposit or loss limit takes effect (a lowered
    one takes effect at once)."""
    signing_key: Path = Path("sidebet-signing.key")
    """The operator's Ed25519 key (PEM): it signs the chain's head at every round end and
    in every export.  Created on the house's first start if missing; after that every
    process of the database must present the house's key or refuses to start."""
    signing_key_pem: SecretStr | None = None
    """The operator's Ed25519 key as PEM text (from a secret store); wins over
    ``signing_key``."""

    # ----- surveillance of the live tables ------------------------------------------------

    surveillance_delay: int = Field(default=900, ge=0, le=86400 * 30)
    """Seconds surveillance stays behind the tables: only rounds that ended longer ago are
    analysed and shown (so that it cannot drive preferential shuffling)."""
    surveillance_alpha: float = Field(default=0.01, gt=0, lt=1)
    """The alarm's false-alarm rate: the chance that a player betting independently of the
    edge is flagged within ``surveillance_horizon`` decisions on one wager."""
    surveillance_horizon: int = Field(default=10_000, ge=1, le=10**9)
    """Decisions of one player on one wager that the false-alarm rate covers."""
    surveillance_delta: float = Field(default=0.5, gt=0, lt=1)
    """The alarm's alternative: the edge's change has mean delta times the bet's (both
    standardised)."""
    surveillance_warmup: int = Field(default=20, ge=2, le=10**6)
    """Bet changes of a player (rounds of a table) before the alarm's scores count."""
    surveillance_decisions_kept: int = Field(default=1000, ge=0, le=100_000)
    """Betting decisions kept in memory per table for ``GET /api/surveillance``."""

    workers: int = Field(default=1, ge=1, le=64)
    """Server processes (``--workers``) sharing the listening socket; more than one needs
    PostgreSQL."""
    cluster_address: str | None = Field(default=None, max_length=200)
    """The URL at which the other processes reach this one to forward its tables' writes
    (PostgreSQL; default: a port of its own on the public socket's host, found and
    advertised by :mod:`sidebet.serve.cluster.address`)."""

    # ----- tests only ---------------------------------------------------------------------

    test_seed: str | None = None
    """TESTS ONLY: server seeds derived from this text, so tests can choose client seeds
    that deal the cards a case needs.  Never for play."""
    test_stack: bool = False
    """TESTS ONLY: operators may stack the next shoe (``POST /api/tables/{id}/test-stack``).
    Never for play."""
    stack_cards_max: int = Field(default=2000, ge=2)
    """TESTS ONLY: the longest list of stacked cards (characters)."""

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        for low, high in (("password_min", "password_max"), ("events_page", "events_page_max"),
                          ("games_page", "games_page_max")):
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} {getattr(self, low)} is above {high} "
                                 f"{getattr(self, high)}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together: give both or neither")
        return self

def env_name(setting: str) -> str:
    """The environment variable of a setting.

    >>> env_name("operator_password")
    'SIDEBET_OPERATOR_PASSWORD'
    """
    return ENV_PREFIX + setting.upper()


def load_settings(**options: Any) -> Settings:
    """The settings from the environment, with the options given (not ``None``) in their
    place; a bad value is one :class:`SidebetError` line naming the setting."""
    given = {k: v for k, v in options.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        raise SidebetError(f"settings: {where + ': ' if where else ''}{message}") from None
