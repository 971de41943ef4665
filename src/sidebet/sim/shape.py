"""What the results of a simulation read of its table (:class:`RunShape`), without numpy.

A :class:`sidebet.sim.spec.SimSpec` and its kernel arrays say everything about a run;
the results (:class:`sidebet.sim.results.SimResult`) and their rendering need only a few
integers and names of it: the table, the bets, each side wager's outcomes and pays, and
which outcome of each wager every side-wager combination is.  :func:`run_shape` takes
them from a spec (that side uses numpy); :class:`RunShape` holds them as plain ints and
strings and goes to JSON and back exactly, so that results can be computed and printed
where numpy is not loaded.

>>> from sidebet.sim.spec import SimSpec
>>> shape = run_shape(SimSpec(decks=6, seats=2, sides=(("blazing7s", "A"),)))
>>> shape.sides[0].name, shape.sides[0].outcome_ids[-1], shape.sides[0].combo_outcomes[:3]
("Blazing 7's", 'lose', (0, 1, 2))
>>> RunShape.from_json(shape.to_json()) == shape
True
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sidebet.regulation.house_rules import HouseRules
    from sidebet.sim.spec import SimSpec

__all__ = ["RunShape", "SideShape", "json_int", "rules_dict", "run_shape"]

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

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"wager": self.wager, "name": self.name, "paytable": self.paytable,
                "outcome_ids": list(self.outcome_ids), "pays": list(self.pays),
                "combo_outcomes": list(self.combo_outcomes)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> SideShape:
        """The inverse of :meth:`to_json`."""
        return SideShape(
            wager=str(data["wager"]), name=str(data["name"]), paytable=str(data["paytable"]),
            outcome_ids=tuple(str(o) for o in data["outcome_ids"]),
            pays=_ints(data["pays"]),
            combo_outcomes=_ints(data["combo_outcomes"]),
        )


@dataclass(frozen=True, slots=True)
class RunShape:
    """The table of a run as the results read it: ``decks``, ``seats``, the cut card
    (``cut``: cards dealt before it comes out), the house rules abbreviated
    (``rules_text``, :meth:`HouseRules.describe`) and field by field (``rules``: the items
    of :func:`rules_dict`), the side wagers, the Blackjack wager ``bet`` and each side wager ``side_bet`` (whole
    table units), the Press policy and what decides it (``press``, ``press_source``),
    the strategy's name, ``side_only``, the number of side-wager combinations and
    ``hist_off`` (the histogram slot of a seat-round net of zero), and the names of
    the counters a chunk returns, in their order."""

    decks: int
    seats: int
    cut: int
    rules_text: str
    rules: tuple[tuple[str, bool | int | str], ...]
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

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (ints, strings and booleans only)."""
        return {
            "decks": self.decks, "seats": self.seats, "cut": self.cut,
            "rules_text": self.rules_text, "rules": dict(self.rules),
            "sides": [s.to_json() for s in self.sides],
            "bet": self.bet, "side_bet": self.side_bet, "press": self.press,
            "press_source": self.press_source, "strategy": self.strategy,
            "side_only": self.side_only, "n_combos": self.n_combos, "hist_off": self.hist_off,
            "stat_names": list(self.stat_names),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> RunShape:
        """The inverse of :meth:`to_json`."""
        rules = data["rules"]
        if not isinstance(rules, dict) or not all(
                isinstance(v, bool | int | str) for v in rules.values()):
            raise ValueError("a run's rules are a dict of booleans, ints and strings")
        return RunShape(
            decks=json_int(data["decks"]), seats=json_int(data["seats"]),
            cut=json_int(data["cut"]),
            rules_text=str(data["rules_text"]),
            rules=tuple((str(k), v) for k, v in rules.items()),
            sides=tuple(SideShape.from_json(s) for s in data["sides"]),
            bet=json_int(data["bet"]), side_bet=json_int(data["side_bet"]),
            press=str(data["press"]),
            press_source=str(data["press_source"]), strategy=str(data["strategy"]),
            side_only=_bool(data["side_only"]), n_combos=json_int(data["n_combos"]),
            hist_off=json_int(data["hist_off"]),
            stat_names=tuple(str(n) for n in data["stat_names"]),
        )

    @property
    def side_wagers(self) -> dict[str, str]:
        """``{wager id: paytable name}``."""
        return {s.wager: s.paytable for s in self.sides}


def json_int(value: Any) -> int:
    """``value`` read from JSON as an integer (``true`` is not one); a :class:`ValueError`
    for anything else.

    >>> json_int(3)
    3
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"not an integer: {value!r}")
    return value


def _ints(values: Any) -> tuple[int, ...]:
    out = tuple(values) if isinstance(values, list | tuple) else ("",)
    if not set(map(type, out)) <= {int}:  # bool is no int here; checked at C speed
        raise ValueError(f"not a list of integers: {str(values)[:40]}")
    return out


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"not a boolean: {value!r}")
    return value


def rules_dict(rules: HouseRules) -> dict[str, bool | int | str]:
    """The house rules field by field: booleans and ints as they are, an enum by its
    value, a fraction (the penetration) as ``"p/q"``.

    >>> from sidebet.regulation.house_rules import HouseRules
    >>> d = rules_dict(HouseRules())
    >>> d["blackjack_pays"], d["max_split_hands"], d["penetration"]
    ('3:2', 3, '3/4')
    """
    out: dict[str, bool | int | str] = {}
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        if isinstance(value, enum.Enum):
            value = value.value
        if isinstance(value, Fraction):
            value = f"{value.numerator}/{value.denominator}"
        if not isinstance(value, bool | int | str):
            raise TypeError(f"house rule {f.name} is a {type(value).__name__}")
        out[f.name] = value
    return out


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
        rules=tuple(rules_dict(spec.rules).items()),
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
