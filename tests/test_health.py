"""Health, readiness and metrics of one server process (docs/server.md, "Deploying"):
what a load balancer and Prometheus read, and a flood of readiness checks costing the
database one check at a time."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from pips.server.routes.health import Readiness
from tests.server_helpers import running


@pytest.mark.process
def test_a_process_says_it_is_alive_ready_and_what_it_holds(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        alive = httpx.get(server.url + "/healthz", timeout=10)
        assert alive.status_code == 200 and len(alive.json()["node"]) == 16
        ready = httpx.get(server.url + "/readyz", timeout=10)
        assert ready.status_code == 200, ready.text
        assert ready.json()["ready"] is True and ready.json()["problems"] == []
        metrics = httpx.get(server.url + "/metrics", timeout=10)
        assert metrics.headers["content-type"].startswith("text/plain")
        lines = metrics.text.splitlines()
        for name in ("pips_tables", "pips_clients", "pips_moves_total"):
            assert any(line.startswith(name) for line in lines), name


def test_a_flood_of_readiness_checks_asks_the_database_once_a_second() -> None:
    checks = 0
    moment = [100.0]

    async def check() -> list[str]:
        nonlocal checks
        checks += 1
        await asyncio.sleep(0.01)
        return [] if checks == 1 else ["database: OperationalError"]

    readiness = Readiness(check, fresh=1.0, clock=lambda: moment[0])

    async def flood() -> list[list[str]]:
        return await asyncio.gather(*(readiness.current() for _ in range(200)))

    assert asyncio.run(flood()) == [[]] * 200
    assert checks == 1
    moment[0] += 0.5
    assert asyncio.run(flood()) == [[]] * 200  # still fresh
    assert checks == 1
    moment[0] += 0.6
    assert asyncio.run(flood())[0] == ["database: OperationalError"]
    assert checks == 2
