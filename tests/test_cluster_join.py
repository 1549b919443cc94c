"""A process of several joins the others although the broker does not answer at first
(the deployment drill: a container's lookup of the broker's name hung for 35 s while
three processes started, and the process that gave up at the first timeout exited for
good). It tries again, for a while, and then gives up with the broker's own error."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from redis.exceptions import ConnectionError as BrokerDown

from pips.server import cluster as cluster_module
from pips.server.cluster import Cluster
from pips.server.limits import Limits
from pips.server.settings import Settings
from pips.server.tables import Tables
from pips.store.db import Database
from tests.cluster_helpers import BROKER, needs_cluster
from tests.databases import migrated_database
from tests.server_helpers import free_port


def _cluster(url: str, broker: str) -> Cluster:
    defaults = Settings()
    db = Database(url)
    tables = Tables(db, bot_delay=3600, grace=defaults.grace, unattended=defaults.unattended)
    return Cluster(tables, db, Limits(), broker, lease=10.0)


async def _forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One client's bytes to the real broker and back."""
    assert BROKER is not None
    where = urlsplit(BROKER)
    upstream_reader, upstream = await asyncio.open_connection(where.hostname, where.port)

    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        finally:
            sink.close()

    await asyncio.gather(
        pipe(reader, upstream), pipe(upstream_reader, writer), return_exceptions=True
    )


@needs_cluster
def test_a_process_joins_once_the_broker_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    url = migrated_database("postgresql", tmp_path)

    async def scene() -> None:
        node = _cluster(url, f"redis://127.0.0.1:{port}/0")
        joining = asyncio.ensure_future(node.start())
        # Nothing listens at the broker's address for a second and a half.
        await asyncio.sleep(1.5)
        assert not joining.done() and not node.ready
        broker = await asyncio.start_server(_forward, "127.0.0.1", port)
        try:
            await asyncio.wait_for(joining, 30)
            assert node.ready
            assert node.node.encode() in await node.redis.smembers(node.nodes)
            await node.stop()
        finally:
            broker.close()

    with caplog.at_level(logging.WARNING, logger="pips.server"):
        asyncio.run(scene())
    assert any("the broker did not answer" in r.getMessage() for r in caplog.records)


@needs_cluster
def test_a_process_gives_up_on_a_broker_that_never_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cluster_module, "JOIN_PATIENCE", 1.0)
    url = migrated_database("postgresql", tmp_path)
    port = free_port()  # nothing listens there

    async def scene() -> None:
        node = _cluster(url, f"redis://127.0.0.1:{port}/0")
        with pytest.raises(BrokerDown):
            await asyncio.wait_for(node.start(), 30)
        assert not node.ready

    asyncio.run(scene())
