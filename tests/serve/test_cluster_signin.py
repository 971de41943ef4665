"""The sign-in lockout of several ``sidebet serve`` processes on one PostgreSQL:
failures are counted in the database, so wrong passwords spread over two processes lock
the name, and then the address, on both after the one limit; the lock expires on both and
the owner signs in again."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import httpx
import pytest

from sidebet.serve.db import make_engine
from sidebet.serve.models import Base
from sidebet.serve.throttle import SharedFailures

from .harness import Api, Server, database_url, running

pytestmark = pytest.mark.postgres

LOCKOUT = 2.0
ENV = {"SIDEBET_SIGNIN_ACCOUNT_FAILURES": "4", "SIDEBET_SIGNIN_ADDRESS_FAILURES": "8",
       "SIDEBET_SIGNIN_WINDOW": "120", "SIDEBET_SIGNIN_LOCKOUT": str(LOCKOUT)}


@pytest.fixture(scope="module")
def pg(tmp_path_factory: pytest.TempPathFactory) -> str:
    if not os.environ.get("SIDEBET_TEST_POSTGRES"):
        pytest.skip("several processes need PostgreSQL (SIDEBET_TEST_POSTGRES)")
    return database_url(tmp_path_factory.mktemp("signin"))


@pytest.fixture(scope="module")
def servers(pg: str) -> Iterator[list[Server]]:
    with running([Server(pg, env=ENV), Server(pg, env=ENV)]) as pair:
        yield pair


def sign_in(server: Server, name: str, password: str) -> httpx.Response:
    return httpx.post(server.url + "/api/tokens", json={"name": name, "password": password},
                      timeout=30)


def test_failures_on_two_processes_lock_the_name_and_the_address_on_both(
        servers: list[Server]) -> None:
    a, b = servers
    Api.player(a.url, "sh-ann", deposit=None)
    Api.player(b.url, "sh-bob", deposit=None)
    # four wrong passwords, alternately on each process: the limit is four in all
    answers = [sign_in(servers[n % 2], "sh-ann", "wrong-password").status_code
               for n in range(4)]
    assert answers == [401, 401, 401, 401]
    for srv in servers:
        locked = sign_in(srv, "sh-ann", "password-sh-ann")
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1
        assert "too many failed sign-ins; try again in" in locked.json()["detail"]
    assert sign_in(a, "sh-bob", "password-sh-bob").status_code == 201  # another name
    # four more failures from this address (eight in all), unknown names, both processes
    answers = [sign_in(servers[n % 2], f"sh-guess-{n}", "wrong-password").status_code
               for n in range(4)]
    assert answers == [401, 401, 401, 401]
    for srv in servers:
        assert sign_in(srv, "sh-bob", "password-sh-bob").status_code == 429
    # both locks expire: the owners sign in again, on either process
    time.sleep(LOCKOUT)
    deadline = time.monotonic() + 10 * LOCKOUT
    while (r := sign_in(b, "sh-ann", "password-sh-ann")).status_code == 429:
        assert time.monotonic() < deadline, "the lockout did not expire"
        time.sleep(0.25)
    assert r.status_code == 201
    assert sign_in(a, "sh-bob", "password-sh-bob").status_code == 201


def test_shared_failures_count_and_clear_in_the_database(pg: str) -> None:
    """The UPSERT directly: a lock at the limit, a window that starts afresh after a lock,
    a clear that forgets failures but keeps a lock another process has set."""
    engine = make_engine(pg)
    Base.metadata.create_all(engine)  # idempotent: the servers' migration made it
    one = SharedFailures(engine, "name", limit=3, window=120, lockout=60)
    other = SharedFailures(engine, "name", limit=3, window=120, lockout=60)
    assert [one.fail("u-zoe"), other.fail("u-zoe")] == [False, False]
    one.clear("u-zoe")  # a good sign-in: counting starts again
    assert [other.fail("u-zoe"), one.fail("u-zoe"), other.fail("u-zoe")] == [False, False, True]
    assert 59 < one.locked("u-zoe") <= 60 and 59 < other.locked("u-zoe") <= 60
    other.clear("u-zoe")
    assert one.locked("u-zoe") > 59  # a lock is not cleared
    assert one.locked("u-yan") == 0.0 and one.fail("u-yan") is False
    address = SharedFailures(engine, "address", limit=1, window=120, lockout=5)
    assert address.locked("u-yan") == 0.0  # another kind, another key
    assert address.fail("u-yan") is True and address.locked("u-yan") > 4
    engine.dispose()
