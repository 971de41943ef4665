"""Security, privacy and tables that keep moving, against one real ``sidebet serve`` with
short limits: sign-in limits and their expiring lockout,
tokens that expire and are revoked, size limits, names, security headers, what the public
stream and events carry, the time limit and the operator's end of a stuck round, seats
freed, the read rate, and the signed chain head checked by ``sidebet audit``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from sidebet.core.errors import SidebetError
from sidebet.serve.anchor import load_key, public_hex, sign_head, verify_head
from sidebet.serve.chain import GENESIS, canonical, chain_hash
from sidebet.serve.log_audit import audit_lines, read_head

from .harness import (
    ONE_DECK_SHORT,
    OPERATOR_PASSWORD,
    SIGNING_KEY,
    Api,
    Server,
    database_url,
    finish_round,
    make_table,
)

pytestmark = pytest.mark.postgres

LOCKOUT = 3.0
ENV = {"SIDEBET_SIGNIN_ACCOUNT_FAILURES": "3", "SIDEBET_SIGNIN_ADDRESS_FAILURES": "12",
       "SIDEBET_SIGNIN_WINDOW": "120", "SIDEBET_SIGNIN_LOCKOUT": str(LOCKOUT),
       "SIDEBET_BODY_MAX": "65536", "SIDEBET_HEADER_MAX": "8192",
       "SIDEBET_TIME_LIMIT_DEFAULT": "1", "SIDEBET_SIT_OUT_ROUNDS": "2",
       "SIDEBET_BETTING_SECONDS": "2",
       "SIDEBET_READ_RATE": "2", "SIDEBET_READ_BURST": "40"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("security")), env=ENV).start()
    yield srv
    srv.stop()


def sign_in(server: Server, name: str, password: str) -> httpx.Response:
    return httpx.post(server.url + "/api/tokens", json={"name": name, "password": password},
                      timeout=30)


def until_unlocked(server: Server, name: str, password: str) -> httpx.Response:
    deadline = time.monotonic() + 10 * LOCKOUT
    while (r := sign_in(server, name, password)).status_code == 429:
        assert time.monotonic() < deadline, "the lockout did not expire"
        time.sleep(0.25)
    return r


# ----- item 4: sign-in limits, tokens, sizes, names, headers ----------------------------


def test_sign_in_is_limited_per_name_and_the_lock_expires(server: Server) -> None:
    Api.player(server.url, "rl-ann", deposit=None)
    for name in ("rl-ann", "rl-nobody"):  # a known and an unknown name are treated alike
        answers = [sign_in(server, name, "wrong-password").status_code for _ in range(3)]
        assert answers == [401, 401, 401]
        locked = sign_in(server, name, "password-rl-ann")
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1
        assert "try again" in locked.json()["detail"]
    assert until_unlocked(server, "rl-ann", "password-rl-ann").status_code == 201


def test_guesses_from_elsewhere_never_keep_the_owner_out(server: Server) -> None:
    """The name's lock holds for the address that guessed (here told by the trusted
    loopback proxy's X-Forwarded-For); its owner, elsewhere, signs in at once."""
    Api.player(server.url, "rl-cy", deposit=None)

    def from_(address: str, password: str) -> httpx.Response:
        return httpx.post(server.url + "/api/tokens", headers={"X-Forwarded-For": address},
                          json={"name": "rl-cy", "password": password})

    for _ in range(4):  # the thief keeps guessing through every lock period
        answers = [from_("198.51.100.7", "wrong-password").status_code for _ in range(3)]
        assert answers == [401, 401, 401] or 429 in answers
        assert from_("198.51.100.7", "password-rl-cy").status_code == 429
        assert from_("203.0.113.5", "password-rl-cy").status_code == 201  # the owner


def test_sign_in_is_limited_per_address(server: Server) -> None:
    Api.player(server.url, "rl-bob", deposit=None)
    answers = []
    for n in range(13):  # SIDEBET_SIGNIN_ADDRESS_FAILURES=12: the 13th at the latest is refused
        answers.append(sign_in(server, f"rl-guess-{n}", "wrong-password").status_code)
        if answers[-1] == 429:
            break
    assert answers[-1] == 429 and set(answers) == {401, 429}
    assert sign_in(server, "rl-bob", "password-rl-bob").status_code == 429
    assert until_unlocked(server, "rl-bob", "password-rl-bob").status_code == 201


