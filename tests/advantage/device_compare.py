"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the test that runs
this file in a subprocess): play a counter's shoes on the device kernel and the CPU
kernel, shoe by shoe, as a chunk of several shoes and as a chunk cut inside a shoe, and
print one JSON line per set-up with what differed (nothing, when they agree)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from tests.device_check import compare_shoes

from sidebet.advantage.counts import named_system
from sidebet.advantage.indices import parse_plays
from sidebet.advantage.run import AdvantageChunk, advantage_chunk, advantage_chunk_gpu
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_cover, parse_ramp
from sidebet.sim.chunk import seed_key
from sidebet.sim.spec import resolve_sides

SIDES = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)
SEVENS = tuple(-3 if 20 <= k < 24 else 0 for k in range(52))
KEY = seed_key(36)
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
    compare_shoes("setup", SETUPS,
                  lambda spec, shoe0, n, rounds, trace: advantage_chunk_gpu(
                      spec, KEY, shoe0, n, rounds, trace),
                  lambda spec, shoe0, n, rounds, trace: advantage_chunk(
                      spec, KEY, shoe0, n, rounds, trace),
                  differences, shoes=2, chunk=3, chunk_trace=50,
                  extra=lambda want: {"bet": int(want.acc[1]),
                                      "side_bets": int(want.side_acc[:, 0].sum()),
                                      "traced": len(want.trace)})


if __name__ == "__main__":
    main()
