"""Health, readiness and metrics of one server process, for a load balancer, an
orchestrator and Prometheus (docs/server.md, "Several server processes")."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text

from pips.server.metrics import Metrics
from pips.server.routes.common import cluster_of, database_of

api = APIRouter()


@api.get("/healthz", tags=["health"])
async def healthz(request: Request) -> dict[str, Any]:
    """The process is alive (its event loop answers): its node id."""
    return {"ok": True, "node": cluster_of(request).node}


@api.get("/readyz", tags=["health"])
async def readyz(request: Request) -> JSONResponse:
    """The process can serve: the database answers, and with several processes it has
    joined the others (503 otherwise, so a load balancer sends it nobody yet)."""
    cluster = cluster_of(request)
    problems: list[str] = []
    try:
        await asyncio.wait_for(asyncio.to_thread(_ping, request), 5.0)
    except Exception as exc:
        problems.append(f"database: {type(exc).__name__}")
    if not cluster.ready:
        problems.append("not joined to the other processes")
    elif cluster.redis is not None:
        try:
            await asyncio.wait_for(cluster.redis.ping(), 5.0)
        except Exception as exc:
            problems.append(f"broker: {type(exc).__name__}")
    body = {"ready": not problems, "node": cluster.node, "problems": problems, **cluster.counts()}
    return JSONResponse(body, status_code=200 if not problems else 503)


def _ping(request: Request) -> None:
    with database_of(request).engine.connect() as connection:
        connection.execute(text("SELECT 1"))


@api.get("/metrics", tags=["health"])
async def metrics(request: Request) -> Response:
    """This process's metrics in the Prometheus text format."""
    found: Metrics = request.app.state.metrics
    return Response(found.text(), media_type=CONTENT_TYPE_LATEST)
