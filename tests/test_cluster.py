"""Several server processes over one PostgreSQL database and one Redis (issue 21,
docs/server.md "Several server processes"): players connected to different processes
play one match, a spectator on a third sees every event in order, and neither killing
the owner of a table with -9 nor a rolling restart loses an acknowledged move."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from websockets.exceptions import ConnectionClosed

from pips.server.repository import Leases, TableRepository
from pips.server.round import Identity, Played, Round, TableError
from pips.store.db import Database
from tests.server_helpers import POSTGRES, Browser, Server, new_database, wait_for

BROKER = os.environ.get("PIPS_TEST_REDIS_URL")

pytestmark = pytest.mark.skipif(
    not (POSTGRES and BROKER) and not os.environ.get("CI"),
    reason="needs PIPS_TEST_POSTGRES_URL and PIPS_TEST_REDIS_URL (scripts/test sets both)",
)

LEASE = 3.0
"""Seconds a dead owner's tables wait before another process takes them (short, so
the tests' failovers are quick)."""


def cluster(tmp_path: Path, size: int, bot_delay: float = 0.0) -> tuple[str, list[Server]]:
    url = new_database("postgresql", tmp_path)
    nodes = []
    for i in range(size):
        home = tmp_path / f"node{i}"
        home.mkdir()
        extra = ("--broker", str(BROKER), "--lease", str(LEASE))
        nodes.append(Server(home, url, bot_delay=bot_delay, extra=extra))
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
                        message = json.loads(connection.recv(timeout=30))
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


def check_every_acknowledged_move_stored(url: str, table_id: str, roamers: list[Roamer]) -> None:
    moves = stored_moves(url, table_id)
    assert [n for n, _, _ in moves] == list(range(len(moves))), "the stored moves have a gap"
    by_number = {n: (seat, move) for n, seat, move in moves}
    acknowledged = 0
    for roamer in roamers:
        for number, move in roamer.acknowledged:
            assert by_number[number][0] == seat_of(roamer)
            # The stored move is the one sent (a draw's tile is known once drawn).
            stored = by_number[number][1]
            assert {k: v for k, v in stored.items() if k in move and move[k] is not None} == {
                k: v for k, v in move.items() if v is not None
            }
            acknowledged += 1
        # What any client was told never runs ahead of the database.
        assert max(s["moves_made"] for s in roamer.states) <= len(moves)
    assert acknowledged > 0


