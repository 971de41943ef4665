"""What to simulate (:class:`SimSpec`) and the arrays the kernels read (:class:`KernelInputs`).

Side-wager outcomes come from the wagers' outcome tables (:mod:`sidebet.exact.outcomes`).
For speed the tables of all wagers played are folded into one *combination* table:
``combo = sum(outcome_w * stride_w)`` (mixed radix over the wagers), so a seat's side
wagers cost one lookup; the combination's net result and TriLux Deluxe winnings are
precomputed, and the per-wager outcome counts are recovered from the combination counts.

>>> spec = SimSpec(decks=6, sides=(("trilux", "TLX-3"), ("blazing7s", "A")))
>>> inputs = spec.inputs()
>>> inputs.n_combos, inputs.combo_outcomes.shape
(35, (35, 2))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import ALL_CARDS
from sidebet.core.errors import RuleError, SidebetError, Violation
from sidebet.core.money import units_to_cents, units_to_tenths
from sidebet.exact.outcomes import outcome_table
from sidebet.regulation.house_rules import BlackjackPays, HouseRules
from sidebet.regulation.submission import TableConfig
from sidebet.regulation.wagers import REGULATED, WAGERS, BetContext, get_wager
from sidebet.sim.compiled import decision_table
from sidebet.sim.strategy_tables import PRESS_POLICIES, StrategyArrays, press_array, strategy_arrays

__all__ = ["MAX_SEATS", "KernelInputs", "SimSpec", "default_sides", "preload", "resolve_sides"]

MAX_SEATS = 7


def resolve_sides(names: list[str] | tuple[str, ...], decks: int,
                  paytables: dict[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """``(wager id, paytable name)`` for each named wager (plus the wagers they require),
    in the registry's order.

    >>> resolve_sides(["top3", "trilux"], 6)
    (('trilux', 'TLX-3'), ('top3', 'A'), ('three-card-poker', 'classic'))
    """
    paytables = {get_wager(k).id: v for k, v in (paytables or {}).items()}
    wanted: set[str] = set()
    for name in names:
        w = get_wager(name)
        wanted.add(w.id)
        wanted.update(r.id for r in w.requires)
    out = []
    for wid in WAGERS:
        if wid in wanted:
            w = WAGERS[wid]
            out.append((wid, w.paytable(paytables.get(wid), decks).name))
    return tuple(out)


def default_sides(decks: int) -> tuple[str, ...]:
    """The regulated side wagers a table with ``decks`` decks may offer.

    >>> default_sides(6), default_sides(2)
    (('trilux', 'upcard-luck', 'top3', 'blazing7s'), ('trilux', 'top3', 'blazing7s'))
    """
    out = []
    for wid in REGULATED:
        w = WAGERS[wid]
        if not w.table_rules(decks, w.paytable(None, decks).name):
            out.append(wid)
    return tuple(out)


@dataclass(frozen=True)
class SimSpec:
    """A simulation: the table, the seats, the bets and the players' policies.

    ``bet`` is the Blackjack wager and ``side_bet`` each side wager, in whole table units;
    ``press`` the Press policy (:data:`sidebet.sim.strategy_tables.PRESS_POLICIES`);
    ``penetration`` overrides the rules' cut-card placement; ``side_only`` deals the two
    cards, upcard and hole card, settles the side wagers and ends the round.
    """

    decks: int = 6
    seats: int = 1
    sides: tuple[tuple[str, str], ...] = ()
    rules: HouseRules = field(default_factory=HouseRules)
    bet: int = 1
    side_bet: int = 1
    press: str = "none"
    strategy: str = "exact"
    penetration: Fraction | None = None
    side_only: bool = False

    @property
    def cut(self) -> int:
        """Cards dealt before the cut card comes out (as :class:`DealingShoe.shuffled`)."""
        pen = self.rules.penetration if self.penetration is None else self.penetration
        return int(52 * self.decks * pen)

    def table_config(self) -> TableConfig:
        """The table's Rules Submission."""
        rules = self.rules
        if self.penetration is not None:
            rules = replace(rules, penetration=self.penetration)
        return TableConfig(decks=self.decks, side_wagers=dict(self.sides), rules=rules)

    def violations(self) -> list[Violation]:
        """What the table, the bets or the settings break (empty: the spec can run)."""
        table = self.table_config()
        flags = table.paytable_flags()  # a custom paytable is simulated and flagged
        out = [v for v in table.violations() if v not in flags]
        if not 1 <= self.seats <= MAX_SEATS:
            out.append(Violation("§ 601a.2", f"a table has 1 to {MAX_SEATS} seats, not {self.seats}"))
        if self.bet < 1 or self.side_bet < 1:
            out.append(Violation("§ 633a.6(d)", "bets are positive whole table units"))
        else:
            for wid, _ in self.sides:
                w = get_wager(wid)
                side = units_to_cents(self.side_bet)
                ctx = BetContext(side, units_to_cents(self.bet), side)
                out.extend(w.bet_violations(ctx))
        if self.press not in PRESS_POLICIES:
            out.append(Violation("§ 633c.11(e)", f"unknown press policy {self.press!r}"))
        return out

    def verify(self) -> None:
        """Raise :class:`RuleError` listing every violation."""
        found = self.violations()
        if found:
            raise RuleError(found)

    def inputs(self) -> KernelInputs:
        """The kernel arrays (built once per process and spec, or handed to this process
        by :func:`preload`)."""
        got = _PRELOADED.get(self)
        return got if got is not None else _inputs(self)


