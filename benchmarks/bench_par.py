"""PAR sheet speed: depleted-shoe sheets per second and the whole catalogue.

Targets: one PAR sheet for a depleted shoe in under 1 ms after warm-up; all five
wagers at all deck counts 1-8 and all paytables in well under a second.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_par.py``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import numpy as np

from sidebet.core.cards import ALL_CARDS
from sidebet.core.shoe import Shoe
from sidebet.exact.outcomes import outcome_table
from sidebet.exact.par import all_par_sheets, count_outcomes, par_sheet
from sidebet.regulation.wagers import WAGERS, get_wager


def timed(label: str, func: Callable[[], object], repeat: int) -> float:
    func()
    start = time.perf_counter()
    for _ in range(repeat):
        func()
    per_call = (time.perf_counter() - start) / repeat
    print(f"{label:<58} {per_call * 1e3:9.4f} ms   {1 / per_call:12,.0f} /s")
    return per_call


def numpy_reference(wager_id: str, counts: np.ndarray) -> np.ndarray:
    """The same counts with a straightforward numpy weighted bincount (for the ratio)."""
    c = counts.astype(np.int64)
    eye = np.eye(52, dtype=np.int64)
    first = c[:, None, None]
    second = (c[None, :] - eye)[:, :, None]
    third = c[None, None, :] - eye[:, None, :] - eye[None, :, :]
    weights = first * second * np.clip(third, 0, None)
    table = outcome_table(wager_id)
    n = len(get_wager(wager_id).outcome_ids)
    return np.bincount(table.ravel(), weights=weights.ravel(), minlength=n) // 2


def python_reference(wager_id: str, shoe: Shoe) -> None:
    """Classifier over every unordered pair × upcard of card kinds (pure Python)."""
    wager = get_wager(wager_id)
    c = shoe.counts
    for i, j in itertools.combinations_with_replacement(range(52), 2):
        pairs = c[i] * (c[i] - 1) // 2 if i == j else c[i] * c[j]
        if pairs:
            for k in range(52):
                left = c[k] - (k == i) - (k == j)
                if left > 0:
                    wager.outcome(ALL_CARDS[i], ALL_CARDS[j], ALL_CARDS[k])


def main() -> None:
    start = time.perf_counter()
    for wager_id in WAGERS:
        outcome_table(wager_id)
    print(f"outcome tables built for {len(WAGERS)} wagers in "
          f"{time.perf_counter() - start:.3f} s (once per process)\n")

    rng = np.random.default_rng(1)
    shoes = []
    for _ in range(64):
        counts = np.full(52, 6, dtype=np.int64)
        for index in rng.choice(52, size=120, replace=True):
            if counts[index]:
                counts[index] -= 1
        shoes.append(Shoe.from_counts(counts))
    cycle = itertools.cycle(shoes)

    kernel = timed("count_outcomes, depleted 6-deck shoe (trilux)",
                   lambda: count_outcomes("trilux", next(cycle).array()), 2000)
    sheet = timed("par_sheet, depleted 6-deck shoe (trilux), with exact stats",
                  lambda: par_sheet("trilux", next(cycle)).house_edge, 2000)
    timed("par_sheet, depleted 6-deck shoe (blazing7s)",
          lambda: par_sheet("blazing7s", next(cycle)).house_edge, 2000)
    ref = timed("numpy weighted-bincount reference (trilux)",
                lambda: numpy_reference("trilux", next(cycle).array()), 50)
    py = timed("pure-Python classifier enumeration (trilux)",
               lambda: python_reference("trilux", next(cycle)), 1)
    print(f"\nkernel is {ref / kernel:,.0f}x the numpy reference and {py / kernel:,.0f}x "
          "pure Python")
    print(f"target: one depleted-shoe PAR sheet < 1 ms -> {sheet * 1e3:.4f} ms "
          f"({'met' if sheet < 1e-3 else 'MISSED'})")
    start = time.perf_counter()
    sheets = all_par_sheets()
    for s in sheets:
        _ = (s.house_edge, s.variance, s.hit_frequency)
    elapsed = time.perf_counter() - start
    print(f"all wagers × all paytables × decks 1-8: {len(sheets)} sheets in {elapsed:.4f} s "
          f"({'met' if elapsed < 1 else 'MISSED'}: well under a second)")


if __name__ == "__main__":
    main()
