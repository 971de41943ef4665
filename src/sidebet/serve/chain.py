"""The event log's hash chain, canonical JSON and timestamps (no database needed, so
``sidebet audit`` runs offline)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

__all__ = ["EXPORT_FORMAT", "GENESIS", "canonical", "chain_hash", "utc_now"]

GENESIS = "0" * 64
"""The ``prev_hash`` of a table's first event."""

EXPORT_FORMAT = "sidebet-table-log/1"
"""The header line of an exported log names this format."""


def utc_now() -> str:
    """Now, as UTC ISO-8601 text with microseconds and ``Z``.

    >>> import re; bool(re.fullmatch(r"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z", utc_now()))
    True
    """
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def canonical(data: Any) -> str:
    """Canonical JSON text: sorted keys, no spaces, UTF-8 kept.

    >>> canonical({"b": 1, "a": [1, "é"]})
    '{"a":[1,"é"],"b":1}'
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, table: int, seq: int, kind: str, at: str, payload: str) -> str:
    """An event's hash: SHA-256 over the previous hash and the event's canonical JSON
    (``payload`` already canonical text).

    >>> len(chain_hash(GENESIS, 1, 1, "table", "t", "{}"))
    64
    """
    body = canonical({"at": at, "kind": kind, "payload": json.loads(payload), "seq": seq,
                      "table": table})
    return hashlib.sha256((prev_hash + "\n" + body).encode()).hexdigest()
