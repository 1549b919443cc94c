"""The web application: its services, its routes, its life from start to stop.

``create_app(settings)`` builds it (:mod:`pips.server.settings`, every default in one
place); ``pips serve`` runs it on uvicorn. The services live in the application's state
(the live tables, :mod:`pips.server.tables`; the results, :mod:`pips.results.service`)
and the routes, declared at module level in :mod:`pips.server.routes`, read them from
there. Live tables are kept in memory and recovered from the database when the app
starts.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import secrets
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi import Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from sqlalchemy.orm import Session
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware

from pips import __version__, i18n
from pips.core.phrase import phrase
from pips.i18n import _
from pips.results.service import Results, publish_due_apart, settings_from_env, utc_now
from pips.server import accounts
from pips.server.accounts.tokens import Tokens
from pips.server.analyses import Analyses, KeptAnalyses
from pips.server.botapi import AccountEvents, BotAccounts, Challenges, unrated_for_bots
from pips.server.cluster import Cluster
from pips.server.errors import describe, problem_of, validation_problem
from pips.server.forms import form_refused
from pips.server.guard import Guard
from pips.server.limits import Limits
from pips.server.metrics import Metrics
from pips.server.routes import (
    account,
    bot,
    bot_answers,
    challenges,
    events,
    groups,
    health,
    lists,
    pages,
    players,
    socket,
)
from pips.server.routes import results as results_pages
from pips.server.routes import tables as tables_api
from pips.server.settings import Settings
from pips.server.tables import LiveTable, Tables
from pips.server.web import HERE, error_page, language_of, use_language, use_token, wants_page
from pips.server.work import Work
from pips.server.workers import end_with_parent, stop_pool, worker_pool
from pips.store.db import Database

log = logging.getLogger("pips.server")


def game_result(
    results: Results, table: LiveTable, written: dict[str, Any]
) -> Callable[[Session], Any]:
    """The result a game played here is entered as, in the transaction that stores its
    end; the results service decides whether it is rated (every seat an account past its
    probation), unless the table itself is casual."""
    match = table.round.match
    assert match is not None
    seats = [table.round.entrants[e] for e in match.seating]
    users = [s.user_id if s.kind == "person" else None for s in seats]
    casual = (
        phrase("not rated: a practice table (its deals were chosen)")
        if table.round.practice
        else phrase("not rated: a private table")
        if table.private
        else None
    )

    def enter(session: Session) -> Any:
        # A bot account's game is never rated for people (bots are rated among bots).
        unrated = casual or unrated_for_bots(session, users)
        return results.entries.add_server_game(
            session, table_id=table.id, record=written, users=users, casual=unrated
        )

    return enter


async def publish_monthly(db: Database, results: Results) -> None:
    """Publish each month's world list once the month is over, checked hourly.

    Rating a month is seconds of pure Python (100,000 results: about ten): done in a
    process of its own it leaves this one's core to the tables. The process lives only
    while it publishes, and ends if this one dies meanwhile (a server killed with -9 once
    left one behind every time). A test's clock cannot cross to another process, so
    results with one are rated in a thread. Whether a month is due is asked here first
    (a query): a process of its own costs seconds of CPU to start, and a server would
    otherwise spend them at every start and every hour."""
    loop = asyncio.get_running_loop()
    apart = results.clock is utc_now
    while True:
        try:
            if not apart:
                await asyncio.to_thread(results.lists.publish_due)
            elif await asyncio.to_thread(results.lists.due):  # most hours none: no process
                pool = worker_pool(1)  # ends with the server, however it ends
                try:
                    await loop.run_in_executor(pool, publish_due_apart, db.url, results.settings)
                finally:
                    # Never waits here: done, or the server stops (a month not yet
                    # published is still due at the next start).
                    stop_pool(pool)
        except Exception:  # a database hiccup: try again next hour, keep serving
            log.exception("publishing the monthly lists failed")
        await asyncio.sleep(3600)


@dataclass(frozen=True)
class Services:
    """What the routes read from the app's state, each made once, in the order they
    need each other."""

    db: Database
    limits: Limits
    results: Results
    metrics: Metrics
    tables: Tables
    cluster: Cluster
    accounts: accounts.Accounts
    analyses: Analyses
    tokens: Tokens
    work: Work
    bot_accounts: BotAccounts
    account_events: AccountEvents
    """Every account's event streams (the Bot API)."""
    challenges: Challenges

    @classmethod
    def made(
        cls,
        db: Database,
        settings: Settings,
        *,
        secret: str,
        results: Results | None,
        limits: Limits,
        work: Work,
    ) -> Services:
        results = results or Results(db, settings=settings_from_env())
        node = secrets.token_hex(8)
        metrics = Metrics(node)
        analyses = Analyses(
            following=settings.analyse_while_playing,
            level=settings.analysis_level,
            papers=work.papers,
        )
        tables = Tables(
            db,
            work=work,
            bot_delay=settings.bot_delay,
            grace=settings.grace,
            unattended=settings.unattended,
            chat_history=limits.chat_history,
            moved=metrics.moved,
            result_of=partial(game_result, results),
            progressed=analyses.follow,
        )
        analyses.kept = KeptAnalyses(tables.repository)
        cluster = Cluster(tables, db, limits, settings.broker, lease=settings.lease, node=node)
        metrics.count(cluster.counts)
        # Wrong passwords are counted in the database: every process of several counts
        # the same ones (by the wall clock, which they share; a monotonic clock is per
        # machine).
        throttle = accounts.Throttle(
            addresses=limits.sign_in, clock=time.time, book=accounts.DatabaseBook(db)
        )
        people = accounts.Accounts(db, throttle=throttle, secret=secret)
        # A session signed out at another process is forgotten here too.
        cluster.endings.listeners.append(people.forget)
        return cls(
            db,
            limits,
            results,
            metrics,
            tables,
            cluster,
            people,
            analyses,
            Tokens(db),
            work,
            BotAccounts(db),
            AccountEvents(cluster),
            Challenges(db),
        )

    @asynccontextmanager
    async def running(self, *, warm: bool, publish_lists: bool) -> AsyncIterator[None]:
        """The services' life: tables recovered (or taken over in a cluster) at start,
        every connection closed at the end."""
        self.db.upgrade()
        self.db.checkpoint_in_background()
        if self.cluster.several:
            await self.cluster.start()  # takes over the tables nobody holds
        else:
            self.tables.recover()
            self.tables.resume_bots()
        # What is loaded by now (modules, recovered tables) lives as long as the server:
        # frozen, it is no longer walked by every full collection, whose pauses stall
        # all tables at once (benchmarks/load.py, 1000 clients: gen-2 pauses grew to
        # over 100 ms and made the p99 latency).
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        sys.setswitchinterval(SWITCH_INTERVAL)
        # The search bots' kernel compiles on first use (half a minute on a new install,
        # a second from numba's cache after): do it now, off the event loop, rather than
        # in the middle of someone's first game.
        if warm:
            threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
        self.work.start()
        publisher = (
            asyncio.create_task(publish_monthly(self.db, self.results)) if publish_lists else None
        )
        yield
        if publisher is not None:
            publisher.cancel()
        await self.cluster.stop()
        self.tables.repository.close()
        self.accounts.close()
        self.analyses.close()
        self.work.close()
        self.db.stop_checkpoints()


