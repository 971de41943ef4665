"""Accounts: the house and operator accounts at start, sign-up, sign-in, the caller."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from sidebet.core.money import format_money
from sidebet.serve.chain import utc_now
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, Seat
from sidebet.serve.security import (
    Caller,
    authenticate,
    check_password,
    hash_password,
    issue_token,
    new_password,
    sign_in,
)
from sidebet.serve.service.core import Core

__all__ = ["Accounts"]


class Accounts:
    """Player accounts and their bearer tokens; the ``house`` and ``operator`` accounts."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def bootstrap(self, operator_password: str | None) -> str | None:
        """Create the house account and, on first start, the operator ``operator`` (with
        ``operator_password``, else a generated one: then the note that tells it); an
        operator whose password is not ``operator_password`` gets it."""
        core = self.core
        with core.writing(), core.sessions.begin() as s:
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

    def operator(self) -> Caller:
        """The account ``operator``."""
        with self.core.sessions() as s:
            op = s.scalar(select(Account).where(Account.name == "operator"))
            assert op is not None
            return Caller(op.id, op.name, op.role)

    def create(self, name: str, password: str) -> dict[str, Any]:
        """A new player account (balance 0)."""
        lim = self.core.settings
        if not 1 <= len(name) <= lim.name_max or not name.isprintable() \
                or name.strip() != name:
            raise ApiError(422, f"a name is 1 to {lim.name_max} printable characters without "
                                "surrounding spaces")
        if not lim.password_min <= len(password) <= lim.password_max:
            raise ApiError(422, f"a password is {lim.password_min} to {lim.password_max} "
                                "characters")
        try:
            with self.core.writing(), self.core.sessions.begin() as s:
                acct = Account(name=name, password_hash=hash_password(password), role="player",
                               balance=0, created_at=utc_now())
                s.add(acct)
                s.flush()
                return {"id": acct.id, "name": acct.name, "role": acct.role}
        except IntegrityError:
            raise ApiError(409, f"the name {name!r} is taken") from None

    def login(self, name: str, password: str) -> dict[str, Any]:
        """A new bearer token for the account."""
        with self.core.sessions() as s:
            acct = sign_in(s, name, password)
        with self.core.writing(), self.core.sessions.begin() as s:
            token = issue_token(s, acct.id)
        return {"token": token, "token_type": "bearer", "account": acct.id, "role": acct.role}

    def authenticate(self, token: str) -> Caller:
        """The account of a bearer token (401 otherwise)."""
        with self.core.sessions() as s:
            return authenticate(s, token)

    def me(self, caller: Caller) -> dict[str, Any]:
        """The caller's account, balance and seat."""
        with self.core.sessions() as s:
            acct = s.get(Account, caller.id)
            seat = s.scalar(select(Seat).where(Seat.account_id == caller.id))
            assert acct is not None
            return {"id": acct.id, "name": acct.name, "role": acct.role,
                    "balance": format_money(acct.balance),
                    "seat": None if seat is None else {"table": seat.table_id,
                                                       "seat": seat.seat}}
