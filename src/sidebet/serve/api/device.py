"""The device API of a card-reading shoe at a dealer-assist table: one event per card, with
its position in the shoe and the reading's confidence, over HTTP or a WebSocket.

A device signs in like any account (``POST /api/tokens``: an expiring, revocable bearer
token; the operator creates it with the ``device`` role).  Over the WebSocket the first
message is ``{"token": "..."}``; each following message is a card
``{"position": 0, "card": "8h", "confidence": 0.998}`` (an ``id`` of the device's, if any,
comes back), answered in order by ``{"status": 201, "card": {...}}`` or by the refusal
``{"status": 409 | 422 | ..., "detail": ..., "violations": [...]}``, exactly as the HTTP
route answers; a card sent again for the position it already holds (after a lost answer)
is answered 200 and changes nothing.  Messages are at most :data:`MESSAGE_MAX` characters.

With several processes on one PostgreSQL the socket may reach any of them: a card for a
table another process owns is sent to its owner as the HTTP route's request (the device's
token with it: the owner checks it and decides), and the owner's answer comes back in
order (:class:`~sidebet.serve.cluster.forward.Relay`)."""

import json
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Header, Response, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from pydantic import ValidationError

from sidebet.serve.api.dealer_schemas import AGAIN, CardIn, CardOut
from sidebet.serve.api.deps import CurrentCaller, ServicesDep
from sidebet.serve.api.params import TableId
from sidebet.serve.api.routing import ExactRoute, answered
from sidebet.serve.errors import ApiError, NotOwner
from sidebet.serve.service.services import Services
from sidebet.serve.settings import Settings

if TYPE_CHECKING:
    from sidebet.serve.cluster.forward import Relay

__all__ = ["DEVICE_TABLE", "MESSAGE_MAX", "router"]

DEVICE_TABLE = "/api/device/tables/{table_id}"
"""A reading shoe's routes at one table."""
MESSAGE_MAX = 2048
"""The longest WebSocket message a device may send (characters)."""


def _card(services: Services, token: str, table_id: int, text: str
          ) -> dict[str, Any] | CardIn:
    """One card message of the WebSocket, answered as the HTTP route would (the token
    checked again: a revoked or expired one stops the device at once); the card itself
    when another process owns the table (it is sent there)."""
    try:
        who = services.accounts.authenticate(token)
    except ApiError as err:
        return {"status": err.status, **err.body()}
    try:
        data = json.loads(text)
        ident = data.pop("id", None) if isinstance(data, dict) else None
        body = CardIn.model_validate(data)
    except (ValueError, ValidationError) as exc:
        return {"status": 422, "detail": f"a card message is {{position, card, "
                                         f"confidence}}: {str(exc).splitlines()[0]}",
                "violations": []}
    echo = {"id": ident} if ident is not None else {}
    try:
        status, answer = services.dealer.enter_card(who, table_id, body.position, body.card,
                                                    body.confidence, None)
    except ApiError as err:
        return {**echo, "status": err.status, **err.body()}
    except NotOwner:  # several processes: another one owns the table
        return body
    out = CardOut.model_validate(answer).model_dump()
    return {**echo, "status": status, "card": out}


async def _answer(services: Services, relay: "Relay | None", token: str, table_id: int,
                  text: str) -> dict[str, Any]:
    """A card message's answer: here, or from the table's owner."""
    for _ in range(3):  # the table taken here, then lost again: at most so often
        answer = await run_in_threadpool(_card, services, token, table_id, text)
        if isinstance(answer, dict):
            return answer
        if relay is None:
            break
        from sidebet.serve.cluster.forward import Unanswered
        try:
            data = json.loads(text)
            echo = {"id": data["id"]} if "id" in data else {}
            sent = await relay.send(
                table_id, "POST", DEVICE_TABLE.format(table_id=table_id) + "/cards",
                [(b"authorization", f"Bearer {token}".encode()),
                 (b"content-type", b"application/json")],
                answer.model_dump_json().encode())
        except Unanswered as exc:
            detail = exc.detail if not exc.sent else (
                f"the owner of table {table_id} did not answer; the card may have been "
                "entered: send it again (a card its position holds is answered 200)")
            return {**echo, "status": 503, "detail": detail, "violations": []}
        if sent is None:  # this process owns the table now: it answers
            continue
        try:
            if sent.status_code < 300:
                return {**echo, "status": sent.status_code,
                        "card": CardOut.model_validate(sent.json()).model_dump()}
            return {**echo, "status": sent.status_code, **dict(sent.json())}
        except (ValueError, TypeError, ValidationError):  # not the route's answer
            detail = f"the owner of table {table_id} answered {sent.status_code} " \
                     "without a card: send the card again"
            return {**echo, "status": 502, "detail": detail, "violations": []}
    return {"status": 503, "detail": f"table {table_id} is changing hands; send the card "
            "again", "violations": []}


def router(settings: Settings) -> APIRouter:
    """The device routes."""
    api = APIRouter(tags=["dealer-assist"], route_class=ExactRoute)
    Key = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]

    @api.post(DEVICE_TABLE + "/cards", status_code=201, response_model=CardOut,
              responses=AGAIN)
    def card(table_id: TableId, body: CardIn, who: CurrentCaller, services: ServicesDep,
             response: Response, key: Key = None) -> Any:
        """A card read by the shoe: 409 out of the dealing order, 422 not left in a shoe
        of that many decks (the rule cited); the decision waiting for it is applied once
        its cards are in (``applied``)."""
        return answered(services.dealer.enter_card(who, table_id, body.position, body.card,
                                                   body.confidence, key), response)

    @api.websocket(DEVICE_TABLE + "/ws")
    async def cards(ws: WebSocket, table_id: int) -> None:
        """The first message signs in (``{"token"}``), then one message per card."""
        services: Services = ws.app.state.services
        await ws.accept()
        try:
            first = await ws.receive_text()
            if len(first) > MESSAGE_MAX:
                await ws.close(code=1009)
                return
            try:
                token = str(json.loads(first).get("token"))
                who = await run_in_threadpool(services.accounts.authenticate, token)
            except (ValueError, AttributeError, ApiError):
                await ws.send_json({"status": 401, "detail": "the first message is "
                                    "{\"token\": ...}, a valid bearer token", "violations": []})
                await ws.close(code=4401)
                return
            await ws.send_json({"status": 200, "signed_in": who.name, "role": who.role})
            while True:
                text = await ws.receive_text()
                if len(text) > MESSAGE_MAX:
                    await ws.close(code=1009)
                    return
                await ws.send_json(await _answer(services, ws.app.state.relay, token,
                                                 table_id, text))
        except WebSocketDisconnect:
            return

    return api
