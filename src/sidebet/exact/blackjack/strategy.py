"""Basic strategy: total-dependent and composition-dependent charts for any house rules.

Codes follow the familiar charts: ``H`` hit, ``S`` stand, ``D`` double (``Dh`` / ``Ds``:
otherwise hit / stand), ``P`` split, ``R`` surrender (``Rh`` / ``Rs`` / ``Rp``: otherwise
hit / stand / split).  The table engine asks :meth:`Strategy.action` for advice.

>>> from sidebet.core.cards import parse_cards
>>> s = basic_strategy(HouseRules(), 6)
>>> s.action(parse_cards("Th 6d"), parse_cards("Tc")[0], True, False, True)
'surrender'
>>> s.action(parse_cards("8h 8d"), parse_cards("6c")[0], True, True, True)
'split'
>>> s.action(parse_cards("5h 6d"), parse_cards("Kc")[0], True, False, True)
'double'
>>> s.action(parse_cards("2h 3d 7c"), parse_cards("4c")[0], False, False, False)
'stand'
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import Card
from sidebet.exact.blackjack import dispatch as kern
from sidebet.exact.blackjack.dealer_rows import full_shoe
from sidebet.exact.blackjack.engine import (
    ACTIONS,
    CLASS_NAMES,
    Analysis,
    analyse,
    base_tables,
    empty_values,
    extra_pairs,
    split_values,
    two_card_hands,
)
from sidebet.exact.blackjack.moments import mean_moments
from sidebet.native.threads import idle_cores, run_parts
from sidebet.regulation.base_game.codes import (
    ACTION_LETTERS,
    ACTION_NAMES,
    SPLIT,
    UP_ORDER,
    Action,
    parse_chart_code,
    rank_class,
)
from sidebet.regulation.base_game.legality import choose
from sidebet.regulation.house_rules import HouseRules

__all__ = [
    "Strategy",
    "basic_strategy",
    "composition_strategy",
    "rank_class",
    "strategy_for_shoe",
    "total_dependent_analysis",
]

FArr = npt.NDArray[np.float64]
I8Arr = npt.NDArray[np.int8]

_LETTER = dict(zip(ACTION_NAMES, ACTION_LETTERS, strict=True))
_ACTION = {v: k for k, v in _LETTER.items()}


def _hand_total(classes: Sequence[int]) -> tuple[int, bool]:
    hard = sum(c + 1 for c in classes)
    soft = 0 in classes and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


def _code(vals: dict[str, float], hs: str) -> str:
    """Chart code for option values; ``hs`` is the hand's hit/stand play."""
    best = max(vals, key=lambda a: (vals[a], -ACTIONS.index(a)))
    if best == "double":
        return "D" + _LETTER[hs].lower()
    if best == "surrender":
        rest = {a: v for a, v in vals.items() if a != "surrender"}
        second = max(rest, key=lambda a: (rest[a], -ACTIONS.index(a)))
        if second == "double":
            second = hs
        return "R" + _LETTER[second].lower()
    if best == "split":
        return "P"
    return _LETTER[best]


