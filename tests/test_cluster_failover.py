"""Failover of several server processes (issue 21): killing the owner of a table with
-9 again and again, restarting every process in turn, and killing and restarting the
broker lose no acknowledged move."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.cluster_helpers import (
    cluster,
    logs,
    moving_on,
    needs_cluster,
    played_to_the_end,
    stored_moves,
    two_players_and_a_bot,
)
from tests.server_helpers import free_port, wait_for

pytestmark = [needs_cluster, pytest.mark.process]


def test_a_rolling_restart_under_play_ends_no_game(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 2, bot_delay=0.05)
    try:
        table_id, players = two_players_and_a_bot(nodes, (0, 1))
        for node in nodes:
            moving_on(url, table_id, nodes, players)
            node.stop()  # SIGTERM: the process lets its tables go
            assert node.process is not None and node.process.returncode is not None
            node.start()
        played_to_the_end(url, table_id, nodes, players)
        assert "Traceback" not in logs(nodes)
    finally:
        for node in nodes:
            node.stop()


class Broker:
    """A Redis server of this test's own (the other tests share theirs)."""

    def __init__(self, home: Path) -> None:
        self.home, self.port = home, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.process = subprocess.Popen(
            [
                *(server, "--bind", "127.0.0.1", "--port", str(self.port)),
                *("--save", "", "--appendonly", "no", "--dir", str(self.home)),
            ],
            stdout=subprocess.DEVNULL,
        )
        ping = [shutil.which("redis-cli") or "redis-cli", "-p", str(self.port), "ping"]
        wait_for(lambda: subprocess.run(ping, capture_output=True).stdout.strip() == b"PONG", 10)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


def test_the_broker_dies_and_comes_back_mid_match(tmp_path: Path) -> None:
    """Whatever the owner sent while the broker was away is lost: the process that lost
    it closes its clients of tables elsewhere, which connect again and get the table as
    it is now. Without that, a player at the other process waited for an update that
    never came, until its own connection timed out (30 s here)."""
    broker = Broker(tmp_path)
    broker.start()
    url, nodes = cluster(tmp_path, 2, bot_delay=0.05, broker=broker.url)
    try:
        # Ann at the owner, Bob at the other process: Bob's updates cross the broker.
        table_id, players = two_players_and_a_bot(nodes, (0, 1), target=60)
        moving_on(url, table_id, nodes, players)
        broker.kill()
        time.sleep(1.5)  # moves go on at the owner meanwhile; Bob's updates are lost
        broker.start()
        made = len(stored_moves(url, table_id))
        try:
            wait_for(
                lambda: (
                    len(stored_moves(url, table_id)) >= made + 3 or any(r.over for r in players)
                ),
                15,
            )
        except AssertionError:
            raise AssertionError(f"the table stopped at {made} moves\n{logs(nodes)}") from None
        played_to_the_end(url, table_id, nodes, players)
        assert players[1].reconnects >= 1  # Bob was told to connect again
    finally:
        for node in nodes:
            node.stop()
        broker.kill()
