"""What the routes of the pips server share: their services from the application's
state, database work off the event loop, refusals as HTTP errors."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import HTTPException
from fastapi.requests import HTTPConnection

from pips.results.entry import EntryError
from pips.results.service import Results, ResultsError
from pips.server.tables import Tables
from pips.store.db import Database


def results_of(request: HTTPConnection) -> Results:
    """The results service of the application serving ``request``."""
    service: Results = request.app.state.results
    return service


def tables_of(request: HTTPConnection) -> Tables:
    """The live tables of the application serving ``request``."""
    tables: Tables = request.app.state.tables
    return tables


def database_of(request: HTTPConnection) -> Database:
    db: Database = request.app.state.db
    return db


def refused(exc: Exception) -> HTTPException:
    status = exc.status if isinstance(exc, ResultsError) else 422
    return HTTPException(status, str(exc))


async def run(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Database work off the event loop, so the tables' games go on meanwhile; a refusal
    of the service becomes its HTTP answer."""
    try:
        return await asyncio.to_thread(function, *args, **kwargs)
    except (ResultsError, EntryError) as exc:
        raise refused(exc) from None
