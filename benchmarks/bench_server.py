"""Table server load: 50 concurrent players over 10 tables, on SQLite and on PostgreSQL,
against a baseline that makes one durable commit per request.

A real ``sidebet serve`` process on the loopback interface (127.0.0.1 only); each player is
a thread with its own HTTP connection that plays as the web page does: it keeps the table's
state from the answer to its own post, and reads it only when it has nothing to do, with
``?after=SEQ&seat=N`` (once the table has moved on and the seat's legal actions or the
seated players have changed).  Its posts: bet 10.00, deal (done betting: the table's
bets close when every seated player is), collect the Press, decline insurance, hit below
12, stand.  After ``SECONDS`` seconds (the saturation window, 20 by default:
``BENCH_SECONDS``; ``BENCH_ACTIONS`` caps each player's posts for a shorter run) it bets no
more, finishes its round and leaves.  Reported: posts acknowledged per second (201), refusals (409),
the latency of the posts (p50, p99), measured by the client (whole round trip, whole
process), reads per action, and the CPU time per action of the server and of the
benchmark's own client threads.

First, for each database, one client at one table: the server process's CPU time per
``GET /state`` and per action (what a request costs, however loaded the machine).

The baseline (``baseline_app.py``, run first on a fresh database of the same kind) is a
minimal FastAPI app whose every post makes one durable commit, with the server's database
settings; the same 50 threads read a state and post, and the ratio of the two rates is
printed.  ``BENCH_BEFORE=../other/src`` also runs another checkout's server in the same run.

Bounded: ``SECONDS`` seconds per server (plus at most
``GRACE`` seconds to finish the rounds in progress).  PostgreSQL is the
server at ``BENCH_POSTGRES`` (a maintenance database's URL) or one started with
``scripts/postgres.sh`` (and stopped afterwards); ``--sqlite-only`` skips it,
``--postgres-only`` skips SQLite.

Then, paced (latency at a stated load): the baseline and sidebet again, each offered the
same rate, ``BENCH_PACED_RATE`` posts per second for the 50 players together (by default
half of the lower of the two saturation rates just measured): a post waits for the next
slot of one shared schedule, a slot every 1/rate seconds, which no post may take early and
which is lost when no player is ready for it (so the offered rate is a ceiling, and the
rate reached is reported).  Its p50 and p99 are the service's latency at that load, not
the queue of 50 players posting with no think time.  ``BENCH_PACED=0`` skips it.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_server.py``.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve.harness import (  # noqa: E402
    Api,
    Server,
    free_port,
    make_table,
    simple_action,
)

PLAYERS, TABLES = 50, 10
ACTIONS = int(os.environ.get("BENCH_ACTIONS", "1000000"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "20"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "1"))
GRACE = 30.0
"""Seconds after ``SECONDS`` within which the players finish their rounds and leave."""
PACED = os.environ.get("BENCH_PACED", "1") != "0"
PACED_RATE = float(os.environ.get("BENCH_PACED_RATE", "0"))
"""Posts per second offered in the paced runs (0: half the lower saturation rate)."""
BEFORE = os.environ.get("BENCH_BEFORE")
"""The ``src`` folder of another checkout, run in the same benchmark for a before/after."""
_numbers = itertools.count()


def cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


class Http:
    """A player's keep-alive HTTP/1.1 connection, on ``http.client`` (a fraction of httpx's
    CPU per request: the client threads share the 2 cores with the server under test), with
    the bearer token of a signed-in :class:`Api`; every POST carries a fresh
    Idempotency-Key."""

    def __init__(self, api: Api) -> None:
        url = urllib.parse.urlsplit(api.url)
        assert url.hostname is not None
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        token = api.http.headers.get("Authorization")
        self.headers = {} if token is None else {"Authorization": token}

    def get(self, path: str, **params: Any) -> Any:
        """The JSON answer to a GET (which must succeed)."""
        self.conn.request("GET", path + ("?" + urllib.parse.urlencode(params) if params
                                         else ""), headers=self.headers)
        r = self.conn.getresponse()
        text = r.read()
        assert r.status == 200, (r.status, text)
        return json.loads(text)

    def post(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """The status and JSON answer of a POST."""
        headers = {**self.headers, "Idempotency-Key": uuid.uuid4().hex}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request("POST", path, body=data, headers=headers)
        r = self.conn.getresponse()
        return r.status, json.loads(r.read())


class Pacer:
    """One schedule for all the players: a slot every ``1 / rate`` seconds; a post waits
    for the next free slot (none is taken early), and a slot no player was ready for is
    lost.  ``None`` as a rate: no pacing (saturation)."""

    def __init__(self, rate: float | None) -> None:
        self.interval = None if rate is None else 1.0 / rate
        self.next = 0.0
        self.lock = threading.Lock()

    def wait(self) -> None:
        """Sleep until this post's slot."""
        if self.interval is None:
            return
        with self.lock:
            now = time.monotonic()
            slot = max(self.next, now)
            self.next = slot + self.interval
        if slot > now:
            time.sleep(slot - now)


