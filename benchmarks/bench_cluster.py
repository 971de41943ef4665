"""Several server processes on one PostgreSQL against one: ``sidebet serve --workers 2``
and ``sidebet serve`` under the load of ``bench_server.py`` (50 players over 10 tables on
the loopback interface, the same player threads), run one after the other on fresh
databases of one PostgreSQL server, ``BENCH_REPEAT`` times, interleaved.

Reported per run: acknowledged actions per second, p50 and p99 of the posts, refusals,
reads per action, the servers' CPU time per action (every process of the server: the
workers and the process that started them), and the ratio of 2 processes to 1.  With two
processes each owns about half of the tables; a player whose connection reached the other
process has its writes forwarded to the owner.

Bounded like ``bench_server.py`` (``BENCH_ACTIONS``, ``BENCH_SECONDS``).  PostgreSQL is the
server at ``BENCH_POSTGRES`` (a maintenance database's URL) or one started with
``scripts/postgres.sh`` (and stopped afterwards).

Run: ``.venv/bin/python benchmarks/bench_cluster.py``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from tests.serve.harness import Server  # noqa: E402

import bench_server  # noqa: E402
from bench_server import (  # noqa: E402
    ACTIONS,
    PLAYERS,
    REPEAT,
    SECONDS,
    TABLES,
    Result,
    cpu,
    measure,
    on_postgres,
    postgres_databases,
)

_process_cpu = bench_server.cpu_seconds


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and of its children (the workers), live ones only."""
    total = _process_cpu(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            with contextlib.suppress(FileNotFoundError):  # a worker that just ended
                total += tree_cpu_seconds(int(child))
    return total


bench_server.cpu_seconds = tree_cpu_seconds  # load() measures every process of the server


def run(db_url: str, workers: int) -> Result:
    """``sidebet serve --workers N`` under the load; money conserved afterwards."""
    return measure(Server(db_url, test_seed=None, extra=["--workers", str(workers)]).start())


def compare(fresh_url: str) -> None:
    """1 and 2 processes, interleaved, and their ratio."""
    fresh = postgres_databases(fresh_url)
    for _ in range(REPEAT):
        one = run(fresh(), 1)
        print(one.line("1 process") + "   money conserved", flush=True)
        two = run(fresh(), 2)
        print(two.line("2 processes") + "   money conserved", flush=True)
        print(f"2 processes / 1: {two.rate / one.rate:.2f} x the rate; "
              f"p99 {two.p99 * 1e3:.0f} ms vs {one.p99 * 1e3:.0f} ms", flush=True)


def main() -> None:
    print(f"table server on PostgreSQL, 1 process vs 2: {PLAYERS} players over {TABLES} "
          f"tables, loopback, <= {ACTIONS} actions each, <= {SECONDS:.0f} s; {cpu()}, "
          f"{os.cpu_count()} CPUs", flush=True)
    on_postgres(compare)


if __name__ == "__main__":
    main()