def test_tokens_refresh_once_and_are_revoked(server: Server) -> None:
    Api.player(server.url, "tok-ann", deposit=None)
    first = sign_in(server, "tok-ann", "password-tok-ann").json()
    other = sign_in(server, "tok-ann", "password-tok-ann").json()
    assert first["expires_at"] < first["refresh_expires_at"]
    fresh = httpx.post(server.url + "/api/tokens/refresh",
                       json={"refresh_token": first["refresh_token"]}).json()
    Api(server.url, first["token"]).get("/api/me", expect=401)  # its pair went with it
    Api(server.url, fresh["token"]).get("/api/me")
    again = httpx.post(server.url + "/api/tokens/refresh",
                       json={"refresh_token": first["refresh_token"]})
    # used twice: one holder is a thief, so the sign-in ends on every device
    assert again.status_code == 401 and "used before" in again.json()["detail"]
    Api(server.url, fresh["token"]).get("/api/me", expect=401)
    later = httpx.post(server.url + "/api/tokens/refresh",
                       json={"refresh_token": fresh["refresh_token"]})
    assert later.status_code == 401
    second = sign_in(server, "tok-ann", "password-tok-ann").json()
    renewed = httpx.post(server.url + "/api/tokens/refresh",
                         json={"refresh_token": second["refresh_token"]}).json()
    api = Api(server.url, renewed["token"])
    api.get("/api/me")
    assert api.http.delete("/api/tokens/current").json() == {"revoked": 2}
    api.get("/api/me", expect=401)
    api = Api(server.url, other["token"])
    third = Api.login(server.url, "tok-ann", "password-tok-ann")
    # everywhere: this sign-in, "other" and the one Api.player made
    assert third.http.delete("/api/tokens").json()["revoked"] == 6
    api.get("/api/me", expect=401)
    third.get("/api/me", expect=401)


def test_password_change_and_operator_order_revoke_every_token(server: Server) -> None:
    Api.player(server.url, "pw-ann", deposit=None)
    a = Api.login(server.url, "pw-ann", "password-pw-ann")
    b = Api.login(server.url, "pw-ann", "password-pw-ann")
    wrong = a.http.put("/api/me/password", json={"password": "nope-nope",
                                                 "new_password": "new-password-1"})
    assert wrong.status_code == 403
    r = a.http.put("/api/me/password", json={"password": "password-pw-ann",
                                             "new_password": "new-password-1"})
    assert r.status_code == 200, r.text
    a.get("/api/me", expect=401)
    b.get("/api/me", expect=401)
    c = Api(server.url, r.json()["token"])
    c.get("/api/me")
    op = Api.operator(server.url)
    assert op.post("/api/operator/accounts/pw-ann/revoke").json()["revoked"] == 2
    c.get("/api/me", expect=401)
    log = op.get("/api/operator/actions")
    assert log[0]["action"] == "revoke-tokens" and log[0]["operator"] == "operator"
    assert log[0]["target"] == "account pw-ann"
    c.get("/api/operator/actions", expect=401)
    Api.login(server.url, "pw-ann", "new-password-1").get("/api/operator/actions", expect=403)


