"""What the tests of several server processes share (issue 21): a cluster of
`pips serve --broker` processes over one PostgreSQL database and one Redis, and clients
that keep to their table whichever process they reach."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from websockets.exceptions import ConnectionClosed

from tests.server_helpers import POSTGRES, Browser, Server, new_database, wait_for

BROKER = os.environ.get("PIPS_TEST_REDIS_URL")

needs_cluster = pytest.mark.skipif(
    not (POSTGRES and BROKER) and not os.environ.get("CI"),
    reason="needs PIPS_TEST_POSTGRES_URL and PIPS_TEST_REDIS_URL (scripts/test sets both)",
)

LEASE = 2.0
"""Seconds a dead owner's tables wait before another process takes them (short, so
the tests' failovers are quick)."""


def cluster(
    tmp_path: Path,
    size: int,
    bot_delay: float = 0.0,
    extra: tuple[str, ...] = (),
    broker: str | None = None,
) -> tuple[str, list[Server]]:
    url = new_database("postgresql", tmp_path)
    nodes = []
    for i in range(size):
        home = tmp_path / f"node{i}"
        home.mkdir()
        options = ("--broker", broker or str(BROKER), "--lease", str(LEASE), *extra)
        nodes.append(Server(home, url, bot_delay=bot_delay, extra=options))
    for node in nodes:
        node.start()
    return url, nodes


def node_id(server: Server) -> str:
    return str(httpx.get(server.url + "/healthz", timeout=5).json()["node"])


def owner(url: str, table_id: str) -> str | None:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            found = connection.execute(
                text(
                    "SELECT owner FROM table_leases"
                    " WHERE table_id = :t AND until > now() AT TIME ZONE 'UTC'"
                ),
                {"t": table_id},
            ).scalar()
            return None if found is None else str(found)
    finally:
        engine.dispose()


def stored_moves(url: str, table_id: str) -> list[tuple[int, int, dict[str, Any]]]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT number, seat, move FROM moves WHERE table_id = :t ORDER BY number"),
                {"t": table_id},
            ).all()
            return [(n, s, m if isinstance(m, dict) else json.loads(m)) for n, s, m in rows]
    finally:
        engine.dispose()


def moving_on(url: str, table_id: str, nodes: list[Server], players: list[Roamer]) -> None:
    """Wait until the table has made three more moves (or its match is over)."""
    made = len(stored_moves(url, table_id))
    try:
        wait_for(
            lambda: len(stored_moves(url, table_id)) >= made + 3 or any(r.over for r in players), 60
        )
    except AssertionError:
        told = [(r.reconnects, r.states[-1:] if r.states else None) for r in players]
        raise AssertionError(f"the table stopped at {made} moves: {told}\n{logs(nodes)}") from None


def logs(nodes: list[Server]) -> str:
    return "\n".join((n.home / "server.log").read_text()[-3000:] for n in nodes)


