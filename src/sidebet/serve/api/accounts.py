"""Accounts: sign-up, sign-in (limited: 429 while locked), refresh, sign-out (this sign-in
or everywhere), the password and the signed-in account."""

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.params import NO_NUL
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.schemas import AccountOut, MeOut, TokenOut
from sidebet.serve.api.security_schemas import Revoked
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

    class RefreshIn(BaseModel):
        """A refresh token."""

        refresh_token: str = Field(min_length=1, max_length=100)

    class PasswordIn(BaseModel):
        """The current password and the new one."""

        password: str = Field(min_length=1, max_length=settings.password_max)
        new_password: str = Field(min_length=settings.password_min,
                                  max_length=settings.password_max)

    @api.post("/api/tokens", status_code=201, response_model=TokenOut)
    def create_token(body: Credentials, services: ServicesDep, request: Request
                     ) -> dict[str, Any]:
        """Sign in: a bearer token for ``Authorization: Bearer <token>`` (it expires at
        ``expires_at``) and a refresh token; 429 after too many failures from the name or
        the address, until the lock expires."""
        address = request.client.host if request.client else ""
        return services.accounts.login(body.name, body.password, address)

    @api.post("/api/tokens/refresh", status_code=201, response_model=TokenOut)
    def refresh_token(body: RefreshIn, services: ServicesDep) -> dict[str, Any]:
        """A new bearer token and refresh token for a refresh token (used once)."""
        return services.accounts.refresh(body.refresh_token)

    @api.delete("/api/tokens/current", response_model=Revoked)
    def sign_out(who: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
        """Sign out: revoke this sign-in's tokens."""
        return services.accounts.sign_out(who, everywhere=False)

    @api.delete("/api/tokens", response_model=Revoked)
    def sign_out_everywhere(who: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
        """Sign out everywhere: revoke every token of the account."""
        return services.accounts.sign_out(who, everywhere=True)

    @api.put("/api/me/password", response_model=TokenOut)
    def change_password(body: PasswordIn, who: CurrentCaller, services: ServicesDep
                        ) -> dict[str, Any]:
        """Change the password: every token of the account is revoked; a new sign-in is
        answered."""
        return services.accounts.change_password(who, body.password, body.new_password)

    @api.get("/api/me", response_model=MeOut)
    def me(who: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
        """The signed-in account, its balance and seat."""
        return services.accounts.me(who)

    return api
