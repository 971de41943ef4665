"""A simulation's plan: a spec's kernel tables as raw bytes, played again without numpy.

Everything a chunk of complete rounds reads, except the seed's draws, follows from the
:class:`~sidebet.sim.spec.SimSpec`: the base shoe, the side wagers' combination tables,
the Press table, the house rules' integers, the card values and the strategy tables.
:func:`plan_of` takes them from the spec's :class:`~sidebet.sim.spec.KernelInputs` (that
side uses numpy) with the :class:`~sidebet.sim.shape.RunShape` the results read;
:class:`Plan` holds them as bytes, is written to one file and read back
(:meth:`Plan.dump`, :meth:`Plan.load`), and :func:`play` plays a chunk of it through the
plain kernel library (:mod:`sidebet.sim.plain_kernel`), the same chunk
:func:`sidebet.sim.chunk.run_chunk` plays, bit for bit (``tests/sim/test_plan.py``).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sidebet.sim import counters
from sidebet.sim.counters import ChunkResult
from sidebet.sim.layout import NSTAT, Outputs, PlayArrays, RoundTables, ShoeStream, kernel_params
from sidebet.sim.shape import RunShape

if TYPE_CHECKING:
    from sidebet.sim.results import SimResult
    from sidebet.sim.spec import SimSpec

__all__ = ["FORMAT", "Plan", "framed", "plan_of", "play", "play_plan", "unframed"]

FORMAT = 1
"""The plan file's format; a file of another format is not read."""

_MAGIC = b"sidebet-plan\0"
_CODES = {"uint8": "B", "int8": "b", "uint16": "H", "int64": "q"}
_TYPES = dict(kernel_params(True))
_ARRAYS = {  # the plan's arrays: the kernel field each one is, and where KernelInputs has it
    "base": "ShoeStream.base", "combo_tab": "RoundTables.combo_tab",
    "combo_net": "RoundTables.combo_net", "combo_offer": "RoundTables.combo_offer",
    "combo_pay": "RoundTables.combo_pay", "press_tab": "RoundTables.press_tab",
    "rules": "RoundTables.rules", "vals": "RoundTables.vals",
    "decide2": "PlayArrays.decide2", "hs_hard": "PlayArrays.hs_hard",
    "hs_soft": "PlayArrays.hs_soft",
}


@dataclass(frozen=True, slots=True)
class Plan:
    """A spec of complete rounds as the kernel reads it: the results' :class:`RunShape`,
    the Blackjack wager in tenths (``bet``), the Press mode, the histogram's length, the
    spec's estimate of rounds per shoe (to plan chunks) and the tables, each as
    ``(shape, bytes)`` in the dtype of its kernel field."""

    shape: RunShape
    bet: int
    press_mode: int
    hist_len: int
    n_round2: int
    rounds_per_shoe: float
    arrays: dict[str, tuple[tuple[int, ...], bytes | bytearray]]

    def view(self, name: str) -> memoryview:
        """Table ``name`` as a typed view (writable when the plan was loaded from a file:
        the kernel is then given the table itself, not a copy; it never writes one)."""
        dims, data = self.arrays[name]
        return _typed(memoryview(data), _CODES[_TYPES[_ARRAYS[name]].dtype], dims)

    def dump(self) -> bytes:
        """The plan as one file's bytes: a header (JSON) and the tables after it."""
        tables = {name: list(dims) for name, (dims, _) in self.arrays.items()}
        head = {
            "format": FORMAT, "shape": self.shape.to_json(), "bet": self.bet,
            "press_mode": self.press_mode, "hist_len": self.hist_len,
            "n_round2": self.n_round2, "rounds_per_shoe": self.rounds_per_shoe,
            "tables": tables, "sizes": [len(data) for _, data in self.arrays.values()],
        }
        return framed(_MAGIC, head, *(data for _, data in self.arrays.values()))

    @staticmethod
    def load(data: bytes) -> Plan:
        """The inverse of :meth:`dump`; a :class:`ValueError` for any other bytes."""
        head, at = unframed(_MAGIC, data, "sidebet plan")
        if head.get("format") != FORMAT:
            raise ValueError("a plan of another format")
        arrays: dict[str, tuple[tuple[int, ...], bytes | bytearray]] = {}
        try:
            for (name, dims), length in zip(head["tables"].items(), head["sizes"], strict=True):
                if name not in _ARRAYS or at + length > len(data):
                    raise ValueError(f"a damaged plan (table {name!r})")
                shape = tuple(int(d) for d in dims)
                item = struct.calcsize(_CODES[_TYPES[_ARRAYS[name]].dtype])
                if math.prod(shape) * item != length:
                    raise ValueError(f"a damaged plan (table {name!r} has {length} bytes)")
                arrays[name] = (shape, bytearray(memoryview(data)[at:at + length]))
                at += length
            if at != len(data) or set(arrays) != set(_ARRAYS):
                raise ValueError("a damaged plan (tables)")
            return Plan(shape=RunShape.from_json(head["shape"]), bet=int(head["bet"]),
                        press_mode=int(head["press_mode"]), hist_len=int(head["hist_len"]),
                        n_round2=int(head["n_round2"]),
                        rounds_per_shoe=float(head["rounds_per_shoe"]), arrays=arrays)
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"a damaged plan ({type(exc).__name__}: {exc})") from None


