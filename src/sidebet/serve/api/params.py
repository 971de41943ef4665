"""Path, query and header parameters shared by the routers, and the text patterns of the
request bodies."""

from typing import Annotated

from fastapi import Header, Path, Query

__all__ = ["INT32", "MONEY", "NO_NUL", "TIME", "ExpectedSeq", "SeatNo", "Since", "TableId"]

INT32 = 2**31 - 1
"""The largest identifier or sequence number (the database's integers)."""
MONEY = r"^-?[0-9]{1,13}(\.[0-9]{1,2})?$"
"""An amount of money as decimal text, whole cents (``"12.50"``)."""
TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]{1,15}Z?)?$"
"""An ISO-8601 UTC date or time, as the game records hold them."""
NO_NUL = r"^[^\x00]*$"
"""Text without NUL characters."""

TableId = Annotated[int, Path(ge=1, le=INT32)]
SeatNo = Annotated[int, Path(ge=1, le=INT32)]
Since = Annotated[int, Query(ge=0, le=INT32)]
ExpectedSeq = Annotated[int | None, Header(
    alias="Expected-Seq", ge=0, le=INT32,
    description="refuse (409) unless the table's last event is this one: a page that "
                "has not seen the latest event is told the round moved on")]
