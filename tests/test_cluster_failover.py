"""Failover of several server processes (issue 21): killing the owner of a table with
-9 again and again, and restarting every process in turn, lose no acknowledged move."""

from __future__ import annotations

import threading
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
    two_players_and_a_bot,
)
from tests.server_helpers import Server

pytestmark = needs_cluster


def answering_id(server: Server) -> str | None:
    """The node id of a process that answers (``None`` while it is down or starting)."""
    try:
        return node_id(server)
    except httpx.HTTPError:
        return None


def test_killing_the_owner_again_and_again_loses_no_acknowledged_move(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 3, bot_delay=0.05)
    try:
        # To 60 points: long enough for three kills on a busy machine.
        table_id, players = two_players_and_a_bot(nodes, (1, 2), target=60)
        kills = 0
        comebacks: list[threading.Thread] = []
        while kills < 3 and not any(r.over for r in players):
            moving_on(url, table_id, nodes, players)
            holder = owner(url, table_id)
            victims = [n for n in nodes if holder is not None and answering_id(n) == holder]
            if not victims:
                continue
            victims[0].kill()  # mid-hand, without warning
            kills += 1
            # It comes back as a new process (a new node id) while the others play on.
            comeback = threading.Thread(target=victims[0].start)
            comeback.start()
            comebacks.append(comeback)
        for comeback in comebacks:
            comeback.join(120)
        played_to_the_end(url, table_id, nodes, players)
        assert kills == 3, "the match ended before the owner was killed three times"
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
