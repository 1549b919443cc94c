"""What the routes of the pips server share: their services from the application's
state, database work off the event loop, refusals as HTTP errors."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import HTTPException, Path, Query, Request
from fastapi.requests import HTTPConnection
from pydantic import AfterValidator, BaseModel, Field
from pydantic_core import PydanticCustomError
from starlette.convertors import Convertor, register_url_convertor

from pips.i18n import _
from pips.results.entry import Checked, EntryError
from pips.results.entry_formats import MOST_LINES, read_csv
from pips.results.service import Results, ResultsError
from pips.server.accounts.identity import Identity
from pips.server.cluster import Cluster
from pips.server.errors import Refusal, refusal
from pips.server.limits import (
    CLIENT,
    Limited,
    Limits,
    RateLimit,
    SharedTurns,
    client_key,
    site_key,
)
from pips.server.tables import Tables
from pips.server.work import Busy, Work
from pips.store.db import Database
from pips.store.ids import MAX_ID
from pips.text import quoted


class MonthConvertor(Convertor[str]):
    """``{month:month}`` in a path: a month as ``2026-10``, and nothing else, so that a
    route with a month never matches a path another route names by a word."""

    regex = r"[0-9]{4}-[0-9]{2}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("month", MonthConvertor())

RowId = Annotated[int, Path(ge=1, le=MAX_ID)]
BodyRowId = Annotated[int, Field(ge=1, le=MAX_ID)]
"""A row id in a request's body (a player's number), bounded as in a path."""
Offset = Annotated[int, Query(ge=0, le=MAX_ID)]
Count = Annotated[int, Query(ge=1, le=500)]
PageNumber = Annotated[int, Query(ge=1, le=1_000_000)]
PlayerCount = Annotated[int, Query(ge=1, le=20)]
SetSize = Annotated[int | None, Query(ge=0, le=30)]


def _month(text: str) -> str:
    year, dash, month = text.partition("-")
    if not (
        len(year) == 4
        and year.isascii()
        and year.isdigit()
        and dash
        and month.isascii()
        and month.isdigit()
        and len(month) == 2
        and 1 <= int(month) <= 12
        and 1 <= int(year) <= 9998
    ):
        # The text quoted as it was sent, its controls shown, not obeyed.
        raise PydanticCustomError("month", "is not a month", {"value": quoted(text)})
    return text


Month = Annotated[str, AfterValidator(_month)]
"""A month in a query (``2026-10``): another text is refused as ``query.month``."""

CSV_BODY = {
    "requestBody": {
        "required": True,
        "description": "The rows of a results file (UTF-8 or Windows-1252, ';' or ',').",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }
}
"""The body of an operation that reads a results CSV itself (documented, as FastAPI
cannot see it)."""


def results_of(request: HTTPConnection) -> Results:
    """The results service of the application serving ``request``."""
    service: Results = request.app.state.results
    return service


def tables_of(request: HTTPConnection) -> Tables:
    """The live tables of the application serving ``request``."""
    tables: Tables = request.app.state.tables
    return tables


def cluster_of(request: HTTPConnection) -> Cluster:
    """Where the application serving ``request`` finds a table (here or at another
    process)."""
    cluster: Cluster = request.app.state.cluster
    return cluster


def limits_of(request: HTTPConnection) -> Limits:
    """The limits of the application serving ``request``."""
    limits: Limits = request.app.state.limits
    return limits


def work_of(request: HTTPConnection) -> Work:
    """The lanes of slow work of the application serving ``request``."""
    work: Work = request.app.state.work
    return work


async def printed(
    request: Request, function: Callable[..., bytes], *args: Any, **kwargs: Any
) -> bytes:
    """A printed sheet (a PDF, a plot): ``function(*args, **kwargs)`` made in the lane of
    papers, once per what it shows (kept while there is room), for an address that has
    not asked for too many (429); 503 when the lane has too many waiting already."""
    work = work_of(request)
    await count_print(request)
    # The key is the inputs' text hashed: for a round of a thousand players a few
    # hundred kilobytes, too long to write out on the event loop (docs/benchmarks.md).
    key = await asyncio.to_thread(
        work.printed.key, function.__module__, function.__qualname__, args, kwargs
    )
    try:
        return await work.printed.sheet(
            key, lambda: work.papers.run(partial(function, *args, **kwargs))
        )
    except Busy as exc:
        raise refusal(exc, 503) from None


async def count_print(request: Request) -> None:
    """Count a printed sheet or export against the address's :attr:`Work.prints` (429
    beyond it), once per request. A route that reads what it prints calls this first:
    counted only at the printing, a client refused 429 still cost the server a
    thousand-player round's read per request (hostile review)."""
    if getattr(request.state, "print_counted", False):
        return
    await spend(request, work_of(request).prints, address(request))
    request.state.print_counted = True


