"""The web application: lobby, tables, accounts, the websocket and the JSON API.

``create_app(db)`` builds it over a database; ``pips serve`` runs it on uvicorn. Live
tables are kept in memory (:mod:`pips.server.tables`) and recovered from the database
when the app starts.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import multiprocessing
import secrets
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Form, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from sqlalchemy import select
from starlette.middleware.sessions import SessionMiddleware

from pips import __version__, record
from pips.bots.search import warm_up
from pips.core.view import SPECTATOR, event_to_json
from pips.display import describe_event, replay_positions
from pips.results.service import Results, publish_due_apart, settings_from_env, utc_now
from pips.server import accounts, protocol, results_routes
from pips.server.tables import Identity, LiveTable, TableError, Tables
from pips.server.web import HERE, check_csrf, page, who
from pips.store.db import Database
from pips.store.models import ChatLine, GameTable, Seat, User

log = logging.getLogger("pips.server")

RATE = 20.0
"""Messages per second a websocket client may send on average (burst of the same)."""


class NewTable(BaseModel):
    """A table to create: the game, its options, and each seat (me, open or bot)."""

    game: str
    options: dict[str, Any] = {}
    seats: list[dict[str, Any]]
    private: bool = False
    turn_seconds: int | None = None
    seed: int | None = None
    """Fix the deals (tests, teaching); random when left out."""


class WebClient:
    """A websocket as a table client."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send_text(json.dumps(message, separators=(",", ":")))


