"""The response and request models of the security, money and audit routes:
revocations, the operators' log, the signed chain head, the house's money mode, the limits
a player sets and the payment provider's callback."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from sidebet.serve.api.params import MONEY
from sidebet.serve.api.schemas import Json, Out

__all__ = [
    "ControlIn",
    "ControlOut",
    "ExclusionsOut",
    "HouseOut",
    "LimitsIn",
    "LimitsOut",
    "OperatorActionOut",
    "PaymentIn",
    "PeriodLimits",
    "PeriodLimitsIn",
    "Revoked",
    "RoundEnded",
    "SignedHead",
]

_LIMIT = r"^[0-9]{1,13}(\.[0-9]{1,2})?$"
"""A limit: a non-negative amount of money as decimal text."""


class ControlIn(BaseModel):
    """An operator's control of a player's account, and why (logged)."""

    action: Literal["exclude", "suspend", "reinstate", "close"]
    reason: str = Field(min_length=1, max_length=500)


class ControlOut(Out):
    """The account's status after a control, and its reason."""

    name: str
    status: str
    reason: str


class ExclusionsOut(Out):
    """A self-exclusion list imported: its entries, and the accounts barred now."""

    entries: int
    accounts: int


class Revoked(Out):
    """How many tokens were revoked."""

    revoked: int


class OperatorActionOut(Out):
    """An operator's action and who did it."""

    id: int
    at: str
    operator: str
    operator_id: int
    action: str
    target: str
    detail: Json


class SignedHead(Out):
    """A table's chain head signed by the operator's Ed25519 key: ``signature`` (hex) over
    the canonical JSON ``{"format": "sidebet-head/1", "head", "seq", "table"}``."""

    table: int
    seq: int
    head: str
    key: str
    signature: str


class HouseOut(Out):
    """The house's settings a player is told: the money mode (``play``: play money the
    players credit themselves; ``real``: deposits only from the operator or the payment
    provider), the default time limit and the public key that signs the chain heads."""

    money_mode: str
    time_limit_default: int
    sit_out_rounds: int
    signing_key: str


class RoundEnded(Out):
    """The round ended by the operator (``ended``: whether one was in progress), and the
    default actions it took."""

    table: int
    ended: bool
    defaults: int


class PeriodLimits(Out):
    """A limit per rolling day, week and month (``null``: none)."""

    day: str | None
    week: str | None
    month: str | None


class LimitsOut(Out):
    """The limits a player set, as in force now, and what waits to take effect."""

    mode: str
    deposit_limits: PeriodLimits
    loss_limits: PeriodLimits
    session_reminder_minutes: int | None
    excluded_until: str | None
    pending: Json | None = None
    pending_from: str | None = None
    session_started_at: str | None = None


class PeriodLimitsIn(BaseModel):
    """A limit per rolling day, week and month (``null``: none)."""

    day: str | None = Field(default=None, pattern=_LIMIT)
    week: str | None = Field(default=None, pattern=_LIMIT)
    month: str | None = Field(default=None, pattern=_LIMIT)


class LimitsIn(BaseModel):
    """The limits a player sets: a lower limit takes effect at once, a higher (or removed)
    one after the house's delay; a self-exclusion or cool-off (``excluded_until``, a UTC
    time) cannot be shortened."""

    deposit_limits: PeriodLimitsIn = Field(default_factory=PeriodLimitsIn)
    loss_limits: PeriodLimitsIn = Field(default_factory=PeriodLimitsIn)
    session_reminder_minutes: int | None = Field(default=None, ge=1, le=1440)
    excluded_until: str | None = Field(
        default=None, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}"
                              r"(\.[0-9]{1,6})?)?Z$")


class PaymentIn(BaseModel):
    """The payment provider's callback: its transaction id, the account, the kind and the
    amount (signed: ``X-Signature: t=<unix seconds>,sha256=<HMAC-SHA256 of t, "." and the
    body, hex>``)."""

    id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._:-]+$")
    account: str = Field(min_length=1, max_length=64)
    kind: str = Field(pattern="^(deposit|withdrawal)$")
    amount: str = Field(pattern=MONEY)
