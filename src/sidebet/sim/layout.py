"""The simulator kernel's arguments: their structure, their types and the counters' names.

This module imports no numba.  :mod:`sidebet.sim.kernels` (the numba kernels),
:mod:`sidebet.sim.compiled` (the call that checks every argument and picks the ahead-of-time
compiled kernel or the JIT one) and :mod:`sidebet.warm.sim_exports` (which compiles it) all
take their definitions from here: the four argument records, and one type per field
(:data:`FIELD_TYPES`, of :class:`sidebet.native.signatures.ArgType`) from which both the compiled
signatures and the checks derive.  A card counter's two records (:class:`CounterArrays`,
its tables, with :class:`ExactEv`; :class:`CounterOutputs`, its sums) are passed to the
same kernel by :mod:`sidebet.advantage.run` (JIT only; the compiled extension plays
without a counter).

>>> signature(SHOE_STREAM_TYPES)
'u1[::1], u1[::1], u1[:, ::1], u8, u8, i8, i8, i8'
>>> ArgType("int8", 4).numba_code
'i1[:, :, :, ::1]'
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sidebet.native.signatures import ArgType, signature

__all__ = [
    "ACC_FIELDS",
    "FIELD_TYPES",
    "NACC",
    "NSTAT",
    "NTC",
    "OUTPUTS_TYPES",
    "PLAY_ARRAYS_TYPES",
    "ROUND_TABLES_TYPES",
    "RULE_FIELDS",
    "SHOE_STREAM_TYPES",
    "STAT_NAMES",
    "UNIT",
    "ArgType",
    "CounterArrays",
    "CounterOutputs",
    "ExactEv",
    "Outputs",
    "PlayArrays",
    "RoundTables",
    "ShoeStream",
    "output_types",
    "signature",
]


class ShoeStream(NamedTuple):
    """Where the cards come from: the shoe buffer ``buf`` (reset from ``base`` and
    shuffled by shoe number from the key ``(key0, key1)``) or, in orders mode, the rows
    of ``orders``; shoes ``shoe0 .. shoe0 + nshoes - 1``; a round starts while fewer than
    ``cut`` cards are dealt."""

    buf: Any
    base: Any
    orders: Any
    key0: Any
    key1: Any
    shoe0: int
    nshoes: int
    cut: int


class RoundTables(NamedTuple):
    """The table and its side wagers as arrays (money in tenths): ``seats``, the
    Blackjack wager ``bet``, the combination table ``combo_tab`` (indexed by
    :func:`sidebet.core.cards.triple_index`), each combination's side net ``combo_net``, its
    TriLux Deluxe winnings offered for pressing ``combo_offer`` and net per wager
    ``combo_pay``; the Press (``press_mode`` 0 never, 1 all, 2 where
    ``press_tab[value1, value2, upcard value]``); the house rules per
    :data:`RULE_FIELDS`; card values ``vals``; the histogram offset ``hist_off``."""

    seats: int
    bet: int
    combo_tab: Any
    combo_net: Any
    combo_offer: Any
    combo_pay: Any
    press_mode: int
    press_tab: Any
    rules: Any
    vals: Any
    hist_off: int


class PlayArrays(NamedTuple):
    """The strategy (int8 action codes): ``decide2[context, value1, value2, upcard
    value]`` for a two-card hand (:func:`sidebet.sim.kernels.decision_table`),
    ``hs_hard``/``hs_soft[total, upcard value]`` (stand 0, hit 1) for hands of three or
    more cards; see :mod:`sidebet.sim.strategy_tables`."""

    decide2: Any
    hs_hard: Any
    hs_soft: Any


class Outputs(NamedTuple):
    """What :func:`sidebet.sim.kernels.play_chunk` counts: ``combo_counts``, ``round2``,
    ``seat_stats``, ``stats`` (:data:`STAT_NAMES`), ``hist``, ``trace``, ``info``
    (``info[0]``: shoes started) and ``marks`` (``[rounds, 2]``, may have no rows: where
    each round starts, the shoe's number and the cards already dealt from it; the counting
    analysis rebuilds each round's composition from these)."""

    combo_counts: Any
    round2: Any
    seat_stats: Any
    stats: Any
    hist: Any
    trace: Any
    info: Any
    marks: Any


class ExactEv(NamedTuple):
    """The side wagers' exact-EV tables (:mod:`sidebet.sim.exact_ev`): each wager's
    category ``weights``, the Upcard Luck classes ``cls`` and forms ``ma``, ``mb``,
    ``lucky``, and the straights' neighbours ``nb`` (built by
    :func:`sidebet.vuln.side_ev.ev_tables`)."""

    weights: Any
    cls: Any
    ma: Any
    mb: Any
    lucky: Any
    nb: Any


class CounterArrays(NamedTuple):
    """A card counter at the table, for :func:`sidebet.sim.kernels.play_chunk`: it plays
    seats ``0 .. spots_of[bucket] - 1`` (at most ``spots``; the table's other seats are
    dealt after them, a spot not played is not dealt); the others play table 0 of
    :class:`PlayArrays`.  Its table burns ``burn`` cards after each shuffle (unseen, not
    counted) and places each shoe's cut card ``cut_spread`` cards either side of the
    stream's ``cut`` (:func:`sidebet.sim.counting.cut_place`).  With an ace side count
    (field ``ace_field`` of ``packed``, tags 1 on aces; -1 none) the bets' index adds
    ``ace_bet`` and insurance's ``ace_ins`` (the count's kept units) per ace in excess
    among the unseen cards (:func:`sidebet.sim.counting.ace_adjusted`); the plays keep
    the count's own.

    The counts: ``packed[card, word]`` holds the card's tags, three signed 21-bit fields a
    word (field 0 the count's, field ``side_field[w]`` side wager ``w``'s), so one addition
    a word counts a card for every count.  The index: the running count (from ``irc``)
    times ``main_mult`` over ``den[0, cards left]``, made whole by ``rounding``
    (:func:`sidebet.sim.counting.whole`, ``inv`` the reciprocals); its *bucket* ``index +
    B`` (``B = (len(ramp) - 1) // 2``, clipped) picks the Blackjack bet ``ramp[bucket]``
    (units a spot; with cover, :func:`sidebet.sim.counting.cover`: raised only after a won
    round if ``parlay``, changed at most ``jump`` times from the last bet if ``jump``),
    the spots played ``spots_of[bucket]`` and, with ``wong_in`` / ``wong_out`` (buckets,
    -1 none), whether a back-counter plays, all before the deal.  At each decision the
    counter's seats play the strategy (of :class:`PlayArrays`) of the count at that
    moment, ``play_at[cards unseen, count of the cards seen + reach]`` (``reach`` half the
    row; the hole card unseen), the other seats ``basic_id``; insurance, offered after the
    deal, is taken from bucket ``ins_from`` up of the count then.

    Side wager ``w``: ``side_mode`` 0 never, 1 flat ``side_ramp[w, 0]``, 2 that bet when
    its exact EV (``ev``) is positive, 3 ``side_ramp[w, side bucket]`` by the true count
    of its own tags centred on a deck (``(52 · sum - cards seen · side_sum[w]) ·
    side_mult`` over ``den[1, cards left]``); only beside a Blackjack bet, at most
    ``side_cap[w, 0] * bet // side_cap[w, 1]`` (``side_cap[w, 1]`` 0: no cap), and
    ``side_need[w]`` (-1 none) bet at least one unit with it."""

    spots: int
    spots_of: Any
    jump: int
    parlay: bool
    burn: int
    cut_spread: int
    ace_field: int
    ace_bet: int
    ace_ins: int
    packed: Any
    irc: int
    main_mult: int
    side_mult: int
    rounding: int
    den: Any
    inv: Any
    ramp: Any
    play_at: Any
    basic_id: int
    wong_in: int
    wong_out: int
    ins_from: int
    side_mode: Any
    side_field: Any
    side_sum: Any
    side_ramp: Any
    side_need: Any
    side_cap: Any
    ev: ExactEv


UNIT = 10
"""One table unit in tenths: a counter's hands are settled at this bet (its books scale
them by its bets, whole units)."""

ACC_FIELDS = ("rounds", "played", "shoes", "sr", "srr", "bet", "bet2", "insured")
""":attr:`CounterOutputs.acc`: rounds observed, rounds bet, shoes, Σ rounds per shoe and
its square, Σ the counter's initial Blackjack action (units, all spots) and its square,
insurance bets."""
NACC = len(ACC_FIELDS)
NTC = 6
"""Per bucket (:attr:`CounterOutputs.tc_stats`): rounds, Σ x, Σ x² (x: the Blackjack net
of the counter's spots at one unit each, insurance included, tenths), rounds bet, Σ units
bet (all spots), Σ money won (tenths)."""


class CounterOutputs(NamedTuple):
    """What a counter's rounds add up (floats, money in tenths): ``acc``
    (:data:`ACC_FIELDS`), ``tc_stats[bucket]`` (:data:`NTC`), ``side_tc[w, side bucket]``
    (wagers bet by count): rounds, Σ y, Σ y² (y: the wager's net on the counter's spots
    at one unit each), ``side_acc[w]``: bets, Σ units, ``comp[j]`` (j: 0 all, 1 Blackjack
    with insurance, 2 insurance, 3.. each side wager): Σ v, Σ v², and over shoes Σ X, Σ
    X², Σ X·R (X: the shoe's sum, R its rounds); ``trace[r]`` (may have no rows): round
    ``r``'s whole net (int64, tenths)."""

    acc: Any
    tc_stats: Any
    side_tc: Any
    side_acc: Any
    comp: Any
    trace: Any


# ----- the type of every field -----------------------------------------------------------

_U1, _U2, _I1, _I8 = "uint8", "uint16", "int8", "int64"
_INT = ArgType(_I8, 0)

SHOE_STREAM_TYPES: tuple[ArgType, ...] = (
    ArgType(_U1, 1, written=True), ArgType(_U1, 1), ArgType(_U1, 2),
    ArgType("uint64", 0), ArgType("uint64", 0), _INT, _INT, _INT,
)
ROUND_TABLES_TYPES: tuple[ArgType, ...] = (
    _INT, _INT, ArgType(_U2, 1), ArgType(_I8, 1), ArgType(_I8, 1), ArgType(_I8, 2), _INT,
    ArgType(_U1, 3), ArgType(_I8, 1), ArgType(_I8, 1), _INT,
)
PLAY_ARRAYS_TYPES: tuple[ArgType, ...] = (ArgType(_I1, 4), ArgType(_I1, 2), ArgType(_I1, 2))


def output_types(full: bool) -> tuple[ArgType, ...]:
    """The types of :class:`Outputs`: ``trace`` is ``[rounds, seats]`` for side wagers
    only and ``[rounds, seats, 3]`` for complete rounds."""
    out = ArgType(_I8, 1, written=True)
    return (out, out, ArgType(_I8, 2, written=True), out, out,
            ArgType(_I8, 3 if full else 2, written=True), out, ArgType(_I8, 2, written=True))


OUTPUTS_TYPES = output_types(True)
"""The types of :class:`Outputs` for complete rounds."""

FIELD_TYPES: dict[type[Any], tuple[ArgType, ...]] = {
    ShoeStream: SHOE_STREAM_TYPES,
    RoundTables: ROUND_TABLES_TYPES,
    PlayArrays: PLAY_ARRAYS_TYPES,
    Outputs: OUTPUTS_TYPES,
}
"""Each argument record's field types, in field order."""

MAX_ROUNDS_TYPE = _INT
DECISION_TABLE_TYPES: tuple[tuple[str, ArgType], ...] = (
    *((name, ArgType(_I1, 2)) for name in ("hard2", "soft2", "pair", "nosplit", "hs_hard",
                                           "hs_soft")),
    ("rules", ArgType(_I8, 1)),
)
"""The arguments of :func:`sidebet.sim.kernels.decision_table` (it returns an int8 array
of :data:`PLAY_ARRAYS_TYPES` ``[0]``'s type)."""


def check_record(record: Any, cls: type[Any], types: tuple[ArgType, ...]) -> tuple[Any, ...]:
    """The fields of ``record``, an instance of the argument record ``cls``, each checked
    against its type (an error names the record and the field)."""
    if not isinstance(record, cls):
        raise TypeError(f"expected a {cls.__name__}, got {type(record).__name__}")
    return tuple(t.check(f"{cls.__name__}.{name}", value)
                 for name, value, t in zip(cls._fields, record, types, strict=True))


# ----- house rules and counters --------------------------------------------------------

RULE_FIELDS = (
    "h17",
    "bj_num",
    "bj_den",
    "double_rule",  # legality.DOUBLE_*: 0 any two cards, 1 hard 9-11, 2 hard 10-11
    "das",
    "max_hands",
    "rsa",
    "hsa",
    "late_surrender",
    "peek",
    "dbj_takes_doubles",
)
"""Order of the house-rule integers passed to the kernel (``RoundTables.rules``)."""

STAT_NAMES = (
    "rounds",
    "seat_rounds",
    "shoes",
    "bj_net",
    "bj_net2",
    "base_net",
    "base_net2",
    "press_rounds",
    "press_amount",
    "press_net",
    "press_net2",
    "total_net",
    "total_net2",
    "action",
    "hands",
    "naturals",
    "wins",
    "pushes",
    "losses",
    "surrenders",
    "doubles",
    "splits",
    "busts",
    "dealer_blackjacks",
    "dealer_busts",
    "round_wins",
    "round_pushes",
    "round_losses",
)
"""Names of the integer counters a chunk returns (money in tenths of a unit)."""

NSTAT = len(STAT_NAMES)
_I = {name: i for i, name in enumerate(STAT_NAMES)}
ST_ROUNDS = _I["rounds"]
ST_SEAT_ROUNDS = _I["seat_rounds"]
ST_SHOES = _I["shoes"]
ST_BJ_NET = _I["bj_net"]
ST_BJ_NET2 = _I["bj_net2"]
ST_BASE_NET = _I["base_net"]
ST_BASE_NET2 = _I["base_net2"]
ST_PRESS_ROUNDS = _I["press_rounds"]
ST_PRESS_AMOUNT = _I["press_amount"]
ST_PRESS_NET = _I["press_net"]
ST_PRESS_NET2 = _I["press_net2"]
ST_TOTAL_NET = _I["total_net"]
ST_TOTAL_NET2 = _I["total_net2"]
ST_ACTION = _I["action"]
ST_HANDS = _I["hands"]
ST_NATURALS = _I["naturals"]
ST_WINS = _I["wins"]
ST_PUSHES = _I["pushes"]
ST_LOSSES = _I["losses"]
ST_SURRENDERS = _I["surrenders"]
ST_DOUBLES = _I["doubles"]
ST_SPLITS = _I["splits"]
ST_BUSTS = _I["busts"]
ST_DEALER_BJ = _I["dealer_blackjacks"]
ST_DEALER_BUSTS = _I["dealer_busts"]
ST_ROUND_WINS = _I["round_wins"]
ST_ROUND_PUSHES = _I["round_pushes"]
ST_ROUND_LOSSES = _I["round_losses"]