@dataclass(frozen=True)
class KernelInputs:
    """Arrays and integers the kernels read, derived from a :class:`SimSpec`."""

    wagers: tuple[str, ...]
    outcome_ids: tuple[tuple[str, ...], ...]
    pays: tuple[tuple[int, ...], ...]
    """Per wager and outcome: N of "N to 1" (-1 for a loss)."""
    combo_tab: npt.NDArray[np.uint16]
    combo_outcomes: npt.NDArray[np.int64]
    """``[combo, wager]`` -> outcome index."""
    combo_net: npt.NDArray[np.int64]
    """Side-wager net of a seat, tenths."""
    combo_offer: npt.NDArray[np.int64]
    """TriLux Deluxe winnings that may be pressed, tenths."""
    combo_pay: npt.NDArray[np.int64]
    """``[combo, wager]`` -> that wager's net, tenths."""
    n_combos: int
    press_mode: int
    press_tab: npt.NDArray[np.uint8]
    press_source: str
    rules: npt.NDArray[np.int64]
    strategy: StrategyArrays | None
    decide2: npt.NDArray[np.int8] | None
    """Two-card decisions (:func:`sidebet.sim.compiled.decision_table`), with ``strategy``."""
    vals: npt.NDArray[np.int64]
    base: npt.NDArray[np.uint8]
    hist_off: int
    hist_len: int
    extra: dict[str, Any] = field(default_factory=dict)


_PRELOADED: dict[SimSpec, KernelInputs] = {}


def preload(spec: SimSpec, inputs: KernelInputs) -> None:
    """Make ``inputs`` (built by another process) this process's arrays for ``spec``: a
    worker receives them once, read-only, instead of building them again."""
    _PRELOADED[spec] = inputs


def _rule_ints(rules: HouseRules) -> npt.NDArray[np.int64]:
    odds = rules.blackjack_pays.odds
    return np.array(
        [
            int(rules.dealer_hits_soft_17),
            odds.numerator,
            odds.denominator,
            rules.double.code,
            int(rules.double_after_split),
            rules.max_split_hands,
            int(rules.resplit_aces),
            int(rules.hit_split_aces),
            int(rules.late_surrender),
            int(rules.peek),
            int(rules.dealer_blackjack_takes_doubles),
        ],
        dtype=np.int64,
    )


