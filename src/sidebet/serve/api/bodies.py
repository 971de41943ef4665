"""The request bodies that no setting bounds (the others are built by their router from
the settings' limits)."""

from pydantic import BaseModel, Field

from sidebet.serve.api.params import MONEY

__all__ = ["AmountIn", "OptionalAmountIn"]


class AmountIn(BaseModel):
    """An amount of money as decimal text (``"25.00"``)."""

    amount: str = Field(pattern=MONEY, examples=["100.00"])


class OptionalAmountIn(BaseModel):
    """An optional amount (a Double Down wager less than the whole wager)."""

    amount: str | None = Field(default=None, pattern=MONEY, examples=["10.00"])
