"""Table server load: 50 concurrent players over 10 tables, on SQLite and on PostgreSQL.

A real ``sidebet serve`` process on the loopback interface (127.0.0.1 only); each player is
a thread with its own HTTP connection that reads its table's state and posts one of its
seat's legal actions (bet 10.00, deal, collect the Press, decline insurance, hit below 12,
stand), until it has made ``ACTIONS`` posts or ``SECONDS`` have passed.  Reported: posts
acknowledged per second (201), refusals (409: another player moved first), and the
latency of the posts (p50, p99), measured by the client (whole round trip, whole process).

Bounded: at most 50 x ACTIONS posts and SECONDS seconds per database.  PostgreSQL is
started with ``scripts/postgres.sh`` (and stopped afterwards); ``--sqlite-only`` skips it.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_server.py``.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve.harness import Api, Server, make_table  # noqa: E402

PLAYERS, TABLES = 50, 10
ACTIONS = int(os.environ.get("BENCH_ACTIONS", "40"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "20"))


def cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def player(api: Api, t: int, seat: int, stop_at: float, out: dict[str, list[float]]) -> None:
    latencies, refused = out.setdefault("latency", []), out.setdefault("refused", [])
    done = 0
    while done < ACTIONS and time.monotonic() < stop_at:
        state = api.get(f"/api/tables/{t}/state")
        legal = {x["action"]: x for x in state["seats"][seat - 1]["legal"]}
        body: dict[str, Any] | None = None
        mine = state["seats"][seat - 1].get("hands") or []
        if "bet" in legal and "blackjack" in legal["bet"]["wagers"]:
            action, body = "bets", {"wager": "blackjack", "amount": "10.00"}
        elif "deal" in legal:
            action = "deal"
        elif "press" in legal or "insurance" in legal:
            action, body = ("press" if "press" in legal else "insurance"), {"amount": "0"}
        elif "hit" in legal and mine and _total(mine[-1]["cards"]) < 12:
            action = "hit"
        elif "stand" in legal:
            action = "stand"
        else:
            time.sleep(0.005)
            continue
        start = time.perf_counter()
        r = api.act(t, seat, action, body, expect=None)
        elapsed = time.perf_counter() - start
        if r.status_code == 201:
            latencies.append(elapsed)
            done += 1
        elif r.status_code in (409, 422):
            refused.append(elapsed)
        else:
            raise RuntimeError(f"{action}: {r.status_code} {r.text}")


def _total(cards: str) -> int:
    values = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
    return sum(values.get(c[0], int(c[0]) if c[0].isdigit() else 10) for c in cards.split())


def run(label: str, db_url: str) -> None:
    server = Server(db_url, test_seed=None).start()
    try:
        op = Api.operator(server.url)
        tables = [make_table(op) for _ in range(TABLES)]
        seats = [(tables[i % TABLES], i // TABLES + 1) for i in range(PLAYERS)]
        apis = []
        for i, (t, s) in enumerate(seats):
            api = Api.player(server.url, f"bench{i}")
            api.post(f"/api/tables/{t}/seats/{s}", expect=201)
            apis.append(api)
        outs: list[dict[str, list[float]]] = [{} for _ in apis]
        stop_at = time.monotonic() + SECONDS
        threads = [threading.Thread(target=player, args=(api, t, s, stop_at, out))
                   for api, (t, s), out in zip(apis, seats, outs, strict=True)]
        start = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - start
        lat = sorted(x for o in outs for x in o.get("latency", []))
        refused = sum(len(o.get("refused", [])) for o in outs)
        rec = op.get("/api/reconcile")
        assert rec["conserved"], rec
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"{label:<11} {len(lat):6d} actions in {wall:5.1f} s = {len(lat) / wall:7.1f} "
              f"actions/s   p50 {statistics.median(lat) * 1e3:7.1f} ms   "
              f"p99 {p99 * 1e3:7.1f} ms   refused {refused}   money conserved")
    finally:
        server.stop()


def main() -> None:
    print(f"table server load: {PLAYERS} players over {TABLES} tables, loopback, "
          f"<= {ACTIONS} actions each, <= {SECONDS:.0f} s; {cpu()}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        run("SQLite", f"sqlite:///{tmp}/bench.db")
    if "--sqlite-only" in sys.argv:
        return
    script = ROOT / "scripts" / "postgres.sh"
    url = subprocess.run([str(script), "start"], check=True, capture_output=True,
                         text=True).stdout.strip()
    try:
        import psycopg

        name = f"sidebet_bench_{os.getpid()}"
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"),
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        head, _, tail = url.partition("?")
        run("PostgreSQL", f"{head.rsplit('/', 1)[0]}/{name}?{tail}")
    finally:
        subprocess.run([str(script), "stop"], check=False)


if __name__ == "__main__":
    main()