def test_body_and_header_limits(server: Server) -> None:
    big = {"name": "x", "password": "y" * 70_000}
    r = httpx.post(server.url + "/api/accounts", json=big)
    assert r.status_code == 413 and "body" in r.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"name": "x", "password": "'
        for _ in range(20):
            yield b"y" * 4096
        yield b'"}'

    r = httpx.post(server.url + "/api/accounts", content=chunks(),
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    r = httpx.get(server.url + "/api/tables", headers={"X-Pad": "p" * 9000})
    assert r.status_code == 431
    assert httpx.get(server.url + "/api/tables").status_code == 200


def test_decision_bodies_deeply_nested_or_with_a_key_twice_are_refused(
        server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    bo = Api.player(server.url, "json-bo")
    bo.post(f"/api/tables/{t}/seats/1", expect=201)
    bets = f"/api/tables/{t}/seats/1/bets"

    def send(raw: bytes) -> httpx.Response:
        return bo.http.post(bets, content=raw, headers={
            "Content-Type": "application/json", "Idempotency-Key": f"json-{len(raw)}"})

    deep = send(b'{"wager": "blackjack", "amount": "10.00", "x": ' + b"[" * 20_000
                + b"]" * 20_000 + b"}")
    assert deep.status_code == 422 and "nested 20001 deep" in deep.json()["detail"]
    twice = send(b'{"wager": "blackjack", "amount": "1.00", "amount": "10.00"}')
    assert twice.status_code == 422 and "'amount' twice" in twice.json()["detail"]
    assert bo.balance() == 1000_00  # nothing was bet
    fine = send(b'{"wager": "blackjack", "amount": "10.00", "note": "[[[{{{"}')
    assert fine.status_code in (201, 422), fine.text  # brackets in a string are text
    assert "nested" not in fine.text
    op.post(f"/api/operator/tables/{t}/end-round", expect=200)


@pytest.mark.parametrize("name", ["operator", "Operator", "\u043eperator", "0PERATOR",
                                  "op.erator", "ＯＰＥＲＡＴＯＲ", "house", "H\u043euse_2",
                                  "adm\u0456n", "p\u0430yp\u0430l-\u0441ashier"])
def test_names_that_pose_as_the_house_are_refused(server: Server, name: str) -> None:
    r = httpx.post(server.url + "/api/accounts", json={"name": name, "password": "pw-123456"})
    assert r.status_code in (409, 422), r.text
    if r.status_code == 422:
        assert "reads as" in r.json()["detail"] or "mixes scripts" in r.json()["detail"]


def test_names_that_imitate_another_player_are_refused(server: Server) -> None:
    r = httpx.post(server.url + "/api/accounts", json={"name": "pia", "password": "pw-123456"})
    assert r.status_code == 201, r.text
    for name in ("PIA", "Pia", "ｐｉａ", "pi\u0301a", "\U0001d429\U0001d422\U0001d41a",
                 "\u0440\u0456\u0430"):  # case, fullwidth, an accent, bold, Cyrillic
        r = httpx.post(server.url + "/api/accounts",
                       json={"name": name, "password": "pw-123456"})
        assert r.status_code == 409 and "reads as 'pia'" in r.json()["detail"], (name, r.text)
    for name in ("pia2", "pio"):  # digits kept, another letter
        r = httpx.post(server.url + "/api/accounts",
                       json={"name": name, "password": "pw-123456"})
        assert r.status_code == 201, (name, r.text)


def test_names_in_one_script_are_welcome(server: Server) -> None:
    for name in ("Jürgen", "иван", "opera fan", "warehouse"):
        r = httpx.post(server.url + "/api/accounts",
                       json={"name": name, "password": "pw-123456"})
        assert r.status_code == 201, (name, r.text)


def test_security_headers_on_every_answer(server: Server) -> None:
    for path in ("/", "/static/style.css", "/api/tables", "/api/nowhere", "/openapi.json"):
        r = httpx.get(server.url + path)
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, path
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert r.headers["X-Frame-Options"] == "DENY"


# ----- item 6: what observers see ---------------------------------------------------------


PRIVATE = ("account", "accounts", "actor", "moves", "chips", "record", "house",
           "credits_start", "players")


def test_stream_and_events_carry_only_what_an_observer_sees(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    ann = Api.player(server.url, "pv-ann", deposit="777.77")
    bob = Api.player(server.url, "pv-bob", deposit="777.77")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/2", expect=201)
    with connect(f"ws://127.0.0.1:{server.port}/api/tables/{t}/ws?since=0") as ws:
        for api, seat in ((ann, 1), (bob, 2)):
            api.act(t, seat, "bets", {"wager": "blackjack", "amount": "10.00"})
        finish_round({1: ann, 2: bob}, t)
        last = ann.get(f"/api/tables/{t}/state")["seq"]
        streamed = []
        while not streamed or streamed[-1]["seq"] < last:
            streamed.append(json.loads(ws.recv(timeout=10)))
    public = httpx.get(f"{server.url}/api/tables/{t}/events").json()
    assert [e["seq"] for e in public] == [e["seq"] for e in streamed]
    for events in (streamed, public, ann.get(f"/api/tables/{t}/events")):
        text = json.dumps([e["payload"] for e in events])
        for key in PRIVATE:
            assert f'"{key}"' not in text, key
        assert "777.77" not in text and "767.77" not in text  # no wallet balance
        assert "77777" not in text and "76777" not in text
        kinds = {e["kind"] for e in events}
        assert {"sit", "round-open", "action", "round-end", "head"} <= kinds
        end = next(e for e in events if e["kind"] == "round-end")
        assert end["payload"]["outcome"]["dealer"]  # the result on the felt
        bets = [r for e in events if e["kind"] == "action" for r in e["payload"]["records"]
                if r["step"] == "bet"]
        assert len(bets) == 2  # the bets on the felt
    full = op.events(t)
    assert any(e["payload"].get("moves") for e in full if e["kind"] == "action")
    assert next(e for e in full if e["kind"] == "round-end")["payload"]["record"]["players"]
    own = ann.get("/api/games", table=t)
    assert [p["player"] for p in own[0]["players"]] == ["pv-ann", "pv-bob"]
    mine, theirs = own[0]["players"]
    assert mine["credits_start"] == "777.77" and "credits_start" not in theirs
    assert "account" not in theirs and list(own[0]["history"]["chips"]) == ["1"]
    assert "777.77" in json.dumps(op.get("/api/games", table=t)[0]["players"][1])
    ann.get("/api/games", expect=403, player="pv-bob", table=t)
    # the table's state, public or in an action's answer
    answer = ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"}).json()
    wallets = {api.get("/api/wallet")["balance"] for api in (ann, bob)}
    for state in (httpx.get(f"{server.url}/api/tables/{t}/state").json(), answer["state"]):
        for seat in state["seats"][:2]:  # by name only: no account id, no wallet
            assert "account" not in seat and "chips" not in seat, seat
        assert not any(w in json.dumps(state) for w in wallets), wallets


# ----- item 7: tables that keep moving ----------------------------------------------------


def wait_for(check: Any, what: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_table_left_by_its_player_is_freed_by_the_default_time_limit(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op)  # no time limit given: the house's default (1 s here)
    assert op.get(f"/api/tables/{t}")["time_limit"] == 1
    ann, bob = Api.player(server.url, "fz-ann"), Api.player(server.url, "fz-bob")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/2", expect=201)
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    ann.act(t, 1, "deal")  # and walks away
    wait_for(lambda: not bob.get(f"/api/tables/{t}/state")["round_open"],
             "the round was not ended by the default actions")
    bob.act(t, 2, "bets", {"wager": "blackjack", "amount": "10.00"})


def test_operator_ends_a_stuck_round(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, time_limit=3600)
    ann = Api.player(server.url, "st-ann")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    ann.post(f"/api/operator/tables/{t}/end-round", expect=403)
    r = op.post(f"/api/operator/tables/{t}/end-round").json()
    assert r["ended"] is True and r["defaults"] >= 2
    assert not ann.get(f"/api/tables/{t}/state")["round_open"]
    rec = op.get("/api/reconcile")
    assert rec["conserved"], rec
    entry = op.get("/api/operator/actions")[0]
    assert entry["action"] == "end-round" and entry["target"] == f"table {t}"
    assert entry["operator"] == "operator"


def test_seats_are_freed_from_who_sits_out_or_has_no_money(server: Server) -> None:
    op = Api.operator(server.url)
    t = make_table(op, 'decks = 6\n[limits]\nmin = "10.00"\n', time_limit=3600)
    broke = Api.player(server.url, "seat-broke", deposit="5.00")
    r = broke.post(f"/api/tables/{t}/seats/3")
    assert r.status_code == 409 and "table minimum" in r.json()["detail"]
    ann, bob = Api.player(server.url, "seat-ann"), Api.player(server.url, "seat-bob")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/2", expect=201)
    for n in range(2):  # SIDEBET_SIT_OUT_ROUNDS=2
        ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        finish_round({1: ann, 2: bob}, t)  # bob sits each round out
        if n == 0:  # the count of rounds sat out survives a restart (it is in the log)
            server.stop()
            server.start()
    seats = ann.get(f"/api/tables/{t}/state")["seats"]
    assert seats[0]["player"] == "seat-ann" and seats[1]["player"] is None
    leave = [e for e in httpx.get(f"{server.url}/api/tables/{t}/events").json()
             if e["kind"] == "leave"]
    assert leave[-1]["payload"] == {"seat": 2, "reason": "sat out 2 rounds in a row"}


def test_reads_are_limited_in_size_and_rate(server: Server) -> None:
    r = httpx.get(f"{server.url}/api/tables/1/events", params={"limit": 5000})
    assert r.status_code == 422
    with httpx.Client(base_url=server.url) as http:
        answers = [http.get("/api/tables/1/events", params={"limit": 1}) for _ in range(60)]
    limited = [a for a in answers if a.status_code == 429]
    assert limited and int(limited[0].headers["Retry-After"]) >= 1
    assert "too many reads" in limited[0].json()["detail"]
    time.sleep(1.0)  # the bucket refills (SIDEBET_READ_RATE=2)


# ----- item 8: the signed chain head --------------------------------------------------------


def audit(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidebet", "audit", str(path), *args],
                          capture_output=True, text=True, timeout=120)


def resign(lines: list[dict[str, Any]], key: Any = None) -> list[str]:
    """The log with its chain recomputed (and, with ``key``, its heads signed again)."""
    prev = GENESIS
    for ev in lines[1:]:
        if key is not None and ev["kind"] == "head":
            before = lines[ev["seq"] - 1]
            ev["payload"] = sign_head(key, ev["table"], before["seq"], before["hash"])
        ev["prev"] = prev
        ev["hash"] = prev = chain_hash(prev, ev["table"], ev["seq"], ev["kind"], ev["at"],
                                       canonical(ev["payload"]))
    lines[0]["head"], lines[0]["events"] = prev, len(lines) - 1
    return [json.dumps(x) for x in lines]


def test_signed_heads_anchor_the_audit(server: Server, tmp_path: Path) -> None:
    op = Api.operator(server.url)
    t = make_table(op, ONE_DECK_SHORT, time_limit=3600)
    ann = Api.player(server.url, "anchor-ann")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    for _ in range(2):
        ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        finish_round({1: ann}, t)
    key = public_hex(load_key(SIGNING_KEY))
    assert httpx.get(f"{server.url}/api/house").json()["signing_key"] == key
    kept = httpx.get(f"{server.url}/api/tables/{t}/head").json()
    verify_head(kept, key)
    heads = [e for e in op.events(t) if e["kind"] == "head"]
    assert len(heads) == 2 and heads[-1]["seq"] == kept["seq"]  # one per round end
    (tmp_path / "head.json").write_text(json.dumps(kept))
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    finish_round({1: ann}, t)

    text = op.http.get(f"/api/tables/{t}/export").text
    log = tmp_path / "log.jsonl"
    log.write_text(text)
    ok = audit(log, "--public-key", key, "--head", str(tmp_path / "head.json"))
    assert ok.returncode == 0, ok.stderr
    assert "signed heads verified (Ed25519): 5" in ok.stdout  # header, 3 rounds, kept one
    assert "NOT verified: the signing key" not in ok.stdout
    assert any(x.startswith("NOT verified: the signing key")
               for x in audit_lines(text.splitlines()).lines())

    lines = [json.loads(x) for x in text.splitlines()]
    r = audit(log, "--public-key", "11" * 32)
    assert r.returncode == 2 and "not the operator's" in r.stderr

    def refused(new: list[str], *kept_files: Path) -> str:
        with pytest.raises(SidebetError) as err:
            audit_lines(new, public_key=key, heads=[read_head(p) for p in kept_files])
        return str(err.value)

    # a player renamed in a sit event, the whole chain recomputed: the heads fail
    renamed = json.loads(json.dumps(lines))
    sit = next(e for e in renamed[1:] if e["kind"] == "sit")
    sit["payload"]["name"] = "someone-else"
    assert "not valid" in refused(resign(renamed))
    # the log cut short (its last round dropped) and its header rewritten: refused
    cut = json.loads(json.dumps(lines))[: kept["seq"] + 1]
    assert "not valid" in refused(resign(cut))
    # even if cut exactly at a signed head, a head kept from later proves it short
    later = tmp_path / "later.json"
    later.write_text(json.dumps(httpx.get(f"{server.url}/api/tables/{t}/head").json()))
    cut = [json.dumps(x) for x in lines[: kept["seq"] + 1]]
    header = json.loads(cut[0])
    header.update(events=kept["seq"], head=kept["head"],
                  signature=kept["signature"])  # an old signed head reused as the header
    cut[0] = json.dumps(header)
    assert "cut short" in refused(cut, later)


def test_operator_token_dies_with_the_operator_password_and_tokens_expire(
        server: Server) -> None:
    old = Api.operator(server.url)
    old.get("/api/reconcile")
    Api.player(server.url, "exp-ann", deposit=None)
    server.stop()
    server.env.update(SIDEBET_OPERATOR_PASSWORD="a-new-operator-secret", SIDEBET_TOKEN_TTL="2")
    server.start()
    old.get("/api/reconcile", expect=401)
    assert sign_in(server, "operator", OPERATOR_PASSWORD).status_code == 401
    Api.login(server.url, "operator", "a-new-operator-secret").get("/api/reconcile")
    pair = sign_in(server, "exp-ann", "password-exp-ann").json()
    api = Api(server.url, pair["token"])
    wait_for(lambda: api.http.get("/api/me").status_code == 401, "the token did not expire")
    assert "expired" in api.get("/api/me", expect=401)["detail"]
    fresh = httpx.post(server.url + "/api/tokens/refresh",
                       json={"refresh_token": pair["refresh_token"]})
    assert fresh.status_code == 201
    Api(server.url, fresh.json()["token"]).get("/api/me")
