"""How every route answers: with the keys the service set, checked against the route's
response model; a change's status as its transaction (or its first answer) gave it."""

from collections.abc import Callable
from typing import Any

from fastapi import Response
from fastapi.routing import APIRoute

__all__ = ["ExactRoute", "answered"]


class ExactRoute(APIRoute):
    """A route whose answer holds only the keys the service set: an optional key of the
    response model that the service left out stays out (no ``null`` added)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        kwargs["response_model_exclude_unset"] = True
        super().__init__(path, endpoint, **kwargs)


def answered(result: tuple[int, Any], response: Response) -> Any:
    """The body of a change's answer, its status set on ``response`` (a retry's is the
    first answer's)."""
    status, body = result
    response.status_code = status
    return body
