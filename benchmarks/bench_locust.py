"""Table server load with Locust: 50 players over 10 tables (``locustfile.py``), headless,
bounded in time, on the loopback interface only.

A real ``sidebet serve`` process (127.0.0.1) on a fresh SQLite database, and on PostgreSQL
when ``BENCH_POSTGRES`` names a server's maintenance database (``scripts/postgres.sh start``
prints one); the operator makes the tables, then Locust runs ``USERS`` players for
``SECONDS`` seconds (the players are signed up and seated before).  Reported from Locust's statistics: acknowledged actions per second and
their p50 and p99 round trip, all posts (refusals included) and reads per second.  With
``BENCH_WORKERS=N`` (and ``BENCH_POSTGRES``) the PostgreSQL run is made with one process
and then with ``sidebet serve --workers N`` on a fresh database each, ``BENCH_REPEAT``
times (default 1) in turn, so that 1 and N processes meet the same load of the machine.

Needs Locust (``pip install -e '.[load]'``).  Run: ``.venv/bin/python
benchmarks/bench_locust.py``.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_server import cpu, postgres_databases  # noqa: E402
from tests.serve.harness import Api, Server, make_table  # noqa: E402

USERS, TABLES = 50, 10
SECONDS = int(os.environ.get("BENCH_SECONDS", "20"))
_runs = itertools.count()


def run(label: str, db_url: str, tmp: Path, workers: int = 1) -> None:
    """Locust against one server on ``db_url`` (``workers`` processes); one line of
    figures."""
    extra = ["--workers", str(workers)] if workers > 1 else []
    server = Server(db_url, test_seed=None, extra=extra).start()
    try:
        op = Api.operator(server.url)
        tables = [make_table(op) for _ in range(TABLES)]
        players = []
        for i in range(USERS):
            table, seat = tables[i % TABLES], i // TABLES + 1
            api = Api.player(server.url, f"locust{i}")
            api.post(f"/api/tables/{table}/seats/{seat}", expect=201)
            token = api.http.headers["Authorization"].removeprefix("Bearer ")
            players.append({"token": token, "table": table, "seat": seat})
        prefix = tmp / f"run{next(_runs)}"
        seated = tmp / f"{prefix.name}-players.json"
        seated.write_text(json.dumps(players))
        env = {**os.environ, "SIDEBET_LOCUST_PLAYERS": str(seated)}
        done = subprocess.run([sys.executable, "-m", "locust", "-f",
                        str(ROOT / "benchmarks" / "locustfile.py"), "--headless",
                        "-u", str(USERS), "-r", str(USERS), "-t", f"{SECONDS}s",
                        "--host", server.url, "--csv", str(prefix), "--only-summary",
                        "--stop-timeout", "15", "--loglevel", "WARNING"],
                       env=env, check=False, capture_output=True, timeout=SECONDS + 120)
        with open(f"{prefix}_stats.csv", newline="") as fh:
            rows = {row["Name"]: row for row in csv.DictReader(fh)}
        if "acknowledged" not in rows:
            raise RuntimeError(f"locust acknowledged no action: {sorted(rows)}\n"
                               f"{done.stderr[-3000:].decode(errors='replace')}")
        ack, post, state = rows["acknowledged"], rows["post"], rows["state"]
        print(f"{label:<16} {int(ack['Request Count']):6d} actions = "
              f"{float(ack['Requests/s']):7.1f} acknowledged/s   p50 {ack['50%']:>5} ms   "
              f"p99 {ack['99%']:>5} ms   posts {float(post['Requests/s']):6.1f}/s "
              f"(failed {post['Failure Count']})   reads {float(state['Requests/s']):6.1f}/s",
              flush=True)
        rec = op.get("/api/reconcile")
        assert rec["conserved"], rec
    finally:
        server.stop()


def main() -> None:
    import importlib.util

    if importlib.util.find_spec("locust") is None:
        print("bench_locust: not run: Locust is not installed (pip install -e '.[load]')")
        return
    given = os.environ.get("BENCH_POSTGRES")
    workers = int(os.environ.get("BENCH_WORKERS", "1"))
    if workers > 1 and not given:
        print("bench_locust: BENCH_WORKERS needs PostgreSQL (BENCH_POSTGRES)")
        return
    print(f"Locust: {USERS} players over {TABLES} tables, {SECONDS} s, loopback; "
          f"{cpu()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if workers == 1:
            run("SQLite", f"sqlite:///{tmp}/locust.db", tmp)
        if given:
            fresh = postgres_databases(given)
            for _ in range(int(os.environ.get("BENCH_REPEAT", "1"))):
                for procs in sorted({1, workers}):
                    label = f"PostgreSQL x{procs}" if workers > 1 else "PostgreSQL"
                    run(label, fresh(), tmp, procs)
                    print(f"{'':<16} load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
