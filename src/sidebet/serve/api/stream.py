"""The WebSocket stream of a table's events: every event after ``since`` from the log, then
each new one once its transaction has committed, in sequence order with no gaps; each as
an observer at the table may see it (:mod:`sidebet.serve.privacy`); a ``ping`` from the
page is answered ``{"kind": "pong"}``."""

import asyncio
import contextlib
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.requests import HTTPConnection

from sidebet.serve.api.deps import ServicesDep
from sidebet.serve.api.params import Since
from sidebet.serve.errors import ApiError
from sidebet.serve.privacy import observer_event
from sidebet.serve.settings import Settings

__all__ = ["Subscribers", "get_subscribers", "router"]

Queue = asyncio.Queue[dict[str, Any]]

PONG: dict[str, Any] = {"kind": "pong"}
"""The answer to a page's ``ping`` (its heartbeat: a connection that stops answering is
dead, whatever the socket says)."""


class Subscribers:
    """The WebSockets' queues, by table."""

    def __init__(self) -> None:
        self._queues: dict[int, set[Queue]] = {}

    def add(self, table: int) -> Queue:
        """A new subscriber's queue of the table's events."""
        queue: Queue = asyncio.Queue()
        self._queues.setdefault(table, set()).add(queue)
        return queue

    def discard(self, table: int, queue: Queue) -> None:
        """The subscriber has gone."""
        self._queues.get(table, set()).discard(queue)

    def fanout(self, table: int, event: dict[str, Any]) -> None:
        """Hand an event to every subscriber of its table (on the event loop)."""
        for queue in list(self._queues.get(table, ())):
            queue.put_nowait(event)

    def broadcaster(self, loop: asyncio.AbstractEventLoop
                    ) -> Callable[[int, dict[str, Any]], None]:
        """What the service calls after each commit, from any thread."""
        def broadcast(table: int, event: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(self.fanout, table, event)
        return broadcast


def get_subscribers(conn: HTTPConnection) -> Subscribers:
    """The app's WebSocket subscribers (``app.state.subscribers``)."""
    subscribers: Subscribers = conn.app.state.subscribers
    return subscribers


def router(settings: Settings) -> APIRouter:
    """The stream's route, reading the log ``settings.stream_batch`` events at a time."""
    api = APIRouter()
    batch_size = settings.stream_batch

    @api.websocket("/api/tables/{table_id}/ws")
    async def stream(ws: WebSocket, table_id: int, services: ServicesDep,
                     subscribers: Annotated[Subscribers, Depends(get_subscribers)],
                     since: Since = 0) -> None:
        """Every event of the table after ``since``, then live, in sequence order
        (``{"seq", "kind", "at", "payload"}``); reconnect with the last ``seq`` seen."""
        if table_id not in services.core.tables:  # one another process has just created?
            with contextlib.suppress(ApiError):
                await run_in_threadpool(services.core.live, table_id)
        if table_id not in services.core.tables:
            await ws.close(code=4404)
            return
        await ws.accept()
        queue = subscribers.add(table_id)
        last = max(since, 0)

        async def send_from_log() -> None:
            nonlocal last
            while True:
                batch = await run_in_threadpool(services.games.events, table_id, last,
                                                batch_size)
                for ev in batch:
                    await ws.send_json(ev)
                    last = ev["seq"]
                if len(batch) < batch_size:
                    return

        async def pump() -> None:
            nonlocal last
            await send_from_log()
            while True:
                ev = await queue.get()
                if ev is PONG:
                    await ws.send_json(PONG)
                    continue
                if ev["seq"] <= last:
                    continue
                if ev["seq"] > last + 1:
                    await send_from_log()
                    continue
                await ws.send_json(observer_event(ev))
                last = ev["seq"]

        async def watch() -> None:
            with contextlib.suppress(WebSocketDisconnect):
                while True:
                    if await ws.receive_text() == "ping":
                        queue.put_nowait(PONG)  # sent in order, by the pump

        tasks = [asyncio.create_task(pump()), asyncio.create_task(watch())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            subscribers.discard(table_id, queue)
            with contextlib.suppress(Exception):
                await ws.close()

    return api
