"""The provably fair shoe (§ 810a.5): a committed server seed, client seeds, an HMAC-driven
Fisher–Yates shuffle.

Algorithm ``sidebet-fy-hmac-sha256/1`` (stamped in every game record):

1. The server draws a 32-byte ``server_seed`` (:func:`secrets.token_bytes`) and publishes
   ``commitment = sha256(server_seed).hexdigest()`` before the shoe is used.
2. Players may give client seeds (text) until the shoe's first card is dealt.
3. The random stream is the concatenation, for ``counter = 0, 1, ...``, of
   ``HMAC-SHA256(key=server_seed, msg=canonical_json({"client_seeds": [...], "counter": counter,
   "nonce": nonce}))`` where ``canonical_json`` is :func:`json.dumps` with sorted keys,
   ``separators=(",", ":")`` and ASCII escapes, and ``nonce`` is ``"<table id>:<shoe number>"``.
   The stream is read as big-endian unsigned 32-bit words.
4. A uniform integer below ``m`` takes the next word ``w`` and rejects it while
   ``w >= 2**32 - 2**32 % m`` (no modulo bias).
5. The shoe starts as :func:`sidebet.table.unshuffled_order` (``decks`` copies of the card
   indices 0..51, deck by deck) and is shuffled by Fisher–Yates: for ``i`` from ``n - 1``
   down to 1, ``j`` = uniform below ``i + 1``, swap positions ``i`` and ``j``.
6. After the shoe the server seed is revealed; anyone recomputes 1–5.

>>> seed = bytes(range(32))
>>> c = commitment(seed)
>>> order = shuffle(seed, ["alice"], "1:0", decks=1)
>>> sorted(order) == list(range(52)), verify_seed(seed, c)
(True, True)
>>> shuffle(seed, ["alice"], "1:0", decks=1) == order != shuffle(seed, ["bob"], "1:0", decks=1)
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterator, Sequence

from sidebet.table import unshuffled_order

__all__ = [
    "ALGORITHM",
    "commitment",
    "new_server_seed",
    "random_words",
    "shuffle",
    "test_server_seed",
    "verify_seed",
]

ALGORITHM = "sidebet-fy-hmac-sha256/1"
"""Name and version of the shuffle; a change of any step above gets a new version."""


def new_server_seed() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


def test_server_seed(text: str, table: int, shoe: int) -> bytes:
    """A predictable server seed, for tests only (``sidebet serve --test-seed``): SHA-256 of
    ``"sidebet-test-seed:<text>:<table>:<shoe>"``.  Never use it for play."""
    return hashlib.sha256(f"sidebet-test-seed:{text}:{table}:{shoe}".encode()).digest()


def commitment(server_seed: bytes) -> str:
    """SHA-256 hex digest of the server seed (published before the shoe is used)."""
    return hashlib.sha256(server_seed).hexdigest()


def verify_seed(server_seed: bytes, digest: str) -> bool:
    """Whether a revealed server seed matches its published commitment."""
    return secrets.compare_digest(commitment(server_seed), digest)


def _message(client_seeds: Sequence[str], nonce: str, counter: int) -> bytes:
    data = {"client_seeds": list(client_seeds), "counter": counter, "nonce": nonce}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def random_words(server_seed: bytes, client_seeds: Sequence[str], nonce: str) -> Iterator[int]:
    """The endless stream of 32-bit words (step 3)."""
    counter = 0
    while True:
        block = hmac.digest(server_seed, _message(client_seeds, nonce, counter), "sha256")
        for k in range(0, 32, 4):
            yield int.from_bytes(block[k:k + 4], "big")
        counter += 1


def _below(words: Iterator[int], m: int) -> int:
    limit = 2**32 - 2**32 % m
    while True:
        w = next(words)
        if w < limit:
            return w % m


def shuffle(server_seed: bytes, client_seeds: Sequence[str], nonce: str, decks: int) -> list[int]:
    """The shoe's dealing order (card indices 0..51) by steps 3–5."""
    order = [int(i) for i in unshuffled_order(decks)]
    words = random_words(server_seed, client_seeds, nonce)
    for i in range(len(order) - 1, 0, -1):
        j = _below(words, i + 1)
        order[i], order[j] = order[j], order[i]
    return order
