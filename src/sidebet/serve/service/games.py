"""Games and the log: a table's events, its export for ``sidebet audit`` (§ 811a.7), and
the game records (§ 810a.11)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select

from sidebet.serve.chain import EXPORT_FORMAT, GENESIS, canonical, utc_now
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, Event, Game, GamePlayer
from sidebet.serve.security import Caller
from sidebet.serve.service.core import Core, public_event

__all__ = ["Games", "game_json"]


def game_json(g: Game) -> dict[str, Any]:
    """A game's record; a round in progress only its identity and start."""
    if g.record is not None:
        return dict(json.loads(g.record))
    return {"game": g.id, "table": g.table_id, "round": g.round_no, "status": g.status,
            "started_at": g.started_at, "ended_at": None}


class Games:
    """What the log and the game rows tell: events, exports, game records."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def events(self, table_id: int, since: int, limit: int) -> list[dict[str, Any]]:
        """Events after ``since`` as players may see them (hole card of the round in
        progress hidden), up to the table's last published event: read without waiting for
        the table's lock."""
        core = self.core
        shown = core.live(table_id).published
        hide, current = shown.hide_hole, shown.round_no
        with core.sessions() as s:
            rows = list(s.scalars(select(Event).where(Event.table_id == table_id,
                                                      Event.seq > since,
                                                      Event.seq <= shown.seq)
                                  .order_by(Event.seq).limit(limit)))
        return [public_event({"seq": r.seq, "kind": r.kind, "at": r.at,
                              "payload": json.loads(r.payload)}, hide, current) for r in rows]

    def export(self, table_id: int) -> Iterator[str]:
        """The table's whole log as JSON lines: a header, then every event as stored."""
        self.core.live(table_id)
        with self.core.sessions() as s:
            rows = list(s.scalars(select(Event).where(Event.table_id == table_id)
                                  .order_by(Event.seq)))
        yield canonical({"format": EXPORT_FORMAT, "table": table_id, "exported_at": utc_now(),
                         "events": len(rows), "head": rows[-1].hash if rows else GENESIS}) + "\n"
        for r in rows:
            yield canonical({"table": table_id, "seq": r.seq, "kind": r.kind, "at": r.at,
                             "payload": json.loads(r.payload), "prev": r.prev_hash,
                             "hash": r.hash}) + "\n"

    def find(self, caller: Caller, *, player: str | None, table: int | None,
             since: str | None, until: str | None, limit: int) -> list[dict[str, Any]]:
        """Game records (§ 810a.11) by player, table and time; a player sees their own."""
        with self.core.sessions() as s:
            q = select(Game).order_by(Game.started_at, Game.id)
            account = None
            if player is not None:
                account = s.scalar(select(Account.id).where(Account.name == player))
                if account is None:
                    return []
            if not caller.operator:
                if account is not None and account != caller.id:
                    raise ApiError(403, "a player sees only their own games")
                account = caller.id
            if account is not None:
                q = q.where(Game.id.in_(select(GamePlayer.game_id)
                                        .where(GamePlayer.account_id == account)))
            if table is not None:
                q = q.where(Game.table_id == table)
            if since is not None:
                q = q.where(Game.started_at >= since)
            if until is not None:
                q = q.where(Game.started_at <= until)
            rows = list(s.scalars(q.limit(limit)))
        return [game_json(g) for g in rows]

    def get(self, caller: Caller, game_id: str) -> dict[str, Any]:
        """One game record (an operator's, or a player's in it)."""
        with self.core.sessions() as s:
            g = s.get(Game, game_id)
            if g is None:
                raise ApiError(404, f"no game {game_id}")
            mine = s.scalar(select(GamePlayer).where(GamePlayer.game_id == game_id,
                                                     GamePlayer.account_id == caller.id))
        if not caller.operator and mine is None:
            raise ApiError(403, "a player sees only their own games")
        return game_json(g)