def framed(magic: bytes, head: dict[str, Any], *body: bytes | bytearray) -> bytes:
    """One file's bytes: ``magic``, the length of the JSON ``head`` (8 bytes, little
    endian), the head, then ``body`` (a plan's file, and a saved command's in
    :mod:`sidebet.cli.replay`).

    >>> unframed(b"x", framed(b"x", {"a": 1}, b"rest"), "thing")
    ({'a': 1}, 16)
    """
    text = json.dumps(head, separators=(",", ":")).encode()
    return b"".join([magic, struct.pack("<Q", len(text)), text, *body])


def unframed(magic: bytes, data: bytes, what: str) -> tuple[dict[str, Any], int]:
    """The JSON head of :func:`framed` bytes and where their body starts; a
    :class:`ValueError` naming ``what`` for any other bytes."""
    if not data.startswith(magic) or len(data) < len(magic) + 8:
        raise ValueError(f"not a {what}")
    at = len(magic) + 8
    (size,) = struct.unpack_from("<Q", data, len(magic))
    try:
        head = json.loads(data[at:at + size])
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"a damaged {what} ({exc})") from None
    if not isinstance(head, dict):
        raise ValueError(f"a damaged {what} (its head is not an object)")
    return head, at + size

def plan_of(spec: SimSpec, rounds_per_shoe: float) -> Plan:
    """The plan of ``spec`` (complete rounds; a :class:`ValueError` for side wagers only)."""
    from sidebet.core.money import units_to_tenths
    from sidebet.sim.shape import run_shape

    if spec.side_only:
        raise ValueError("a plan plays complete rounds; this spec deals side wagers only")
    inp = spec.inputs()
    assert inp.strategy is not None and inp.decide2 is not None
    source = {"base": inp.base, "combo_tab": inp.combo_tab, "combo_net": inp.combo_net,
              "combo_offer": inp.combo_offer, "combo_pay": inp.combo_pay,
              "press_tab": inp.press_tab, "rules": inp.rules, "vals": inp.vals,
              "decide2": inp.decide2, "hs_hard": inp.strategy.hs_hard,
              "hs_soft": inp.strategy.hs_soft}
    arrays = {}
    for name, field in _ARRAYS.items():
        array = _TYPES[field].check(field, source[name])
        arrays[name] = (tuple(int(d) for d in array.shape), array.tobytes())
    return Plan(shape=run_shape(spec), bet=units_to_tenths(spec.bet), press_mode=inp.press_mode,
                hist_len=inp.hist_len, n_round2=len(inp.wagers) + 3,
                rounds_per_shoe=rounds_per_shoe, arrays=arrays)


