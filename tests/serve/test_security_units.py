"""Units of the server's security with no server: a sign-in costs one scrypt whatever the
name (no timing oracle), the sign-in lockout and the read bucket expire, Unicode
look-alikes of reserved names are refused, a signed head's signature covers each field."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from sidebet.core.errors import SidebetError
from sidebet.serve.anchor import Ed25519PrivateKey, public_hex, sign_head, verify_head
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, Base
from sidebet.serve.names import name_refusal
from sidebet.serve.security import hash_password, sign_in
from sidebet.serve.settings import Settings
from sidebet.serve.throttle import Failures


def test_unknown_names_cost_the_same_scrypt_as_wrong_passwords(
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add_all([Account(name="ann", password_hash=hash_password("right-one"),
                           role="player", balance=0, created_at="t"),
                   Account(name="house", password_hash="!", role="house", balance=0,
                           created_at="t")])
        s.commit()
        calls: list[Any] = []
        real = hashlib.scrypt

        def counted(*args: Any, **kwargs: Any) -> bytes:
            calls.append(kwargs)
            return real(*args, **kwargs)

        monkeypatch.setattr(hashlib, "scrypt", counted)
        with pytest.raises(ApiError):  # the first unknown name makes the dummy hash
            sign_in(s, "nobody", "x")
        answers = []
        for name, password in (("ann", "wrong-one"), ("nobody", "wrong-one"),
                               ("house", "wrong-one")):
            calls.clear()
            with pytest.raises(ApiError) as err:
                sign_in(s, name, password)
            answers.append((err.value.status, err.value.message, len(calls),
                            calls[0]["n"], calls[0]["r"]))
        assert len(set(answers)) == 1 and answers[0][:3] == (401, "wrong name or password", 1)
        calls.clear()
        assert sign_in(s, "ann", "right-one").name == "ann" and len(calls) == 1


def test_a_lockout_always_expires() -> None:
    clock = [0.0]
    f = Failures(limit=3, window=60, lockout=30, clock=lambda: clock[0])
    for round_no in range(5):  # locked again and again, never for good
        assert [f.fail("ann") for _ in range(3)] == [False, False, True]
        assert f.locked("ann") == 30
        clock[0] += 30
        assert f.locked("ann") == 0, round_no


@pytest.mark.parametrize("name", ["Operator", "OPERATOR", "0perator", "oper4tor",
                                  "\u043e\u0440\u0435r\u0430t\u043er", "Ｏperator",
                                  "o-p-e-r-a-t-o-r", "Hou$e", "h\u00f6use", "sidebet_1"])
def test_look_alikes_of_reserved_names_are_refused(name: str) -> None:
    assert name_refusal(name, Settings().reserved_names) is not None


def test_a_signed_head_covers_every_field() -> None:
    key = Ed25519PrivateKey.generate()
    signed = sign_head(key, 3, 17, "cd" * 32)
    verify_head(signed, public_hex(key))
    for change in ({"table": 4}, {"seq": 18}, {"head": "ce" * 32},
                   {"key": public_hex(Ed25519PrivateKey.generate())}):
        with pytest.raises(SidebetError):
            verify_head({**signed, **change}, public_hex(key))
    with pytest.raises(SidebetError):  # another key's signature
        verify_head(sign_head(Ed25519PrivateKey.generate(), 3, 17, "cd" * 32),
                    public_hex(key))
