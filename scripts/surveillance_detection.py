"""Measure how fast surveillance flags simulated players (docs/surveillance.md).

Each run is one 6-deck table of the table engine offering Blazing 7's (paytable A), TriLux
Deluxe (TLX-3) and Three Card Poker (classic), with seven seats: a Hi-Lo spreader, a
back-counter, a wonger, a sevens counter, a suit counter and a perfect player with and
without cover bets, played ROUNDS rounds; the alarm is set to ALPHA false alarms within
ROUNDS decisions.  It writes the rounds at which each player's alarm was raised on each
wager (JSON) and the curves: the share of runs flagged by each round.  With ``--null`` the
seats are a flat, a random and a streaky bettor and loss and win progressions on Blazing
7's and on the Blackjack wager: the false alarms, with Wilson intervals.

    .venv/bin/python scripts/surveillance_detection.py --runs 30 --rounds 1500 \\
        --out docs/surveillance
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from sidebet.advantage.ruin import wilson
from sidebet.regulation.submission import TableConfig
from sidebet.surveil.alarm import AlarmRule
from sidebet.surveil.detection import simulate_table
from sidebet.surveil.players import (
    BackCounter,
    FlatBettor,
    HiLoSpreader,
    LossProgression,
    PerfectPlayer,
    RandomBettor,
    SevensCounter,
    SimPlayer,
    StreakyBettor,
    SuitCounter,
    WinProgression,
    Wonger,
)

SIDES = {"blazing7s": "A", "trilux": "TLX-3", "three-card-poker": "classic"}
WAGERS = tuple(SIDES)
SEED_STRIDE = 1_000_000
"""Runs' table seeds this far apart (a table seeded S shuffles its k-th shoe with S + k)."""
B7 = ("blazing7s",)
CURVES = [("spreader", "blackjack"), ("back-counter", "blackjack"), ("wonger", "blazing7s"),
          ("perfect", "blazing7s"), ("perfect+cover", "blazing7s"), ("sevens", "blazing7s"),
          ("perfect", "three-card-poker"), ("suits", "three-card-poker"), ("suits", "trilux")]


def players(seed: int, null: bool) -> list[SimPlayer]:
    """The seven simulated players of one run (``null``: those who count no card)."""
    if null:
        return [FlatBettor("flat", WAGERS), RandomBettor("random", WAGERS, seed=seed),
                StreakyBettor("streaky", WAGERS, seed=seed + 1),
                LossProgression("loss b7", B7), WinProgression("win b7", B7),
                LossProgression("loss bj", ("blackjack",), base=25_00),
                WinProgression("win bj", ("blackjack",), base=25_00)]
    return [HiLoSpreader("spreader"), BackCounter("back-counter"),
            Wonger("wonger", "blazing7s", trigger=4.6), SevensCounter("sevens", "blazing7s"),
            SuitCounter("suits", ("trilux", "three-card-poker")),
            PerfectPlayer("perfect", WAGERS),
            PerfectPlayer("perfect+cover", WAGERS, cover=5_00)]


def _processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=1500)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("docs/surveillance"))
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the plot from OUT.json")
    ap.add_argument("--null", action="store_true",
                    help="four random and three streaky bettors a table: the false alarms")
    args = ap.parse_args()
    if args.replot:
        plot(json.loads(args.out.with_suffix(".json").read_text()), args.out.with_suffix(".svg"))
        return
    cfg = TableConfig(decks=6, side_wagers=SIDES)
    rule = AlarmRule(alpha=args.alpha, horizon=args.rounds)
    results = []
    started = time.perf_counter()
    for k in range(args.runs):
        seed = (args.seed + k) * SEED_STRIDE  # table seeds S, S+1, ...: one per shoe
        run = simulate_table(cfg, players(seed, args.null), rounds=args.rounds, seed=seed, rule=rule)
        results.append({"seed": seed, "alarms": {f"{p}/{w}": n for (p, w), n
                                                 in sorted(run.alarms.items())},
                        "placed": {f"{p}/{w}": n for (p, w), n in sorted(run.placed.items())}})
        print(f"run {k + 1}/{args.runs}: {json.dumps(results[-1]['alarms'])}", flush=True)
    seconds = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "table": {"decks": 6, "side_wagers": SIDES, "seats": 7, "play": "published chart"},
        "alarm": {"alpha": rule.alpha, "horizon": rule.horizon, "delta": rule.delta,
                  "warmup": rule.warmup, "threshold": rule.threshold},
        "null": args.null, "runs": args.runs, "rounds": args.rounds, "seconds": round(seconds, 1),
        "processor": _processor(), "cpus": os.cpu_count(), "results": results,
    }
    args.out.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    if not args.null:
        plot(summary, args.out.with_suffix(".svg"))
    names = sorted({k for r in results for k in r["placed"]}
                   | {f"{p.name}/blackjack" for p in players(0, args.null)})
    if args.null:
        print("| player on wager | sequences | flagged | share | 95% Wilson interval |")
        print("| --- | ---: | ---: | ---: | --- |")
        for key in names:
            k = sum(key in r["alarms"] for r in results)
            lo, hi = wilson(k, args.runs)
            print(f"| {key.replace('/', ' on ')} | {args.runs} | {k} | {k / args.runs:.3f} "
                  f"| {lo:.3f} to {hi:.3f} |")
        print(f"{args.runs * args.rounds} rounds in {seconds:.0f} s on {_processor()}")
        return
    print("| player on wager | bets placed per 100 rounds | flagged | median round "
          "| 90th percentile |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for key in names:
        got = sorted(r["alarms"][key] for r in results if key in r["alarms"])
        placed = sum(r["placed"].get(key, 0) for r in results) / (args.runs * args.rounds)

        def quantile(q: float, got: list[int] = got) -> str:
            i = -(-int(q * 1000) * args.runs // 1000) - 1  # the ceil(q * runs)-th of the runs
            return str(got[i]) if i < len(got) else f"> {args.rounds}"

        print(f"| {key.replace('/', ' on ')} | {100 * placed:.1f} | {len(got)}/{args.runs} "
              f"| {quantile(0.5)} | {quantile(0.9)} |")
    print(f"{args.runs * args.rounds} rounds in {seconds:.0f} s on {_processor()}")


def plot(summary: dict[str, object], path: Path) -> None:
    """The share of runs flagged by each round, one curve per player and wager."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = summary["results"]
    assert isinstance(results, list)
    runs, rounds = int(str(summary["runs"])), int(str(summary["rounds"]))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for p, w in CURVES:
        times = sorted(r["alarms"][f"{p}/{w}"] for r in results if f"{p}/{w}" in r["alarms"])
        xs = [0, *times, rounds]
        ys = [0.0, *[(i + 1) / runs for i in range(len(times))], len(times) / runs]
        ax.step(xs, ys, where="post", label=f"{p} on {w}")
    alpha = summary["alarm"]["alpha"]  # type: ignore[index]
    ax.axhline(alpha, color="grey", linestyle=":", linewidth=1,
               label=f"set false-alarm rate {alpha:g}")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("share of runs flagged")
    ax.set_title(f"Rounds until alarm: {runs} tables of 6 decks, alarm at {alpha:g} "
                 f"within {rounds} rounds")
    ax.set_xlim(0, rounds)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


if __name__ == "__main__":
    main()
