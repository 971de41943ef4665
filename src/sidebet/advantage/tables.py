"""The counter's records for the simulator's round kernel, built once per process and set-up.

The index runs over whole numbers ``-B .. B`` (a *bucket* ``index + B``): ``B`` 15 for a
true count, 60 for a running count.  Each bucket gets its Blackjack bet, its spots, its play
tables (the basic strategy with the index plays that apply there, made two-card
decision tables by :func:`sidebet.sim.compiled.decision_table`; buckets with the same
plays share one table; looked up at each decision by the count and the cards unseen then,
:func:`sidebet.sim.counting.play_table`) and, per side wager, its bet: a
:class:`sidebet.sim.layout.CounterArrays` and the stacked strategies of a
:class:`sidebet.sim.layout.PlayArrays`, which :func:`sidebet.sim.kernels.play_chunk`
plays.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from sidebet.advantage.counts import deck_estimate
from sidebet.advantage.indices import apply_plays, insurance_index
from sidebet.advantage.spec import AdvantageSpec
from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import get_wager
from sidebet.sim.compiled import decision_table
from sidebet.sim.counting import play_table
from sidebet.sim.layout import CounterArrays, ExactEv, PlayArrays
from sidebet.sim.strategy_tables import StrategyArrays

__all__ = ["KernelTables", "kernel_tables"]

TRUE_RANGE = 15
RUNNING_RANGE = 60
FIELD_BITS = 21
"""Bits of one count's sum in a packed word (three a word, signed)."""

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class KernelTables:
    """The counter's records for :func:`sidebet.sim.kernels.play_chunk`, with what the
    report reads of them."""

    half: int
    """``B``: bucket ``b`` is index ``b - B``."""
    wagers: tuple[str, ...]
    play: PlayArrays
    """Every strategy the counter's buckets use (and basic strategy), stacked."""
    counter: CounterArrays

    @property
    def buckets(self) -> int:
        """Buckets of the index."""
        return 2 * self.half + 1


