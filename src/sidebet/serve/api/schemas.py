"""The API's answers as pydantic models: what ``GET /openapi.json`` documents for every
route, and what FastAPI checks each answer against before sending it.

Money is decimal text (``"12.50"``), times UTC ISO-8601 text.  A model lists every key the
server sends (unknown keys are an error, so the document cannot fall behind); a key that is
sent only sometimes is optional and, when absent, stays absent (the routes answer only the
keys the service set).  What the table engine writes (its records, hands, side-wager
settlements, ledger entries, hand histories) and the stored event payloads are JSON
objects the engine and :mod:`sidebet.serve.live` define.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sidebet.table.view import totals

__all__ = [
    "REFUSALS",
    "AccountOut",
    "ActionEv",
    "ActionOut",
    "Advice",
    "CurrentHand",
    "DealerView",
    "ErrorBody",
    "EventOut",
    "GamePlayerOut",
    "GameRecord",
    "HouseEdge",
    "InsuranceAdvice",
    "LegalAction",
    "MeOut",
    "NoAdvice",
    "Out",
    "PaytableLineOut",
    "PlayAdvice",
    "PressAdvice",
    "Reconciliation",
    "SeatChange",
    "SeatRef",
    "SeatView",
    "ShoeOut",
    "SideWagerOut",
    "TableInfo",
    "TableState",
    "TableSummary",
    "TableWagers",
    "TokenOut",
    "ViolationOut",
    "WagerAtTable",
    "WalletOut",
    "WalletTxOut",
]

Json = dict[str, Any]


class Out(BaseModel):
    """An answer of the server: exactly these keys, of exactly these types."""

    model_config = ConfigDict(extra="forbid", strict=True)


# ----- refusals ---------------------------------------------------------------------------


class ViolationOut(Out):
    """A rule broken: its citation (``"§ 633c.11(c)"``, ``"house rule"``, or empty for a
    malformed request) and what was wrong."""

    rule: str
    message: str


class ErrorBody(Out):
    """A refusal: one line, and every violation with its citation."""

    detail: str
    violations: list[ViolationOut]


_EXAMPLE = {"detail": "§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack "
                      "wager 20.00",
            "violations": [{"rule": "§ 633c.11(c)", "message": "TriLux Deluxe wager 50.00 "
                            "exceeds twice the Blackjack wager 20.00"}]}

REFUSALS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "model": ErrorBody,
           "content": {"application/json": {"example": _EXAMPLE}}}
    for code, text in ((401, "not signed in"), (403, "not yours"), (404, "not found"),
                       (409, "not open now (rule cited)"),
                       (413, "request body too large"),
                       (422, "breaks a rule (cited) or malformed"),
                       (429, "too many requests (try again after Retry-After seconds)"),
                       (431, "request headers too large"))
}
"""The refusals every route may answer, documented once for the whole API."""


# ----- accounts and wallet ------------------------------------------------------------------


class AccountOut(Out):
    """A new account."""

    id: int
    name: str
    role: str


class TokenOut(Out):
    """A bearer token for ``Authorization: Bearer <token>``."""

    token: str
    token_type: str
    account: int
    role: str
    expires_at: str
    refresh_token: str
    refresh_expires_at: str


class SeatRef(Out):
    """A seat at a table."""

    table: int
    seat: int


class MeOut(Out):
    """The signed-in account, its balance (play money or real: ``money_mode``) and its
    seat (if any)."""

    id: int
    name: str
    role: str
    balance: str
    money_mode: str
    seat: SeatRef | None


class WalletTxOut(Out):
    """A deposit or withdrawal and the balance after it."""

    id: int
    kind: str
    amount: str
    balance_after: str
    at: str
    idempotency_key: str


class WalletOut(Out):
    """A wallet: its balance and every deposit and withdrawal."""

    balance: str
    mode: str | None = None
    transactions: list[WalletTxOut]


# ----- tables and their state -----------------------------------------------------------


class TableSummary(Out):
    """A table, briefly: its occupied seats, decks, side wagers (paytable by wager) and the
    Blackjack wager's limits."""

    id: int
    name: str
    seats: int
    occupied: list[int]
    decks: int
    side_wagers: dict[str, str]
    limits: dict[str, str]


class PaytableLineOut(Out):
    """A line of a paytable: the outcome, what it pays to 1, and its citation."""

    outcome: str
    label: str
    pays: int
    citation: str


class SideWagerOut(Out):
    """A side wager the table offers, with its paytable."""

    id: str
    name: str
    section: str
    paytable: str
    lines: list[PaytableLineOut]


class ShoeOut(Out):
    """A shoe: its commitment (§ 810a.5) and client seeds; once revealed, its server seed
    and nonce (``GET /api/tables/{id}/shoes``)."""

    shoe: int
    commitment: str
    decks: int
    client_seeds: list[str]
    sealed: bool
    dealt: int
    revealed: bool
    algorithm: str
    stacked: bool
    server_seed: str | None = None
    nonce: str | None = None


class LegalAction(Out):
    """An action open to a seat now, as the engine says: the wagers it may still place,
    the largest Press, insurance or Double Down, the cost of a split."""

    action: str
    wagers: list[str] | None = None
    max: str | None = None
    unit: str | None = None
    cost: str | None = None


class SeatView(Out):
    """A seat as everyone sees it: the player's name (never an account id or a wallet);
    in a round, its wagers, hands (the engine's JSON) and side-wager settlements."""

    seat: int
    player: str | None
    legal: list[LegalAction]
    bets: dict[str, str] | None = None
    hands: list[Json] | None = None
    side: list[Json] | None = None


