"""Passwords, bearer tokens and the caller of a request.

A password is stored as ``scrypt$16384$8$1$<salt hex>$<digest hex>`` (scrypt with n=2**14,
r=8, p=1, a random 16-byte salt, a 32-byte digest); a bearer token is 32 random bytes
(URL-safe base64), stored only as its SHA-256 (hex).  A sign-in gives a bearer token that
expires after ``Settings.token_ttl`` and a refresh token (``refresh_ttl``) that trades for a
new pair once; both belong to one sign-in (``session``), which signing out deletes.  A
deleted token is revoked: signing out everywhere, a password change and an operator's order
delete all of an account's tokens.  An unknown name costs the same scrypt as a wrong
password (no timing oracle).  Tokens found valid are kept in memory (:class:`TokenCache`),
so a request costs no lookup; a revocation forgets them before it is answered, and expired
tokens are purged from the database (:func:`purge_tokens`).

>>> stored = hash_password("correct horse")
>>> check_password("correct horse", stored), check_password("wrong horse", stored)
(True, False)
>>> check_password("correct horse", "not a hash")
False
>>> token_hash("abc")[:16]
'ba7816bf8f01cfea'
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from sidebet.serve.chain import utc_now
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, Token
from sidebet.serve.recent import Recent

__all__ = [
    "SPENT",
    "Caller",
    "TokenCache",
    "authenticate",
    "check_password",
    "hash_password",
    "issue_token",
    "new_password",
    "purge_tokens",
    "refresh",
    "revoke",
    "sign_in",
    "token_hash",
]


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated account of a request."""

    id: int
    name: str
    role: str
    session: str = ""
    """The sign-in the bearer token belongs to (``""`` when not from a token)."""

    @property
    def operator(self) -> bool:
        """Whether the caller has the operator role."""
        return self.role == "operator"


def hash_password(password: str, salt: bytes | None = None) -> str:
    """scrypt (n=2**14, r=8, p=1) of the password, with a random 16-byte salt."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return f"scrypt$16384$8$1${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches the stored hash (compared in constant time)."""
    try:
        _, _, _, _, salt, _ = stored.split("$")
        return secrets.compare_digest(hash_password(password, bytes.fromhex(salt)), stored)
    except ValueError:
        return False


def new_password() -> str:
    """A random password (16 URL-safe characters) for an account created without one."""
    return secrets.token_urlsafe(12)


