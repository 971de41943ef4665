"""The HTTP and WebSocket API (FastAPI): thin routes over :class:`~sidebet.serve.service.Service`.

Every POST takes an optional ``Idempotency-Key`` header (required for deposits and
withdrawals): a retry with the same key and body gets the first answer and changes nothing.
A refusal answers 4xx with ``{"detail": ..., "violations": [{"rule": ..., "message": ...}]}``:
401 not signed in, 403 not yours (another seat, an operator's task), 404 no such thing,
409 not open now (wrong phase or turn; the engine's rule cited), 422 the amount or wager
breaks a rule (cited) or the request is malformed.
"""


import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import (
    Depends,
    FastAPI,
    Header,
    Path,
    Query,
    Request,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

import sidebet
from sidebet.core.errors import SidebetError, Violation
from sidebet.serve.errors import ApiError
from sidebet.serve.security import Caller
from sidebet.serve.service.services import Services
from sidebet.serve.service.timing import run_clock
from sidebet.serve.settings import Settings
from sidebet.table import Step

__all__ = ["create_app"]

MONEY = r"^-?[0-9]{1,13}(\.[0-9]{1,2})?$"
TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]{1,15}Z?)?$"
"""An ISO-8601 UTC date or time, as the game records hold them."""
NO_NUL = r"^[^\x00]*$"
TableId = Annotated[int, Path(ge=1, le=2**31 - 1)]
SeatNo = Annotated[int, Path(ge=1, le=2**31 - 1)]
Since = Annotated[int, Query(ge=0, le=2**31 - 1)]
EXPECTED = Annotated[int | None, Header(
    alias="Expected-Seq", ge=0, le=2**31 - 1,
    description="refuse (409) unless the table's last event is this one: a page that "
                "has not seen the latest event is told the round moved on")]


_bearer = HTTPBearer(auto_error=False)


def _caller(request: Request,
            cred: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Caller:
    if cred is None:
        raise ApiError(401, "not signed in (a bearer token is required)")
    service: Services = request.app.state.service
    return service.accounts.authenticate(cred.credentials)


def _operator(who: Annotated[Caller, Depends(_caller)]) -> Caller:
    if not who.operator:
        raise ApiError(403, "operators only")
    return who


Who = Annotated[Caller, Depends(_caller)]
Operator = Annotated[Caller, Depends(_operator)]


def _refusal(err: ApiError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if err.status == 401 else None
    return JSONResponse(err.body(), status_code=err.status, headers=headers)


_REFUSALS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/json": {"example": {
        "detail": "§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack "
                  "wager 20.00",
        "violations": [{"rule": "§ 633c.11(c)", "message": "TriLux Deluxe wager 50.00 "
                        "exceeds twice the Blackjack wager 20.00"}]}}}}
    for code, text in ((401, "not signed in"), (403, "not yours"), (404, "not found"),
                       (409, "not open now (rule cited)"),
                       (422, "breaks a rule (cited) or malformed"))
}