def create_app(
    db: Database,
    *,
    bot_delay: float = 0.6,
    grace: float = 60.0,
    warm: bool = True,
    https_cookies: bool = False,
    secret: str | None = None,
    results: Results | None = None,
    publish_lists: bool = True,
) -> FastAPI:
    """The app over ``db``. ``results`` (its clock and rating settings) is made from the
    environment when left out; ``publish_lists`` publishes each month's world list
    once the month is over (checked at start and hourly)."""
    tables = Tables(db, bot_delay=bot_delay, grace=grace)
    results = results or Results(db, settings=settings_from_env())

    async def enter_result(table: LiveTable) -> None:
        # A game played here is entered as its result; rated only when every seat was
        # a person with an account (no bot, no guest).
        match = table.match
        assert match is not None
        seats = [table.entrants[e] for e in match.seating]
        with db.session() as session:
            row = session.get(GameTable, table.id)
            written = None if row is None else row.record
        if written is None:
            return
        users = [s.user_id if s.kind == "person" else None for s in seats]
        rated = all(u is not None for u in users)
        await asyncio.to_thread(results.enter_server_game, table.id, written, users, rated)

    tables.on_finish.append(enter_result)

    async def publish_monthly() -> None:
        # Rating a month is seconds of pure Python (100,000 results: about ten): done in
        # a process of its own it leaves this one's core to the tables. A test's clock
        # cannot cross to another process, so results with one are rated in a thread.
        loop = asyncio.get_running_loop()
        apart = results.clock is utc_now
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        try:
            while True:
                try:
                    if apart:
                        await loop.run_in_executor(
                            pool, publish_due_apart, db.url, results.settings
                        )
                    else:
                        await asyncio.to_thread(results.publish_due)
                except Exception:  # a database hiccup: try again next hour, keep serving
                    log.exception("publishing the monthly lists failed")
                await asyncio.sleep(3600)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        db.upgrade()
        tables.recover()
        tables.resume_bots()
        # What is loaded by now (modules, recovered tables) lives as long as the server:
        # frozen, it is no longer walked by every full collection, whose pauses stall
        # all tables at once (benchmarks/load.py, 1000 clients: gen-2 pauses grew to
        # over 100 ms and made the p99 latency).
        gc.collect()
        gc.freeze()
        # The search bots' kernel compiles on first use (half a minute on a new install,
        # a second from numba's cache after): do it now, off the event loop, rather than
        # in the middle of someone's first game.
        if warm:
            threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
        publisher = asyncio.create_task(publish_monthly()) if publish_lists else None
        yield
        if publisher is not None:
            publisher.cancel()

    app = FastAPI(
        title="pips",
        version=__version__,
        lifespan=lifespan,
        description="Play dominoes with friends and bots; tables, records and histories.",
    )
    app.state.tables = tables
    app.state.db = db
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret or accounts.secret_key(),
        session_cookie="pips_session",
        same_site="lax",
        https_only=https_cookies,
    )
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(results_routes.router(results))
    app.state.results = results

    # -- helpers -----------------------------------------------------------------------

    def find(table_id: str) -> LiveTable:
        table = tables.live.get(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        return table

    # -- pages -------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def lobby(request: Request) -> HTMLResponse:
        listed = [t.summary() for t in tables.live.values() if not t.private]
        return page(request, "lobby.html", tables=listed)

    @app.post("/register", include_in_schema=False)
    @app.post("/login", include_in_schema=False)
    async def sign_in(
        request: Request, name: str = Form(), password: str = Form(), csrf: str = Form("")
    ) -> Response:
        """Register a new account or sign in to one (the path says which)."""
        check_csrf(request, csrf)
        action = accounts.register if request.url.path == "/register" else accounts.sign_in
        try:
            user = action(db, name, password)
        except accounts.AccountError as exc:
            return page(request, "lobby.html", tables=[], error=str(exc))
        request.session.update(user_id=user.id, name=user.name)
        request.session.pop("guest", None)
        return RedirectResponse("/", status_code=303)

    @app.post("/guest", include_in_schema=False)
    async def guest(request: Request, name: str = Form(), csrf: str = Form("")) -> Response:
        check_csrf(request, csrf)
        try:
            chosen = accounts.check_name(name)
        except accounts.AccountError as exc:
            return page(request, "lobby.html", tables=[], error=str(exc))
        request.session.pop("user_id", None)
        request.session.update(guest=secrets.token_urlsafe(12), name=chosen)
        return RedirectResponse(request.headers.get("referer") or "/", status_code=303)

    @app.post("/logout", include_in_schema=False)
    async def logout(request: Request, csrf: str = Form("")) -> Response:
        check_csrf(request, csrf)
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    @app.get("/t/{table_id}", response_class=HTMLResponse, include_in_schema=False)
    async def table_page(request: Request, table_id: str, invite: str = "") -> Response:
        if table_id not in tables.live:
            with db.session() as session:
                row = session.get(GameTable, table_id)
                if row is not None and row.status == "finished":
                    return RedirectResponse(f"/replay/{table_id}", status_code=303)
        table = find(table_id)
        if (
            table.private
            and invite != table.invite
            and table.seat_of(who(request) or Identity()) < 0
        ):
            raise HTTPException(404, "no such table")
        return page(request, "table.html", table=table.summary(), invite=invite)

    @app.get("/replay/{table_id}", response_class=HTMLResponse, include_in_schema=False)
    async def replay_page(request: Request, table_id: str) -> HTMLResponse:
        return page(request, "replay.html", table_id=table_id)

    # -- the JSON API ----------------------------------------------------------------

    @app.get("/api/session", tags=["accounts"])
    async def session_info(request: Request) -> dict[str, Any]:
        """Who this session is, and the CSRF token its POSTs must carry."""
        me = who(request)
        return {
            "name": None if me is None else me.name,
            "account": me is not None and me.user_id is not None,
            "csrf": accounts.csrf_token(request.session),
        }

    @app.get("/api/tables", tags=["tables"])
    async def list_tables() -> list[dict[str, Any]]:
        """Public tables that are waiting or being played."""
        return [
            t.summary() for t in tables.live.values() if not t.private and t.status != "finished"
        ]

    @app.get("/api/tables/{table_id}", tags=["tables"])
    async def get_table(table_id: str) -> dict[str, Any]:
        """One table as a spectator sees it."""
        table = find(table_id)
        return table.message_for(SPECTATOR)

    @app.post("/api/tables", tags=["tables"], status_code=201)
    async def create_table(request: Request, body: NewTable) -> dict[str, Any]:
        """Create a table; the caller (signed in or a guest) takes the seat marked ``me``.
        Needs the ``X-CSRF-Token`` header of the session."""
        check_csrf(request, request.headers.get("x-csrf-token"))
        me = who(request)
        if me is None:
            raise HTTPException(401, "sign in or choose a guest name first")
        try:
            table = tables.create(
                body.game,
                body.options,
                body.seats,
                me,
                private=body.private,
                turn_seconds=body.turn_seconds,
                seed=body.seed,
            )
        except TableError as exc:
            raise HTTPException(422, str(exc)) from None
        await tables.maybe_start(table)
        return {"id": table.id, "invite": table.invite, "url": f"/t/{table.id}"}

    @app.post("/api/tables/{table_id}/join", tags=["tables"])
    async def join_table(request: Request, table_id: str, invite: str = "") -> dict[str, Any]:
        """Take an open seat."""
        check_csrf(request, request.headers.get("x-csrf-token"))
        me = who(request)
        if me is None:
            raise HTTPException(401, "sign in or choose a guest name first")
        table = find(table_id)
        if table.private and invite != table.invite:
            raise HTTPException(404, "no such table")
        try:
            await tables.join(table, me)
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        return {"seat": table.seat_of(me), "status": table.status}

    @app.get("/api/records/{table_id}", tags=["records"])
    async def get_record(table_id: str) -> JSONResponse:
        """The finished game as ``pips.record/1`` (a download)."""
        with db.session() as session:
            row = session.get(GameTable, table_id)
            if row is None or row.record is None:
                raise HTTPException(404, "no finished game with that id")
            data = row.record
        headers = {"Content-Disposition": f'attachment; filename="pips-{table_id}.json"'}
        return JSONResponse(data, headers=headers)

    @app.get("/api/records/{table_id}/positions", tags=["records"])
    async def positions(table_id: str) -> list[dict[str, Any]]:
        """Every position of a finished game, for stepping through it: the public view,
        every hand face up, and the move that led there."""
        with db.session() as session:
            row = session.get(GameTable, table_id)
            if row is None or row.record is None:
                raise HTTPException(404, "no finished game with that id")
            data = row.record
        replayed = record.replay(data)
        return [
            {
                "hand": p.hand,
                "move": p.move,
                "view": p.view.to_json(),
                "hands": [[t.to_json() for t in h] for h in p.hands],
                "event": None if p.event is None else event_to_json(p.event),
                "said": "dealt"
                if p.event is None
                else describe_event(p.event, replayed.seats, replayed.spec.name),
                "names": replayed.seats,
            }
            for p in replay_positions(replayed)
        ]

    def finished_games(name: str) -> list[dict[str, Any]]:
        with db.session() as session:
            user = session.scalars(select(User).where(User.name == name)).first()
            if user is None:
                raise HTTPException(404, "no such player")
            rows = session.scalars(
                select(GameTable)
                .join(Seat)
                .where(Seat.user_id == user.id, GameTable.status == "finished")
                .order_by(GameTable.finished_at.desc())
            ).all()
            return [
                {
                    "id": r.id,
                    "game": r.game,
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                    "seats": (r.record or {}).get("seats"),
                    "result": (r.record or {}).get("result"),
                    "record": f"/api/records/{r.id}",
                }
                for r in rows
            ]

    @app.get("/api/players/{name}/history", tags=["players"])
    async def history(name: str) -> list[dict[str, Any]]:
        """The finished games of an account, newest first."""
        return finished_games(name)

    @app.get("/players/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def history_page(request: Request, name: str) -> HTMLResponse:
        return page(request, "history.html", name=name, finished=finished_games(name))

    # -- the websocket -----------------------------------------------------------------

    @app.websocket("/ws/{table_id}")
    async def socket(websocket: WebSocket, table_id: str) -> None:
        table = tables.live.get(table_id)
        await websocket.accept()
        if table is None:
            await websocket.send_json(protocol.error("no such table"))
            await websocket.close(code=4404)
            return
        me = accounts.identity(websocket.session) or Identity()
        client = WebClient(websocket)
        table.clients[client] = me
        tables.arrived(table, me)
        allowance, last = RATE, time.monotonic()
        try:
            await client.send(table.message_for(table.seat_of(me)))
            while True:
                frame = await websocket.receive_text()
                moment = time.monotonic()
                allowance = min(RATE, allowance + (moment - last) * RATE)
                last = moment
                if allowance < 1:
                    await client.send(protocol.error("too many messages: slow down"))
                    if allowance < -RATE:
                        await websocket.close(code=4429)
                        return
                    allowance -= 1
                    continue
                allowance -= 1
                try:
                    message = protocol.parse(frame)
                except protocol.ProtocolError as exc:
                    await client.send(protocol.error(str(exc)))
                    continue
                seat = table.seat_of(me)
                if isinstance(message, protocol.PingMessage):
                    await client.send({"v": protocol.VERSION, "type": "pong"})
                elif isinstance(message, protocol.ChatMessage):
                    with db.session() as session, session.begin():
                        session.add(ChatLine(table_id=table.id, author=me.name, text=message.text))
                    line = {
                        "v": protocol.VERSION,
                        "type": "chat",
                        "from": me.name,
                        "text": message.text,
                    }
                    for other in list(table.clients):
                        await other.send(line)
                else:
                    try:
                        await tables.play(table, seat, message.move, message.moves_made)
                    except TableError as exc:
                        await client.send(protocol.error(str(exc)))
                    else:
                        # The game itself paces accepted moves (one per turn): only
                        # refused ones, chat and pings count against the rate.
                        allowance = min(RATE, allowance + 1)
        except WebSocketDisconnect:
            pass
        finally:
            table.clients.pop(client, None)
            tables.watch_seats(table)

    return app