@cache
def _inputs(spec: SimSpec) -> KernelInputs:
    wagers = tuple(wid for wid, _ in spec.sides)
    outcome_ids = tuple(get_wager(wid).outcome_ids for wid in wagers)
    pays = tuple(
        tuple(get_wager(wid).paytable(pt).pays(o) for o in get_wager(wid).outcome_ids)
        for wid, pt in spec.sides
    )
    sizes = [len(ids) for ids in outcome_ids]
    n_combos = int(np.prod(sizes)) if sizes else 1
    if n_combos > 65535:
        raise SidebetError("too many side-wager outcome combinations for one simulation")
    # every partial sum is below n_combos: added in place in the kernel's 16-bit type
    combo_tab = np.zeros(52**3, dtype=np.uint16)
    stride = 1
    strides = []
    for wid, size in zip(wagers, sizes, strict=True):
        combo_tab += outcome_table(wid).reshape(-1) * np.uint16(stride)
        strides.append(stride)
        stride *= size
    combo_tab.flags.writeable = False
    idx = np.arange(n_combos, dtype=np.int64)
    combo_outcomes = np.zeros((n_combos, len(wagers)), dtype=np.int64)
    for w, (st, size) in enumerate(zip(strides, sizes, strict=True)):
        combo_outcomes[:, w] = (idx // st) % size
    side_tenths = units_to_tenths(spec.side_bet)
    combo_net = np.zeros(n_combos, dtype=np.int64)
    combo_offer = np.zeros(n_combos, dtype=np.int64)
    combo_pay = np.zeros((n_combos, len(wagers)), dtype=np.int64)
    for w, wid in enumerate(wagers):
        pay = np.array(pays[w], dtype=np.int64) * side_tenths
        got = pay[combo_outcomes[:, w]]
        combo_pay[:, w] = got
        combo_net += got
        if get_wager(wid).pressable:
            combo_offer = np.where(got > 0, got, 0)
    strategy = None if spec.side_only else strategy_arrays(spec.rules, spec.decks, spec.strategy)
    rule_ints = _rule_ints(spec.rules)
    decide2 = None
    if strategy is not None:
        decide2 = decision_table(strategy.hard2, strategy.soft2, strategy.pair,
                                 strategy.nosplit, strategy.hs_hard, strategy.hs_soft,
                                 rule_ints)
        decide2.flags.writeable = False
    press = press_array(spec.press, spec.rules, spec.decks)
    press_mode = {"none": 0, "all": 1, "advice": 2, "rule": 2}[spec.press]
    vals = np.array([c.rank.blackjack_value for c in ALL_CARDS], dtype=np.int64)
    base = np.tile(np.arange(52, dtype=np.uint8), spec.decks)
    # bound of a seat's round net, tenths: side wagers, then up to max_split_hands hands of
    # twice (bet + largest press), or a Blackjack
    side_bound = sum(max(abs(p) for p in row) for row in pays) * side_tenths
    press_max = int(combo_offer.max()) if n_combos else 0
    bet_tenths = units_to_tenths(spec.bet)
    bj_bound = 2 * spec.rules.max_split_hands * (bet_tenths + press_max)
    if spec.rules.blackjack_pays is BlackjackPays.THREE_TO_TWO:
        bj_bound += bet_tenths
    hist_off = side_bound + bj_bound
    return KernelInputs(
        wagers=wagers,
        outcome_ids=outcome_ids,
        pays=pays,
        combo_tab=combo_tab,
        combo_outcomes=combo_outcomes,
        combo_net=combo_net,
        combo_offer=combo_offer,
        combo_pay=combo_pay,
        n_combos=n_combos,
        press_mode=press_mode,
        press_tab=press.table,
        press_source=press.source,
        rules=rule_ints,
        strategy=strategy,
        decide2=decide2,
        vals=vals,
        base=base,
        hist_off=hist_off,
        hist_len=2 * hist_off + 1,
    )
