"""Failover of several server processes (issue 21): killing the owner of a table with
-9 again and again loses no acknowledged move.

A file of its own, apart from tests/test_cluster_failover.py: the test files run in
parallel a file per worker, and this one test takes half a minute to a minute and a
half on a loaded 2-core machine; beside the other failover tests it made one worker's
share the suite's longest."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from tests.cluster_helpers import (
    cluster,
    moving_on,
    needs_cluster,
    owning,
    played_to_the_end,
    two_players_and_a_bot,
)

pytestmark = [needs_cluster, pytest.mark.process]


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
