"""What a chunk of a simulation counts (:class:`ChunkResult`) and the running totals of
the chunks added so far (:class:`Tally`), as plain integers.

Every counter is an exact integer (money in tenths of a table unit), so a tally is the
same whatever order its chunks are added in.  The counters' names are the kernel's
(:data:`sidebet.sim.layout.STAT_NAMES`, carried by :class:`sidebet.sim.shape.RunShape`):
:meth:`ChunkResult.stat` and :meth:`Tally.stat`, for callers that have run the kernel,
read them there.

>>> a = ChunkResult(rounds=3, shoes=1, stats=(3, 0, 1), combo_index=(0, 2),
...                 combo_count=(2, 1), hist_index=(7,), hist_count=(3,))
>>> tally = Tally(4)
>>> tally.add(a)
>>> tally.add(a)
>>> tally.rounds, tally.stats, tally.combo_counts, tally.hist
(6, [6, 0, 2], [4, 0, 2, 0], {7: 6})
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

__all__ = ["ChunkResult", "Tally"]


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """Counters of one chunk (money in tenths of a unit)."""

    rounds: int
    shoes: int
    stats: tuple[int, ...]
    """Per :data:`sidebet.sim.layout.STAT_NAMES` (zeros in side-only mode but rounds)."""
    combo_index: tuple[int, ...]
    """The side-wager combinations (:class:`sidebet.sim.spec.KernelInputs`) that some
    seat-round had, ascending (a few dozen of the thousands a table's wagers allow) ..."""
    combo_count: tuple[int, ...]
    """... and how many seat-rounds had each."""
    hist_index: tuple[int, ...]
    """The non-zero slots of the histogram of a seat's whole round net (tenths plus
    ``hist_off``), ascending ..."""
    hist_count: tuple[int, ...]
    """... and how many seat-rounds fell in each."""
    round2: tuple[int, ...] = ()
    """With several seats: per side wager, then Blackjack, without press, whole: the sum
    over rounds of the squared all-seat net (tenths²)."""
    seats: tuple[tuple[int, ...], ...] = ()
    """Per seat: Blackjack net, its square, whole net, its square (tenths; full rounds)."""

    def stat(self, name: str) -> int:
        """One counter by name (the kernel's names: this imports its layout)."""
        return self.stats[_stat_index(name)]


@dataclass
class Tally:
    """Running totals of the chunks added so far."""

    n_combos: int
    rounds: int = 0
    shoes: int = 0
    chunks: int = 0
    stats: list[int] = field(default_factory=list)
    """Per :data:`sidebet.sim.layout.STAT_NAMES` (empty until a chunk is added)."""
    combo_counts: list[int] = field(default_factory=list)
    """Seat-rounds per side-wager combination, all ``n_combos`` of them."""
    hist: dict[int, int] = field(default_factory=dict)
    round2: list[int] = field(default_factory=list)
    seats: list[list[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.combo_counts) != self.n_combos:
            self.combo_counts = [0] * self.n_combos

    def add(self, chunk: ChunkResult) -> None:
        """Add one chunk's counters."""
        self.rounds += chunk.rounds
        self.shoes += chunk.shoes
        self.chunks += 1
        self.stats = _added(self.stats or [0] * len(chunk.stats), chunk.stats)
        combos = self.combo_counts
        for k, v in zip(chunk.combo_index, chunk.combo_count, strict=True):
            combos[k] += v
        hist = self.hist
        for k, v in zip(chunk.hist_index, chunk.hist_count, strict=True):
            hist[k] = hist.get(k, 0) + v
        self.round2 = _added(self.round2 or [0] * len(chunk.round2), chunk.round2)
        if not self.seats:
            self.seats = [[0] * len(row) for row in chunk.seats]
        self.seats = [_added(mine, row) for mine, row in zip(self.seats, chunk.seats,
                                                               strict=True)]

    def stat(self, name: str) -> int:
        """One counter by name (the kernel's names: this imports its layout)."""
        index = _stat_index(name)
        return self.stats[index] if self.stats else 0


def _stat_index(name: str) -> int:
    from sidebet.sim.layout import STAT_NAMES  # numpy: the kernel's side

    return STAT_NAMES.index(name)


def _added(mine: list[int], more: tuple[int, ...]) -> list[int]:
    if len(mine) != len(more):
        raise ValueError(f"a chunk of {len(more)} counters added to {len(mine)}")
    return list(map(operator.add, mine, more))