Body = Callable[["Http", int, int, float, dict[str, list[float]], Pacer], None]


def player(api: Http, t: int, seat: int, stop_at: float, out: dict[str, list[float]],
           pacer: Pacer) -> None:
    """One seat's player, as the web page plays: the state from the last post's answer
    (read only when that answer carried none, or with ``?after=SEQ`` when waiting for the
    table to move).  It bets until it has made ``ACTIONS`` posts or the time is up, then
    finishes its round and leaves; the lowest seated player deals once every seated
    player has bet (no race for the deal)."""
    latencies, refused = out.setdefault("latency", []), out.setdefault("refused", [])
    reads = out.setdefault("reads", [])
    done, after = 0, None
    state: dict[str, Any] | None = None
    while time.monotonic() < stop_at + GRACE:
        if state is None:  # the answer to the last post carried none, or there is news
            state = api.get(f"/api/tables/{t}/state", **({} if after is None else
                                                         {"after": after, "seat": seat}))
            reads.append(1.0)
        after = None
        chosen = _choice(state, seat, done >= ACTIONS or time.monotonic() >= stop_at)
        if chosen is None:  # nothing to do: wait for the table's next event
            after, state = state["seq"], None
            continue
        action, body = chosen
        pacer.wait()
        start = time.perf_counter()
        status, answer = api.post(f"/api/tables/{t}/seats/{seat}/{action}", body)
        elapsed = time.perf_counter() - start
        state = None
        if status == 201:
            latencies.append(elapsed)
            out.setdefault("latency " + action, []).append(elapsed)
            out.setdefault("last", [0.0])[0] = time.perf_counter()
            done += 1
            if action == "leave":
                return
            state = answer["state"]  # as the web page does: no read after a post
        elif status in (409, 422):
            refused.append(elapsed)
            out.setdefault("refused " + action, []).append(elapsed)
        else:
            raise RuntimeError(f"{action}: {status} {answer}")


def _choice(state: dict[str, Any], seat: int, finishing: bool
            ) -> tuple[str, dict[str, Any] | None] | None:
    """The seat's next post (route, body), ``None`` when it has nothing to do: bet 10.00,
    deal once its bet is placed (done betting: the last seated player's deal closes the
    bets), collect the Press, decline insurance, hit below 12, stand; once ``finishing``,
    no bet, and leave when it may."""
    me = state["seats"][seat - 1]
    legal = {x["action"]: x for x in me["legal"]}
    hands = me.get("hands") or []
    if finishing and "leave" in legal:
        return "leave", None
    if not finishing and "bet" in legal and "blackjack" in legal["bet"]["wagers"]:
        return "bets", {"wager": "blackjack", "amount": "10.00"}
    if "deal" in legal and "blackjack" in me["bets"]:
        return "deal", None
    if "press" in legal or "insurance" in legal:
        return ("press" if "press" in legal else "insurance"), {"amount": "0"}
    if "hit" in legal and hands and _total(hands[-1]["cards"]) < 12:
        return "hit", None
    if "stand" in legal:
        return "stand", None
    return None


def _total(cards: str) -> int:
    values = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
    return sum(values.get(c[0], int(c[0]) if c[0].isdigit() else 10) for c in cards.split())


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(pid: int, seats: list[tuple[int, int]], apis: list[Api], body: Body,
         rate: float | None = None) -> Result:
    """Run one player thread per seat until each has made ``ACTIONS`` posts or ``SECONDS``
    have passed (paced at ``rate`` posts per second in all, if given); the acknowledged
    posts' rate and latencies, and the CPU time the server process ``pid`` used
    meanwhile."""
    outs: list[dict[str, list[float]]] = [{} for _ in apis]
    used, client = cpu_seconds(pid), time.process_time()
    stop_at = time.monotonic() + SECONDS
    pacer = Pacer(rate)
    threads = [threading.Thread(target=body, args=(Http(api), t, s, stop_at, out, pacer))
               for api, (t, s), out in zip(apis, seats, outs, strict=True)]
    start = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    used, client = cpu_seconds(pid) - used, time.process_time() - client
    # until the last acknowledged post (a player waiting for news when the others have
    # stopped is not the server's time)
    wall = max(o.get("last", [start])[0] for o in outs) - start
    lat = sorted(x for o in outs for x in o.get("latency", []))
    refused = sum(len(o.get("refused", [])) for o in outs)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    reads = sum(len(o.get("reads", [])) for o in outs)
    by_action = dict(sum((Counter({k.split(" ", 1)[1]: len(v) for k, v in o.items()
                                   if k.startswith("refused ")}) for o in outs), Counter()))
    return Result(len(lat), wall, statistics.median(lat), p99, refused, reads, used, client,
                  by_action)


