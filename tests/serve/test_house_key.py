"""One signing key per house: the first process records its key, a process with another
key (or none to read) refuses to start in one line, ``/api/house`` publishes the house's
key, and a rotation hands every table's chain to the new key by a ``key`` event that
``sidebet audit`` follows, through real ``sidebet serve`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sidebet.core.errors import SidebetError
from sidebet.serve.anchor import load_key, public_hex, sign_head
from sidebet.serve.log_audit import audit_lines

from .harness import OPERATOR_PASSWORD, Api, Server, database_url, finish_round, make_table
from .test_security import resign

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def _refused(db_url: str, key: Path, tmp: Path) -> str:
    """``sidebet serve`` with ``key``, which must refuse to start: its one line."""
    env = {**os.environ, "SIDEBET_SIGNING_KEY": str(key),
           "SIDEBET_OPERATOR_PASSWORD": OPERATOR_PASSWORD}
    r = subprocess.run([sys.executable, "-m", "sidebet", "serve", "--database-url", db_url,
                        "--port", "0"], env=env, capture_output=True, text=True,
                       timeout=120, cwd=tmp)
    assert r.returncode == 2, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def _round(url: str, t: int, player: Api) -> None:
    player.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    finish_round({1: player}, t)


def test_one_key_per_house_and_its_rotation(tmp_path: Path) -> None:
    first, second = tmp_path / "first.pem", tmp_path / "second.pem"
    old_public, new_public = public_hex(load_key(first)), public_hex(load_key(second))
    db_url = database_url(tmp_path)
    server = Server(db_url, env={"SIDEBET_SIGNING_KEY": str(first)}).start()
    try:
        assert httpx.get(server.url + "/api/house").json()["signing_key"] == old_public
        op = Api.operator(server.url)
        t = make_table(op, time_limit=3600)
        ann = Api.player(server.url, "key-ann")
        ann.post(f"/api/tables/{t}/seats/1", expect=201)
        _round(server.url, t, ann)
    finally:
        server.stop()
    line = _refused(db_url, second, tmp_path)  # another process, another key
    assert f"is not this house's key {old_public[:16]}" in line
    line = _refused(db_url, tmp_path / "missing.pem", tmp_path)  # no key to read
    assert "no such file" in line and old_public[:16] in line
    assert not (tmp_path / "missing.pem").exists()  # no key of its own made

    env = {**os.environ, "SIDEBET_SIGNING_KEY": str(first),
           "SIDEBET_OPERATOR_PASSWORD": OPERATOR_PASSWORD}
    r = subprocess.run([sys.executable, "-m", "sidebet", "rotate-key", "--new-key",
                        str(second), "--database-url", db_url], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"the house signs with {new_public}" in r.stdout and "1 table(s)" in r.stdout
    assert new_public[:16] in _refused(db_url, first, tmp_path)  # the old key is retired

    server = Server(db_url, env={"SIDEBET_SIGNING_KEY": str(second)}).start()
    try:
        assert httpx.get(server.url + "/api/house").json()["signing_key"] == new_public
        op = Api.operator(server.url)
        ann = Api.login(server.url, "key-ann", "password-key-ann")
        _round(server.url, t, ann)
        events = op.events(t)
        kinds = [e["kind"] for e in events]
        turn = kinds.index("key")
        assert "head" in kinds[:turn] and "head" in kinds[turn:]
        log = tmp_path / "log.jsonl"
        log.write_text(op.http.get(f"/api/tables/{t}/export").text)
    finally:
        server.stop()
    audit = [sys.executable, "-m", "sidebet", "audit", str(log), "--public-key"]
    ok = subprocess.run([*audit, new_public], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "signed heads verified (Ed25519): 4" in ok.stdout  # 2 heads, the key, the header
    old = subprocess.run([*audit, old_public], capture_output=True, text=True, timeout=120)
    assert old.returncode == 2 and "not the operator's" in old.stderr

    # a rotation forged to hand the chain to the forger's key, the chain recomputed and
    # the export's head signed by the forger: the old key never signed that hand-over
    forger = load_key(tmp_path / "forger.pem")
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    for ev in lines[1:]:
        if ev["kind"] == "key":
            ev["payload"]["new"] = public_hex(forger)
    forged = [json.loads(x) for x in resign(lines)]
    head = forged[0]
    head.update(key=public_hex(forger), signature=sign_head(
        forger, head["table"], head["events"], head["head"])["signature"])
    with pytest.raises(SidebetError, match=r"key rotation after event \d+ is not signed"):
        audit_lines([json.dumps(x) for x in forged])