def test_players_on_different_processes_play_a_match_watched_from_a_third(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 3)
    try:
        ann = Browser(nodes[0], "Ann")
        bob = Browser(nodes[1], "Bob")
        table_id = ann.create(
            "family",  # hand after hand to 100 points: time for the failures
            {"players": 3},
            [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
        )
        # The lobby of every process lists the table (published once a second).
        for node in nodes[1:]:
            wait_for(
                lambda node=node: any(
                    t["id"] == table_id for t in httpx.get(node.url + "/api/tables").json()
                ),
                10,
            )
        # A private table of Ann's is seen nowhere without its invitation.
        hidden = ann.create(
            "draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}], private=True
        )
        assert httpx.get(nodes[2].url + f"/api/tables/{hidden}").status_code == 404
        assert bob.post(f"/api/tables/{hidden}/join").status_code == 404
        # Bob joins at another process than the one that owns the table.
        joined = bob.post(f"/api/tables/{table_id}/join")
        assert joined.status_code == 200, joined.text
        assert joined.json() == {"seat": 1, "status": "playing"}
        assert bob.post(f"/api/tables/{table_id}/join").status_code == 409
        watcher = Roamer(Browser(nodes[2]), nodes, table_id, plays=False, first=2)
        players = [Roamer(ann, nodes, table_id, True, 0), Roamer(bob, nodes, table_id, True, 1)]
        for roamer in [watcher, *players]:
            roamer.start()
        for roamer in [watcher, *players]:
            roamer.join(240)
            assert roamer.error is None, f"{roamer.error!r}\n{logs(nodes)}"
            assert roamer.over, logs(nodes)
            # A quick player's moves through another process are not taken for a flood.
            assert roamer.reconnects == 0, (roamer.dropped, roamer.errors)
            assert "too many messages: slow down" not in roamer.errors
        # The spectator at the third process saw every move, in order, once.
        numbers = [s["moves_made"] for s in watcher.states]
        total = len(stored_moves(url, table_id))
        assert numbers == sorted(numbers)
        assert set(range(numbers[0], total + 1)) <= set(numbers)
        assert not any(s["view"].get("hand") for s in watcher.states if "view" in s)
        check_every_acknowledged_move_stored(url, table_id, players)
        record = httpx.get(nodes[1].url + f"/api/records/{table_id}").json()
        assert record["format"] == "pips.record/1"
        # The owner counted the moves it stored; the metrics are Prometheus' text.
        owners = [httpx.get(n.url + "/metrics").text for n in nodes]
        assert any("pips_moves_total" in m and "pips_move_seconds_bucket" in m for m in owners)
        counted = sum(
            float(line.split()[-1])
            for m in owners
            for line in m.splitlines()
            if line.startswith("pips_moves_total")
        )
        assert counted == total
    finally:
        for node in nodes:
            node.stop()


def two_players_and_a_bot(nodes: list[Server], first: tuple[int, int]) -> tuple[str, list[Roamer]]:
    """A family match of Ann and Bob, who sign in at processes ``first`` and keep to
    the table from there, and a bot; the match is under way."""
    ann, bob = Browser(nodes[first[0]], "Ann"), Browser(nodes[first[1]], "Bob")
    table_id = ann.create(
        "family",  # hand after hand to 100 points: time for the failures
        {"players": 3},
        [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
    )
    assert bob.post(f"/api/tables/{table_id}/join").status_code == 200
    players = [
        Roamer(ann, nodes, table_id, True, first[0]),
        Roamer(bob, nodes, table_id, True, first[1]),
    ]
    for roamer in players:
        roamer.start()
    return table_id, players


def played_to_the_end(url: str, table_id: str, nodes: list[Server], players: list[Roamer]) -> None:
    for roamer in players:
        roamer.join(240)
        assert roamer.error is None, f"{roamer.error!r}\n{logs(nodes)}"
        assert roamer.over, logs(nodes)
    check_every_acknowledged_move_stored(url, table_id, players)


def test_killing_the_owner_again_and_again_loses_no_acknowledged_move(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 3, bot_delay=0.15)
    try:
        table_id, players = two_players_and_a_bot(nodes, (1, 2))
        kills = 0
        while kills < 3 and not any(r.over for r in players):
            moving_on(url, table_id, nodes, players)
            holder = owner(url, table_id)
            victims = [n for n in nodes if holder is not None and node_id(n) == holder]
            if not victims:
                continue
            victims[0].kill()  # mid-hand, without warning
            kills += 1
            victims[0].start()  # it comes back as a new process (a new node id)
        played_to_the_end(url, table_id, nodes, players)
        assert kills == 3, "the match ended before the owner was killed three times"
        assert sum(r.reconnects for r in players) >= 1
        finished = httpx.get(nodes[0].url + f"/api/records/{table_id}")
        assert finished.status_code == 200
    finally:
        for node in nodes:
            node.stop()


def test_a_rolling_restart_under_play_ends_no_game(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 2, bot_delay=0.15)
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


def test_workers_share_one_port_and_a_sighup_replaces_them_under_play(tmp_path: Path) -> None:
    """`pips serve --workers 2`: both processes answer on the one port, and SIGHUP to
    the supervisor replaces them one after the other while a match goes on."""
    url = new_database("postgresql", tmp_path)
    extra = ("--workers", "2", "--broker", str(BROKER), "--lease", str(LEASE))
    server = Server(tmp_path, url, bot_delay=0.15, extra=extra).start()
    try:

        def answering() -> set[str]:
            return {node_id(server) for _ in range(30)}  # a new connection each

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


@pytest.mark.skipif(not POSTGRES, reason="needs PIPS_TEST_POSTGRES_URL")
def test_a_process_past_its_lease_stores_no_move_and_no_end(tmp_path: Path) -> None:
    """Fencing: a process that stalled until another took its table over cannot store
    a move or the game's end there any more; the new owner can."""
    url = new_database("postgresql", tmp_path)
    db = Database(url)
    db.upgrade()
    stalled, taker = TableRepository(db), TableRepository(db)
    stalled.use_leases(Leases(db, "a" * 16, 5.0))
    taker.use_leases(Leases(db, "b" * 16, 5.0))
    bots = [{"kind": "bot", "bot": "greedy"}] * 2
    game = Round.new("draw", {"players": 2}, bots, Identity(), seed=3)
    table_id = "fenced-table"
    try:
        asyncio.run(
            stalled.create(
                table_id,
                "draw",
                game.options.to_json(),
                3,
                None,
                game.entrants,
                private=False,
                invite="x",
                turn_seconds=None,
                created_by=None,
            )
        )
        game.start()

        def next_move() -> Played:
            move = game.bot_decision()
            assert move is not None
            return game.apply(move)

        asyncio.run(stalled.add_move(table_id, next_move()))
        # The stalled process's lease runs out, and the other takes the table over.
        with db.engine.begin() as connection:
            connection.execute(text("UPDATE table_leases SET until = '2000-01-01'"))
        assert taker.leases is not None and taker.leases.take(table_id)
        late = next_move()
        with pytest.raises(TableError):
            asyncio.run(stalled.add_move(table_id, late))
        with pytest.raises(TableError):
            asyncio.run(stalled.finish(table_id, {"format": "x"}, None, None))
        asyncio.run(taker.add_move(table_id, late))
        assert [n for n, _, _ in stored_moves(url, table_id)] == [0, 1]
        with db.engine.connect() as connection:
            status = connection.execute(
                text("SELECT status FROM tables WHERE id = :t"), {"t": table_id}
            ).scalar()
        assert status != "finished"
    finally:
        stalled.close()
        taker.close()
        db.engine.dispose()


def test_several_processes_need_postgresql_and_a_broker(tmp_path: Path) -> None:
    """Bad settings are refused in words before anything starts."""
    base = [".venv/bin/python", "-m", "pips", "serve", "--port", "1"]
    env = {**os.environ, "PIPS_HOME": str(tmp_path)}
    env.pop("PIPS_BROKER_URL", None)
    cases = [
        (["--workers", "2"], "need a broker"),
        (
            ["--broker", str(BROKER), "--database", f"sqlite:///{tmp_path / 'x.db'}"],
            "need PostgreSQL",
        ),
        (
            [
                "--broker",
                "redis://127.0.0.1:1/0",
                "--database",
                new_database("postgresql", tmp_path),
            ],
            "cannot use",
        ),
        (["--lease", "0.5"], "--lease"),
    ]
    for extra, words in cases:
        done = subprocess.run(base + extra, capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode != 0
        assert words in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
