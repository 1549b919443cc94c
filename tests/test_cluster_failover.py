"""Failover of several server processes (issue 21): killing the owner of a table with
-9 again and again, restarting every process in turn, and killing and restarting the
broker lose no acknowledged move."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path

import httpx

from tests.cluster_helpers import (
    cluster,
    logs,
    moving_on,
    needs_cluster,
    node_id,
    owner,
    played_to_the_end,
    stored_moves,
    two_players_and_a_bot,
)
from tests.server_helpers import Server, free_port, wait_for

pytestmark = needs_cluster


def answering_id(server: Server) -> str | None:
    """The node id of a process that answers (``None`` while it is down or starting)."""
    try:
        return node_id(server)
    except httpx.HTTPError:
        return None


def owning(url: str, table_id: str, nodes: list[Server]) -> Server:
    """The process that holds the table's lease, once one answering does."""
    found: list[Server] = []

    def known() -> bool:
        holder = owner(url, table_id)
        found[:] = [n for n in nodes if holder is not None and answering_id(n) == holder]
        return bool(found)

    wait_for(known, 60)
    return found[0]


def test_killing_the_owner_again_and_again_loses_no_acknowledged_move(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 3, bot_delay=0.05)
    try:
        # The players move only as far as they are let, four moves each before each
        # kill: at most 16 of theirs and 9 of the bot's are made before the second, and a
        # family match to 170 needs two hands (a hand cannot score more than the 168
        # pips of the whole set) of at least 13 moves each (the winner lays five tiles,
        # one a round), so it cannot end before both kills, however fast or slow the
        # machine.
        table_id, players = two_players_and_a_bot(nodes, (1, 2), target=170, budget=0)
        comebacks: list[threading.Thread] = []
        for _ in range(2):
            for roamer in players:
                roamer.grant(4)
            moving_on(url, table_id, nodes, players)
            assert not any(r.over for r in players)
            victim = owning(url, table_id, nodes)
            victim.kill()  # mid-hand, without warning, a move possibly in flight
            # It comes back as a new process (a new node id) while the others play on.
            comeback = threading.Thread(target=victim.start)
            comeback.start()
            comebacks.append(comeback)
        for roamer in players:
            roamer.grant(None)
        for comeback in comebacks:
            comeback.join(120)
        played_to_the_end(url, table_id, nodes, players)
        assert sum(r.reconnects for r in players) >= 1
        finished = httpx.get(nodes[0].url + f"/api/records/{table_id}")
        assert finished.status_code == 200
    finally:
        for node in nodes:
            node.stop()


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
