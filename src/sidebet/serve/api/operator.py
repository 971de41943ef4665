"""The operator's routes: money conservation."""

from typing import Any

from fastapi import APIRouter

from sidebet.serve.api.deps import OperatorCaller, ServicesDep
from sidebet.serve.api.routing import ExactRoute
from sidebet.serve.api.schemas import Reconciliation

__all__ = ["router"]


def router() -> APIRouter:
    """The operator's routes."""
    api = APIRouter(tags=["audit"], route_class=ExactRoute)

    @api.get("/api/reconcile", response_model=Reconciliation)
    def reconcile(_who: OperatorCaller, services: ServicesDep) -> dict[str, Any]:
        """Money conservation (operators)."""
        return services.operator.reconcile()

    return api