class Roamer(threading.Thread):
    """A client that keeps to its table whatever happens to the processes: it connects
    to one of them, plays (``plays``) or watches, and when its connection drops it
    connects again to the next one that answers, as the browser's page does. It keeps
    every state message, and every move of its own the server acknowledged."""

    def __init__(
        self, browser: Browser, nodes: list[Server], table_id: str, plays: bool, first: int
    ):
        super().__init__(daemon=True)
        self.browser, self.nodes, self.table_id, self.plays = browser, nodes, table_id, plays
        self.at = first
        self.states: list[dict[str, Any]] = []
        self.acknowledged: list[tuple[int, dict[str, Any]]] = []
        """(number, move) of each move of its own it saw in a state after sending it."""
        self.reconnects = 0
        self.errors: list[str] = []
        """The errors the server sent it."""
        self.dropped: list[str] = []
        """Why each connection ended before the match did."""
        self.error: BaseException | None = None
        self.over = False
        self.budget: int | None = None
        """How many more moves it may send (``None``: as many as it likes): a test that
        must act before the match can end grants moves a few at a time."""
        self.granted = threading.Condition()

    def grant(self, moves: int | None) -> None:
        """Let it send ``moves`` more moves (``None``: every move from now on)."""
        with self.granted:
            self.budget = None if moves is None else (self.budget or 0) + moves
            self.granted.notify_all()

    def _may_move(self) -> None:
        with self.granted:
            self.granted.wait_for(lambda: self.budget is None or self.budget > 0, 240)
            if self.budget is not None:
                self.budget -= 1

    def run(self) -> None:
        deadline = time.monotonic() + 240
        sent: dict[int, dict[str, Any]] = {}
        try:
            while not self.over and time.monotonic() < deadline:
                node = self.nodes[self.at % len(self.nodes)]
                self.browser.server = node
                try:
                    connection = self.browser.socket(self.table_id)
                except OSError:
                    self.at += 1
                    time.sleep(0.2)
                    continue
                try:
                    while True:
                        # Ten seconds of silence: roam on to the next process, as a page
                        # would (a process that lost the table can stay quiet; reconnecting
                        # costs nothing, waiting longer only made the test slow).
                        message = json.loads(connection.recv(timeout=10))
                        if message["type"] == "error":
                            self.errors.append(message["message"])
                        if message["type"] != "state":
                            continue
                        self.states.append(message)
                        made = message["moves_made"]
                        for number in [n for n in sent if n < made]:
                            move = sent.pop(number)
                            event = message.get("event")
                            if number == made - 1 and event is not None:
                                self.acknowledged.append((number, move))
                        if (message.get("match") or {}).get("over"):
                            self.over = True
                            return
                        if self.plays and message.get("legal"):
                            self._may_move()
                            choice = len(message["legal"]) - 1
                            sent[made] = message["legal"][choice]
                            connection.send(
                                json.dumps(
                                    {"v": 1, "type": "move", "move": choice, "moves_made": made}
                                )
                            )
                except (ConnectionClosed, OSError) as exc:
                    last = self.states[-1]["moves_made"] if self.states else None
                    self.dropped.append(f"port {node.port}: {exc!r} after move {last}")
                    self.reconnects += 1
                    self.at += 1
                    time.sleep(0.2)
                finally:
                    connection.close()
        except BaseException as exc:  # reported by the test
            self.error = exc


def seat_of(roamer: Roamer) -> int:
    return int(roamer.states[-1]["seat"])


def check_every_acknowledged_move_stored(
    read_moves: Callable[[], list[tuple[int, int, dict[str, Any]]]], roamers: list[Roamer]
) -> None:
    """Every move a client heard acknowledged is stored, as sent, and no client was told
    of more moves than the database holds. What the clients heard is taken before the
    database is read: the roamers may still be playing, and a move acknowledged after
    the read is not yet in it (the deployment drill once failed on exactly that)."""
    heard = [(list(r.acknowledged), seat_of(r), list(r.states)) for r in roamers]
    moves = read_moves()
    assert [n for n, _, _ in moves] == list(range(len(moves))), "the stored moves have a gap"
    by_number = {n: (seat, move) for n, seat, move in moves}
    acknowledged = 0
    for moves_heard, seat, states in heard:
        for number, move in moves_heard:
            assert by_number[number][0] == seat
            # The stored move is the one sent (a draw's tile is known once drawn).
            stored = by_number[number][1]
            assert {k: v for k, v in stored.items() if k in move and move[k] is not None} == {
                k: v for k, v in move.items() if v is not None
            }
            acknowledged += 1
        # What any client was told never runs ahead of the database.
        assert max(s["moves_made"] for s in states) <= len(moves)
    assert acknowledged > 0


def two_players_and_a_bot(
    nodes: list[Server], first: tuple[int, int], target: int = 50, budget: int | None = None
) -> tuple[str, list[Roamer]]:
    """A family match of Ann and Bob, who sign in at processes ``first`` and keep to
    the table from there, and a bot; the match is under way (each player with
    ``budget`` moves to make, when given)."""
    ann, bob = Browser(nodes[first[0]], "Ann"), Browser(nodes[first[1]], "Bob")
    table_id = ann.create(
        "family",  # hand after hand to the target: time for the failures
        {"players": 3, "target": target},
        [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
    )
    assert bob.post(f"/api/tables/{table_id}/join").status_code == 200
    players = [
        Roamer(ann, nodes, table_id, True, first[0]),
        Roamer(bob, nodes, table_id, True, first[1]),
    ]
    for roamer in players:
        roamer.budget = budget
        roamer.start()
    return table_id, players


def played_to_the_end(url: str, table_id: str, nodes: list[Server], players: list[Roamer]) -> None:
    for roamer in players:
        roamer.join(240)
        assert roamer.error is None, f"{roamer.error!r}\n{logs(nodes)}"
        assert roamer.over, logs(nodes)
    check_every_acknowledged_move_stored(lambda: stored_moves(url, table_id), players)


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
