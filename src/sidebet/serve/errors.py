"""A refused request: its HTTP status, one-line message and the violations it cites."""

from __future__ import annotations

from typing import Any

from sidebet.core.errors import RuleError, Violation

__all__ = ["HOUSE", "ApiError", "NotOwner"]

HOUSE = "house rule"
"""Citation of a server policy that is no rule of the regulations."""


class ApiError(Exception):
    """A refused request: HTTP status, one-line message, the violations (rule, message) and,
    for a 429, the seconds to wait (``Retry-After``).

    >>> ApiError(403, "operators only").body()
    {'detail': 'operators only', 'violations': [{'rule': '', 'message': 'operators only'}]}
    """

    def __init__(self, status: int, message: str,
                 violations: tuple[Violation, ...] = (), retry_after: int | None = None
                 ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.violations = violations or (Violation("", message),)
        self.retry_after = retry_after

    @staticmethod
    def rule(status: int, err: RuleError) -> ApiError:
        """From the engine's :class:`RuleError` (its citations kept)."""
        return ApiError(status, str(err), err.violations)

    @staticmethod
    def too_many(what: str, wait: float) -> ApiError:
        """A 429: ``what`` was asked too often; it may be asked again in ``wait`` seconds
        (rounded up to whole seconds, at least one, in the message and ``retry_after``).

        >>> err = ApiError.too_many("too many failed sign-ins", 2.2)
        >>> err.status, err.message, err.retry_after
        (429, 'too many failed sign-ins; try again in 3 s', 3)
        """
        seconds = max(1, round(wait + 0.5))
        return ApiError(429, f"{what}; try again in {seconds} s", retry_after=seconds)

    def headers(self) -> dict[str, str] | None:
        """The headers of the refusal: a 401's ``WWW-Authenticate``, ``Retry-After``."""
        if self.retry_after is not None:
            return {"Retry-After": str(self.retry_after)}
        return {"WWW-Authenticate": "Bearer"} if self.status == 401 else None

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
