"""Independent brute-force enumeration of blackjack deals, in casino order, with Fractions.

The dealer's hole card is dealt *before* the player acts (and, with a peek, conditioned on
not making a Blackjack); split hands are dealt and played one after another with resplits
exactly as at the table.  Nothing here uses the engine's exchangeability shortcuts.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache

Counts = tuple[int, ...]


def add(counts: Counts, c: int, k: int = 1) -> Counts:
    lst = list(counts)
    lst[c] += k
    return tuple(lst)


def total(counts: Counts) -> tuple[int, bool]:
    hard = sum((c + 1) * k for c, k in enumerate(counts))
    soft = counts[0] > 0 and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


def is_bj_pair(up: int, hole: int) -> bool:
    return {up, hole} == {0, 9}


@cache
def dealer_dist(shoe: Counts, dealer: Counts, h17: bool) -> dict[int, Fraction]:
    """Final dealer total (22 = bust) from the dealer's cards so far."""
    tot, soft = total(dealer)
    if tot > 21:
        return {22: Fraction(1)}
    if tot >= 17 and not (h17 and tot == 17 and soft):
        return {tot: Fraction(1)}
    n = sum(shoe)
    out: dict[int, Fraction] = {}
    for c in range(10):
        if shoe[c]:
            for t, p in dealer_dist(add(shoe, c, -1), add(dealer, c), h17).items():
                out[t] = out.get(t, Fraction(0)) + Fraction(shoe[c], n) * p
    return out


def dealer_no_bj(shoe: Counts, up: int, h17: bool) -> dict[int, Fraction]:
    """Joint P(no dealer Blackjack, final total) with the hole card dealt from ``shoe``."""
    n = sum(shoe)
    out: dict[int, Fraction] = {}
    for h in range(10):
        if shoe[h] and not is_bj_pair(up, h):
            start = add(add((0,) * 10, up), h)
            for t, p in dealer_dist(add(shoe, h, -1), start, h17).items():
                out[t] = out.get(t, Fraction(0)) + Fraction(shoe[h], n) * p
    return out


def result(player: Counts, mult: int, dealer_total: int) -> int:
    return settle_total(total(player)[0], mult, dealer_total)


def settle_total(pt: int, mult: int, dealer_total: int) -> int:
    """Net result of a finished hand of total ``pt`` (over 21: bust) and ``mult`` units."""
    if pt > 21:
        return -mult
    if dealer_total > 21 or pt > dealer_total:
        return mult
    if pt < dealer_total:
        return -mult
    return 0


class Player:
    """Optimal play of one hand by the player's information (the hole card unknown)."""

    def __init__(
        self, up: int, h17: bool, policy: Callable[[Counts], str] | None = None
    ) -> None:
        self.up = up
        self.h17 = h17
        self.policy = policy
        """A fixed hit/stand play after a hit (``None``: the best by information)."""

    def holes(self, shoe: Counts) -> list[tuple[int, Fraction]]:
        n = sum(shoe)
        return [
            (h, Fraction(shoe[h], n))
            for h in range(10)
            if shoe[h] and not is_bj_pair(self.up, h)
        ]

    @cache  # noqa: B019
    def vectors(self, hand: Counts, shoe: Counts) -> dict[str, dict[int, Fraction]]:
        """Per hole card h: E[outcome | hand, h] of stand, hit (optimal after), double."""
        out: dict[str, dict[int, Fraction]] = {"stand": {}, "hit": {}, "double": {}}
        for h, _ in self.holes(shoe):
            rest = add(shoe, h, -1)
            dealer = add(add((0,) * 10, self.up), h)
            out["stand"][h] = sum(
                (p * result(hand, 1, t) for t, p in dealer_dist(rest, dealer, self.h17).items()),
                Fraction(0),
            )
        n = sum(shoe)
        for h, _ in self.holes(shoe):
            out["hit"][h] = Fraction(0)
            out["double"][h] = Fraction(0)
        for c in range(10):
            if not shoe[c]:
                continue
            new = add(hand, c)
            bust = total(new)[0] > 21
            if not bust:
                sub = self.vectors(new, add(shoe, c, -1))
                act = (
                    self.policy(new) if self.policy else self.choice(new, add(shoe, c, -1))
                )
            for h, _ in self.holes(shoe):
                left = shoe[c] - (c == h)
                if left == 0:
                    continue
                pc = Fraction(left, n - 1)
                if bust:
                    out["hit"][h] -= pc
                    out["double"][h] -= 2 * pc
                else:
                    out["hit"][h] += pc * sub[act][h]
                    out["double"][h] += 2 * pc * sub["stand"][h]
        return out

    def value(self, hand: Counts, shoe: Counts, action: str) -> Fraction:
        vec = self.vectors(hand, shoe)[action]
        return sum((p * vec[h] for h, p in self.holes(shoe)), Fraction(0))

    def choice(self, hand: Counts, shoe: Counts) -> str:
        s = self.value(hand, shoe, "stand")
        return "hit" if self.value(hand, shoe, "hit") > s else "stand"