@dataclass(frozen=True, slots=True, eq=False)
class Strategy:
    """A complete playing strategy for one set of house rules and deck count.

    ``kind`` is ``"total"`` (total-dependent basic strategy) or ``"composition"`` (each
    decision by the cards of the hand and the upcard, split hands played like unsplit ones).
    """

    rules: HouseRules
    decks: int | None
    kind: str
    hard: dict[tuple[int, int], str]
    """(hard total, upcard class) -> code, two-card hands that are not pairs."""
    soft: dict[tuple[int, int], str]
    """(soft total, upcard class) -> code."""
    pairs: dict[tuple[int, int], str]
    """(pair class, upcard class) -> code (``P``: split)."""
    pair_nosplit: dict[tuple[int, int], str]
    """(pair class, upcard class) -> code when the pair is not split."""
    hit_stand: dict[tuple[int, bool, int], str]
    """(total, soft, upcard class) -> ``H`` or ``S`` after the first decision."""
    two_card: dict[tuple[int, int, int], str]
    """(class, class, upcard class) -> code of each two-card hand (composition charts)."""
    analysis: Analysis
    player_ev: float

    def action(
        self,
        player_cards: Sequence[Card],
        upcard: Card,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> str:
        """The play: ``'hit'``, ``'stand'``, ``'double'``, ``'split'`` or ``'surrender'``.

        ``player_cards`` is the hand as it stands (two cards, a split hand's two cards, or
        more after hits); the flags say what the table allows now (e.g. ``can_double``
        false after a split without DAS, ``can_surrender`` false after the first decision).
        A preferred play that is not allowed falls back as the chart says (``Dh``, ``Rs``...).
        """
        classes = [rank_class(c) for c in player_cards]
        up = rank_class(upcard)
        total, soft = _hand_total(classes)
        hs = self._hit_stand(classes, total, soft, up)
        if total >= 21:
            return "stand"
        if len(classes) != 2:
            return hs
        a, b = sorted(classes)
        if self.kind == "composition":
            code = self.two_card[(a, b, up)]
            if code == "P" and not can_split:
                code = self.pair_nosplit[(a, up)]
        elif a == b and can_split:
            code = self.pairs[(a, up)]
        elif a == b:
            code = self.pair_nosplit[(a, up)]
        else:
            code = (self.soft if soft else self.hard).get((total, up), _LETTER[hs])
        return self._resolve(code, hs, can_double, can_split, can_surrender, a, up)

    def _hit_stand(self, classes: Sequence[int], total: int, soft: bool, up: int) -> str:
        if total > 21:
            return "stand"
        if self.kind == "composition":
            counts = [0] * 10
            for c in classes:
                counts[c] += 1
            row = self.analysis.table.index.get(tuple(counts))
            if row is not None:
                return "hit" if self.analysis.hs_dec[row, up] else "stand"
        return _ACTION[self.hit_stand.get((total, soft, up), "S")]

    def _resolve(
        self, code: str, hs: str, dbl: bool, split: bool, sur: bool, pair: int, up: int
    ) -> str:
        """The chart code's play among those allowed
        (:func:`sidebet.regulation.base_game.legality.choose`)."""
        parsed = parse_chart_code(code)
        alt = parsed.packed
        if parsed.fallback == SPLIT:
            alt = parse_chart_code(self.pair_nosplit[(pair, up)]).packed
        return ACTION_NAMES[choose(parsed.packed, alt, Action.named(hs), dbl, split, sur)]

    def chart_rows(self) -> list[tuple[str, list[str]]]:
        """Chart rows (label, codes for upcards 2..9, T, A)."""
        rows: list[tuple[str, list[str]]] = []
        if self.kind == "composition":
            for a, b in two_card_hands():
                if (a, b) == (0, 9):
                    continue
                label = f"{CLASS_NAMES[a]},{CLASS_NAMES[b]}"
                rows.append((label, [self.two_card[(a, b, u)] for u in UP_ORDER]))
            return rows
        for t in range(5, 20):
            rows.append((f"hard {t}", [self.hard[(t, u)] for u in UP_ORDER]))
        for t in range(13, 21):
            rows.append((f"soft {t}", [self.soft[(t, u)] for u in UP_ORDER]))
        for p in (0, 9, 8, 7, 6, 5, 4, 3, 2, 1):
            name = CLASS_NAMES[p]
            rows.append((f"{name},{name}", [self.pairs[(p, u)] for u in UP_ORDER]))
        return rows

    def chart_text(self) -> str:
        """The chart as plain text, like the printed cards."""
        head = f"{'':>9} " + " ".join(f"{CLASS_NAMES[u]:>3}" for u in UP_ORDER)
        lines = [head]
        lines += [f"{label:>9} " + " ".join(f"{c:>3}" for c in codes)
                  for label, codes in self.chart_rows()]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The chart and multi-card hit/stand table as plain data."""
        cols = [CLASS_NAMES[u] for u in UP_ORDER]
        return {
            "kind": self.kind,
            "decks": self.decks,
            "rules": self.rules.describe(),
            "player_ev": self.player_ev,
            "upcards": cols,
            "chart": {label: dict(zip(cols, codes, strict=True))
                      for label, codes in self.chart_rows()},
            "pairs_not_split": {
                f"{CLASS_NAMES[p]},{CLASS_NAMES[p]}": {
                    CLASS_NAMES[u]: self.pair_nosplit[(p, u)] for u in UP_ORDER
                }
                for p in range(10)
            },
            "hit_stand": {
                f"{'soft' if soft else 'hard'} {t}": {
                    CLASS_NAMES[u]: self.hit_stand[(t, soft, u)] for u in UP_ORDER
                }
                for (t, soft) in sorted({(t, s) for t, s, _ in self.hit_stand})
            },
        }

    def dumps(self) -> str:
        """JSON text of :meth:`to_json`."""
        return json.dumps(self.to_json(), indent=2)


def _first_deal_weights(shoe: tuple[int, ...], comps: npt.NDArray[np.int64]) -> FArr:
    """P(a hand's first cards are this composition | upcard), ``[row, upcard]``: the
    number of ways to draw each class's cards over the ways to draw that many cards, as
    sums of logarithms looked up by count."""
    out = np.zeros((comps.shape[0], 10))
    ncards = comps.sum(axis=1)
    most = int(comps.max(initial=0))
    k = np.arange(most + int(ncards.max(initial=0)) + 1, dtype=np.float64)
    for u in range(10):
        r = np.asarray(shoe, dtype=np.float64)
        if r[u] == 0:
            continue
        r[u] -= 1
        big_r = r.sum()
        # per class c, [n]: log of ff(r_c, n) / n!  (0 terms where r_c - k < 1, refused below)
        per = np.log(np.maximum(r[:, None] - k[None, :most], 1.0)) - np.log(k[None, :most] + 1.0)
        table = np.concatenate([np.zeros((10, 1)), np.cumsum(per, axis=1)], axis=1)
        logw = table[np.arange(10)[None, :], comps].sum(axis=1)
        n_most = int(ncards.max(initial=0))
        draw = np.log(k[:n_most] + 1.0) - np.log(np.maximum(big_r - k[:n_most], 1.0))
        logw += np.concatenate([[0.0], np.cumsum(draw)])[ncards]
        ok = np.all(comps <= r[None, :], axis=1)
        out[:, u] = np.where(ok, np.exp(logw), 0.0)
    return out


def _classes_in_order() -> list[tuple[int, bool]]:
    order = [(t, False) for t in range(21, 10, -1)]
    order += [(t, True) for t in range(21, 11, -1)]
    order += [(t, False) for t in range(10, 3, -1)]
    return order


def _row_total(comps: npt.NDArray[np.int64], hard: npt.NDArray[np.int64]) -> tuple[Any, Any]:
    soft = (comps[:, 0] > 0) & (hard + 10 <= 21)
    return np.where(soft, hard + 10, hard), soft


@dataclass(frozen=True, slots=True, eq=False)
class _HitStand:
    """The total-dependent hit/stand decisions and the values they give."""

    values: list[FArr]
    """stand, stand2, hit, hit2, dbl, dbl2 ``[row, upcard]``."""
    dec: npt.NDArray[np.int8]
    hit_stand: dict[tuple[int, bool, int], str]
    weights: FArr


@cache
def _total_hit_stand(shoe: tuple[int, ...], rules: HouseRules) -> _HitStand:
    """Hit/stand for each (total, soft, upcard), chosen by comparing the values summed over
    every composition of that total, weighted by its probability as the player's first
    cards; totals are decided from 21 down so that later play is already fixed."""
    arr = np.asarray(shoe, dtype=np.float64)
    table, dealer = base_tables(shoe, rules.dealer_hits_soft_17, extra_pairs(rules))
    k = table.comps.shape[0]
    n_hands = table.n_hands
    comps = table.comps[:n_hands]
    hard = table.hard[:n_hands]
    ncards = table.ncards[:n_hands]
    totals, softs = _row_total(comps, hard)
    weights = _first_deal_weights(shoe, comps)
    st, st2, hi, hi2, db, db2 = empty_values(k)
    dec = np.zeros((k, 10), dtype=np.int8)
    ups = np.arange(10, dtype=np.int64)
    hit_stand: dict[tuple[int, bool, int], str] = {}
    for t, soft in _classes_in_order():
        rows = np.flatnonzero((totals == t) & (softs == soft) & (ncards >= 2)).astype(np.int64)
        if rows.size == 0:
            continue
        kern.play_values(
            rows, rows, table.hard, table.comps, table.child, dealer, arr, ups, dec,
            st, st2, hi, hi2, db, db2,
        )
        for u in range(10):
            w = weights[rows, u]
            gain = float(np.dot(w, hi[rows, u] - st[rows, u]))
            choice = 1 if (gain > 0 and t < 21) else 0
            dec[rows, u] = choice
            hit_stand[(t, soft, u)] = "H" if choice else "S"
    return _HitStand([st, st2, hi, hi2, db, db2], dec, hit_stand, weights)


@cache
def total_dependent_analysis(
    shoe: tuple[int, ...], rules: HouseRules
) -> tuple[Analysis, dict[str, Any]]:
    """Exact values of total-dependent basic strategy and its decision tables.

    Hit/stand as :func:`_total_hit_stand` chooses it.  First two-card decisions are chosen
    the same way over the two-card hands of each total; pairs by pair card.
    """
    table, dealer = base_tables(shoe, rules.dealer_hits_soft_17, extra_pairs(rules))
    k = table.comps.shape[0]
    chosen = _total_hit_stand(shoe, rules)
    st, st2, hi, hi2, db, db2 = chosen.values
    dec, hit_stand, weights = chosen.dec, chosen.hit_stand, chosen.weights
    # one-card and empty rows are never played; keep their decisions "stand"
    two_dec = dec.copy()
    base = Analysis(
        shoe=tuple(shoe), rules=rules, table=table, stand=st, stand2=st2, hit=hi, hit2=hi2,
        dbl=db, dbl2=db2, split=np.full((10, 10), np.nan), split_own=np.full((10, 10), np.nan),
        split_hands=np.full((10, 10), np.nan), hs_dec=dec, two_dec=two_dec,
    )
    hard_codes: dict[tuple[int, int], str] = {}
    soft_codes: dict[tuple[int, int], str] = {}
    groups: dict[tuple[int, bool], list[tuple[int, int]]] = {}
    for a, b in two_card_hands():
        if a == b or (a, b) == (0, 9):
            continue
        t, s = _hand_total([a, b])
        groups.setdefault((t, s), []).append((a, b))
    for (t, s), hands in groups.items():
        for u in range(10):
            hs = "hit" if hit_stand[(t, s, u)] == "H" else "stand"
            sums: dict[str, float] = {}
            for a, b in hands:
                key = _key(a, b)
                row = table.index[key]
                vals = base.values(key, u)
                other = "stand" if hs == "hit" else "hit"
                del vals[other]
                w = float(weights[row, u])
                for act, v in vals.items():
                    if act != "split":
                        sums[act] = sums.get(act, 0.0) + w * v
            code = _code(sums, hs)
            (soft_codes if s else hard_codes)[(t, u)] = code
            for a, b in hands:
                if code[0] == "D" or (code[0] == "R" and code[1] == "d"):
                    two_dec[table.index[_key(a, b)], u] = 2
    pair_nosplit: dict[tuple[int, int], str] = {}
    for p in range(10):
        key = _key(p, p)
        row = table.index[key]
        t, s = _hand_total([p, p])
        for u in range(10):
            hs = "hit" if hit_stand[(t, s, u)] == "H" else "stand"
            vals = base.values(key, u)
            opts = {hs: vals[hs]}
            if "double" in vals:
                opts["double"] = vals["double"]
            if "surrender" in vals:
                opts["surrender"] = vals["surrender"]
            pair_nosplit[(p, u)] = _code(opts, hs)
            if pair_nosplit[(p, u)][0] == "D":
                two_dec[row, u] = 2
    split, own, nh = split_values(shoe, rules, table, dealer, dec, two_dec)
    full = dataclasses.replace(base, split=split, split_own=own, split_hands=nh)
    pair_codes: dict[tuple[int, int], str] = {}
    for p in range(10):
        key = _key(p, p)
        t, s = _hand_total([p, p])
        for u in range(10):
            hs = "hit" if hit_stand[(t, s, u)] == "H" else "stand"
            vals = full.values(key, u)
            opts = {a: v for a, v in vals.items() if a not in ("hit", "stand")}
            opts[hs] = vals[hs]
            pair_codes[(p, u)] = _code(opts, hs)
    initial = np.zeros((k, 10), dtype=np.int8)
    for a, b in two_card_hands():
        key = _key(a, b)
        row = table.index[key]
        t, s = _hand_total([a, b])
        for u in range(10):
            hs = "hit" if hit_stand[(t, s, u)] == "H" else "stand"
            if (a, b) == (0, 9):
                code = "S"
            elif a == b:
                code = pair_codes[(p := a, u)] if not math.isnan(split[p, u]) else (
                    pair_nosplit[(a, u)]
                )
            else:
                code = (soft_codes if s else hard_codes)[(t, u)]
            initial[row, u] = ACTIONS.index(_first_allowed(code, hs, full.values(key, u)))
    final = dataclasses.replace(full, initial=initial)
    return final, {
        "hard": hard_codes,
        "soft": soft_codes,
        "pairs": pair_codes,
        "pair_nosplit": pair_nosplit,
        "hit_stand": hit_stand,
    }


def _first_allowed(code: str, hs: str, vals: dict[str, float]) -> str:
    packed = parse_chart_code(code).packed
    return ACTION_NAMES[choose(packed, packed, Action.named(hs), "double" in vals,
                               "split" in vals, "surrender" in vals)]


def _key(a: int, b: int) -> tuple[int, ...]:
    out = [0] * 10
    out[a] += 1
    out[b] += 1
    return tuple(out)


def _call(work: Callable[[], object]) -> None:
    work()


def _player_ev(a: Analysis) -> float:
    return mean_moments(a)[0]


def strategy_for_shoe(
    shoe: tuple[int, ...], rules: HouseRules, kind: str = "total", decks: int | None = None
) -> Strategy:
    """The strategy of ``kind`` (``"total"`` or ``"composition"``) for a rank-class shoe."""
    if kind == "composition":
        # the dealer table first (on every idle core), then the chart's hit/stand, which
        # needs only it, on a thread beside the analysis' splits when a core is idle
        base_tables(shoe, rules.dealer_hits_soft_17, extra_pairs(rules))
        if idle_cores() > 1:
            jobs: list[Callable[[], object]] = [lambda: analyse(shoe, rules),
                                                lambda: _total_hit_stand(shoe, rules)]
            run_parts(_call, jobs)
        a = analyse(shoe, rules)
        two_card: dict[tuple[int, int, int], str] = {}
        pair_nosplit: dict[tuple[int, int], str] = {}
        hit_stand: dict[tuple[int, bool, int], str] = {}
        for x, y in two_card_hands():
            key = _key(x, y)
            row = a.table.index[key]
            for u in range(10):
                hs = "hit" if a.hs_dec[row, u] else "stand"
                vals = a.values(key, u)
                two_card[(x, y, u)] = "S" if (x, y) == (0, 9) else _code(vals, hs)
                if x == y:
                    opts = {k: v for k, v in vals.items() if k != "split"}
                    pair_nosplit[(x, u)] = _code(opts, hs)
        hit_stand = _total_hit_stand(shoe, rules).hit_stand
        return Strategy(
            rules=rules, decks=decks, kind=kind, hard={}, soft={}, pairs={},
            pair_nosplit=pair_nosplit, hit_stand=hit_stand, two_card=two_card, analysis=a,
            player_ev=_player_ev(a),
        )
    a, codes = total_dependent_analysis(shoe, rules)
    return Strategy(
        rules=rules, decks=decks, kind="total", hard=codes["hard"], soft=codes["soft"],
        pairs=codes["pairs"], pair_nosplit=codes["pair_nosplit"],
        hit_stand=codes["hit_stand"], two_card={}, analysis=a, player_ev=_player_ev(a),
    )


@cache
def basic_strategy(rules: HouseRules, decks: int) -> Strategy:
    """Total-dependent basic strategy for a full shoe of ``decks`` decks (cached).

    Use :meth:`Strategy.action` for advice at the table.
    """
    return strategy_for_shoe(full_shoe(decks), rules, "total", decks)


@cache
def composition_strategy(rules: HouseRules, decks: int) -> Strategy:
    """Composition-dependent zero-memory strategy for a full shoe (cached)."""
    return strategy_for_shoe(full_shoe(decks), rules, "composition", decks)

