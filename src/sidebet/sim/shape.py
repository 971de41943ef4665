"""What the results of a simulation read of its table (:class:`RunShape`).

A :class:`sidebet.sim.spec.SimSpec` and its kernel arrays say everything about a run;
the results (:class:`sidebet.sim.results.SimResult`) and their rendering need only a few
integers and names of it: the table, the bets, each side wager's outcomes and pays, and
which outcome of each wager every side-wager combination is.  :func:`run_shape` takes
them from a spec; :class:`RunShape` holds them as plain ints and strings.

>>> from sidebet.sim.spec import SimSpec
>>> shape = run_shape(SimSpec(decks=6, seats=2, sides=(("blazing7s", "A"),)))
>>> shape.sides[0].name, shape.sides[0].outcome_ids[-1], shape.sides[0].combo_outcomes[:3]
("Blazing 7's", 'lose', (0, 1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sidebet.sim.spec import SimSpec

__all__ = ["RunShape", "SideShape", "run_shape"]

SIDE_ONLY_STRATEGY = "side wagers only"
"""What a side-wager-only run reports as its strategy."""


@dataclass(frozen=True, slots=True)
class SideShape:
    """One side wager of a run: its id, name and paytable, its outcomes with their pays
    (N of "N to 1", -1 for a loss), and for each side-wager combination the index of
    this wager's outcome (a column of ``KernelInputs.combo_outcomes``)."""

    wager: str
    name: str
    paytable: str
    outcome_ids: tuple[str, ...]
    pays: tuple[int, ...]
    combo_outcomes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunShape:
    """The table of a run as the results read it: ``decks``, ``seats``, the cut card
    (``cut``: cards dealt before it comes out), the house rules abbreviated
    (``rules_text``, :meth:`HouseRules.describe`), the side wagers, the Blackjack wager
    ``bet`` and each side wager ``side_bet`` (whole table units), the Press policy and what decides it (``press``, ``press_source``),
    the strategy's name, ``side_only``, the number of side-wager combinations and
    ``hist_off`` (the histogram slot of a seat-round net of zero), and the names of
    the counters a chunk returns, in their order."""

    decks: int
    seats: int
    cut: int
    rules_text: str
    sides: tuple[SideShape, ...]
    bet: int
    side_bet: int
    press: str
    press_source: str
    strategy: str
    side_only: bool
    n_combos: int
    hist_off: int
    stat_names: tuple[str, ...]
    """The names of the kernel's counters (:data:`sidebet.sim.layout.STAT_NAMES`)."""

    @property
    def side_wagers(self) -> dict[str, str]:
        """``{wager id: paytable name}``."""
        return {s.wager: s.paytable for s in self.sides}


def run_shape(spec: SimSpec) -> RunShape:
    """The shape of a run of ``spec`` (its kernel arrays are built if not yet)."""
    from sidebet.regulation.wagers import get_wager
    from sidebet.sim.layout import STAT_NAMES

    inputs = spec.inputs()
    sides = tuple(
        SideShape(
            wager=wid,
            name=get_wager(wid).name,
            paytable=paytable,
            outcome_ids=tuple(inputs.outcome_ids[w]),
            pays=tuple(int(p) for p in inputs.pays[w]),
            combo_outcomes=tuple(inputs.combo_outcomes[:, w].tolist()),
        )
        for w, (wid, paytable) in enumerate(spec.sides)
    )
    return RunShape(
        decks=spec.decks,
        seats=spec.seats,
        cut=spec.cut,
        rules_text=spec.rules.describe(),
        sides=sides,
        bet=spec.bet,
        side_bet=spec.side_bet,
        press=spec.press,
        press_source=inputs.press_source,
        strategy=SIDE_ONLY_STRATEGY if inputs.strategy is None else inputs.strategy.source,
        side_only=spec.side_only,
        n_combos=inputs.n_combos,
        hist_off=inputs.hist_off,
        stat_names=STAT_NAMES,
    )