def token_hash(token: str) -> str:
    """What the database keeps of a bearer token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


_DUMMY: list[str] = []


def _dummy_hash() -> str:
    """A hash no password matches, checked for unknown names so that they cost the same."""
    if not _DUMMY:
        _DUMMY.append(hash_password(secrets.token_hex(16)))
    return _DUMMY[0]


def _later(seconds: int) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def sign_in(s: Session, name: str, password: str) -> Account:
    """The account of ``name`` if ``password`` is its password (never the house's);
    401 otherwise, the same answer and the same work for an unknown name and a wrong
    password."""
    acct = s.scalar(select(Account).where(Account.name == name))
    stored = _dummy_hash() if acct is None or acct.role == "house" else acct.password_hash
    if not check_password(password, stored) or acct is None or acct.role == "house":
        raise ApiError(401, "wrong name or password")
    return acct


def issue_token(s: Session, account: int, token_ttl: int = 8 * 3600,
                refresh_ttl: int = 30 * 86400, session: str | None = None
                ) -> dict[str, str]:
    """A new sign-in (or, with ``session``, its next pair): a bearer token and a refresh
    token for ``account``, their hashes added to the session, with their expiry."""
    session = session or secrets.token_hex(16)
    now = utc_now()
    out = {"session": session}
    for kind, ttl in (("access", token_ttl), ("refresh", refresh_ttl)):
        token = secrets.token_urlsafe(32)
        out[kind], out[kind + "_expires_at"] = token, _later(ttl)
        s.add(Token(token_hash=token_hash(token), account_id=account, created_at=now,
                    kind=kind, session=session, expires_at=out[kind + "_expires_at"]))
    return out


def _valid(s: Session, token: str, kind: str) -> Token | None:
    row = s.get(Token, token_hash(token))
    if row is None or row.kind != kind or row.expires_at <= utc_now():
        return None
    return row


class TokenCache:
    """Bearer tokens found valid lately, by their hash: the caller and the token's expiry,
    kept in a :class:`~sidebet.serve.recent.Recent`.  An entry serves until the
    token expires or ``recheck`` seconds have passed (then the database is asked again);
    :meth:`forget` drops an account's (or one sign-in's) entries at once, and an entry
    looked up before a :meth:`forget` is not kept, so a revocation holds from the moment its
    transaction has committed.

    >>> cache = TokenCache()
    >>> who = Caller(7, "ann", "player", "s1")
    >>> g = cache.generation; cache.put("d1", who, "9999-01-01T00:00:00.000000Z", g)
    >>> cache.get("d1") == who, cache.get("d2")
    (True, None)
    >>> g = cache.generation; cache.put("d3", who, "2000-01-01T00:00:00.000000Z", g)
    >>> cache.get("d3")
    >>> cache.forget(7, "s2"); cache.get("d1") == who
    True
    >>> cache.forget(7); cache.get("d1")
    """

    def __init__(self, size: int = 50_000, recheck: float = 10.0) -> None:
        self._known: Recent[str, tuple[Caller, str]] = Recent(
            size, recheck, valid=lambda entry: entry[1] > utc_now())

    @property
    def generation(self) -> int:
        """Bumped by every :meth:`forget`: a lookup that began before it is not kept."""
        return self._known.generation

    def get(self, digest: str) -> Caller | None:
        """The caller of a token hash still known valid, else ``None``."""
        entry = self._known.get(digest)
        return None if entry is None else entry[0][0]

    def put(self, digest: str, caller: Caller, expires_at: str, generation: int) -> None:
        """Keep a token found valid by a lookup that began at ``generation``."""
        self._known.put(digest, (caller, expires_at), generation)

    def forget(self, account: int, session: str | None = None) -> None:
        """Drop the entries of ``account`` (of one sign-in, with ``session``)."""
        self._known.forget_where(
            lambda entry: entry[0].id == account and session in (None, entry[0].session))


def authenticate(s: Session, token: str, cache: TokenCache | None = None) -> Caller:
    """The account of a bearer token (401 otherwise: unknown, expired or revoked), from
    ``cache`` when it knows the token."""
    digest = token_hash(token)
    if cache is not None:
        known = cache.get(digest)
        if known is not None:
            return known
        generation = cache.generation
    row = _valid(s, token, "access")
    acct = None if row is None else s.get(Account, row.account_id)
    if row is None or acct is None:
        raise ApiError(401, "not signed in (the bearer token is unknown, expired or revoked; "
                            "sign in again)")
    caller = Caller(acct.id, acct.name, acct.role, row.session)
    if cache is not None:
        cache.put(digest, caller, row.expires_at, generation)
    return caller


def purge_tokens(s: Session) -> int:
    """Delete the tokens past their expiry (they are refused anyway); how many."""
    done = s.execute(delete(Token).where(Token.expires_at <= utc_now()))
    return int(done.rowcount)  # type: ignore[attr-defined]


SPENT = "spent"
"""The kind of a refresh token traded already: kept until its expiry, so that its reuse
(a copy in someone else's hands) is seen."""


def refresh(s: Session, token: str, token_ttl: int, refresh_ttl: int
            ) -> tuple[Account, str, dict[str, str] | None]:
    """Trade a refresh token for a new pair of the same sign-in (the old pair revoked, the
    refresh token kept as spent): the account, the sign-in and the pair.  A spent refresh
    token used again ends its sign-in (every token of it deleted; the pair is ``None``)."""
    row = _valid(s, token, "refresh") or _valid(s, token, SPENT)
    acct = None if row is None else s.get(Account, row.account_id)
    if row is None or acct is None:
        raise ApiError(401, "the refresh token is unknown, expired or revoked; sign in again")
    session = row.session
    if row.kind == SPENT:
        revoke(s, acct.id, session)
        return acct, session, None
    s.execute(delete(Token).where(Token.session == session, Token.kind == "access"))
    row.kind = SPENT
    return acct, session, issue_token(s, acct.id, token_ttl, refresh_ttl, session)


def revoke(s: Session, account: int, session: str | None = None) -> int:
    """Delete the tokens of one sign-in of ``account`` (or, without ``session``, all of
    them); how many bearer and refresh tokens were still usable."""
    q = delete(Token).where(Token.account_id == account)
    if session is not None:
        q = q.where(Token.session == session)
    done = s.execute(q.where(Token.kind != SPENT))
    s.execute(q)
    return int(done.rowcount)  # type: ignore[attr-defined]
