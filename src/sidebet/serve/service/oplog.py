"""The operators' log: every operator action, with who did it, written in the action's own
transaction (``GET /api/operator/actions``) and to the server's log."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.models import OperatorAction
from sidebet.serve.security import Caller

__all__ = ["action_json", "log_action", "recent_actions"]

_log = logging.getLogger("sidebet.serve.operator")


def log_action(s: Session, who: Caller, action: str, target: str,
               detail: dict[str, Any] | None = None) -> None:
    """Record that operator ``who`` did ``action`` to ``target``."""
    s.add(OperatorAction(at=utc_now(), operator_id=who.id, operator_name=who.name,
                         action=action, target=target[:200], detail=canonical(detail or {})))
    _log.info("operator %s (account %d): %s %s", who.name, who.id, action, target)


def action_json(row: OperatorAction) -> dict[str, Any]:
    """An operator action as the API shows it."""
    import json

    return {"id": row.id, "at": row.at, "operator": row.operator_name,
            "operator_id": row.operator_id, "action": row.action, "target": row.target,
            "detail": json.loads(row.detail)}


def recent_actions(s: Session, limit: int) -> list[dict[str, Any]]:
    """The last ``limit`` operator actions, newest first."""
    rows = s.scalars(select(OperatorAction).order_by(OperatorAction.id.desc()).limit(limit))
    return [action_json(r) for r in rows]
