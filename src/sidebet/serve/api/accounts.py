"""Accounts: sign-up, sign-in and the signed-in account."""

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.params import NO_NUL
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.schemas import AccountOut, MeOut, TokenOut
from sidebet.serve.settings import Settings

__all__ = ["router"]


def router(settings: Settings) -> APIRouter:
    """The accounts' routes, with the name and password lengths of ``settings``."""
    api = APIRouter(tags=["accounts"], route_class=ExactRoute)

    class Credentials(BaseModel):
        """A name and a password."""

        name: str = Field(min_length=1, max_length=settings.name_max, pattern=NO_NUL,
                          examples=["ann"])
        password: str = Field(min_length=settings.password_min,
                              max_length=settings.password_max, examples=["correct horse"])

    @api.post("/api/accounts", status_code=201, response_model=AccountOut)
    def create_account(body: Credentials, services: ServicesDep) -> dict[str, Any]:
        """Create a player account."""
        return services.accounts.create(body.name, body.password)

    @api.post("/api/tokens", status_code=201, response_model=TokenOut)
    def create_token(body: Credentials, services: ServicesDep) -> dict[str, Any]:
        """Sign in: a bearer token for ``Authorization: Bearer <token>``."""
        return services.accounts.login(body.name, body.password)

    @api.get("/api/me", response_model=MeOut)
    def me(who: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
        """The signed-in account, its balance and seat."""
        return services.accounts.me(who)

    return api
