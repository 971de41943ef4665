"""What the read rate's shared bucket costs a read (``serve/throttle.py``): the
process's own token bucket (SQLite's, and the first look of PostgreSQL's) against the
bucket in PostgreSQL's ``read_buckets`` (one UPSERT), interleaved ``BENCH_REPEAT`` times,
``BENCH_READS`` reads each over 50 addresses; then a refused read of an address whose
bucket is empty (answered by the process's own bucket, without the database).

PostgreSQL is the server at ``BENCH_POSTGRES`` (a maintenance database's URL) or one
started with ``scripts/postgres.sh`` (and stopped afterwards); a fresh database is made
and dropped.  Run: ``.venv/bin/python benchmarks/bench_read_bucket.py``.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_server import cpu, on_postgres  # noqa: E402
from sidebet.serve.db import make_engine, migrate  # noqa: E402
from sidebet.serve.throttle import Bucket, ReadLimit, SharedBucket  # noqa: E402

READS = int(os.environ.get("BENCH_READS", "2000"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "3"))


def per_read(limit: ReadLimit, reads: int) -> tuple[float, float]:
    """Microseconds of wall and CPU time per read."""
    wall, busy = time.perf_counter(), time.process_time()
    for i in range(reads):
        limit.take(f"10.0.{i % 50}.1")
    return ((time.perf_counter() - wall) / reads * 1e6,
            (time.process_time() - busy) / reads * 1e6)


def measure(server: str) -> None:
    plain = server.replace("postgresql+psycopg://", "postgresql://")
    name = f"sidebet_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    head, _, tail = server.partition("?")
    engine = make_engine(f"{head.rsplit('/', 1)[0]}/{name}" + (f"?{tail}" if tail else ""))
    try:
        migrate(engine)
        limits: dict[str, ReadLimit] = {
            "own bucket": Bucket(rate=1e6, burst=10**9),
            "shared bucket": SharedBucket(engine, rate=1e6, burst=10**9)}
        for run in range(1, REPEAT + 1):
            for label, limit in limits.items():
                wall, busy = per_read(limit, READS)
                print(f"run {run}  {label:14s} {wall:8.1f} us wall  {busy:7.1f} us CPU "
                      "per read", flush=True)
        empty = SharedBucket(engine, rate=1e-3, burst=1)
        empty.take("10.9.9.9")
        wall, busy = per_read(_Same(empty, "10.9.9.9"), READS)
        print(f"refused, bucket empty: {wall:.1f} us wall, {busy:.1f} us CPU per read "
              "(no database)", flush=True)
    finally:
        engine.dispose()
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}"')


class _Same:
    """Every read from one address."""

    def __init__(self, limit: ReadLimit, key: str) -> None:
        self.limit, self.key = limit, key

    def take(self, _key: str) -> float:
        return self.limit.take(self.key)


def main() -> None:
    load = os.getloadavg()[0]
    print(f"read rate per address: own vs shared (PostgreSQL) bucket; {cpu()}, "
          f"{os.cpu_count()} CPUs, load average {load:.1f}", flush=True)
    on_postgres(measure)


if __name__ == "__main__":
    main()
