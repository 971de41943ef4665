"""Games and the log: a table's events, its export for ``sidebet audit`` (§ 811a.7), and
the game records (§ 810a.11)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import select

from sidebet.serve.anchor import sign_head
from sidebet.serve.chain import EXPORT_FORMAT, GENESIS, canonical, utc_now
from sidebet.serve.errors import ApiError
from sidebet.serve.models import Account, Event, Game, GamePlayer
from sidebet.serve.privacy import observer_event
from sidebet.serve.security import Caller
from sidebet.serve.service.core import Core, public_event

__all__ = ["Games", "game_json"]


def game_json(g: Game, viewer: Caller | None = None) -> dict[str, Any]:
    """A game's record; a round in progress only its identity and start.  A player
    (``viewer``) sees the other players of the round as the table did: seat, name, bets and
    results, not their account ids or the credits in their wallets."""
    if g.record is not None:
        record = dict(json.loads(g.record))
        if viewer is not None and not viewer.operator:
            record["players"] = [p if p.get("account") == viewer.id else {
                k: v for k, v in p.items() if k not in ("account", "credits_start",
                                                        "credits_end")}
                for p in record.get("players", [])]
            mine = {str(p["seat"]) for p in record["players"] if p.get("account") == viewer.id}
            history = record.get("history")
            if isinstance(history, dict) and isinstance(history.get("chips"), dict):
                record["history"] = {**history, "chips": {
                    s: c for s, c in history["chips"].items() if s in mine}}
        return record
    return {"game": g.id, "table": g.table_id, "round": g.round_no, "status": g.status,
            "started_at": g.started_at, "ended_at": None}


class Games:
    """What the log and the game rows tell: events, exports, game records."""

    def __init__(self, core: Core, signer: Ed25519PrivateKey) -> None:
        self.core = core
        self.signer = signer
        """The operator's key that signs every export's head."""

    def head(self, table_id: int) -> dict[str, Any]:
        """The table's chain head now (its last committed event), signed."""
        core = self.core
        with core.lock(table_id):
            live = core.live(table_id)
            seq, head = live.seq, live.head or GENESIS
        return sign_head(self.signer, table_id, seq, head)

    def events(self, table_id: int, since: int, limit: int, *, full: bool = False
               ) -> list[dict[str, Any]]:
        """Events after ``since`` up to the table's last published event, read without
        waiting for the table's lock: as stored for an operator (``full``), else as an
        observer at the table may see them (:func:`~sidebet.serve.privacy.observer_event`:
        hole card of the round in progress hidden, no account ids, balances or game
        records)."""
        core = self.core
        shown = core.live(table_id).published
        hide, current = shown.hide_hole, shown.round_no
        with core.sessions() as s:
            rows = list(s.scalars(select(Event).where(Event.table_id == table_id,
                                                      Event.seq > since,
                                                      Event.seq <= shown.seq)
                                  .order_by(Event.seq).limit(limit)))
        out = [public_event({"seq": r.seq, "kind": r.kind, "at": r.at,
                             "payload": json.loads(r.payload)}, hide, current) for r in rows]
        return out if full else [observer_event(ev) for ev in out]

    def export(self, table_id: int) -> Iterator[str]:
        """The table's whole log as JSON lines: a header, then every event as stored."""
        self.core.live(table_id)
        with self.core.sessions() as s:
            rows = list(s.scalars(select(Event).where(Event.table_id == table_id)
                                  .order_by(Event.seq)))
        head = rows[-1].hash if rows else GENESIS
        signed = sign_head(self.signer, table_id, len(rows), head)
        yield canonical({"format": EXPORT_FORMAT, "table": table_id, "exported_at": utc_now(),
                         "events": len(rows), "head": head, "key": signed["key"],
                         "signature": signed["signature"]}) + "\n"
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
        return [game_json(g, caller) for g in rows]

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
        return game_json(g, caller)
