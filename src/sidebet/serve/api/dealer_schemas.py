"""The dealer-assist routes' request bodies and answers (pydantic): a card entered, the
dealer's screen, corrections asked for and approved, staff accounts."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from sidebet.serve.api.schemas import ActionOut, Out

__all__ = ["AGAIN", "HELD", "CardIn", "CardOut", "CorrectionAskedOut", "CorrectionIn",
           "CorrectionOut", "DealerScreen", "StaffIn", "StaffOut", "StaffTablesIn"]

Json = dict[str, Any]
TABLES_MAX = 256
"""The most tables one staff account is assigned to."""
Tables = Annotated[list[Annotated[int, Field(ge=1, le=2**31 - 1)]],
                   Field(max_length=TABLES_MAX)] | Literal["all"]
"""Table ids (at most :data:`TABLES_MAX`) or ``"all"``."""
POSITIONS = 8 * 52
"""A shoe holds at most 8 decks (interpretation 1): positions 0 to 415."""


HELD: dict[int | str, dict[str, Any]] = {202: {
    "model": ActionOut,
    "description": "A dealer-assist table: accepted, waiting for cards not entered yet "
                   "(applied with the card that completes it)"}}
"""The 202 answer of a decision at a dealer-assist table (its body: the seat route's)."""


class CardIn(BaseModel):
    """A card drawn from the physical shoe: its position in the shoe (0 for the first card
    after the shuffle), its code (``8h``, ``Ts``, ``Ad``) and, from a reading shoe, the
    reading's confidence (0 to 1; a label of the reading, never money)."""

    position: int = Field(ge=0, lt=POSITIONS, examples=[0])
    card: str = Field(min_length=2, max_length=3, examples=["8h"])
    confidence: float | None = Field(default=None, ge=0, le=1, examples=[0.998])


class CardOut(Out):
    """A card accepted: where it is, the next position, and the decision it completed
    (the engine's record, or ``null`` while the cards of the waiting decision are not all
    in)."""

    table: int
    shoe: int
    position: int
    card: str
    next_position: int
    applied: Json | None
    seq: int


class StaffIn(BaseModel):
    """A staff account: a dealer, a supervisor or a card-reading shoe (``device``)."""

    name: str = Field(min_length=1, max_length=64, examples=["dealer-4"])
    password: str = Field(min_length=1, max_length=256)
    role: str = Field(pattern="^(dealer|supervisor|device)$", examples=["dealer"])
    tables: Tables = Field(default_factory=list, examples=[[1, 2]])
    """The dealer-assist tables the account works at (none until assigned), or ``"all"``
    for a house-wide supervisor."""


class StaffTablesIn(BaseModel):
    """The dealer-assist tables a staff account works at from now on (replacing its
    assignment), or ``"all"`` for a house-wide supervisor."""

    tables: Tables = Field(examples=[[1, 2]])


class StaffOut(Out):
    """A staff account and the tables it works at."""

    id: int
    name: str
    role: str
    tables: list[int] | Literal["all"]


class CorrectionIn(BaseModel):
    """A correction a dealer asks for: ``void`` the round, a ``misdeal``, or a ``card``
    (its position in the shoe and the true card), and why."""

    kind: str = Field(pattern="^(void|misdeal|card)$", examples=["void"])
    reason: str = Field(min_length=1, max_length=500, examples=["cards exposed"])
    position: int | None = Field(default=None, ge=0, lt=POSITIONS)
    card: str | None = Field(default=None, min_length=2, max_length=3)


class CorrectionAskedOut(Out):
    """A correction asked for: its request number (what a supervisor approves)."""

    request: int
    kind: str
    round: int
    seq: int


class CorrectionOut(Out):
    """A correction approved: what it moved into (+) or out of (-) each wallet and the
    house, as decimal text."""

    request: int
    kind: str
    moves: dict[str, str]
    house: str
    seq: int


class DealerScreen(Out):
    """The dealer's screen: the shoe and its waiting cards, the decision waiting for its
    cards, then, after the deal, what to pay or collect seat by seat in the regulations'
    order (each side wager's paytable line and citation), the Press offers, the seats'
    hands and legal decisions, the results, and the corrections awaiting approval."""

    table: int
    name: str
    seq: int
    round: int
    round_open: bool
    voided: bool
    phase: str
    shoe: Json
    awaiting: Json | None
    dealer: str
    instructions: list[Json]
    press: list[Json]
    seats: list[Json]
    results: list[Json]
    corrections: list[Json]
    next: str


AGAIN: dict[int | str, dict[str, Any]] = {200: {
    "model": CardOut, "description": "The same card sent again for the position it already "
                                     "holds: answered again, nothing changed"}}
"""The 200 answer of a card sent again."""
