"""A live table in memory: seats, shoes and the round, rebuilt from the table's event log.

Every change of a table is an event (:data:`EVENT_KINDS`); :meth:`LiveTable.apply` applies
one, the same way when the server acts and when it restarts and replays the log, so the
state after a restart is the state before it.  The round itself is the table engine's
:class:`~sidebet.table.RoundState`: an ``action`` event holds the decision (a frozen
record's JSON), and applying it calls :meth:`RoundState.apply`, which answers it once
(:meth:`RoundState.answer`) and acts; replay also checks that the engine produces exactly
the records stored with the event.  What a seat may do (:meth:`LiveTable.legal`) and what
everyone may see (:meth:`LiveTable.view`) are the engine's options and view; the shoes are
dealt by the engine's :class:`~sidebet.table.shoe_sequence.ShoeSequence`.

>>> from sidebet.regulation.submission import TableConfig
>>> t = LiveTable(1, "demo", TableConfig(decks=1), seats=2, unit=100, time_limit=0,
...               default_action="stand", seed_of=lambda n: bytes(32))
>>> t.apply("shoe-commit", {"shoe": 0, "commitment": "c", "decks": 1, "cut": 39}, "t")
>>> t.apply("sit", {"seat": 1, "account": 7, "name": "ann"}, "t")
>>> t.apply("round-open", {"round": 1, "chips": {"1": 100_00, "2": 0},
...                        "accounts": {"1": 7}}, "t")
>>> t.apply("action", {"decision": {"step": "bet", "seat": 1, "wager": "blackjack",
...                                  "amount": "10.00"}}, "t")
>>> t.state is not None and t.state.bets(1)
{'blackjack': 1000}
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sidebet.core.cards import Card
from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents, format_money
from sidebet.regulation.submission import TableConfig
from sidebet.serve import fair
from sidebet.serve.chain import canonical
from sidebet.table import LedgerEntry, Move, Phase, Record, RoundState, Step
from sidebet.table.answers import Answer
from sidebet.table.model import BLACKJACK
from sidebet.table.options import Option
from sidebet.table.records import Bet, CloseBets, record_from_json
from sidebet.table.shoe_sequence import DealtShoe, ShoeSequence

__all__ = [
    "EVENT_KINDS",
    "FairShoe",
    "LiveTable",
    "Performed",
    "Published",
    "ShoeState",
    "house_delta",
    "option_json",
]

EVENT_KINDS = (
    "table",
    "shoe-commit",
    "client-seed",
    "sit",
    "leave",
    "round-open",
    "round-chips",
    "ready",
    "action",
    "round-end",
    "shoe-reveal",
    "shoe-stack",
    "snapshot",
)
"""Every kind of event in a table's log."""

_PLACE = ("seq", "head", "last_at")
"""A snapshot's fields that say where it sits in the log, not what the table is."""


@dataclass
class ShoeState:
    """One shoe: committed, then sealed (shuffled) at its first card, then revealed."""

    number: int
    commitment: str
    decks: int
    cut: int
    client_seeds: list[str] = field(default_factory=list)
    order: list[int] | None = None
    position: int = 0
    revealed: bool = False
    stacked: list[int] | None = None
    """TESTS ONLY: cards this shoe deals first, whatever its shuffle (``shoe-stack``)."""
    blind: bool = False
    """Replayed without its seed (an audit before the shoe is revealed): its cards come
    from the log, its shuffle is not verified."""

    @property
    def sealed(self) -> bool:
        """Shuffled: its first card has been dealt (client seeds are closed)."""
        return self.order is not None or self.blind

    @property
    def needs_shuffle(self) -> bool:
        """The cut card has come out (or the shoe is used up)."""
        return self.sealed and self.position >= self.cut

    def to_json(self) -> dict[str, Any]:
        """Public view (never the order or the seed)."""
        return {"shoe": self.number, "commitment": self.commitment, "decks": self.decks,
                "client_seeds": list(self.client_seeds), "sealed": self.sealed,
                "dealt": self.position, "revealed": self.revealed,
                "algorithm": fair.ALGORITHM, "stacked": self.stacked is not None}