GC_THRESHOLDS = (50_000, 20, 100)
"""The server's collection thresholds (Python's are 700, 10, 10). What a thousand
connections keep alive (their coroutines, requests, sockets: 160,000 objects) is walked
by every full collection, 60-130 ms in which no table moves; at Python's thresholds one
came every few seconds at 400 moves a second and made the p99 latency. With a larger
youngest generation a move's short-lived objects die before they are promoted, so a full
collection is rare (none in a 20 s window of benchmarks/load.py); a young collection of up
to 50,000 objects took 5-24 ms there. Measured apart in docs/benchmarks.md."""


SWITCH_INTERVAL = 0.001
"""How long a thread holds the interpreter while another waits for it, in seconds
(Python's default is 5 ms). The event loop shares this process with worker threads that
compute (a round's data read for a printed sheet, a batch of results checked); each
time a move's round trip wakes the loop, it waits for one of them to hand the
interpreter over, up to a whole interval per thread waiting before it. Measured with
benchmarks/attack.py (docs/benchmarks.md)."""


def create_app(
    settings: Settings,
    *,
    db: Database | None = None,
    secret: str | None = None,
    results: Results | None = None,
    limits: Limits | None = None,
    work: Work | None = None,
) -> FastAPI:
    """The app ``settings`` describe (:class:`~pips.server.settings.Settings`, where
    every default is). What a test or ``pips serve`` hands over made: ``db`` (by default
    opened at ``settings.database``), ``secret`` (by default the site's), ``results``
    (its clock and rating settings; by default from the environment), ``limits`` (by
    default ``settings.limits`` over the defaults) and ``work``, the lanes of slow work
    (:mod:`pips.server.work`; by default papers in a thread)."""
    db = db or Database(settings.database)
    secret = secret or accounts.secret_key()
    if limits is None:
        limits = Limits()
        limits.tune(dict(settings.limits))
    services = Services.made(
        db, settings, secret=secret, results=results, limits=limits, work=work or Work()
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with services.running(warm=settings.warm, publish_lists=settings.publish_lists):
            yield

    app = FastAPI(
        title="pips",
        version=__version__,
        lifespan=lifespan,
        dependencies=[Depends(use_language), Depends(use_token)],
        description="Play dominoes with friends and bots; tables, records and histories. "
        "The websocket protocol of a table is described at /api/asyncapi.json.",
        # The API's viewer is served from here (below), never from elsewhere: the page
        # works offline and behind a firewall.
        docs_url=None,
        redoc_url=None,
        # An operation is named for what it does (create_table), the name its function
        # has: a generated client's methods and models are named by it.
        generate_unique_id_function=operation_id,
        servers=[{"url": "/", "description": "this server (every pips server serves its API)"}],
    )
    for name, service in vars(services).items():
        setattr(app.state, name, service)
    app.state.settings = settings
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret,
        session_cookie="pips_session",
        same_site="lax",
        https_only=settings.https_cookies,
        max_age=accounts.SESSION_DAYS * 24 * 3600,
    )
    app.add_middleware(
        Guard,
        body_bytes=limits.body_bytes,
        upload_bytes=limits.upload_bytes,
        at_once=limits.at_once,
    )
    viewer = Path(fastapi_offline.__file__).parent / "static"
    app.mount("/static/api-viewer", StaticFiles(directory=viewer), name="api-viewer")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.add_exception_handler(StarletteHTTPException, friendly_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, friendly_refusal)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, server_error)
    app.add_api_route("/docs", api_viewer, include_in_schema=False)
    for routes in (
        pages,
        account,
        tables_api,
        socket,
        results_pages,
        groups,
        players,
        lists,
        events,
        bot,
        challenges,
    ):
        app.include_router(routes.api)
    app.include_router(health.api)
    undescribed = app.openapi

    def described() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = describe(undescribed())
            app.openapi_schema["components"]["schemas"].update(bot_answers.schemas())
        return app.openapi_schema

    app.openapi = described  # type: ignore[method-assign]
    return app