@dataclass(frozen=True)
class Result:
    """One load run: acknowledged posts, wall time, latencies (s), refusals."""

    actions: int
    wall: float
    p50: float
    p99: float
    refused: int
    reads: int
    cpu: float
    """CPU seconds the server process used during the run."""
    client: float = 0.0
    """CPU seconds the benchmark's own process (the player threads) used meanwhile."""
    refusals: dict[str, int] = field(default_factory=dict)
    """Refusals by the action refused."""

    @property
    def rate(self) -> float:
        """Acknowledged posts per second."""
        return self.actions / self.wall

    def line(self, label: str) -> str:
        """The run as one line of the report."""
        return (f"{label:<22} {self.actions:6d} actions in {self.wall:5.1f} s = "
                f"{self.rate:7.1f} actions/s   p50 {self.p50 * 1e3:7.1f} ms   "
                f"p99 {self.p99 * 1e3:7.1f} ms   refused {self.refused:4d}   "
                f"reads {self.reads / max(self.actions, 1):4.1f}/action   server CPU "
                f"{self.cpu / max(self.actions, 1) * 1e3:5.2f} ms/action, client CPU "
                f"{self.client / max(self.actions, 1) * 1e3:5.2f} ms/action"
                + (f"   refused: {self.refusals}" if self.refusals else ""))


