"""Table server growth: bytes stored per action and the time to load a table (start-up,
takeover) against the length of its log, with snapshots and without.

In process, on SQLite: three players at one table play rounds through the server's
services (bet 10.00, deal, collect the Press, decline insurance, stand), each request with
an ``Idempotency-Key``, until the log holds ``N`` events; then the database file's size
(after a checkpoint) per acknowledged action, and the median of three loads of the table
from its log.  ``BENCH_BEFORE=../other/src`` also runs another checkout's server in the
same run (its loads replay the whole log).

The database runs with ``synchronous=OFF`` while the log is built (what is measured is
what is stored and how long a load takes, not the commits).

Run: ``.venv/bin/python benchmarks/bench_server_growth.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LENGTHS = [int(n) for n in os.environ.get("BENCH_EVENTS", "1000,4000").split(",")]
BEFORE = os.environ.get("BENCH_BEFORE")


def measure(events: int) -> dict[str, Any]:
    """Build a table's log of ``events`` events; its bytes per action and load times."""
    from sqlalchemy import event

    from sidebet.serve.db import make_engine
    from sidebet.serve.service.services import Services
    from sidebet.serve.settings import load_settings

    sys.path.insert(0, str(ROOT))
    from tests.serve.harness import ROUTE_STEPS, simple_action

    submission = (ROOT / "examples" / "table-6deck.toml").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/growth.db"
        engine = make_engine(url)

        @event.listens_for(engine, "connect")
        def _fast(conn: Any, _record: Any) -> None:
            conn.execute("PRAGMA synchronous=OFF")

        sv = Services.open(engine, load_settings(database_url=url,
                                                 operator_password="operator-secret-1"))
        _, info = sv.tables.create(sv.accounts.operator(), submission, seats=7, unit="1.00",
                                   time_limit=0, default_action="stand", key=None)
        t = int(info["id"])
        players = []
        for seat in (1, 2, 3):
            name = f"growth-{seat}"
            sv.accounts.create(name, "password-" + name)
            who = sv.accounts.authenticate(sv.accounts.login(name, "password-" + name)["token"])
            sv.wallet.move(who, "deposit", "100000.00", uuid.uuid4().hex)
            sv.tables.sit(who, t, seat, None)
            players.append(who)
        actions = 0
        while sv.core.live(t).seq < events:
            for seat, who in enumerate(players, 1):
                chosen = simple_action(sv.tables.info(t)["state"], seat)
                if chosen is None:
                    continue
                route, body = chosen
                body = body or {}
                sv.rounds.act(who, t, seat, ROUTE_STEPS[route], body.get("amount"),
                              body.get("wager"), key=uuid.uuid4().hex)
                actions += 1
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        size = Path(tmp, "growth.db").stat().st_size

        def load_time(**options: Any) -> float:
            times = []
            for _ in range(3):
                start = time.perf_counter()
                sv.core.load(t, **options)
                times.append(time.perf_counter() - start)
            return statistics.median(times)

        out = {"events": sv.core.live(t).seq, "actions": actions,
               "bytes_per_action": size / actions, "load_s": load_time()}
        if "snapshots" in sv.core.load.__code__.co_varnames:
            out["load_full_s"] = load_time(snapshots=False)
        engine.dispose()
        return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(measure(int(sys.argv[2]))))
        return
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "?")
    print(f"table server growth: 3 players at one table, SQLite; {cpu}, "
          f"{os.cpu_count()} CPUs", flush=True)
    for n in LENGTHS:
        for label, source in (("before", BEFORE), ("sidebet", None)):
            if label == "before" and source is None:
                continue
            env = dict(os.environ)
            env["SIDEBET_CACHE_DIR"] = env.get("SIDEBET_CACHE_DIR", tempfile.gettempdir())
            if source is not None:
                env["PYTHONPATH"] = source
            got = json.loads(subprocess.run(
                [sys.executable, __file__, "--one", str(n)], env=env, check=True,
                capture_output=True, text=True).stdout)
            full = got.get("load_full_s")
            print(f"{label:<8} {got['events']:6d} events ({got['actions']:5d} actions): "
                  f"{got['bytes_per_action']:7.0f} bytes/action   load "
                  f"{got['load_s'] * 1e3:7.1f} ms" + (
                      "" if full is None else f" (whole log: {full * 1e3:7.1f} ms)"),
                  flush=True)


if __name__ == "__main__":
    main()