class FairShoe:
    """A server shoe as the shoe sequence deals it: the cards of its fair shuffle, or,
    replayed blind (its seed not revealed), the cards the log recorded (``recorded()``);
    with a known order, recorded cards must be the shuffle's."""

    def __init__(self, shoe: ShoeState, recorded: Callable[[], list[Card]]) -> None:
        self.shoe = shoe
        self._recorded = recorded

    @property
    def commitment(self) -> str:
        """The commitment published before its first card."""
        return self.shoe.commitment

    @property
    def position(self) -> int:
        """Cards dealt from it so far."""
        return self.shoe.position

    @property
    def remaining(self) -> int:
        """Cards left in it."""
        return 52 * self.shoe.decks - self.shoe.position

    @property
    def needs_shuffle(self) -> bool:
        """Whether its cut card has come out."""
        return self.shoe.needs_shuffle

    def deal(self) -> Card:
        """Its next card."""
        shoe = self.shoe
        shoe.position += 1
        recorded = self._recorded()
        if shoe.order is None:
            if not recorded:
                raise SidebetError(f"shoe {shoe.number}: no recorded card left to replay")
            return recorded.pop(0)
        card = Card.from_index(shoe.order[shoe.position - 1])
        if recorded and recorded.pop(0) != card:
            raise SidebetError(f"shoe {shoe.number}: the card recorded at position "
                               f"{shoe.position} is not the shuffle's {card.code}")
        return card


@dataclass(frozen=True)
class Performed:
    """What a decision did: the engine's record, every record it made (JSON), the new
    ledger entries and the cards it drew (codes, in order)."""

    record: Record
    records: list[dict[str, Any]]
    entries: list[LedgerEntry]
    dealt: list[str]


@dataclass(frozen=True, slots=True)
class Published:
    """A table as of its last committed event: its sequence number, its view, whether the
    hole card of the round in progress is hidden, and that round's number."""

    seq: int
    view: dict[str, Any]
    hide_hole: bool
    round_no: int


def option_json(option: Option) -> dict[str, Any]:
    """An engine :class:`~sidebet.table.options.Option` as the server's ``legal`` lists it
    (the call of "no more bets" is the ``deal`` action)."""
    out: dict[str, Any] = {"action": "deal" if option.step is Step.CLOSE_BETS
                           else option.step.value}
    if option.step is Step.BET:
        out["wagers"] = list(option.wagers)
    if option.most is not None:
        out["max"] = format_money(option.most)
    if option.unit is not None:
        out["unit"] = format_money(option.unit)
    if option.cost is not None:
        out["cost"] = format_money(option.cost)
    return out


def house_delta(entries: list[LedgerEntry]) -> Cents:
    """What ledger entries move into (+) or out of (-) the house: collected less won."""
    return sum(e.amount for e in entries if e.move is Move.COLLECT) - sum(
        e.amount for e in entries if e.move is Move.WIN)


