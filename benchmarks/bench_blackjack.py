"""Timings of the exact blackjack analyser (run: ``.venv/bin/python benchmarks/bench_blackjack.py``).

Prints, after a warm-up that compiles the numba kernels:
- a full 6-deck composition-dependent analysis with its house edge (the published anchor
  rules: S17, DA2, DAS, SP4, no RSA, peek, 3:2, no surrender; -0.4029%),
- the total-dependent basic strategy chart with its exact house edge,
- the full TriLux Deluxe Press chart for each deck count,
- one focused decision-EV query and one press advice for a depleted shoe.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sidebet.core.cards import parse_cards
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack import engine, press, strategy
from sidebet.exact.blackjack.ev import decision_evs
from sidebet.exact.blackjack.house_edge import house_edge
from sidebet.regulation.house_rules import HouseRules

ANCHOR = HouseRules(max_split_hands=4, late_surrender=False)


def clear() -> None:
    engine.analyse.cache_clear()
    engine.base_tables.cache_clear()
    strategy.total_dependent_analysis.cache_clear()
    strategy.basic_strategy.cache_clear()
    strategy.composition_strategy.cache_clear()
    press.press_chart.cache_clear()


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    best = float("inf")
    out = None
    for _ in range(repeat):
        clear()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    t = time.perf_counter()
    house_edge(6, ANCHOR)
    press.press_chart(1)
    print(f"warm-up (compile/load kernels, build tables): {time.perf_counter() - t:.2f} s")

    dt, he = best_of(lambda: house_edge(6, ANCHOR))
    print(f"6 decks CDZ analysis + house edge: {dt:.3f} s  player EV {he.player_ev:+.4%} "
          f"(anchor -0.4029%), SD {he.std_dev:.4f}")
    dt, s = best_of(lambda: strategy.basic_strategy(HouseRules(), 6))
    print(f"6 decks total-dependent basic strategy + house edge (PA rules): {dt:.3f} s  "
          f"player EV {s.player_ev:+.4%}")
    for decks in (1, 2, 4, 6, 8):
        dt, chart = best_of(lambda d=decks: press.press_chart(d), repeat=2)
        sm = chart.summary
        print(f"Press chart {decks} deck(s) {sm.paytable}: {dt:.3f} s  optimal {sm.optimal:+.4%} "
              f"always {sm.always:+.4%} of the TriLux wager")
    cards = parse_cards("8s 8d 6c")
    shoe = Shoe.standard(6).remove(cards).remove("Th 5c 2d 9s")
    dt, evs = best_of(lambda: decision_evs(cards[:2], cards[2], shoe))
    print(f"one decision-EV query (8,8 v 6, depleted 6-deck shoe): {dt * 1000:.0f} ms  "
          f"best {evs.best} {evs.split:+.4f}")
    p, q, up = parse_cards("9h Th Jh")
    rest = shoe.remove([p, q, up])
    dt, adv = best_of(lambda: press.press_advice((p, q), up, rest, HouseRules()))
    print(f"one press advice: {dt * 1000:.0f} ms  press={adv.press} ev {adv.ev_per_unit:+.4f}")


if __name__ == "__main__":
    main()
