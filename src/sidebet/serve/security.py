"""Passwords, bearer tokens and the caller of a request.

A password is stored as ``scrypt$16384$8$1$<salt hex>$<digest hex>`` (scrypt with n=2**14,
r=8, p=1, a random 16-byte salt, a 32-byte digest); a bearer token is 32 random bytes
(URL-safe base64), stored only as its SHA-256 (hex).  Databases written by earlier
versions of the server keep working: both formats are unchanged.

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

from sqlalchemy import select
from sqlalchemy.orm import Session

from sidebet.serve.chain import utc_now
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, Token

__all__ = [
    "Caller",
    "authenticate",
    "check_password",
    "hash_password",
    "issue_token",
    "new_password",
    "sign_in",
    "token_hash",
]


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated account of a request."""

    id: int
    name: str
    role: str

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


def sign_in(s: Session, name: str, password: str) -> Account:
    """The account of ``name`` if ``password`` is its password (never the house's);
    401 otherwise, the same for an unknown name and a wrong password."""
    acct = s.scalar(select(Account).where(Account.name == name))
    if acct is None or acct.role == "house" or not check_password(password,
                                                                  acct.password_hash):
        raise ApiError(401, "wrong name or password")
    return acct


def issue_token(s: Session, account: int) -> str:
    """A new bearer token for ``account`` (its hash added to the session)."""
    token = secrets.token_urlsafe(32)
    s.add(Token(token_hash=token_hash(token), account_id=account, created_at=utc_now()))
    return token


def authenticate(s: Session, token: str) -> Caller:
    """The account of a bearer token (401 otherwise)."""
    row = s.get(Token, token_hash(token))
    acct = None if row is None else s.get(Account, row.account_id)
    if acct is None:
        raise ApiError(401, "not signed in (a valid bearer token is required)")
    return Caller(acct.id, acct.name, acct.role)
