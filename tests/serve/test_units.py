"""The shuffle, the schema migration and the import boundary, without a server."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidebet.serve import fair
from sidebet.serve.chain import GENESIS, canonical, chain_hash


def reference_shuffle(seed: bytes, client_seeds: list[str], nonce: str, decks: int
                      ) -> list[int]:
    """The published algorithm written out again, independently, from its description."""
    cards = [i for _ in range(decks) for i in range(52)]
    stream = b""
    counter = 0

    def word() -> int:
        nonlocal stream, counter
        if not stream:
            msg = json.dumps({"client_seeds": client_seeds, "counter": counter,
                              "nonce": nonce}, sort_keys=True, separators=(",", ":"))
            stream = hmac.digest(seed, msg.encode("ascii"), "sha256")
            counter += 1
        w, stream = int.from_bytes(stream[:4], "big"), stream[4:]
        return w

    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        while True:
            w = word()
            if w < (1 << 32) - (1 << 32) % m:
                break
        j = w % m
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@given(st.binary(min_size=32, max_size=32), st.lists(st.text(max_size=20), max_size=3),
       st.sampled_from([1, 2, 6, 8]), st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_shuffle_matches_its_description(seed: bytes, clients: list[str], decks: int,
                                         shoe: int) -> None:
    nonce = f"7:{shoe}"
    order = fair.shuffle(seed, clients, nonce, decks)
    assert order == reference_shuffle(seed, clients, nonce, decks)
    assert Counter(order) == Counter({i: decks for i in range(52)})


def test_commitment_and_sensitivity() -> None:
    seed = fair.new_server_seed()
    assert fair.commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert fair.verify_seed(seed, fair.commitment(seed))
    assert not fair.verify_seed(seed[:-1] + bytes([seed[-1] ^ 1]), fair.commitment(seed))
    base = fair.shuffle(seed, ["a"], "1:0", 6)
    assert base != fair.shuffle(seed, ["b"], "1:0", 6)
    assert base != fair.shuffle(seed, ["a"], "1:1", 6)
    assert base != fair.shuffle(seed, ["a", "b"], "1:0", 6)


def test_first_card_is_uniform() -> None:
    """Each of 52 cards first in a 1-deck shoe about equally often (chi-square, 5200
    shuffles, 51 degrees of freedom; 99.99th percentile about 100)."""
    seed = bytes(32)
    counts = Counter(fair.shuffle(seed, [str(n)], "0:0", 1)[0] for n in range(5200))
    chi2 = sum((counts[c] - 100) ** 2 / 100 for c in range(52))
    assert chi2 < 100


def test_chain_hash_binds_every_field() -> None:
    h = chain_hash(GENESIS, 1, 1, "sit", "t", canonical({"seat": 1}))
    assert h != chain_hash(GENESIS, 1, 1, "sit", "t", canonical({"seat": 2}))
    assert h != chain_hash(GENESIS, 2, 1, "sit", "t", canonical({"seat": 1}))
    assert h != chain_hash(GENESIS, 1, 2, "sit", "t", canonical({"seat": 1}))
    assert h != chain_hash("1" * 64, 1, 1, "sit", "t", canonical({"seat": 1}))
    assert h != chain_hash(GENESIS, 1, 1, "sit", "u", canonical({"seat": 1}))


@pytest.mark.postgres
def test_migrated_schema_equals_the_models(tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from sidebet.serve.db import make_engine, migrate
    from sidebet.serve.models import Base

    from .harness import database_url

    engine = make_engine(database_url(tmp_path))
    migrate(engine)
    migrate(engine)  # idempotent
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()


def test_help_imports_no_server_libraries() -> None:
    code = ("import sys; from sidebet.cli.main import app; "
            "bad = [m for m in ('fastapi', 'sqlalchemy', 'uvicorn', 'alembic') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_bad_database_url_is_one_line(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "sidebet", "serve", "--database-url",
                        "mysql://x/y"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: --database-url")
