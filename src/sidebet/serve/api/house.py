"""The house's public facts: its money mode and defaults (``GET /api/house``), and a
table's chain head signed with the operator's key (``GET /api/tables/{id}/head``)."""

from typing import Any

from fastapi import APIRouter

from sidebet.serve.anchor import public_hex
from sidebet.serve.api.deps import ServicesDep, SettingsDep
from sidebet.serve.api.params import TableId
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.security_schemas import HouseOut, SignedHead

__all__ = ["router"]


def router() -> APIRouter:
    """The house's public routes."""
    api = APIRouter(tags=["house"], route_class=ExactRoute)

    @api.get("/api/house", response_model=HouseOut)
    def house(services: ServicesDep, settings: SettingsDep) -> dict[str, Any]:
        """The money mode (play or real), the default time limit, the rounds a seat may sit
        out, and the public key (hex) that signs every table's chain head."""
        return {"money_mode": settings.money_mode,
                "time_limit_default": settings.time_limit_default,
                "sit_out_rounds": settings.sit_out_rounds,
                "signing_key": public_hex(services.games.signer)}

    @api.get("/api/tables/{table_id}/head", response_model=SignedHead, tags=["audit"])
    def head(table_id: TableId, services: ServicesDep) -> dict[str, Any]:
        """The table's chain head now, signed (Ed25519): keep it, and ``sidebet audit
        --head`` proves a later export neither rewritten nor cut short before it."""
        return services.games.head(table_id)

    return api