def answer_json(model: type[BaseModel], function: Callable[..., Any], *args: Any) -> bytes:
    """``function(*args)`` checked against its answer's ``model`` and written as JSON
    (as FastAPI would write the answer): for :func:`run`, so that a large answer is
    not made on the event loop."""
    return model.model_validate(function(*args)).model_dump_json(by_alias=True).encode()


def site_address(request: Request) -> str:
    """The site's address for what it prints: the configured public address
    (:attr:`~pips.server.settings.Settings.public_url`), else the one this request
    asked for (its Host, which the client chooses)."""
    configured = request.app.state.settings.public_url
    return str(configured or request.base_url).rstrip("/")


def address(request: HTTPConnection) -> str:
    """The client as the limits per address count it (behind a trusted proxy, the
    address it forwarded): an IPv6 address by its /64 (:func:`client_key`)."""
    return client_key(request.client.host) if request.client is not None else "unknown"


def database_of(request: HTTPConnection) -> Database:
    db: Database = request.app.state.db
    return db


def refused(exc: Exception) -> HTTPException:
    status = exc.status if isinstance(exc, ResultsError) else 422
    return refusal(exc, status)


READS_AT_ONCE = 2
"""The results' and events' database work running at once in one server process (the
rest waits its turn). A thousand-player round read for its score sheets takes a tenth
of a second of the interpreter; eight clients asking at once kept six threads computing,
and the event loop waited for the interpreter at every step of a move (docs/benchmarks.md,
"PDF flood"). Two leave the loop its share while one read waits on the database."""

READS_WAITING = 200
"""Reads waiting for their turn, beyond which one more is refused (503) rather than
queued for minutes."""


_reads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SharedTurns] = (
    weakref.WeakKeyDictionary()
)
"""The turns of :func:`run`'s work on each event loop (each test's app has its own)."""


async def run(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Database work off the event loop, so the tables' games go on meanwhile, at most
    :data:`READS_AT_ONCE` at once, the sites waiting taken in turn (the guard's
    :data:`~pips.server.limits.CLIENT`, by :func:`~pips.server.limits.site_key`); a
    refusal of the service becomes its HTTP answer."""
    loop = asyncio.get_running_loop()
    reads = _reads.get(loop)
    if reads is None:
        reads = _reads[loop] = SharedTurns(READS_AT_ONCE, READS_WAITING)
    try:
        give_back = await reads.take(site_key(CLIENT.get()))
    except Limited as busy:
        raise refusal(busy, 503) from None
    try:
        return await asyncio.to_thread(function, *args, **kwargs)
    except (ResultsError, EntryError) as exc:
        raise refused(exc) from None
    finally:
        give_back()


async def read_upload(request: Request, data: str | bytes, most_games: int) -> list[Checked]:
    """The games of an uploaded results CSV, checked (:class:`EntryError` naming the
    line): read as a stream in the lane of papers, one upload at a time (the checks'
    semaphore), stopped at the line that starts game ``most_games`` + 1 or at the line
    past :data:`MOST_LINES`.

    Each upload counts against the address's rate of checks (429 beyond it), refused
    or not: reading a file is work done whatever it finds, so a refusal is not given
    back (unlike a creation refused, :func:`refund`)."""
    today = results_of(request).context.today()
    limits = limits_of(request)
    await spend(request, limits.checks, address(request))
    async with limits.checking:
        try:
            games: list[Checked] = await work_of(request).papers.run(
                partial(read_csv, data, today, most_games, MOST_LINES)
            )
        except Busy as exc:
            raise refusal(exc, 503) from None
    return games


async def spend(request: HTTPConnection, limit: RateLimit, key: str) -> None:
    """Count one request of ``key`` against ``limit``: 429 with ``Retry-After`` when it
    has had too many; else what is left of the quota is left in the request's state, and
    the answer says it in its ``RateLimit`` headers (:class:`pips.server.guard.Guard`)."""
    try:
        request.state.quota = await limit.take(key)
    except Limited as exc:
        raise refusal(exc, 429) from None


async def refund(request: HTTPConnection, limit: RateLimit, key: str) -> None:
    """Give back what :func:`spend` counted: the request was refused after all, and a
    refused request spends nothing."""
    await limit.give_back(key)
    request.state.quota = None


TABLES_RETRY = 60
"""Seconds a person with too many tables is told to wait (``Retry-After``): a table of
theirs ends when its game does, or when they leave it."""


async def room_for_a_table(request: Request, me: Identity) -> None:
    """Refuse (429) a new table to a person with too many waiting or playing, or to
    an address that made too many lately. Counted against the rate only when the
    person has room: a refusal spends none of it (and a creation refused later gives
    it back, :func:`refund`)."""
    limits = limits_of(request)
    mine = await tables_of(request).repository.tables_of(me)
    if mine >= limits.tables_at_once:
        raise Refusal(
            429,
            _(
                "you have {count} tables waiting or playing: finish or leave one of them"
                " first (your tables are listed in the lobby)"
            ).format(count=mine),
            headers={"Retry-After": str(TABLES_RETRY)},
        )
    await spend(request, limits.tables, address(request))