def _typed(view: memoryview, code: str, dims: tuple[int, ...]) -> memoryview:
    """Bytes ``view`` as items of ``code`` shaped ``dims`` (an empty one stays flat:
    memoryview cannot shape it; the kernel's checks take it for any shape)."""
    raw: Any = view  # typeshed types ``cast`` by literal format letters
    out: memoryview = raw.cast(code, dims) if view.nbytes else raw.cast(code)
    return out


def _zeros(code: str, *dims: int) -> memoryview:
    return _typed(memoryview(bytearray(math.prod(dims) * struct.calcsize(code))), code, dims)


def play(plan: Plan, key: tuple[int, int], shoe0: int, nshoes: int,
         max_rounds: int) -> ChunkResult:
    """Shoes ``shoe0 .. shoe0 + nshoes - 1`` of the seed's ``key``, at most ``max_rounds``
    rounds: :func:`sidebet.sim.chunk.run_chunk` of the plan's spec, without numpy."""
    from sidebet.sim import plain_kernel

    shape = plan.shape
    base = plan.view("base")
    src = ShoeStream(bytearray(base), base, _zeros("B", 0, base.nbytes), key[0], key[1],
                     shoe0, nshoes, shape.cut)
    tab = RoundTables(shape.seats, plan.bet, plan.view("combo_tab"), plan.view("combo_net"),
                      plan.view("combo_offer"), plan.view("combo_pay"), plan.press_mode,
                      plan.view("press_tab"), plan.view("rules"), plan.view("vals"),
                      shape.hist_off)
    strategy = PlayArrays(plan.view("decide2"), plan.view("hs_hard"), plan.view("hs_soft"))
    out = Outputs(_zeros("q", shape.n_combos), _zeros("q", plan.n_round2),
                  _zeros("q", shape.seats, 4), _zeros("q", NSTAT), _zeros("q", plan.hist_len),
                  _zeros("q", 0, shape.seats, 3), _zeros("q", 1), _zeros("q", 0, 2))
    nonzero = _zeros("q", 1 + 2 * plan.hist_len)
    rounds = plain_kernel.play_chunk(src, tab, strategy, out, max_rounds, nonzero)
    n = nonzero[0]
    pairs = nonzero[1:1 + 2 * n].tolist()
    seats = out.seat_stats.tolist()
    combo_index, combo_count = counters.nonzero(out.combo_counts.tolist())
    return ChunkResult(
        rounds=rounds,
        shoes=out.info[0] if rounds else 0,
        stats=tuple(out.stats.tolist()),
        combo_index=combo_index,
        combo_count=combo_count,
        hist_index=tuple(pairs[0::2]),
        hist_count=tuple(pairs[1::2]),
        round2=tuple(out.round2.tolist()),
        seats=tuple(tuple(row) for row in seats),
    )


def play_plan(plan: Plan, rounds: int, seed: int | None, *, threads: int,
              chunk_shoes: int | None = None, exact: dict[str, float] | None = None,
              meanwhile: Callable[[], None] | None = None) -> SimResult:
    """:func:`sidebet.sim.runner.simulate` of the plan's spec (one local worker, on
    ``threads`` threads), without numpy: the same result for the same seed (``None``: a
    fresh one), with the ``exact`` values given (the spec's, computed when the plan was
    made)."""
    from sidebet.sim.schedule import fresh_seed, simulate_chunks

    return simulate_chunks(play, plan, plan.shape, rounds,
                           fresh_seed() if seed is None else seed,
                           rounds_per_shoe=plan.rounds_per_shoe, chunk_shoes=chunk_shoes,
                           threads=threads, meanwhile=meanwhile, exact=dict(exact or {}))
