"""What an observer at the table may see of its log: the public stream and ``GET /events``
for anyone but an operator.

An observer sees what is on the felt: who sits where (by name), the bets, the cards as
the engine reveals them (the hole card redacted by the engine's
:func:`sidebet.table.view.redact`, applied first by
:func:`sidebet.serve.service.core.public_event`), the results and the shoes' fairness data.
Not the account ids behind the seats, the wallets' balances (the round's chips), the
wallet moves, nor the game records (§ 810a.11: a player reads their own at
``/api/games``, an operator every one and the whole log at ``/export``).

>>> observer_event({"seq": 3, "kind": "sit", "at": "t",
...                 "payload": {"seat": 1, "account": 7, "name": "ann"}})
{'seq': 3, 'kind': 'sit', 'at': 't', 'payload': {'seat': 1, 'name': 'ann'}}
>>> observer_event({"seq": 4, "kind": "round-chips", "at": "t",
...                 "payload": {"chips": {"1": 100000}, "accounts": {"1": 7}}})["payload"]
{'seats': [1]}
"""

from __future__ import annotations

from typing import Any

__all__ = ["PRIVATE_KEYS", "observer_event"]

PRIVATE_KEYS: dict[str, tuple[str, ...]] = {
    "sit": ("account",),
    "leave": ("account",),
    "round-open": ("chips", "accounts"),
    "action": ("actor", "moves", "house"),
    "card": ("card", "source", "confidence", "by"),
    "card-undo": ("card", "by"),
    "awaiting": ("actor",),
    "correction-asked": ("card",),
    "correction": ("moves", "house", "cards"),
}
"""The payload keys an observer does not get, by event kind."""


def observer_event(ev: dict[str, Any]) -> dict[str, Any]:
    """A (hole-redacted) event as an observer at the table may see it."""
    kind, payload = ev["kind"], ev["payload"]
    if kind == "round-chips":
        seen: dict[str, Any] = {"seats": sorted(int(s) for s in payload["chips"])}
    elif kind == "round-end":
        record = payload.get("record") or {}
        seen = {"round": payload["round"], "game": payload["game"],
                "outcome": record.get("outcome")}
    else:
        hidden = PRIVATE_KEYS.get(kind, ())
        seen = {k: v for k, v in payload.items() if k not in hidden}
    return {**ev, "payload": seen}
