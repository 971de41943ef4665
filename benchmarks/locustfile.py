"""Locust scenario: players at many tables of a ``sidebet serve``, each betting, dealing,
collecting or declining the Press and insurance, and standing, at its own seat.

Each Locust user is one player that ``bench_locust.py`` has signed up, given money and
seated beforehand (``SIDEBET_LOCUST_PLAYERS``: a JSON file of tokens, tables and seats;
sign-up hashes a password, which is not what is measured).  It reads its table's
state and posts one of its seat's simple legal actions; when it has none, it reads the state
again once the table has moved on (``?after=SEQ``).  Every post is named ``post``; each one
acknowledged (201) is also reported as ``acknowledged``, with its round trip, so Locust's
statistics give acknowledged actions per second and their percentiles.

Run by ``bench_locust.py`` (headless, bounded, loopback only).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from locust import HttpUser, task

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.serve.harness import simple_action

PLAYERS = json.loads(Path(os.environ["SIDEBET_LOCUST_PLAYERS"]).read_text())
"""``[{"token", "table", "seat"}, ...]``: the players ``bench_locust.py`` seated."""
_players = itertools.count()


class Player(HttpUser):
    """One player at one seat."""

    def on_start(self) -> None:
        """Take the next seated player's token, table and seat."""
        me = PLAYERS[next(_players) % len(PLAYERS)]
        self.table, self.seat = int(me["table"]), int(me["seat"])
        self.client.headers["Authorization"] = f"Bearer {me['token']}"
        self.after: dict[str, int] = {}

    @staticmethod
    def _key() -> dict[str, str]:
        return {"Idempotency-Key": uuid.uuid4().hex}

    @task
    def act(self) -> None:
        """Read the table's state; post the seat's action, or wait for the table to move."""
        state: dict[str, Any] = self.client.get(f"/api/tables/{self.table}/state",
                                                params=self.after, name="state").json()
        self.after = {}
        chosen = simple_action(state, self.seat)
        if chosen is None:
            self.after = {"after": int(state["seq"])}
            return
        route, body = chosen
        start = time.perf_counter()
        with self.client.post(f"/api/tables/{self.table}/seats/{self.seat}/{route}",
                              json=body, headers=self._key(), name="post",
                              catch_response=True) as r:
            if r.status_code in (409, 422):  # another player moved first: part of the game
                r.success()
            elif r.status_code == 201:
                self.environment.events.request.fire(
                    request_type="ACT", name="acknowledged",
                    response_time=(time.perf_counter() - start) * 1e3,
                    response_length=len(r.content), exception=None, context={})
