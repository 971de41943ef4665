"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the test that runs
this file in a subprocess): play a counter's shoes on the device kernel and the CPU
kernel, shoe by shoe, as a chunk of several shoes and as a chunk cut inside a shoe, and
print one JSON line per set-up with what differed (nothing, when they agree)."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np

from sidebet.advantage.counts import named_system
from sidebet.advantage.indices import parse_plays
from sidebet.advantage.run import AdvantageChunk, advantage_chunk, advantage_chunk_gpu
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_cover, parse_ramp
from sidebet.sim.chunk import seed_key
from sidebet.sim.spec import resolve_sides

SIDES = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)
SEVENS = tuple(-3 if 20 <= k < 24 else 0 for k in range(52))
BIG = 10**9
FIELDS = ("acc", "tc_stats", "side_tc", "side_acc", "comp", "trace")

SETUPS = {
    "2 spots and 2 others, ramp, wonging, a side count, a side by EV, a flat side":
        AdvantageSpec(sides=SIDES, spots=2, others=2, ramp=parse_ramp("1-12"), wong_in=0,
                      wong_out=-1,
                      plans=(SidePlan("blazing7s", "count", 1, "7s", SEVENS, parse_ramp("2:1")),
                             SidePlan("upcard-luck", "ev"), SidePlan("trilux", "flat"))),
    "1 spot, the Illustrious 18, insurance, wonging out, deep cut":
        AdvantageSpec(sides=(("blazing7s", dict(SIDES)["blazing7s"]),),
                      penetration=Fraction(5, 6),
                      plans=(SidePlan("blazing7s", "count", 1, "7s", SEVENS,
                                      parse_ramp("2:1")),),
                      plays=parse_plays("i18"), ramp=parse_ramp("1-12"), wong_in=-1,
                      wong_out=-2),
    "KO's running count, 3 spots and 4 others at one deck dealt deep (shoes run out), no "
    "side wager": AdvantageSpec(decks=1, penetration=Fraction(19, 20), spots=3, others=4,
                                system=named_system("ko"), ramp=parse_ramp("2:2,4:4")),
    "spots by count, cover (jump and parlay), burn cards and a cut card spread, a side "
    "count, a side by EV, a flat side":
        AdvantageSpec(sides=SIDES, spots=2, others=2, ramp=parse_ramp("1-12"),
                      spots_by=parse_ramp("1:2", 1, 2), cover=parse_cover("jump:2,parlay"),
                      burn=3, cut_spread=26,
                      plans=(SidePlan("blazing7s", "count", 1, "7s", SEVENS, parse_ramp("2:1")),
                             SidePlan("upcard-luck", "ev"), SidePlan("trilux", "flat"))),
    "an ace side count for the bets and insurance, the Illustrious 18, a side count":
        AdvantageSpec(sides=(("blazing7s", dict(SIDES)["blazing7s"]),), others=2,
                      plans=(SidePlan("blazing7s", "count", 1, "7s", SEVENS,
                                      parse_ramp("2:1")),),
                      plays=parse_plays("i18"), ramp=parse_ramp("1-12"), ace_bet=2,
                      ace_ins=-1),
}


def differences(gpu: AdvantageChunk, cpu: AdvantageChunk) -> list[str]:
    bad = [] if gpu.rounds == cpu.rounds else ["rounds"]
    return bad + [f for f in FIELDS if not np.array_equal(getattr(gpu, f), getattr(cpu, f))]


def main() -> None:
    warnings.simplefilter("ignore")  # (the simulator's 64-bit arithmetic overflows, as meant)
    key = seed_key(36)
    for name, spec in SETUPS.items():
        bad: list[str] = []
        per_shoe = []
        for shoe in range(2):  # shoe by shoe
            got = advantage_chunk_gpu(spec, key, shoe, 1, BIG)
            want = advantage_chunk(spec, key, shoe, 1, BIG)
            bad += [f"shoe {shoe}: {f}" for f in differences(got, want)]
            per_shoe.append(want.rounds)
        got = advantage_chunk_gpu(spec, key, 2, 3, BIG, 50)  # several shoes, a short trace
        want = advantage_chunk(spec, key, 2, 3, BIG, 50)
        bad += [f"shoes 2-4: {f}" for f in differences(got, want)]
        cut = per_shoe[0] + 3  # a chunk that ends inside its second shoe
        got = advantage_chunk_gpu(spec, key, 0, 2, cut)
        bad += [f"cut at {cut}: {f}" for f in differences(got, advantage_chunk(spec, key, 0, 2,
                                                                               cut))]
        print(json.dumps({"setup": name, "rounds": sum(per_shoe), "bet": int(want.acc[1]),
                          "side_bets": int(want.side_acc[:, 0].sum()),
                          "traced": len(want.trace), "differences": bad}), flush=True)


if __name__ == "__main__":
    main()