def _count_words(spec: AdvantageSpec, fields: list[npt.NDArray[np.int64]]) -> I64:
    """The counts' tags packed :data:`FIELD_BITS` bits a field, three fields a word: one
    addition a word counts a card for every count (each sum stays within its field)."""
    limit = 1 << (FIELD_BITS - 1)
    packed = np.zeros((52, 2), np.int64)
    for f, tags in enumerate(fields):
        if int(np.abs(tags).max()) * 52 * spec.decks >= limit:
            raise SidebetError(f"a count's tags must stay within ±{limit // (52 * spec.decks)} "
                               f"at {spec.decks} decks")
        packed[:, f // 3] += tags << (FIELD_BITS * (f % 3))
    return packed


def _bucket(index: int | None, half: int, never: int) -> int:
    if index is None:
        return never
    return min(max(index + half, 0), 2 * half + 1)


@cache
def kernel_tables(spec: AdvantageSpec) -> KernelTables:
    """The kernel's tables for ``spec`` (built once per process)."""
    inputs = spec.sim().inputs()
    assert inputs.strategy is not None
    half = TRUE_RANGE if spec.system.balanced else RUNNING_RANGE
    nb = 2 * half + 1
    rule_ints = inputs.rules
    tables: list[tuple[npt.NDArray[np.int8], ...]] = []
    seen: dict[bytes, int] = {}
    play_of = np.zeros(nb, np.int64)

    def table_id(arrays: StrategyArrays) -> int:
        d = decision_table(arrays.hard2, arrays.soft2, arrays.pair, arrays.nosplit,
                           arrays.hs_hard, arrays.hs_soft, rule_ints)
        key = d.tobytes() + arrays.hs_hard.tobytes() + arrays.hs_soft.tobytes()
        if key not in seen:
            seen[key] = len(tables)
            tables.append((d, arrays.hs_hard, arrays.hs_soft))
        return seen[key]

    basic_id = table_id(inputs.strategy)
    for b in range(nb):
        play_of[b] = table_id(apply_plays(inputs.strategy, spec.plays, b - half))
    ramp = np.array([spec.ramp.units(b - half) for b in range(nb)], np.int64)
    wagers = inputs.wagers
    nw = len(wagers)
    side_mode = np.zeros(nw, np.int64)
    side_field = np.full(nw, -1, np.int64)
    side_sum = np.zeros(nw, np.int64)
    fields = [np.array(spec.system.values, np.int64)]
    side_ramp = np.zeros((nw, nb), np.int64)
    side_need = np.full(nw, -1, np.int64)
    side_cap = np.zeros((nw, 2), np.int64)
    modes = {"never": 0, "flat": 1, "ev": 2, "count": 3}
    for w, wid in enumerate(wagers):
        plan = spec.plan(wid)
        side_mode[w] = modes[plan.mode]
        if plan.mode == "count":
            t = np.array(plan.tags, np.int64)
            side_field[w] = len(fields)
            side_sum[w] = int(t.sum())
            fields.append(t)
            side_ramp[w] = [plan.ramp.units(b - half) if b - half >= plan.ramp.steps[0][0]
                            else 0 for b in range(nb)] if plan.ramp.steps else 0
        else:
            side_ramp[w] = plan.units
        wager = get_wager(wid)
        for need in wager.requires:
            if need.id in wagers:
                side_need[w] = wagers.index(need.id)
        if wager.max_bet_ratio is not None:
            side_cap[w] = (wager.max_bet_ratio.numerator, wager.max_bet_ratio.denominator)
    ace_field = -1
    if spec.ace_bet or spec.ace_ins:  # the ace side count: one more packed field
        ace_field = len(fields)
        fields.append(np.array([1 if k >= 48 else 0 for k in range(52)], np.int64))
    if (side_mode == 2).any():
        from sidebet.vuln.side_ev import ev_tables

        got = ev_tables(spec.sides)
        ev = ExactEv(got.weights, *got.args())
    else:
        z1 = np.zeros(1, np.int64)
        ev = ExactEv(np.zeros((1, 1), np.int64), z1, np.zeros((1, 1), np.int64),
                     np.zeros((1, 1), np.int64), z1, np.zeros((1, 1, 1), np.int64))
    n = len(inputs.base)
    per_deck = deck_estimate(n, spec.resolution)[1]
    steps = np.array([deck_estimate(left, spec.resolution)[0] for left in range(n + 1)],
                     np.int64)
    main = steps if spec.system.balanced else np.ones_like(steps)
    den = np.stack([spec.system.scale * main, 52 * steps])
    irc = spec.system.initial_count(spec.decks)
    main_mult = per_deck if spec.system.balanced else 1
    tags = np.array(spec.system.values, np.int64)
    reach = int(max(tags[tags > 0].sum(), -tags[tags < 0].sum())) * (n // 52)
    play_at = np.ascontiguousarray(play_table(play_of, den, 1.0 / den, irc, main_mult,
                                              spec.rounding.code, reach))
    stacked = [np.ascontiguousarray(np.concatenate([t[k] for t in tables])) for k in range(3)]
    return KernelTables(
        half=half,
        wagers=wagers,
        play=PlayArrays(*stacked),
        counter=CounterArrays(
            spots=spec.spots,
            spots_of=np.array([spec.spots_at(b - half) for b in range(nb)], np.int64),
            jump=spec.cover.jump,
            parlay=spec.cover.parlay,
            burn=spec.burn,
            cut_spread=spec.cut_spread,
            ace_field=ace_field,
            ace_bet=spec.ace_bet * spec.system.scale,
            ace_ins=spec.ace_ins * spec.system.scale,
            packed=_count_words(spec, fields),
            irc=irc,
            main_mult=main_mult,
            side_mult=per_deck,
            rounding=spec.rounding.code,
            den=den,
            inv=1.0 / den,
            ramp=ramp,
            play_at=play_at,
            basic_id=basic_id,
            wong_in=-1 if spec.wong_in is None else _bucket(spec.wong_in, half, -1),
            wong_out=-1 if spec.wong_out is None else _bucket(spec.wong_out, half, -1),
            ins_from=_bucket(insurance_index(spec.plays), half, nb + 1),
            side_mode=side_mode,
            side_field=side_field,
            side_sum=side_sum,
            side_ramp=side_ramp,
            side_need=side_need,
            side_cap=side_cap,
            ev=ev,
        ),
    )