def create_app(settings: Settings, service: Services) -> FastAPI:
    """The FastAPI application over ``service``, with the limits of ``settings``."""
    KEY = Annotated[str | None, Header(alias="Idempotency-Key",
                                       max_length=settings.idempotency_key_max)]

    class Credentials(BaseModel):
        """A name and a password."""

        name: str = Field(min_length=1, max_length=settings.name_max, pattern=NO_NUL,
                          examples=["ann"])
        password: str = Field(min_length=settings.password_min,
                              max_length=settings.password_max, examples=["correct horse"])

    class AmountIn(BaseModel):
        """An amount of money as decimal text (``"25.00"``)."""

        amount: str = Field(pattern=MONEY, examples=["100.00"])

    class OptionalAmountIn(BaseModel):
        """An optional amount (a Double Down wager less than the whole wager)."""

        amount: str | None = Field(default=None, pattern=MONEY, examples=["10.00"])

    class BetIn(BaseModel):
        """A wager (``blackjack`` or a side wager identifier) and its amount."""

        wager: str = Field(min_length=1, max_length=settings.wager_id_max,
                           examples=["blackjack"])
        amount: str = Field(pattern=MONEY, examples=["10.00"])

    class SeedIn(BaseModel):
        """A client seed for the next shoe's shuffle."""

        seed: str = Field(min_length=1, max_length=settings.client_seed_max,
                          examples=["my lucky seed"])

    class TableIn(BaseModel):
        """A Rules Submission (the TOML ``check-table`` reads) and the house's settings."""

        submission: str = Field(max_length=settings.submission_max,
                                examples=['decks = 6\n[limits]\nmin = "10"\n'])
        seats: int = Field(default=7, ge=1, le=7)
        unit: str = Field(default="1.00", pattern=MONEY)
        time_limit: int = Field(default=0, ge=0, le=settings.time_limit_max,
                                description="seconds a player has to act (0: no limit)")
        default_action: str = Field(default="stand", pattern="^(stand|surrender)$")

    subscribers: dict[int, set[asyncio.Queue[dict[str, Any]]]] = {}
    stop = threading.Event()

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()

        def fanout(table: int, event: dict[str, Any]) -> None:
            for q in list(subscribers.get(table, ())):
                q.put_nowait(event)

        def broadcast(table: int, event: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(fanout, table, event)

        service.core.broadcast = broadcast
        timer = threading.Thread(target=run_clock, args=(service.timing, stop, settings.clock_interval),
                                 daemon=True,
                                 name="sidebet-time-limit")
        timer.start()
        yield
        stop.set()
        timer.join(timeout=5)

    app = FastAPI(title="sidebet table server", version=sidebet.__version__,
                  description=__doc__ or "", lifespan=lifespan, responses=_REFUSALS)
    app.state.service = service

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, err: ApiError) -> JSONResponse:
        return _refusal(err)

    @app.exception_handler(RequestValidationError)
    async def _malformed(_request: Request, err: RequestValidationError) -> JSONResponse:
        found = tuple(
            Violation("", f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}")
            for e in err.errors())
        return _refusal(ApiError(422, "; ".join(v.message for v in found) or "malformed",
                                 found))

    @app.exception_handler(SidebetError)
    async def _sidebet_error(_request: Request, err: SidebetError) -> JSONResponse:
        return _refusal(ApiError(422, str(err)))

    def answer(result: tuple[int, Any]) -> JSONResponse:
        return JSONResponse(result[1], status_code=result[0])

    # ----- accounts and wallet -----------------------------------------------------------

    @app.post("/api/accounts", status_code=201, tags=["accounts"])
    def create_account(body: Credentials) -> dict[str, Any]:
        """Create a player account."""
        return service.accounts.create(body.name, body.password)

    @app.post("/api/tokens", status_code=201, tags=["accounts"])
    def create_token(body: Credentials) -> dict[str, Any]:
        """Sign in: a bearer token for ``Authorization: Bearer <token>``."""
        return service.accounts.login(body.name, body.password)

    @app.get("/api/me", tags=["accounts"])
    def me(who: Who) -> dict[str, Any]:
        """The signed-in account, its balance and seat."""
        return service.accounts.me(who)

    @app.get("/api/wallet", tags=["wallet"])
    def wallet(who: Who) -> dict[str, Any]:
        """Balance and deposits/withdrawals."""
        return service.wallet.view(who)

    @app.post("/api/wallet/deposits", status_code=201, tags=["wallet"])
    def deposit(body: AmountIn, who: Who, key: KEY = None) -> JSONResponse:
        """Deposit (Idempotency-Key required)."""
        return answer(service.wallet.move(who, "deposit", body.amount, key))

    @app.post("/api/wallet/withdrawals", status_code=201, tags=["wallet"])
    def withdraw(body: AmountIn, who: Who, key: KEY = None) -> JSONResponse:
        """Withdraw (Idempotency-Key required; not while seated)."""
        return answer(service.wallet.move(who, "withdrawal", body.amount, key))

    # ----- tables ------------------------------------------------------------------------

    @app.get("/api/tables", tags=["tables"])
    def tables() -> list[dict[str, Any]]:
        """Every table: name, decks, side wagers, limits, occupied seats."""
        return service.tables.summaries()

    @app.post("/api/tables", status_code=201, tags=["tables"])
    def create_table(body: TableIn, who: Operator, key: KEY = None) -> JSONResponse:
        """Create a table from a Rules Submission (operators); a non-compliant one is
        refused (422) with every violation and its citation."""
        return answer(service.tables.create(who, body.submission, seats=body.seats,
                                           unit=body.unit, time_limit=body.time_limit,
                                           default_action=body.default_action, key=key))

    @app.get("/api/tables/{table_id}", tags=["tables"])
    def table(table_id: TableId) -> dict[str, Any]:
        """The table's rules, paytables, limits and state."""
        return service.tables.info(table_id)

    @app.get("/api/tables/{table_id}/state", tags=["tables"])
    def state(table_id: TableId) -> dict[str, Any]:
        """The live state: seats, hands, dealer (hole card hidden), legal actions per seat."""
        return service.tables.state(table_id)

    @app.get("/api/tables/{table_id}/events", tags=["tables"])
    def events(table_id: TableId, since: Since = 0,
               limit: Annotated[int, Query(ge=1, le=settings.events_page_max)
                               ] = settings.events_page) -> list[dict[str, Any]]:
        """The table's events after sequence number ``since`` (what the WebSocket sends)."""
        return service.games.events(table_id, since, limit)

    @app.get("/api/tables/{table_id}/shoes", tags=["fairness"])
    def shoes(table_id: TableId) -> list[dict[str, Any]]:
        """Every shoe's commitment and client seeds; finished shoes with their server seed."""
        return service.tables.shoes(table_id)

    @app.get("/api/tables/{table_id}/export", tags=["audit"],
             response_class=StreamingResponse)
    def export(table_id: TableId, _who: Operator) -> StreamingResponse:
        """The table's log as JSON lines (operators), for ``sidebet audit``."""
        return StreamingResponse(service.games.export(table_id), media_type="application/x-ndjson")

    # ----- seats and the round -----------------------------------------------------------

    def seat_route(path: str, summary: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return app.post(f"/api/tables/{{table_id}}/seats/{{seat}}{path}", status_code=201,
                        tags=["round"], summary=summary)

    @seat_route("", "Sit at a free seat")
    def sit(table_id: TableId, seat: SeatNo, who: Who, key: KEY = None) -> JSONResponse:
        return answer(service.tables.sit(who, table_id, seat, key))

    @seat_route("/leave", "Leave the seat (no wagers in the round in progress)")
    def leave(table_id: TableId, seat: SeatNo, who: Who, key: KEY = None) -> JSONResponse:
        return answer(service.tables.leave(who, table_id, seat, key))

    @seat_route("/client-seed", "Give a client seed for the next shoe's shuffle")
    def client_seed(table_id: TableId, seat: SeatNo, body: SeedIn, who: Who, key: KEY = None
                    ) -> JSONResponse:
        return answer(service.tables.client_seed(who, table_id, seat, body.seed, key))

    @seat_route("/bets", "Place a wager (blackjack or a side wager the table offers)")
    def bet(table_id: TableId, seat: SeatNo, body: BetIn, who: Who, key: KEY = None,
            expected: EXPECTED = None) -> JSONResponse:
        return answer(service.rounds.act(who, table_id, seat, Step.BET, body.amount, body.wager,
                                  key=key, expected=expected))

    @seat_route("/deal", "No more bets: deal and settle the side wagers")
    def deal(table_id: TableId, seat: SeatNo, who: Who, key: KEY = None,
             expected: EXPECTED = None) -> JSONResponse:
        return answer(service.rounds.act(who, table_id, seat, Step.CLOSE_BETS, key=key,
                                  expected=expected))

    @seat_route("/press", "Press the TriLux Deluxe winnings (0 collects them)")
    def press(table_id: TableId, seat: SeatNo, body: AmountIn, who: Who, key: KEY = None,
              expected: EXPECTED = None) -> JSONResponse:
        return answer(service.rounds.act(who, table_id, seat, Step.PRESS, body.amount, key=key,
                                  expected=expected))

    @seat_route("/insurance", "Take insurance (0 declines)")
    def insurance(table_id: TableId, seat: SeatNo, body: AmountIn, who: Who,
                  key: KEY = None, expected: EXPECTED = None) -> JSONResponse:
        return answer(service.rounds.act(who, table_id, seat, Step.INSURANCE, body.amount, key=key,
                                  expected=expected))

    @seat_route("/double", "Double down (default: the whole wager)")
    def double(table_id: TableId, seat: SeatNo, who: Who, body: OptionalAmountIn | None = None,
               key: KEY = None, expected: EXPECTED = None) -> JSONResponse:
        amount = None if body is None else body.amount
        return answer(service.rounds.act(who, table_id, seat, Step.DOUBLE, amount, key=key,
                                  expected=expected))

    def plain(step: Step, summary: str) -> None:
        @seat_route(f"/{step.value}", summary)
        def act(table_id: TableId, seat: SeatNo, who: Who, key: KEY = None,
                expected: EXPECTED = None) -> JSONResponse:
            return answer(service.rounds.act(who, table_id, seat, step, key=key, expected=expected))

        act.__name__ = f"act_{step.value}"

    plain(Step.HIT, "Hit the hand to act")
    plain(Step.STAND, "Stand on the hand to act")
    plain(Step.SPLIT, "Split the pair")
    plain(Step.SURRENDER, "Surrender the hand")

    # ----- games, reconciliation ---------------------------------------------------------

    @app.get("/api/games", tags=["audit"])
    def games(who: Who, player: Annotated[str | None, Query(max_length=settings.name_max,
                                                            pattern=NO_NUL)] = None,
              table: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
              since: Annotated[str | None, Query(pattern=TIME)] = None,
              until: Annotated[str | None, Query(pattern=TIME)] = None,
              limit: Annotated[int, Query(ge=1, le=settings.games_page_max)
                               ] = settings.games_page) -> list[dict[str, Any]]:
        """Game records (§ 810a.11) by player name, table and start time (ISO-8601 UTC);
        players see their own."""
        return service.games.find(who, player=player, table=table, since=since, until=until,
                             limit=limit)

    @app.get("/api/games/{game_id}", tags=["audit"])
    def game(game_id: Annotated[str, Path(pattern=r"^T[0-9]{1,10}-R[0-9]{1,10}$")], who: Who) -> dict[str, Any]:
        """One game record."""
        return service.games.get(who, game_id)

    @app.get("/api/reconcile", tags=["audit"])
    def reconcile(_who: Operator) -> dict[str, Any]:
        """Money conservation (operators)."""
        return service.operator.reconcile()

    # ----- the web table (pages, static files, their read-only routes) --------------------

    from sidebet.serve.web import add_web

    add_web(app, service, _caller, settings)

    # ----- the WebSocket stream ----------------------------------------------------------

    @app.websocket("/api/tables/{table_id}/ws")
    async def stream(ws: WebSocket, table_id: int, since: Since = 0) -> None:
        """Every event of the table after ``since``, then live, in sequence order
        (``{"seq", "kind", "at", "payload"}``); reconnect with the last ``seq`` seen."""
        if table_id not in service.core.tables:
            await ws.close(code=4404)
            return
        await ws.accept()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        subscribers.setdefault(table_id, set()).add(queue)
        last = max(since, 0)

        async def send_from_log() -> None:
            nonlocal last
            while True:
                batch = await run_in_threadpool(service.games.events, table_id, last,
                                                settings.stream_batch)
                for ev in batch:
                    await ws.send_json(ev)
                    last = ev["seq"]
                if len(batch) < settings.stream_batch:
                    return

        async def pump() -> None:
            nonlocal last
            await send_from_log()
            while True:
                ev = await queue.get()
                if ev["seq"] <= last:
                    continue
                if ev["seq"] > last + 1:
                    await send_from_log()
                    continue
                await ws.send_json(ev)
                last = ev["seq"]

        async def watch() -> None:
            with contextlib.suppress(WebSocketDisconnect):
                while True:
                    await ws.receive_text()

        tasks = [asyncio.create_task(pump()), asyncio.create_task(watch())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            subscribers[table_id].discard(queue)
            with contextlib.suppress(Exception):
                await ws.close()

    return app

