"""`pips serve --workers` (issue 21): processes sharing one port, replaced one by one
on SIGHUP while a match goes on."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from tests.cluster_helpers import (
    BROKER,
    LEASE,
    logs,
    moving_on,
    needs_cluster,
    node_id,
    played_to_the_end,
    two_players_and_a_bot,
)
from tests.server_helpers import Server, new_database, wait_for

pytestmark = [needs_cluster, pytest.mark.process]


def test_workers_share_one_port_and_a_sighup_replaces_them_under_play(tmp_path: Path) -> None:
    """`pips serve --workers 2`: both processes answer on the one port, and SIGHUP to
    the supervisor replaces them one after the other while a match goes on."""
    url = new_database("postgresql", tmp_path)
    extra = ("--workers", "2", "--broker", str(BROKER), "--lease", str(LEASE))
    server = Server(tmp_path, url, bot_delay=0.05, extra=extra).start()
    try:

        def answering() -> set[str]:
            # A new connection each. One that reaches a worker in its last moment is
            # dropped (uvicorn closes it unanswered): the probe asks again rather than
            # fail; that the match goes on untouched is checked below.
            found = set()
            for _ in range(30):
                try:
                    found.add(node_id(server))
                except httpx.TransportError:
                    continue
            return found

        wait_for(lambda: len(answering()) == 2, 60)
        before = answering()
        table_id, players = two_players_and_a_bot([server], (0, 0))
        moving_on(url, table_id, [server], players)
        assert server.process is not None
        server.process.send_signal(signal.SIGHUP)
        wait_for(lambda: len(answering() - before) == 2, 90)
        played_to_the_end(url, table_id, [server], players)
        assert "Traceback" not in logs([server])
    finally:
        server.stop()
