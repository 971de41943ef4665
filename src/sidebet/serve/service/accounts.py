"""Accounts: the house and operator accounts at start, sign-up (names that cannot pose as
the operator), sign-in (limited per name and per address, with a lockout that expires,
shared by every process of a PostgreSQL database),
the caller, refresh and revocation of tokens, password changes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sidebet.core.money import format_money
from sidebet.serve.chain import utc_now
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, ExclusionEntry, PlayerLimits, Seat
from sidebet.serve.names import name_key, name_refusal
from sidebet.serve.security import (
    Caller,
    authenticate,
    check_password,
    hash_password,
    issue_token,
    new_password,
    purge_tokens,
    refresh,
    revoke,
    sign_in,
)
from sidebet.serve.service.core import Core
from sidebet.serve.throttle import failures_for

__all__ = ["Accounts", "listed"]

PURGE_EVERY = 1000
"""Sign-ins between two purges of expired tokens (also purged at start)."""


def listed(s: Session, name: str) -> ExclusionEntry | None:
    """The self-exclusion list's entry in force today for ``name`` (by its key)."""
    entry = s.get(ExclusionEntry, name_key(name))
    today = utc_now()[:10]
    if entry is None or entry.since > today or (entry.until is not None
                                                  and entry.until < today):
        return None
    return entry