def operation_id(route: APIRoute) -> str:
    """An operation's id: its route's name (unique: ``tests/test_openapi_clients.py``)."""
    return route.name


async def friendly_error(request: Request, exc: StarletteHTTPException) -> Response:
    """A browser following a bad link gets a page in its reader's language; the API
    and scripts get the error model (:class:`pips.server.errors.Problem`)."""
    i18n.use(language_of(request))  # a path no route has skips the routes' language
    # A request counted against a rate before it was refused says what is left
    # (pips.server.routes.bot.counted); the refusal's own headers come last.
    headers = {**getattr(request.state, "rate_headers", {}), **(exc.headers or {})}
    if not wants_page(request):
        return JSONResponse(problem_of(exc), exc.status_code, headers=headers or None)
    answer = error_page(request, exc.status_code, exc.detail)
    for name, value in headers.items():
        answer.headers[name] = value
    return answer


async def friendly_refusal(request: Request, exc: RequestValidationError) -> Response:
    i18n.use(language_of(request))
    # A page's form refused while parsing: its page again, with the error and the input.
    reshown = await form_refused(request, exc)
    if reshown is not None:
        return reshown
    if not wants_page(request):
        status, problem = validation_problem(exc.errors(), exc.body)
        return JSONResponse(problem, status)
    return error_page(request, 422, _("a part of the address is not valid"))


async def server_error(request: Request, exc: Exception) -> Response:
    """What no input should reach (the schema tests look for it): still the error model,
    the traceback only in the server's log."""
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    i18n.use(language_of(request))
    return JSONResponse(problem_of(StarletteHTTPException(500)), 500)


async def api_viewer() -> HTMLResponse:
    """The API's interactive documentation (Swagger UI, its files served here)."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="pips API",
        swagger_js_url="/static/api-viewer/swagger-ui-bundle.js",
        swagger_css_url="/static/api-viewer/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
    )


def settings_app(settings: Settings) -> FastAPI:
    """The app ``settings`` describe, logging as they say."""
    # A served app prints in a process of its own: no PDF slows the event loop.
    app = create_app(settings, work=Work(apart=True))
    use_logs(app.state.cluster.node, settings.log_json)
    return app


def from_environment() -> FastAPI:
    """A worker process's app (``pips serve --workers N``), which stops when its
    supervisor is gone, however that ended (uvicorn's workers wait for it for good)."""
    end_with_parent(os.getppid(), gently=True)
    return settings_app(Settings.from_json(os.environ[Settings.VARIABLE]))


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, logger, node, message (and the error)."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "node": self.node,
            "pid": record.process,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def use_logs(node: str, as_json: bool) -> None:
    """The server's own lines (tables taken over, failures) at level INFO on standard
    error, as text or as JSON lines; uvicorn's too with JSON, so a collector reads one
    format."""
    handler = logging.StreamHandler()
    if as_json:
        handler.setFormatter(JsonLines(node))
    else:
        handler.setFormatter(logging.Formatter(f"%(asctime)s %(levelname)s {node} %(message)s"))
    for name in ("pips", *(("uvicorn", "uvicorn.error") if as_json else ())):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.INFO)


def _warm_up() -> None:
    # Imported here, in the warm-up's own thread: numba takes a quarter of a second to
    # load, which no request needs to wait for (and a server without search bots never).
    from pips.bots.search import warm_up

    warm_up()
