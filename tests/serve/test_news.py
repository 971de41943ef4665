"""``GET /state?after=SEQ&seat=N``'s wait (:func:`sidebet.serve.api.tables.news`), with the
table's published views in hand: the seat's view is compared with the one at ``SEQ``."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from sidebet.serve.api.stream import Subscribers
from sidebet.serve.api.tables import STATE_WAIT, news
from sidebet.serve.live import Published
from sidebet.serve.service.services import Services


def view(seq: int, legal: list[str]) -> Published:
    seats = [{"legal": [{"action": a} for a in legal], "player": "ann"},
             {"legal": [], "player": "bob"}]
    return Published(seq, {"table": 1, "seq": seq, "seats": seats}, True, 1)


class Tables:
    def __init__(self, shown: Published) -> None:
        self.shown = shown

    def published(self, table_id: int) -> Published:
        return self.shown


class FakeServices:
    def __init__(self, shown: Published) -> None:
        self.tables = Tables(shown)


def wait(services: FakeServices, after: int, then: list[Published]) -> tuple[int, float]:
    """``news`` for seat 1 after ``after``, the views ``then`` published one by one (each
    broadcast), and how long it waited."""
    async def go() -> tuple[int, float]:
        subscribers = Subscribers()
        loop = asyncio.get_running_loop()
        start = loop.time()
        task = asyncio.create_task(news(cast(Services, services), subscribers, 1, after, 1))
        for shown in then:
            await asyncio.sleep(0.01)
            services.tables.shown = shown
            subscribers.fanout(1, cast(dict[str, Any], {"seq": shown.seq}))
        got = await task
        return got.seq, loop.time() - start
    return asyncio.run(go())


def test_a_seat_whose_turn_came_before_the_wait_began_is_answered_at_once() -> None:
    # the client's answer was at event 5; event 6 (its turn) was published before the wait
    seq, waited = wait(FakeServices(view(6, ["hit", "stand"])), 5, [])
    assert seq == 6 and waited < STATE_WAIT / 2


def test_a_seat_is_woken_when_its_actions_change_not_by_another_seats_move() -> None:
    services = FakeServices(view(5, []))
    seq, waited = wait(services, 5, [view(6, []), view(7, ["hit", "stand"])])
    assert seq == 7 and waited < STATE_WAIT / 2


def test_a_wait_begun_before_its_own_event_was_published_compares_with_that_event() -> None:
    # this process publishes event 5 (the client's) after the wait began, then 6 and 7
    services = FakeServices(view(4, ["deal"]))
    seq, waited = wait(services, 5, [view(5, []), view(6, []), view(7, ["stand"])])
    assert seq == 7 and waited < STATE_WAIT / 2