class Accounts:
    """Player accounts and their bearer tokens; the ``house`` and ``operator`` accounts."""

    def __init__(self, core: Core) -> None:
        self.core = core
        lim = core.settings
        # on PostgreSQL in the database: every process of it counts the same failures
        self.by_name = failures_for(core.engine, "name", limit=lim.signin_account_failures,
                                    window=lim.signin_window, lockout=lim.signin_lockout)
        self.by_address = failures_for(core.engine, "address",
                                       limit=lim.signin_address_failures,
                                       window=lim.signin_window, lockout=lim.signin_lockout)
        self._sign_ins = 0

    def bootstrap(self, operator_password: str | None) -> str | None:
        """Create the house account and, on first start, the operator ``operator`` (with
        ``operator_password``, else a generated one: then the note that tells it); an
        operator whose password is not ``operator_password`` gets it."""
        core = self.core
        with core.writing(), core.sessions.begin() as s:
            if s.scalar(select(Account).where(Account.role == "house")) is None:
                s.add(Account(name="house", name_key=name_key("house"), password_hash="!",
                              role="house", balance=0, created_at=utc_now()))
            op = s.scalar(select(Account).where(Account.name == "operator"))
            if op is None:
                generated = operator_password is None
                password = operator_password or new_password()
                s.add(Account(name="operator", name_key=name_key("operator"),
                              password_hash=hash_password(password), role="operator",
                              balance=0, created_at=utc_now()))
                if generated:
                    return f"operator account 'operator' created with password {password}"
                return None
            if operator_password is not None and not check_password(operator_password,
                                                                     op.password_hash):
                op.password_hash = hash_password(operator_password)
                revoke(s, op.id)  # no token survives a change of the operator password
                core.revoked(op.id)
            purge_tokens(s)
        return None

    def operator(self) -> Caller:
        """The account ``operator``."""
        with self.core.sessions() as s:
            op = s.scalar(select(Account).where(Account.name == "operator"))
            assert op is not None
            return Caller(op.id, op.name, op.role)

    def check_new(self, name: str, password: str) -> None:
        """Refuse (422) a new account's name or password that the settings do not allow."""
        lim = self.core.settings
        if not 1 <= len(name) <= lim.name_max or not name.isprintable() \
                or name.strip() != name:
            raise ApiError(422, f"a name is 1 to {lim.name_max} printable characters without "
                                "surrounding spaces")
        refusal = name_refusal(name, lim.reserved_names)
        if refusal is not None:
            raise ApiError(422, refusal)
        if not lim.password_min <= len(password) <= lim.password_max:
            raise ApiError(422, f"a password is {lim.password_min} to {lim.password_max} "
                                "characters")

    @staticmethod
    def add(s: Session, name: str, password: str, role: str) -> Account:
        """A new account (balance 0) in the transaction ``s`` (``check_new`` first);
        refused (409) when its name reads as another account's
        (:func:`~sidebet.serve.names.name_key`: case, compatibility forms, accents and
        look-alike letters set aside)."""
        key = name_key(name)
        like = s.scalar(select(Account.name).where(Account.name_key == key))
        if like is not None:
            raise ApiError(409, f"the name {name!r} reads as {like!r}, the name of another "
                                "account")
        acct = Account(name=name, name_key=key, password_hash=hash_password(password),
                       role=role, balance=0, created_at=utc_now())
        s.add(acct)
        s.flush()
        return acct

    def create(self, name: str, password: str) -> dict[str, Any]:
        """A new player account (balance 0)."""
        self.check_new(name, password)
        try:
            with self.core.writing(), self.core.sessions.begin() as s:
                if listed(s, name) is not None:
                    raise ApiError(403, f"the name {name!r} is on the self-exclusion list")
                acct = self.add(s, name, password, "player")
                return {"id": acct.id, "name": acct.name, "role": acct.role}
        except IntegrityError:
            raise ApiError(409, f"the name {name!r} is taken") from None

    def login(self, name: str, password: str, address: str = "") -> dict[str, Any]:
        """A new sign-in: a bearer token and a refresh token.  429 while the name at this
        address, or the address, is locked (too many failures lately; the lock expires
        after ``signin_lockout``), 401 for a wrong name or password (the same work either
        way), 403 while the player is self-excluded.  A name is locked only for the
        address its failures came from, so guesses from elsewhere never keep its owner
        out; guessing from many names is held by the address's own limit."""
        at = f"{name}\n{address}"  # the name, as tried from this address
        wait = max(self.by_name.locked(at), self.by_address.locked(address))
        if wait:
            raise ApiError.too_many("too many failed sign-ins", wait)
        lim = self.core.settings
        try:
            with self.core.sessions() as s:
                acct = sign_in(s, name, password)
                excluded = s.scalar(select(PlayerLimits.excluded_until)
                                    .where(PlayerLimits.account_id == acct.id))
                on_list = listed(s, acct.name) is not None
        except ApiError:
            self.by_address.fail(address)
            self.by_name.fail(at)
            raise
        self.by_name.clear(at)  # what follows is told to the account's owner only
        if excluded is not None and excluded > utc_now():
            raise ApiError(403, f"the account is self-excluded until {excluded}")
        if acct.status != "active":
            raise ApiError(403, f"the account is {acct.status} by the operator")
        if on_list and acct.role == "player":
            raise ApiError(403, "the account is on the self-exclusion list")
        with self.core.writing(), self.core.sessions.begin() as s:
            pair = issue_token(s, acct.id, lim.token_ttl, lim.refresh_ttl)
            self._sign_ins += 1
            if self._sign_ins % PURGE_EVERY == 0:
                purge_tokens(s)
        return self._token_answer(acct, pair)

    @staticmethod
    def _token_answer(acct: Account, pair: dict[str, str]) -> dict[str, Any]:
        return {"token": pair["access"], "token_type": "bearer", "account": acct.id,
                "role": acct.role, "expires_at": pair["access_expires_at"],
                "refresh_token": pair["refresh"],
                "refresh_expires_at": pair["refresh_expires_at"]}

    def refresh(self, token: str) -> dict[str, Any]:
        """Trade a refresh token for a new pair of the same sign-in; a refresh token used a
        second time ends the sign-in (401), since one of its two holders is not its
        owner."""
        lim = self.core.settings
        with self.core.writing(), self.core.sessions.begin() as s:
            acct, session, pair = refresh(s, token, lim.token_ttl, lim.refresh_ttl)
        self.core.revoked(acct.id, session)  # the old pair is revoked (or the sign-in)
        if pair is None:
            raise ApiError(401, "the refresh token was used before: the sign-in is ended "
                                "on every device; sign in again")
        return self._token_answer(acct, pair)

    def sign_out(self, caller: Caller, everywhere: bool) -> dict[str, Any]:
        """Revoke the caller's sign-in (or, ``everywhere``, every one of the account)."""
        with self.core.writing(), self.core.sessions.begin() as s:
            n = revoke(s, caller.id, None if everywhere else caller.session)
        self.core.revoked(caller.id, None if everywhere else caller.session)
        return {"revoked": n}

    def change_password(self, caller: Caller, old: str, new: str) -> dict[str, Any]:
        """A new password (the old one required): every token of the account is revoked
        and a new sign-in answered."""
        lim = self.core.settings
        if not lim.password_min <= len(new) <= lim.password_max:
            raise ApiError(422, f"a password is {lim.password_min} to {lim.password_max} "
                                "characters")
        with self.core.writing(), self.core.sessions.begin() as s:
            acct = s.get(Account, caller.id)
            assert acct is not None
            if not check_password(old, acct.password_hash):
                raise ApiError(403, "the current password is wrong")
            acct.password_hash = hash_password(new)
            revoke(s, acct.id)
            pair = issue_token(s, acct.id, lim.token_ttl, lim.refresh_ttl)
        self.core.revoked(acct.id)
        return self._token_answer(acct, pair)

    def authenticate(self, token: str) -> Caller:
        """The account of a bearer token (401 otherwise)."""
        with self.core.sessions() as s:
            return authenticate(s, token, self.core.tokens)

    def me(self, caller: Caller) -> dict[str, Any]:
        """The caller's account, balance and seat."""
        with self.core.sessions() as s:
            acct = s.get(Account, caller.id)
            seat = s.scalar(select(Seat).where(Seat.account_id == caller.id))
            assert acct is not None
            return {"id": acct.id, "name": acct.name, "role": acct.role,
                    "balance": format_money(acct.balance),
                    "money_mode": self.core.settings.money_mode,
                    "seat": None if seat is None else {"table": seat.table_id,
                                                       "seat": seat.seat}}