class DealerView(Out):
    """The dealer's cards (the hole card ``??`` until revealed), whether they are a
    Blackjack (``null`` while unknown) and the total of the cards shown (``total``,
    ``soft``, ``busted``; ``null`` before the deal)."""

    cards: str
    blackjack: bool | None
    total: Json | None = None


class CurrentHand(Out):
    """The hand to act."""

    seat: int
    hand: int | None


class TableState(Out):
    """A table's live state: seats with their legal actions, the dealer, the round's
    records (the engine's JSON, the hole card hidden) and the shoe dealing."""

    table: int
    name: str
    seq: int
    round: int
    round_open: bool
    phase: str
    dealer: DealerView
    current: CurrentHand | None
    seats: list[SeatView]
    records: list[Json]
    shoe: ShoeOut | None
    time_limit: int
    default_action: str
    deadline: str | None = None
    """When the house takes the pending decision's default (ISO 8601 UTC): the betting
    countdown's end, or the time limit's; ``None`` when nothing is pending."""
    ready: list[int] = []
    """The seats that called the deal or sit the betting round out."""
    physical: Json | None = None
    """A dealer-assist table's: cards entered, the next position, a decision awaiting
    its cards (``seat``, ``action``)."""

    @model_validator(mode="after")
    def _totals(self) -> "TableState":
        """Each hand's and the dealer's total of the cards shown, as the engine counts them
        (``total``, ``soft``, ``busted``), for a player to read."""
        self.dealer.total = totals(self.dealer.cards)
        for seat in self.seats:
            for hand in seat.hands or ():
                hand["total"] = totals(str(hand.get("cards", "")))
        return self


class TableInfo(Out):
    """A table's Rules Submission (as the TOML reads, in JSON), paytables, house settings
    and state."""

    id: int
    name: str
    seats: int
    unit: str
    time_limit: int
    default_action: str
    submission: Json
    side_wagers: list[SideWagerOut]
    algorithm: str
    state: TableState


class SeatChange(Out):
    """A seat taken or left, and the table's state after."""

    table: int
    seat: int
    state: TableState


class ActionOut(Out):
    """A decision done: the engine's record of it, its event's sequence number, the table's
    last sequence number and its state after."""

    record: Json
    event: int
    seq: int
    state: TableState


class EventOut(Out):
    """An event of a table's log as players see it (``redacted`` while it carries the hole
    card of the round in progress)."""

    seq: int
    kind: str
    at: str
    payload: Json
    redacted: bool | None = None


# ----- games and the operator ------------------------------------------------------------


class GamePlayerOut(Out):
    """A player's part in a game: credits before and after, total bet, won and net (a
    player reading a game sees another player's seat, name, bets and results only)."""

    seat: int
    account: int | None = None
    player: str | None
    credits_start: str | None = None
    credits_end: str | None = None
    total_bet: str
    total_won: str
    net: str


class GameRecord(Out):
    """A game record (§ 810a.11): a round in progress shows its identity and start; a
    complete one also the game's identifier and version, paytables, players, outcome and
    hand history.  Records are stored as written, so keys of other versions may appear."""

    model_config = ConfigDict(extra="allow", strict=True)

    game: str
    table: int
    round: int
    status: str
    started_at: str
    ended_at: str | None
    table_name: str | None = None
    game_identifier: str | None = None
    game_version: str | None = None
    algorithm: str | None = None
    paytables: dict[str, str] | None = None
    players: list[GamePlayerOut] | None = None
    outcome: Json | None = None
    history: Json | None = None


class Reconciliation(Out):
    """Money conservation in cents: balances (players and house) plus chips on the layout
    equal deposits less withdrawals; no player below zero."""

    deposits: int
    withdrawals: int
    balances: int
    house: int
    layout: int
    negative_balances: int
    conserved: bool
    faults: list[str] = []
    """What this process found damaged and worked around: a table's snapshot skipped
    (the table rebuilt from its whole log)."""


# ----- the web table's read-only routes -------------------------------------------------------


class HouseEdge(Out):
    """A wager's house edge: exact (a fraction, where exact) and in percent, and its basis."""

    exact: str | None
    percent: str
    basis: str


class WagerAtTable(Out):
    """A wager at this table: offered with its paytable and exact house edge, or why not
    (every rule the Rules Submission would break)."""

    id: str
    name: str
    section: str
    summary: str
    offered: bool
    paytable: str | None = None
    house_edge: HouseEdge | None = None
    why_not: list[ViolationOut] | None = None


class TableWagers(Out):
    """Every wager at a table, and the Blackjack wager's house edge."""

    table: int
    decks: int
    blackjack: HouseEdge
    wagers: list[WagerAtTable]


class NoAdvice(Out):
    """No decision to advise on now."""

    kind: Literal["none"]


class PressAdvice(Out):
    """The Press: the expected gain of pressing all the winnings against collecting them."""

    kind: Literal["press"]
    winnings: str
    max: str
    unit: str
    ev_per_unit: float
    ev_press_all: str
    ev_collect: str
    advice: str
    play: str
    trilux: str | None
    basis: str


class InsuranceAdvice(Out):
    """Insurance: its expected value per unit."""

    kind: Literal["insurance"]
    ev_per_unit: float
    max: str
    advice: str
    basis: str


class ActionEv(Out):
    """A legal action and its expected value per unit of the Blackjack wager."""

    action: str
    ev: float


class PlayAdvice(Out):
    """The play of the first two cards: each legal action's expected value, the best."""

    kind: Literal["play"]
    actions: list[ActionEv]
    best: str | None
    basis: str


Advice = Annotated[NoAdvice | PressAdvice | InsuranceAdvice | PlayAdvice,
                   Field(discriminator="kind")]
"""Exact advice for the decision a seat faces now."""
