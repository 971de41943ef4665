"""A refused request: its HTTP status, one-line message and the violations it cites."""

from __future__ import annotations

from typing import Any

from sidebet.core.errors import RuleError, Violation

__all__ = ["HOUSE", "ApiError", "NotOwner"]

HOUSE = "house rule"
"""Citation of a server policy that is no rule of the regulations."""


class ApiError(Exception):
    """A refused request: HTTP status, one-line message and the violations (rule, message).

    >>> ApiError(403, "operators only").body()
    {'detail': 'operators only', 'violations': [{'rule': '', 'message': 'operators only'}]}
    """

    def __init__(self, status: int, message: str,
                 violations: tuple[Violation, ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.violations = violations or (Violation("", message),)

    @staticmethod
    def rule(status: int, err: RuleError) -> ApiError:
        """From the engine's :class:`RuleError` (its citations kept)."""
        return ApiError(status, str(err), err.violations)

    def body(self) -> dict[str, Any]:
        """The JSON body of the refusal."""
        return {"detail": self.message,
                "violations": [{"rule": v.rule, "message": v.message} for v in self.violations]}


class NotOwner(Exception):
    """This process does not own the table (several processes on one PostgreSQL): the
    request is forwarded to its owner (:mod:`sidebet.serve.cluster.forward`) and changes
    nothing here."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id} is owned by another process")
        self.table_id = table_id
