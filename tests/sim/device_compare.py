"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the tests that run
this file in a subprocess): play tables on the device kernel and the CPU kernel, shoe by
shoe and as chunks cut inside a shoe, and print one JSON line per table with what
differed (nothing, when they agree)."""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from fractions import Fraction

from sidebet.regulation.house_rules import BlackjackPays, HoleCard, HouseRules
from sidebet.sim.chunk import run_chunk, seed_key
from sidebet.sim.counters import ChunkResult
from sidebet.sim.device import play_shoes, run_chunk_gpu
from sidebet.sim.spec import SimSpec, default_sides, resolve_sides

FIELDS = ("rounds", "shoes", "stats", "combo_index", "combo_count", "hist_index",
          "hist_count", "round2", "seats")
BIG = 10**9


def all_sides(decks: int) -> tuple[tuple[str, str], ...]:
    return resolve_sides(list(default_sides(decks)), decks)


TABLES = {
    "1 seat, all wagers, press advice": SimSpec(decks=6, sides=all_sides(6), press="advice"),
    "7 seats, H17, press all, no peek, 6:5": SimSpec(
        decks=6, seats=7, sides=all_sides(6), press="all",
        rules=replace(HouseRules(), dealer_hits_soft_17=True, hole_card=HoleCard.AFTER_PLAYERS,
                      blackjack_pays=BlackjackPays.SIX_TO_FIVE)),
    "2 seats, surrender, resplit and hit split aces, split to 4": SimSpec(
        decks=8, seats=2, sides=all_sides(8), press="rule",
        rules=replace(HouseRules(), resplit_aces=True, hit_split_aces=True,
                      max_split_hands=4, late_surrender=True)),
    "7 seats, 1 deck, deep cut (shoes run out)": SimSpec(
        decks=1, seats=7, sides=all_sides(1), penetration=Fraction(19, 20)),
    "7 seats, side wagers only": SimSpec(decks=6, seats=7, sides=all_sides(6),
                                         side_only=True),
}


def differences(gpu: ChunkResult, cpu: ChunkResult) -> list[str]:
    return [f for f in FIELDS if getattr(gpu, f) != getattr(cpu, f)]


def main() -> None:
    warnings.simplefilter("ignore")  # (the simulator's 64-bit arithmetic overflows, as meant)
    key = seed_key(36)
    for name, spec in TABLES.items():
        bad: list[str] = []
        per_shoe = []
        for shoe in range(3):  # shoe by shoe
            got, rounds = play_shoes(spec, key, shoe, 1)
            want = run_chunk(spec, key, shoe, 1, BIG)
            bad += [f"shoe {shoe}: {f}" for f in differences(got, want)]
            per_shoe.append(int(rounds[0]))
        got, _ = play_shoes(spec, key, 3, 4)  # a chunk of several shoes
        bad += [f"shoes 3-6: {f}" for f in differences(got, run_chunk(spec, key, 3, 4, BIG))]
        cut = sum(per_shoe[:2]) + 3  # a chunk that ends inside its third shoe
        got = run_chunk_gpu(spec, key, 0, 3, cut)
        bad += [f"cut at {cut}: {f}" for f in differences(got, run_chunk(spec, key, 0, 3, cut))]
        print(json.dumps({"table": name, "rounds": sum(per_shoe), "differences": bad}),
              flush=True)


if __name__ == "__main__":
    main()