class LiveTable:
    """A table's live state; change it only through :meth:`apply`."""

    algorithm = fair.ALGORITHM
    """How its shoes are dealt (a dealer-assist table's: cards as entered)."""

    def __init__(
        self,
        table_id: int,
        name: str,
        config: TableConfig,
        *,
        seats: int,
        unit: Cents,
        time_limit: int,
        default_action: str,
        seed_of: Callable[[int], bytes | None],
    ) -> None:
        self.id = table_id
        self.name = name
        self.config = config
        self.seats = seats
        self.unit = unit
        self.time_limit = time_limit
        self.default_action = default_action
        self._seed_of = seed_of
        self.seat_accounts: dict[int, int] = {}
        self.names: dict[int, str] = {}
        self.shoes: dict[int, ShoeState] = {}
        self.round_no = 0
        self.round_open = False
        self.round_started_at = ""
        self.round_chips: dict[int, Cents] = {}
        self.round_accounts: dict[int, int] = {}
        self.decisions: list[Record] = []
        self._shoes: ShoeSequence[DealtShoe] = ShoeSequence(self._open_shoe)
        self.state: RoundState | None = None
        self.sealed_now: list[int] = []
        self.feed: list[Card] = []
        """Cards to deal from a shoe replayed without its seed (audits only)."""
        self.seq = 0
        self.head = ""
        self.last_at = ""
        self._before_round: RoundState | None = None
        self._view: tuple[int, dict[str, Any]] | None = None
        self.snapshot_seq = 0
        """The event of the table's last snapshot (0: none)."""
        self.house_pending: Cents = 0
        """What the round in progress has moved into (+) or out of (-) the house so far
        (its actions' ``house``): written to the table's ``house_net`` once, as the round
        ends, and rebuilt from the log by a replay."""
        self.sat_out: dict[int, int] = {}
        """Rounds in a row each seated player has sat out (by seat), from the log's
        ``round-end`` events: it survives a restart."""
        self.done_betting: set[int] = set()
        """Seats that called the deal (done betting) or sit the betting round out: the
        bets close early once every seated player is among them."""
        self.betting_seconds = 0
        """The house's betting countdown, from the round's first bet (0: the table's time
        limit, from the last event)."""
        self.published = Published(0, {}, False, 0)
        """What readers see: the table as of its last committed event (:meth:`publish`)."""

    # ----- the shoe ---------------------------------------------------------------------

    def nonce(self, shoe: int) -> str:
        """The shuffle's nonce for ``shoe`` at this table."""
        return f"{self.id}:{shoe}"

    @property
    def current_shoe(self) -> int:
        """The number of the shoe in use."""
        return self._shoes.number

    @property
    def spans(self) -> list[list[int]]:
        """``[shoe, start, count]`` runs of the round's cards."""
        return [[s.shoe, s.start, s.cards] for s in self._shoes.spans]

    def _open_shoe(self, number: int) -> FairShoe:
        """Shoe ``number`` at its first card: shuffled (sealed) now by the fair shuffle with
        its server seed and client seeds, or replayed blind when its seed is not known."""
        shoe = self.shoes.get(number)
        if shoe is None:
            raise SidebetError(f"table {self.id}: shoe {number} was never committed")
        if shoe.order is None and not shoe.blind:
            self._shuffle(shoe)
            self.sealed_now.append(number)
        return FairShoe(shoe, lambda: self.feed)

    def _shuffle(self, shoe: ShoeState) -> None:
        """Put the shoe in its fair order (its stacked cards first), or mark it blind."""
        seed = self._seed_of(shoe.number)
        if seed is None:
            shoe.blind = True
            return
        shoe.order = fair.shuffle(seed, shoe.client_seeds, self.nonce(shoe.number),
                                  shoe.decks)
        if shoe.stacked is not None:
            rest = list(shoe.order)
            for index in shoe.stacked:
                rest.remove(index)
            shoe.order = [*shoe.stacked, *rest]

    # ----- snapshots --------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The table between rounds as JSON data (:meth:`restore` reads it): what the
        log's events up to :attr:`seq` made of it; never a shoe's order or seed."""
        if self.round_open:
            raise SidebetError(f"table {self.id}: a snapshot is taken between rounds")
        return {"seq": self.seq, "head": self.head, "last_at": self.last_at,
                "round": self.round_no, "shoe": self._shoes.number,
                "opened": self._shoes.opened,
                "seats": {str(s): a for s, a in sorted(self.seat_accounts.items())},
                "names": {str(a): n for a, n in sorted(self.names.items())},
                "shoes": [{"shoe": n, "commitment": sh.commitment, "decks": sh.decks,
                           "cut": sh.cut, "client_seeds": list(sh.client_seeds),
                           "position": sh.position, "revealed": sh.revealed,
                           "stacked": sh.stacked}
                          for n, sh in sorted(self.shoes.items())],
                **({"sat_out": {str(s): n for s, n in sorted(self.sat_out.items())}}
                   if self.sat_out else {})}

    def snapshot_digest(self) -> str:
        """SHA-256 of the :meth:`snapshot` less where it sits in the log (``seq``,
        ``head``, ``last_at``): what the ``snapshot`` event records and replay checks."""
        data = {k: v for k, v in self.snapshot().items() if k not in _PLACE}
        return hashlib.sha256(canonical(data).encode()).hexdigest()

    def restore(self, data: dict[str, Any]) -> None:
        """Take the state of a :meth:`snapshot` (of a fresh table): the shoe in use is
        shuffled again from its seed and client seeds, and dealt from where it was."""
        self.seq, self.head, self.last_at = int(data["seq"]), str(data["head"]), \
            str(data["last_at"])
        self.round_no = int(data["round"])
        self.seat_accounts = {int(s): int(a) for s, a in data["seats"].items()}
        self.names = {int(a): str(n) for a, n in data["names"].items()}
        self.sat_out = {int(s): int(n) for s, n in data.get("sat_out", {}).items()}
        for item in data["shoes"]:
            n = int(item["shoe"])
            self.shoes[n] = ShoeState(n, str(item["commitment"]), int(item["decks"]),
                                      int(item["cut"]), [str(c) for c in item["client_seeds"]],
                                      position=int(item["position"]),
                                      revealed=bool(item["revealed"]),
                                      stacked=None if item["stacked"] is None
                                      else [int(i) for i in item["stacked"]])
        self._shoes.number = int(data["shoe"])
        if data["opened"]:
            current = self.shoes[self._shoes.number]
            self._shuffle(current)
            self._shoes.replace(FairShoe(current, lambda: self.feed))
        self._view = None

    def new_state(self, chips: dict[int, Cents] | None = None) -> RoundState:
        """A fresh round with ``chips`` per seat (default: the open round's)."""
        have = self.round_chips if chips is None else chips
        chips = {s: have.get(s, 0) for s in range(1, self.seats + 1)}
        return RoundState(self.config, self.seats, self._shoes.draw, unit=self.unit,
                          chips=chips)

    # ----- events -----------------------------------------------------------------------

    def apply(self, kind: str, payload: dict[str, Any], at: str) -> None:
        """Apply one event (live or in replay); an ``action`` event with ``records``
        must reproduce them exactly."""
        self.last_at = at
        self._view = None
        if kind == "table":
            return
        if kind == "shoe-commit":
            n = int(payload["shoe"])
            self.shoes[n] = ShoeState(n, str(payload["commitment"]), int(payload["decks"]),
                                      int(payload["cut"]))
            return
        if kind == "client-seed":
            shoe = self.shoes[int(payload["shoe"])]
            if shoe.sealed:
                raise SidebetError(f"shoe {shoe.number} is already shuffled")
            shoe.client_seeds.append(str(payload["seed"]))
            return
        if kind == "sit":
            self.seat_accounts[int(payload["seat"])] = int(payload["account"])
            self.names[int(payload["account"])] = str(payload["name"])
            self.sat_out.pop(int(payload["seat"]), None)
            return
        if kind == "leave":
            self.seat_accounts.pop(int(payload["seat"]), None)
            self.sat_out.pop(int(payload["seat"]), None)
            self.done_betting.discard(int(payload["seat"]))
            return
        if kind == "ready":
            self.done_betting.add(int(payload["seat"]))
            return
        if kind == "round-open":
            self.round_no = int(payload["round"])
            self.round_open = True
            self.round_started_at = at
            self.round_chips = {int(s): int(c) for s, c in payload["chips"].items()}
            self.round_accounts = {int(s): int(a) for s, a in payload["accounts"].items()}
            self.decisions = []
            self.house_pending = 0
            self.done_betting = set()
            self._shoes.begin_round()
            self.state = self.new_state()
            return
        if kind == "round-chips":
            self.round_chips.update({int(s): int(c) for s, c in payload["chips"].items()})
            for s, a in payload["accounts"].items():
                if a is None:  # she left with her withdrawn bets (stake and its return)
                    self.round_accounts.pop(int(s), None)
                    self.decisions = [d for d in self.decisions
                                      if getattr(d, "seat", None) != int(s)]
                else:
                    self.round_accounts[int(s)] = int(a)
            state = self.new_state()
            for rec in self.decisions:
                state.apply(rec)
            self.state = state
            return
        if kind == "action":
            decision = record_from_json(payload["decision"])
            made = self.perform(decision).records
            if "records" in payload and made != payload["records"]:
                raise SidebetError(f"table {self.id}: the engine does not reproduce the "
                                   f"records of round {self.round_no}'s action "
                                   f"{decision.step.value}")
            return
        if kind == "round-end":
            self.round_open = False
            self.house_pending = 0
            self.done_betting = set()
            self._count_sat_out()
            return
        if kind == "shoe-reveal":
            n = int(payload["shoe"])
            self.shoes[n].revealed = True
            if self._shoes.number == n:
                self._shoes.advance()
            return
        if kind in ("head", "key"):  # a signed head, a key rotation (serve/anchor.py)
            return
        if kind == "snapshot":  # the chain's word for the snapshot stored before it
            if payload.get("digest") != self.snapshot_digest():
                raise SidebetError(f"table {self.id}: the snapshot recorded after event "
                                   f"{payload.get('seq')} is not the table's state")
            return
        if kind == "shoe-stack":
            shoe = self.shoes[int(payload["shoe"])]
            if shoe.sealed:
                raise SidebetError(f"shoe {shoe.number} is already shuffled")
            shoe.stacked = [Card.parse(code).index for code in str(payload["cards"]).split()]
            return
        raise SidebetError(f"unknown event kind {kind!r}")

    def _count_sat_out(self) -> None:
        """At a round's end: each seated player who had no wager in it sat out one more
        round in a row; one who played, none."""
        state = self.state
        for seat, account in self.seat_accounts.items():
            played = (self.round_accounts.get(seat) == account and state is not None
                      and bool(state.bets(seat)))
            self.sat_out[seat] = 0 if played else self.sat_out.get(seat, 0) + 1

    def perform(self, decision: Record) -> Performed:
        """Apply a decision through the engine (:meth:`RoundState.apply`, which verifies
        it first and changes nothing when it is refused)."""
        state = self.state
        if state is None or not self.round_open:
            raise SidebetError("there is no round in progress")
        self._view = None
        before, moved, drawn = len(state.records), len(state.ledger), len(state.dealt)
        record = state.apply(decision)
        self.decisions.append(record)
        entries = list(state.ledger.entries[moved:])
        self.house_pending += house_delta(entries)
        return Performed(record, [r.to_json() for r in state.records[before:]], entries,
                         [c.code for c in state.dealt[drawn:]])

    def answer(self, decision: Record, chips: dict[int, Cents] | None = None) -> Answer:
        """The engine's answer to ``decision`` at this table now: against the open round;
        with no round open, a bet or the deal against a fresh round with ``chips`` (the
        seats' balances: a first bet opens the round), anything else against the last
        round played (or a fresh one before the first)."""
        if self.round_open and self.state is not None:
            return self.state.answer(decision)
        if isinstance(decision, Bet | CloseBets) or self.state is None:
            return self.new_state(chips).answer(decision)
        return self.state.answer(decision)

    def awaits_cards(self, decision: Record) -> bool:
        """Whether ``decision`` must wait for cards entered from outside (never here: a
        dealer-assist table's, :mod:`sidebet.serve.physical`)."""
        return False

    def moves(self, entries: list[LedgerEntry]) -> dict[int, Cents]:
        """What ledger entries move into (+) or out of (-) each account's wallet."""
        out: dict[int, Cents] = {}
        for e in entries:
            if e.player_delta:
                acct = self.round_accounts[e.seat]
                out[acct] = out.get(acct, 0) + e.player_delta
        return {a: d for a, d in out.items() if d}

    # ----- views ------------------------------------------------------------------------

    @property
    def in_betting(self) -> bool:
        """Bets may be placed (no round open yet, or its betting still open)."""
        return not self.round_open or (self.state is not None
                                       and self.state.phase is Phase.BETTING)

    @property
    def hide_hole(self) -> bool:
        """The hole card of the round in progress is not revealed yet."""
        return self.round_open and self.state is not None and self.state.hole_hidden

    def seat_of(self, account: int) -> int | None:
        """The seat of ``account`` at this table, if any."""
        return next((s for s, a in self.seat_accounts.items() if a == account), None)

    def has_stakes(self, seat: int) -> bool:
        """Whether ``seat`` has chips in the round in progress."""
        return (self.round_open and self.state is not None
                and self.round_accounts.get(seat) is not None
                and bool(self.state.bets(seat)))

    def withdrawn(self, seat: int) -> bool:
        """Whether ``seat`` is withdrawn from the round in progress (its hands standing
        till the round's end)."""
        state = self.state
        return (self.round_open and state is not None and seat in state.seat_states
                and state.seat_states[seat].withdrawn)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """What the player at ``seat`` may do now, as the engine says
        (:meth:`RoundState.options`; before a round, a fresh round's), and ``leave`` while
        the seat has no wager."""
        if seat not in self.seat_accounts:
            return []
        state = self.state if self.round_open else None
        if state is None:
            if self._before_round is None:
                self._before_round = RoundState(self.config, self.seats, self._shoes.draw,
                                                unit=self.unit)
            out = [option_json(o) for o in self._before_round.options(seat)]
            return [*out, {"action": "leave"}]
        out = [option_json(o) for o in state.options(seat)]
        if state.phase is Phase.BETTING:
            if seat in self.done_betting:
                out = [o for o in out if o["action"] != "deal"]
            elif BLACKJACK not in state.bets(seat):
                out.append({"action": "decline"})
            if not state.bets(seat):
                out.append({"action": "leave"})
        return out

    def not_done_betting(self) -> list[int]:
        """The seated players the betting round still waits on (neither called the deal
        nor sat the round out)."""
        return sorted(s for s in self.seat_accounts if s not in self.done_betting)

    def deadline(self) -> str | None:
        """When the house takes the pending decision's default (ISO 8601 UTC): the bets
        close ``betting_seconds`` after the round's first bet; any other decision is
        defaulted ``time_limit`` seconds after the last event.  ``None``: nothing pending
        or no limit."""
        state = self.state
        if not self.pending() or state is None:
            return None
        betting = state.phase is Phase.BETTING and self.betting_seconds > 0
        start, wait = ((self.round_started_at, self.betting_seconds) if betting
                       else (self.last_at, self.time_limit))
        if not wait or not start:
            return None
        at = datetime.strptime(start, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        return (at + timedelta(seconds=wait)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def pending(self) -> bool:
        """Whether the table waits on a decision (which a time limit can default)."""
        state = self.state
        if not self.round_open or state is None:
            return False
        if state.phase is Phase.BETTING:
            return state.can_close_bets()
        return state.phase is not Phase.DONE

    def current(self) -> Published:
        """The table as it is now, for readers once its events are committed."""
        return Published(self.seq, self.view(), self.hide_hole, self.round_no)

    def publish(self) -> None:
        """Show readers the table as it is now (called once its events are committed)."""
        self.published = self.current()

    def view(self) -> dict[str, Any]:
        """The table as every player and observer may see it (the engine's
        :meth:`RoundState.view` for an observer: hole card hidden); computed once per
        event and shared, so never changed by its readers."""
        if self._view is None or self._view[0] != self.seq:
            self._view = (self.seq, self._make_view())
        return self._view[1]

    def _make_view(self) -> dict[str, Any]:
        state = self.state
        # a round closed without being played out (a void) leaves nothing on the felt
        shown = None if state is None or not (self.round_open or state.phase is Phase.DONE) \
            else state.view(None)
        seats: list[dict[str, Any]] = []
        for s in range(1, self.seats + 1):
            acct = self.seat_accounts.get(s)
            # by name only: never another player's account id or wallet (its chips)
            item: dict[str, Any] = {"seat": s,
                                    "player": None if acct is None else self.names.get(acct),
                                    "legal": self.legal(s)}
            if state is not None and shown is not None and (self.round_open
                                                            or state.phase is Phase.DONE):
                seat = shown.seats[s - 1].to_json()
                item["bets"], item["hands"], item["side"] = (seat["bets"], seat["hands"],
                                                             seat["side"])
            seats.append(item)
        phase = "betting"
        current = None
        if state is not None and shown is not None:
            phase = state.phase.value if self.round_open else (
                "done" if state.phase is Phase.DONE else "betting")
            if shown.current is not None:
                current = {"seat": shown.current[0], "hand": shown.current[1]}
        return {
            "table": self.id,
            "name": self.name,
            "seq": self.seq,
            "round": self.round_no,
            "round_open": self.round_open,
            "phase": phase,
            "dealer": {"cards": "" if shown is None else " ".join(shown.dealer),
                       "blackjack": None if shown is None else shown.dealer_blackjack},
            "current": current,
            "seats": seats,
            "records": [] if shown is None else [dict(r) for r in shown.records],
            "shoe": self.shoes[self.current_shoe].to_json() if self.current_shoe in self.shoes
            else None,
            "time_limit": self.time_limit,
            "default_action": self.default_action,
            "deadline": self.deadline(),
            "ready": sorted(self.done_betting),
        }
