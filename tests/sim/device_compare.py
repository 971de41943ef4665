"""Run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the tests that run
this file in a subprocess): play tables on the device kernel and the CPU kernel, shoe by
shoe and as chunks cut inside a shoe, and print one JSON line per table with what
differed (nothing, when they agree)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from tests.device_check import compare_shoes

from sidebet.regulation.house_rules import BlackjackPays, HoleCard, HouseRules
from sidebet.sim.chunk import run_chunk, seed_key
from sidebet.sim.counters import ChunkResult
from sidebet.sim.device import run_chunk_gpu
from sidebet.sim.spec import SimSpec, default_sides, resolve_sides

FIELDS = ("rounds", "shoes", "stats", "combo_index", "combo_count", "hist_index",
          "hist_count", "round2", "seats")
KEY = seed_key(36)


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
    compare_shoes("table", TABLES,
                  lambda spec, shoe0, n, rounds, _: run_chunk_gpu(spec, KEY, shoe0, n, rounds),
                  lambda spec, shoe0, n, rounds, _: run_chunk(spec, KEY, shoe0, n, rounds),
                  differences, shoes=3, chunk=4)


if __name__ == "__main__":
    main()
