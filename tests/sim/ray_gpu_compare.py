"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the test that runs
this file): a local Ray instance declaring one GPU plays a run with ``--device gpu``, and a
counter's (``advantage``), each task asking for that GPU; print whether their counters and
sums equal the local CPU runs'."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import ray

from sidebet.advantage.run import run_advantage
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_ramp
from sidebet.sim import SimSpec, resolve_sides, simulate


def main() -> None:
    warnings.simplefilter("ignore")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    spec = SimSpec(seats=2, sides=resolve_sides(["trilux", "blazing7s"], 6), press="all")
    local = simulate(spec, 300, seed=17, chunk_shoes=3, with_exact=False)
    counter = AdvantageSpec(sides=spec.sides, ramp=parse_ramp("1-8"),
                            plans=(SidePlan("blazing7s", "flat"),))
    mine = run_advantage(counter, 120, 17, trace_rounds=100, chunk_shoes=2)
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False,
             configure_logging=False, _node_ip_address="127.0.0.1")
    try:
        remote = simulate(spec, 300, seed=17, chunk_shoes=3, backend="ray", device="gpu",
                          with_exact=False)
        theirs = run_advantage(counter, 120, 17, trace_rounds=100, chunk_shoes=2,
                               backend="ray", device="gpu")
    finally:
        ray.shutdown()
    print(json.dumps({
        "workers": remote.workers,
        "rounds": [remote.rounds, local.rounds],
        "same": (remote.tally.stats == local.tally.stats
                 and remote.tally.hist == local.tally.hist
                 and list(remote.tally.combo_counts) == list(local.tally.combo_counts)
                 and remote.tally.round2 == local.tally.round2
                 and remote.tally.seats == local.tally.seats),
        "counter": [theirs.rounds, mine.rounds, len(theirs.trace())],
        "counter_same": (sorted(theirs.sums) == sorted(mine.sums)
                         and all(np.array_equal(theirs.sums[k], mine.sums[k]) for k in mine.sums)
                         and np.array_equal(theirs.trace(), mine.trace())),
    }))


if __name__ == "__main__":
    main()
