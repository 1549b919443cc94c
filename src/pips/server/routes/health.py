"""Health, readiness and metrics of one server process, for a load balancer, an
orchestrator and Prometheus (docs/server.md, "Several server processes")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text

from pips.server.cluster import Cluster
from pips.server.metrics import Metrics
from pips.server.responses import Alive
from pips.server.routes.common import cluster_of, database_of
from pips.store.db import Database

api = APIRouter()


@api.get("/healthz", tags=["health"])
async def healthz(request: Request) -> Alive:
    """The process is alive (its event loop answers): its node id."""
    return Alive(ok=True, node=cluster_of(request).node)


class Readiness:
    """The last readiness check, reused for ``fresh`` seconds, and one check at a time
    however many ask: a flood of ``/readyz`` costs the database one query a second."""

    def __init__(
        self,
        check: Callable[[], Awaitable[list[str]]],
        fresh: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.check, self.fresh, self.clock = check, fresh, clock
        self.problems: list[str] = []
        self.at = -float("inf")
        self.running: asyncio.Future[list[str]] | None = None

    async def current(self) -> list[str]:
        """The problems found by a check at most ``fresh`` seconds old (none: ready)."""
        if self.clock() - self.at < self.fresh:
            return self.problems
        if self.running is None or self.running.done():
            self.running = asyncio.ensure_future(self._run())
        return list(await asyncio.shield(self.running))

    async def _run(self) -> list[str]:
        self.problems = await self.check()
        self.at = self.clock()
        return self.problems


READINESS = {
    "description": "Ready: the report, the same as when ready but with its problems.",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "ready": {"type": "boolean"},
                    "node": {"type": "string"},
                    "problems": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["ready", "node", "problems"],
            }
        }
    },
}


class MetricsText(Response):
    """The Prometheus text format."""

    media_type = "text/plain"


@api.get("/readyz", tags=["health"], responses={200: READINESS, 503: READINESS})
async def readyz(request: Request) -> JSONResponse:
    """The process can serve: the database answers, and with several processes it has
    joined the others (503 otherwise, so a load balancer sends it nobody yet)."""
    cluster = cluster_of(request)
    readiness: Readiness | None = getattr(request.app.state, "readiness", None)
    if readiness is None:
        cluster_now, db = cluster, database_of(request)

        async def check() -> list[str]:
            return await _problems(cluster_now, db)

        readiness = request.app.state.readiness = Readiness(check)
    problems = await readiness.current()
    body = {"ready": not problems, "node": cluster.node, "problems": problems, **cluster.counts()}
    return JSONResponse(body, status_code=200 if not problems else 503)


async def _problems(cluster: Cluster, db: Database) -> list[str]:
    problems: list[str] = []
    try:
        await asyncio.wait_for(asyncio.to_thread(_ping, db), 5.0)
    except Exception as exc:
        problems.append(f"database: {type(exc).__name__}")
    if not cluster.ready:
        problems.append("not joined to the other processes")
    elif cluster.redis is not None:
        try:
            await asyncio.wait_for(cluster.redis.ping(), 5.0)
        except Exception as exc:
            problems.append(f"broker: {type(exc).__name__}")
    return problems


def _ping(db: Database) -> None:
    with db.engine.connect() as connection:
        connection.execute(text("SELECT 1"))


@api.get("/metrics", tags=["health"], response_class=MetricsText)
async def metrics(request: Request) -> Response:
    """This process's metrics in the Prometheus text format."""
    found: Metrics = request.app.state.metrics
    return Response(found.text(), media_type=CONTENT_TYPE_LATEST)