Finished = tuple[tuple[int, int], ...]
"""The finished split hands, sorted: (total, 1 or 2 for a doubled hand)."""

Vector = tuple[Fraction, ...]


def split_value(
    pair: int,
    up: int,
    unseen: Counts,
    max_hands: int,
    h17: bool,
    hit_split_aces: bool,
    action: Callable[[Counts], str],
) -> Fraction:
    """E[sum of split hands · 1{no dealer BJ}]; ``unseen`` excludes both pair cards and the
    upcard; ``action(hand)`` plays a split hand (stand / hit / double)."""
    return split_expectation(
        pair, up, unseen, max_hands, h17, hit_split_aces, action,
        lambda done, t: (Fraction(sum(settle_total(pt, m, t) for pt, m in done)),),
    )[0]


def split_moments(
    pair: int,
    up: int,
    unseen: Counts,
    max_hands: int,
    h17: bool,
    hit_split_aces: bool,
    action: Callable[[Counts], str],
) -> tuple[Fraction, Fraction, Fraction]:
    """``(E[R], E[R²], E[X_1² + ... + X_N²])``, each ``· 1{no dealer BJ}``, of the round's
    result ``R = X_1 + ... + X_N``, the sum of the split hands' results (arguments as for
    :func:`split_value`)."""

    def score(done: Finished, t: int) -> Vector:
        xs = [settle_total(pt, m, t) for pt, m in done]
        return Fraction(sum(xs)), Fraction(sum(xs) ** 2), Fraction(sum(x * x for x in xs))

    mean, second, own = split_expectation(
        pair, up, unseen, max_hands, h17, hit_split_aces, action, score
    )
    return mean, second, own


def _plus(acc: Vector, weight: Fraction, vec: Vector) -> Vector:
    return tuple(a + weight * v for a, v in zip(acc, vec, strict=True))


def split_expectation(
    pair: int,
    up: int,
    unseen: Counts,
    max_hands: int,
    h17: bool,
    hit_split_aces: bool,
    action: Callable[[Counts], str],
    score: Callable[[Finished, int], Vector],
) -> Vector:
    """E[score(finished hands, dealer total) · 1{no dealer BJ}] over every casino-order deal
    of the split (dealer total 22 = bust); ``score`` gives a vector of quantities at once."""
    size = len(score((), 22))

    def finish(done: Finished, hand: Counts, mult: int) -> Finished:
        # only a finished hand's total and stake matter from now on: keeping just those,
        # sorted, lets the cache merge deals that differ in nothing else
        return tuple(sorted((*done, (min(total(hand)[0], 22), mult))))
    zero: Vector = (Fraction(0),) * size

    @cache
    def play(
        shoe: Counts,
        done: Finished,
        cur: Counts | None,
        pending: int,
        hands: int,
        hole: int,
    ) -> Vector:
        if cur is None:
            if pending == 0:
                dealer = add(add((0,) * 10, up), hole)
                acc = zero
                for t, p in dealer_dist(shoe, dealer, h17).items():
                    acc = _plus(acc, p, score(done, t))
                return acc
            return play(shoe, done, add((0,) * 10, pair), pending - 1, hands, hole)
        n = sum(shoe)
        ncards = sum(cur)
        if ncards == 1:
            acc = zero
            for c in range(10):
                if not shoe[c]:
                    continue
                pc = Fraction(shoe[c], n)
                rest = add(shoe, c, -1)
                if c == pair and hands < max_hands:
                    acc = _plus(acc, pc, play(rest, done, cur, pending + 1, hands + 1, hole))
                else:
                    acc = _plus(acc, pc, play(rest, done, add(cur, c), pending, hands, hole))
            return acc
        tot, _ = total(cur)
        if tot > 21 or (pair == 0 and not hit_split_aces):
            return play(shoe, finish(done, cur, 1), None, pending, hands, hole)
        act = action(cur)
        if act == "stand":
            return play(shoe, finish(done, cur, 1), None, pending, hands, hole)
        acc = zero
        for c in range(10):
            if not shoe[c]:
                continue
            pc = Fraction(shoe[c], n)
            rest = add(shoe, c, -1)
            if act == "double":
                nxt = play(rest, finish(done, add(cur, c), 2), None, pending, hands, hole)
            else:
                nxt = play(rest, done, add(cur, c), pending, hands, hole)
            acc = _plus(acc, pc, nxt)
        return acc

    n = sum(unseen)
    out = zero
    for h in range(10):
        if unseen[h] and not is_bj_pair(up, h):
            out = _plus(out, Fraction(unseen[h], n), play(add(unseen, h, -1), (), None, 2, 2, h))
    return out