def seating() -> list[tuple[int, int]]:
    """(table, seat) of each player: ``PLAYERS`` spread over ``TABLES``."""
    return [(i % TABLES + 1, i // TABLES + 1) for i in range(PLAYERS)]


def run_sidebet(db_url: str, source: str | None = None, rate: float | None = None
                ) -> Result:
    """``sidebet serve`` under the load (from the ``src`` folder ``source``, another
    checkout, when given); checks money is conserved afterwards."""
    saved = os.environ.get("PYTHONPATH")
    if source is not None:
        os.environ["PYTHONPATH"] = source
    try:
        server = Server(db_url, test_seed=None).start()
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return measure(server, rate)


def measure(server: Server, rate: float | None = None) -> Result:
    """The players' load on a started ``sidebet serve`` (stopped afterwards); checks money
    is conserved afterwards."""
    try:
        op = Api.operator(server.url)
        tables = [make_table(op) for _ in range(TABLES)]
        seats = [(tables[t - 1], s) for t, s in seating()]
        apis = []
        for i, (t, s) in enumerate(seats):
            api = Api.player(server.url, f"bench{i}")
            api.post(f"/api/tables/{t}/seats/{s}", expect=201)
            apis.append(api)
        assert server.proc is not None
        result = load(server.proc.pid, seats, apis, player, rate)
        rec = op.get("/api/reconcile")
        assert rec["conserved"], rec
        return result
    finally:
        server.stop()


def baseline_player(api: Http, t: int, seat: int, stop_at: float,
                    out: dict[str, list[float]], pacer: Pacer) -> None:
    """The same pattern against the baseline: read the table's state, post an action."""
    latencies, reads = out.setdefault("latency", []), out.setdefault("reads", [])
    done = 0
    while done < ACTIONS and time.monotonic() < stop_at:
        api.get(f"/api/tables/{t}/state")
        reads.append(1.0)
        pacer.wait()
        start = time.perf_counter()
        status, _ = api.post(f"/api/tables/{t}/seats/{seat}/bets",
                             {"wager": "blackjack", "amount": "10.00"})
        assert status == 201, status
        latencies.append(time.perf_counter() - start)
        out.setdefault("last", [0.0])[0] = time.perf_counter()
        done += 1


def run_baseline(db_url: str, rate: float | None = None) -> Result:
    """``baseline_app.py`` (one durable commit per post) under the same load."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "baseline_app.py"),
                             db_url, str(port)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/api/tables/1/state", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the baseline app did not start")
            time.sleep(0.05)
        seats = seating()
        return load(proc.pid, seats, [Api(url) for _ in seats], baseline_player, rate)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def per_request(db_url: str, source: str | None = None) -> tuple[float, float]:
    """Server CPU time (ms) per ``GET /state`` and per acknowledged action, one client at
    one table (robust where the machine is shared: CPU time, not wall time)."""
    saved = os.environ.get("PYTHONPATH")
    if source is not None:
        os.environ["PYTHONPATH"] = source
    try:
        server = Server(db_url, test_seed=None).start()
    finally:
        os.environ.pop("PYTHONPATH", None)
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    try:
        assert server.proc is not None
        pid = server.proc.pid
        t = make_table(Api.operator(server.url))
        api = Api.player(server.url, "solo")
        api.post(f"/api/tables/{t}/seats/1", expect=201)
        reads, actions = 200, 150
        used = cpu_seconds(pid)
        for _ in range(reads):
            api.get(f"/api/tables/{t}/state")
        per_read = (cpu_seconds(pid) - used) / reads
        used = cpu_seconds(pid)
        for _ in range(actions):
            chosen = simple_action(api.get(f"/api/tables/{t}/state"), 1)
            assert chosen is not None
            api.act(t, 1, chosen[0], chosen[1])
        per_action = (cpu_seconds(pid) - used) / actions - per_read
        return per_read * 1e3, per_action * 1e3
    finally:
        server.stop()


def compare(label: str, fresh_url: Callable[[], str]) -> None:
    """The baseline and sidebet on fresh databases of one kind, and their ratio."""
    for name, source in (("before", BEFORE), ("sidebet", None)):
        if name == "sidebet" or source:
            read, act = per_request(fresh_url(), source)
            print(f"{label} {name:<7} one client: server CPU {read:5.2f} ms per GET /state, "
                  f"{act:5.2f} ms per action (POST)", flush=True)
    for _ in range(REPEAT):
        base = run_baseline(fresh_url())
        print(base.line(f"{label} baseline"), flush=True)
        if BEFORE:
            print(run_sidebet(fresh_url(), BEFORE).line(f"{label} sidebet before")
                  + "   money conserved", flush=True)
        ours = run_sidebet(fresh_url())
        print(ours.line(f"{label} sidebet") + "   money conserved")
        print(f"{label} sidebet / baseline: {ours.rate / base.rate:.0%} of the rate; "
              f"p99 {ours.p99 * 1e3:.0f} ms vs {base.p99 * 1e3:.0f} ms", flush=True)
        if PACED:
            paced(label, fresh_url, PACED_RATE or min(base.rate, ours.rate) / 2)


def paced(label: str, fresh_url: Callable[[], str], rate: float) -> None:
    """The baseline and sidebet (and ``BEFORE``), each offered ``rate`` posts/s."""
    print(f"{label} paced: {rate:.1f} posts/s offered to each, one shared schedule",
          flush=True)
    base = run_baseline(fresh_url(), rate)
    print(base.line(f"{label} paced baseline"), flush=True)
    if BEFORE:
        print(run_sidebet(fresh_url(), BEFORE, rate).line(f"{label} paced before")
              + "   money conserved", flush=True)
    ours = run_sidebet(fresh_url(), rate=rate)
    print(ours.line(f"{label} paced sidebet") + "   money conserved")
    print(f"{label} paced at {rate:.1f}/s: p50 {ours.p50 * 1e3:.0f} ms vs "
          f"{base.p50 * 1e3:.0f} ms, p99 {ours.p99 * 1e3:.0f} ms vs "
          f"{base.p99 * 1e3:.0f} ms (sidebet vs baseline)", flush=True)


def postgres_databases(base: str) -> Callable[[], str]:
    """Fresh databases on the PostgreSQL server whose maintenance database is ``base``."""
    import psycopg

    def fresh() -> str:
        name = f"sidebet_bench_{os.getpid()}_{next(_numbers)}"
        with psycopg.connect(base.replace("postgresql+psycopg://", "postgresql://"),
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        head, _, tail = base.partition("?")
        return f"{head.rsplit('/', 1)[0]}/{name}" + (f"?{tail}" if tail else "")

    return fresh


def on_postgres(work: Callable[[str], None]) -> None:
    """``work(url)`` on the PostgreSQL server ``BENCH_POSTGRES`` names, else on one
    ``scripts/postgres.sh`` starts for it and stops afterwards."""
    given = os.environ.get("BENCH_POSTGRES")
    if given:
        work(given)
        return
    script = ROOT / "scripts" / "postgres.sh"
    url = subprocess.run([str(script), "start"], check=True, capture_output=True,
                         text=True).stdout.strip()
    try:
        work(url)
    finally:
        subprocess.run([str(script), "stop"], check=False)


def main() -> None:
    print(f"table server load: {PLAYERS} players over {TABLES} tables, loopback, "
          f"{SECONDS:.0f} s of posts per run"
          + (f" (<= {ACTIONS} each)" if "BENCH_ACTIONS" in os.environ else "")
          + "; baseline: one durable commit "
          f"per post; {cpu()}, {os.cpu_count()} CPUs", flush=True)
    if "--postgres-only" not in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            compare("SQLite", lambda: f"sqlite:///{tmp}/bench-{next(_numbers)}.db")
    if "--sqlite-only" in sys.argv:
        return
    on_postgres(lambda url: compare("PostgreSQL", postgres_databases(url)))


if __name__ == "__main__":
    main()
