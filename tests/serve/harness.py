"""A real ``sidebet serve`` process for tests, a small HTTP client, and card-choosing seeds.

The database is a fresh SQLite file, or, when ``SIDEBET_TEST_POSTGRES`` holds the URL of a
PostgreSQL server's maintenance database (``make test`` sets it, see
``scripts/postgres.sh``), a fresh PostgreSQL database per server.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from sidebet.core.cards import Card
from sidebet.serve import fair
from sidebet.table import Step

OPERATOR_PASSWORD = "operator-secret-1"
SIGNING_KEY = Path(tempfile.gettempdir()) / f"sidebet-test-signing-{os.getpid()}.pem"
"""The operator's Ed25519 key of every server these tests start (created on first use)."""
TEST_SEED = "tests"
ROOT = Path(__file__).resolve().parents[2]
SIX_DECK = (ROOT / "examples" / "table-6deck.toml").read_text(encoding="utf-8")
_counter = itertools.count()


def database_url(tmp: Path) -> str:
    """A fresh, empty database."""
    base = os.environ.get("SIDEBET_TEST_POSTGRES")
    if not base:
        return f"sqlite:///{tmp / f'server-{next(_counter)}.db'}"
    import psycopg

    name = f"sidebet_test_{uuid.uuid4().hex[:12]}"
    plain = base.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    head, _, tail = base.partition("?")
    prefix = head.rsplit("/", 1)[0]
    return f"{prefix}/{name}" + (f"?{tail}" if tail else "")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``sidebet serve`` in its own process, on a free loopback port."""

    def __init__(self, db_url: str, *, test_seed: str | None = TEST_SEED,
                 extra: Sequence[str] = (), env: dict[str, str] | None = None) -> None:
        self.db_url = db_url
        self.test_seed = test_seed
        self.extra = list(extra)
        self.env = dict(env or {})
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(os.devnull)

    def start(self) -> Server:
        # tests that do not test them keep clear of the time limit and the sit-out rule
        env = {"SIDEBET_SIGNING_KEY": str(SIGNING_KEY), "SIDEBET_TIME_LIMIT_DEFAULT": "3600",
               "SIDEBET_SIT_OUT_ROUNDS": "1000", "SIDEBET_BETTING_SECONDS": "3600", **os.environ,
               "SIDEBET_OPERATOR_PASSWORD": OPERATOR_PASSWORD, **self.env}
        if self.test_seed is not None:
            env["SIDEBET_TEST_SEED"] = self.test_seed
        cmd = [sys.executable, "-m", "sidebet", "serve", "--database-url", self.db_url,
               "--port", str(self.port), *self.extra]
        with tempfile.NamedTemporaryFile(prefix="sidebet-serve-", suffix=".log",
                                         delete=False) as log:
            self.log = Path(log.name)
            self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.log.read_text(errors="replace")
                raise RuntimeError(f"sidebet serve exited {self.proc.returncode}: {err}")
            try:
                if httpx.get(self.url + "/api/tables", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("sidebet serve did not start within 60 s")

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.unlink(missing_ok=True)


@contextlib.contextmanager
def running(servers: list[Server]) -> Iterator[list[Server]]:
    """The servers started side by side (several processes of one database), stopped
    after."""
    starting = [threading.Thread(target=srv.start) for srv in servers]
    for thread in starting:
        thread.start()
    for thread in starting:
        thread.join()
    try:
        assert all(srv.proc is not None and srv.proc.poll() is None for srv in servers)
        yield servers
    finally:
        for srv in servers:
            srv.stop()


class Api:
    """An HTTP client signed in as one account; every POST carries a fresh Idempotency-Key
    unless one is given."""

    def __init__(self, url: str, token: str | None = None, name: str = "") -> None:
        self.url = url
        self.name = name
        self.http = httpx.Client(base_url=url, timeout=30)
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"

    def post(self, path: str, body: dict[str, Any] | None = None, *, key: str | None = None,
             expect: int | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key or uuid.uuid4().hex}
        r = self.http.post(path, json=body, headers=headers)
        if expect is not None:
            assert r.status_code == expect, (r.status_code, r.text)
        return r

    def get(self, path: str, expect: int | None = 200, **params: Any) -> Any:
        r = self.http.get(path, params=params)
        if expect is not None:
            assert r.status_code == expect, (r.status_code, r.text)
        return r.json()

    @staticmethod
    def player(url: str, name: str, deposit: str | None = "1000.00") -> Api:
        anon = httpx.Client(base_url=url, timeout=30)
        r = anon.post("/api/accounts", json={"name": name, "password": "password-" + name})
        assert r.status_code == 201, r.text
        api = Api.login(url, name, "password-" + name)
        if deposit:
            api.post("/api/wallet/deposits", {"amount": deposit}, expect=201)
        return api

    @staticmethod
    def login(url: str, name: str, password: str) -> Api:
        r = httpx.post(url + "/api/tokens", json={"name": name, "password": password},
                       timeout=30)
        assert r.status_code == 201, r.text
        return Api(url, r.json()["token"], name)

    @staticmethod
    def operator(url: str) -> Api:
        return Api.login(url, "operator", OPERATOR_PASSWORD)

    def events(self, table: int) -> list[dict[str, Any]]:
        """Every event of the table's log, page by page (an operator's token: as stored)."""
        out: list[dict[str, Any]] = []
        while True:
            page = self.get(f"/api/tables/{table}/events", since=len(out), limit=1000)
            out.extend(page)
            if len(page) < 1000:
                return out

    def balance(self) -> int:
        text = self.get("/api/wallet")["balance"]
        whole, frac = text.split(".")
        sign = -1 if whole.startswith("-") else 1
        return sign * (abs(int(whole)) * 100 + int(frac))

    def act(self, table: int, seat: int, action: str, body: dict[str, Any] | None = None,
            expect: int | None = 201, key: str | None = None) -> httpx.Response:
        return self.post(f"/api/tables/{table}/seats/{seat}/{action}", body, key=key,
                         expect=expect)


def make_table(op: Api, submission: str = SIX_DECK, **settings: Any) -> int:
    r = op.post("/api/tables", {"submission": submission, **settings}, expect=201)
    return int(r.json()["id"])


def choose_client_seed(table: int, shoe: int, decks: int,
                       wanted: Callable[[list[Card]], bool], tries: int = 20000) -> str:
    """A client seed whose shuffle (with the test server seed) deals cards ``wanted``
    accepts (the first cards of the shoe, in dealing order)."""
    seed = fair.test_server_seed(TEST_SEED, table, shoe)
    for n in range(tries):
        text = f"seed-{n}"
        order = fair.shuffle(seed, [text], f"{table}:{shoe}", decks)
        if wanted([Card.from_index(i) for i in order[:20]]):
            return text
    raise AssertionError("no client seed found for the wanted cards")


ONE_DECK_SHORT = 'name = "one deck, short shoe"\ndecks = 1\n[rules]\npenetration = 0.25\n'
"""A 1-deck table whose cut card comes after 13 cards: shoes finish (and are revealed)
within a few rounds."""


def finish_round(players: dict[int, Api], t: int, *, max_steps: int = 60) -> dict[str, Any]:
    """Play the round in progress to its end with the simplest legal choices (deal, or sit
    the round out, collect the Press, decline insurance, stand); returns the final state."""
    any_api = next(iter(players.values()))
    for _ in range(max_steps):
        state = any_api.get(f"/api/tables/{t}/state")
        if not state["round_open"]:
            return dict(state)
        for seat, api in players.items():
            legal = {x["action"] for x in state["seats"][seat - 1]["legal"]}
            for action, body in (("stand", None), ("press", {"amount": "0"}),
                                 ("insurance", {"amount": "0"}), ("deal", None),
                                 ("decline", None)):
                if action in legal:  # a decline is the deal called with no Blackjack wager
                    api.act(t, seat, "deal" if action == "decline" else action, body)
                    break
            else:
                continue
            break
    raise AssertionError("the round did not finish")


ROUTE_STEPS = {"bets": Step.BET, "deal": Step.CLOSE_BETS, "press": Step.PRESS,
               "insurance": Step.INSURANCE, "stand": Step.STAND}
"""The engine's step of each route :func:`simple_action` names."""


def simple_action(state: dict[str, Any], seat: int) -> tuple[str, dict[str, str] | None] | None:
    """A simple legal action of ``seat`` in a table's ``state`` (its route and body): bet
    10.00 on Blackjack, deal, collect the Press, decline insurance, stand; ``None`` when the
    seat has nothing to do."""
    mine = state["seats"][seat - 1]
    legal = {x["action"] for x in mine["legal"]}
    if "bet" in legal and (not state["round_open"] or "blackjack" not in (mine.get("bets")
                                                                          or {})):
        return "bets", {"wager": "blackjack", "amount": "10.00"}
    if "deal" in legal:
        return "deal", None
    if "press" in legal or "insurance" in legal:
        return ("press" if "press" in legal else "insurance"), {"amount": "0"}
    if "stand" in legal:
        return "stand", None
    return None
