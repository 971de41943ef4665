"""The dealing shoe: a shuffled (or stacked) order of cards, a cut card and a commitment.

Shuffle algorithm of the table engine (fixed here, so that seeded shoes reproduce):

* The unshuffled shoe is ``decks`` copies of the card indices ``0..51`` laid out deck by
  deck: ``numpy.tile(numpy.arange(52), decks)``.
* Seeded (reproducible): ``numpy.random.Generator(numpy.random.PCG64(seed)).permutation``
  of that array (see :func:`shuffled_order`).
* Unseeded (default): :class:`secrets.SystemRandom` ``shuffle`` of the same array, a
  cryptographically secure Fisher–Yates shuffle.

The simulator does not use this shuffle: its kernels shuffle each shoe with their own
SplitMix64 stream and Lemire's bounded integers (:mod:`sidebet.sim.kernels`).  The
differential tests feed the shoes of :func:`shuffled_order` to the kernels as given
orders, so both play the very same cards.

Commitment: before the first card the table publishes
``sha256(salt || bytes(order)).hexdigest()`` where ``bytes(order)`` is one byte per card
(its index 0..51) in dealing order and ``salt`` is 32 secret bytes
(``secrets.token_bytes(32)``; for a seeded shoe ``sha256(b"sidebet-salt:" + str(seed))``
so seeded runs reproduce).  After the shoe the order and salt are revealed and anyone can
check them with :func:`verify_commitment`.

>>> shuffled_order(1, 7)[:5].tolist() == shuffled_order(1, 7)[:5].tolist()
True
>>> shoe = DealingShoe.seeded(6, seed=1)
>>> verify_commitment(shoe.order, shoe.reveal_salt(), shoe.commitment)
True
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sidebet.core.cards import Card, parse_cards
from sidebet.core.errors import ShoeError
from sidebet.core.shoe import Shoe

__all__ = [
    "DealingShoe",
    "commit",
    "shuffled_order",
    "unshuffled_order",
    "verify_commitment",
]


def unshuffled_order(decks: int) -> npt.NDArray[np.int64]:
    """``decks`` copies of the card indices 0..51, deck by deck.

    >>> unshuffled_order(2)[50:54].tolist()
    [50, 51, 0, 1]
    """
    Shoe.standard(decks)  # validates the deck count (interpretation 1)
    return np.tile(np.arange(52, dtype=np.int64), decks)


def shuffled_order(decks: int, seed: int | None = None) -> npt.NDArray[np.int64]:
    """The shuffled shoe as card indices in dealing order.

    With a ``seed``: ``Generator(PCG64(seed)).permutation(unshuffled_order(decks))``;
    without: a :class:`secrets.SystemRandom` shuffle.

    >>> order = shuffled_order(2, seed=42)
    >>> len(order), sorted(order.tolist()) == sorted(unshuffled_order(2).tolist())
    (104, True)
    """
    base = unshuffled_order(decks)
    if seed is not None:
        rng = np.random.Generator(np.random.PCG64(seed))
        return np.asarray(rng.permutation(base), dtype=np.int64)
    cards = base.tolist()
    secrets.SystemRandom().shuffle(cards)
    return np.array(cards, dtype=np.int64)


def commit(order: Sequence[int] | npt.NDArray[np.int64], salt: bytes) -> str:
    """SHA-256 hex digest of ``salt`` followed by one byte per card index.

    >>> commit([0, 51], b"s") == hashlib.sha256(b"s" + bytes([0, 51])).hexdigest()
    True
    """
    return hashlib.sha256(salt + bytes(int(i) for i in order)).hexdigest()


def verify_commitment(
    order: Sequence[int] | npt.NDArray[np.int64], salt: bytes, digest: str
) -> bool:
    """Whether the revealed ``order`` and ``salt`` match the published ``digest``."""
    return secrets.compare_digest(commit(order, salt), digest)


def _seed_salt(seed: int) -> bytes:
    return hashlib.sha256(f"sidebet-salt:{seed}".encode()).digest()


class DealingShoe:
    """Cards in dealing order with a cut card.

    ``cut`` is the number of cards dealt before the cut card comes out; once it has, the
    current round is completed and the shoe is reshuffled before the next
    (:attr:`needs_shuffle`).  A stacked shoe (:meth:`stacked`) deals preset cards, for tests
    and replays; it has no cut card and running out of it is an error.
    """

    def __init__(
        self,
        order: Sequence[int] | npt.NDArray[np.int64],
        *,
        salt: bytes,
        cut: int | None,
        decks: int | None,
        seed: int | None = None,
    ) -> None:
        self._order: tuple[int, ...] = tuple(int(i) for i in order)
        if any(not 0 <= i < 52 for i in self._order):
            raise ShoeError("a card index must be in 0..51")
        self._salt = salt
        self.cut = cut
        self.decks = decks
        self.seed = seed
        self.position = 0
        self.commitment = commit(self._order, salt)

    @staticmethod
    def shuffled(
        decks: int, seed: int | None = None, penetration: Fraction = Fraction(3, 4)
    ) -> DealingShoe:
        """A freshly shuffled shoe (:func:`shuffled_order`) with the cut card placed at
        ``penetration`` of the cards (rounded down)."""
        order = shuffled_order(decks, seed)
        salt = secrets.token_bytes(32) if seed is None else _seed_salt(seed)
        cut = int(len(order) * penetration)
        return DealingShoe(order, salt=salt, cut=cut, decks=decks, seed=seed)

    @staticmethod
    def seeded(decks: int, seed: int, penetration: Fraction = Fraction(3, 4)) -> DealingShoe:
        """A reproducible shuffled shoe."""
        return DealingShoe.shuffled(decks, seed, penetration)

    @staticmethod
    def stacked(cards: str | Iterable[Card]) -> DealingShoe:
        """A shoe that deals exactly ``cards`` in order (tests, replays).

        >>> DealingShoe.stacked("As Kd").deal()
        Card(rank=<Rank.ACE: 14>, suit=<Suit.SPADES: 3>)
        """
        seq = parse_cards(cards) if isinstance(cards, str) else tuple(cards)
        return DealingShoe([c.index for c in seq], salt=b"stacked", cut=None, decks=None)

    @property
    def order(self) -> tuple[int, ...]:
        """The whole dealing order (card indices); reveal it only after the shoe."""
        return self._order

    def reveal_salt(self) -> bytes:
        """The commitment's secret salt (reveal after the shoe is finished)."""
        return self._salt

    @property
    def remaining(self) -> int:
        """Cards not yet dealt."""
        return len(self._order) - self.position

    @property
    def needs_shuffle(self) -> bool:
        """Whether the cut card has come out (reshuffle before the next round)."""
        return self.cut is not None and self.position >= self.cut

    def deal(self) -> Card:
        """The next card."""
        if self.position >= len(self._order):
            raise ShoeError(f"the shoe is empty after {len(self._order)} cards")
        card = Card.from_index(self._order[self.position])
        self.position += 1
        return card
