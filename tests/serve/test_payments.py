"""The payment provider's callbacks applied once for good: a genuine callback delivered
again after the ``Idempotency-Key`` answers have expired is answered with its first answer
and moves no money, because the provider's transaction id is kept with the deposit under
a unique index.

In process, on a fresh database (SQLite, or PostgreSQL in the ``postgres`` lane): the
services without HTTP, so that the answers can be aged and purged as a day would
(``test_money.py`` drives the signed callback through a real server)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from sidebet.serve.db import make_engine
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, IdempotentRequest, WalletTx
from sidebet.serve.service.services import Services
from sidebet.serve.settings import load_settings

from .harness import database_url

pytestmark = pytest.mark.postgres

SECRET = "provider-secret-for-tests"


def _signature(raw: bytes, at: float) -> str:
    stamp = str(int(at))
    digest = hmac.new(SECRET.encode(), stamp.encode() + b"." + raw, hashlib.sha256)
    return f"t={stamp},sha256={digest.hexdigest()}"


def _deliver(sv: Services, body: dict[str, str], at: float | None = None) -> tuple[int, dict]:
    """A callback as the route takes it: the signature checked, then applied."""
    raw = json.dumps(body).encode()
    sv.wallet.verify_payment(raw, _signature(raw, time.time() if at is None else at))
    status, answer = sv.wallet.provider_move(body["account"], body["kind"], body["amount"],
                                             body["id"])
    return status, dict(answer)


def test_a_callback_replayed_after_the_idempotency_window_moves_no_money(
        tmp_path: Path) -> None:
    url = database_url(tmp_path)
    sv = Services.open(make_engine(url), load_settings(
        database_url=url, operator_password="operator-secret-1", test_seed="tests",
        money_mode="real", payment_secret=SECRET, idempotency_ttl=60))
    sv.accounts.create("pay-ann", "password-pay-ann")
    paid = {"id": "psp-250", "account": "pay-ann", "kind": "deposit", "amount": "250.00"}
    first = _deliver(sv, paid)
    assert first[0] == 201 and first[1]["amount"] == "250.00"
    with sv.core.sessions.begin() as s:  # a day and more later: every answer expired
        s.execute(update(IdempotentRequest).values(at="2000-01-01T00:00:00.000000Z"))
    assert sv.core.purge_answers() >= 1
    with sv.core.sessions() as s:
        assert s.scalar(select(func.count()).select_from(IdempotentRequest)) == 0
    for _ in range(2):  # the provider redelivers, freshly signed: the first answer
        assert _deliver(sv, paid) == first
    sv.core.answers.clear()  # as after a restart
    assert _deliver(sv, paid) == first
    with pytest.raises(ApiError) as changed:  # the id cannot carry another payment
        _deliver(sv, {**paid, "amount": "500.00"})
    assert changed.value.status == 422 and "psp-250" in changed.value.message
    with sv.core.sessions() as s:
        rows = list(s.scalars(select(WalletTx).where(WalletTx.provider_id == "psp-250")))
        balance = s.scalar(select(Account.balance).where(Account.name == "pay-ann"))
    assert len(rows) == 1 and balance == 250_00
    with pytest.raises(ApiError) as captured:  # replayed by someone else a day later
        _deliver(sv, paid, at=time.time() - 86_400)
    assert captured.value.status == 401 and "at most 300 s" in captured.value.message
