"""Several server processes over one PostgreSQL database and one Redis (issue 21,
docs/server.md "Several server processes"): players connected to different processes
play one match and a spectator on a third sees every event in order; a process past its
lease stores nothing; bad settings are refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from pips.cli import app  # every command group registered
from pips.server.accounts.identity import Identity
from pips.server.leases import Leases
from pips.server.repository import TableRepository
from pips.server.round import Played, TableError
from pips.store.db import Database
from tests.cluster_helpers import (
    BROKER,
    Roamer,
    check_every_acknowledged_move_stored,
    cluster,
    logs,
    needs_cluster,
    stored_moves,
)
from tests.server_helpers import POSTGRES, Browser, new_database, new_round, register, wait_for

pytestmark = needs_cluster


@pytest.mark.process
def test_players_on_different_processes_play_a_match_watched_from_a_third(tmp_path: Path) -> None:
    url, nodes = cluster(tmp_path, 3)
    try:
        ann = Browser(nodes[0], "Ann")
        bob = Browser(nodes[1], "Bob")
        table_id = ann.create(
            "family",  # a match of several hands to 30 points
            {"players": 3, "target": 30},
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
        check_every_acknowledged_move_stored(lambda: stored_moves(url, table_id), players)
        # Every process's lobby shows the finished game among the recent ones.
        for node in nodes:
            wait_for(lambda node=node: f"/replay/{table_id}" in httpx.get(node.url + "/").text, 10)
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
    game = new_round("draw", {"players": 2}, bots, Identity(), seed=3)
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
        # The table comes back to the process that stalled, whose memory is behind: the
        # move it would store again has a number the table already has, and is refused
        # as the fence refuses (the players' clients are told, the log has no traceback).
        with db.engine.begin() as connection:
            connection.execute(text("UPDATE table_leases SET until = '2000-01-01'"))
        assert stalled.leases is not None and stalled.leases.take(table_id)
        with pytest.raises(TableError, match="another server process"):
            asyncio.run(stalled.add_move(table_id, late))
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


def test_several_processes_need_postgresql_and_a_broker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad settings are refused in words before anything starts."""
    import uvicorn

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started with bad settings")

    monkeypatch.setattr(uvicorn, "run", started)
    monkeypatch.setenv("PIPS_HOME", str(tmp_path))
    monkeypatch.delenv("PIPS_BROKER_URL", raising=False)
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
        done = CliRunner().invoke(app, ["serve", "--port", "1", *extra])
        assert done.exit_code != 0, extra
        # A refusal in words (the `pips` command prints it on one line), not a crash.
        assert not isinstance(done.exception, AssertionError), extra
        assert words in done.output + str(done.exception), (extra, done.output)


@pytest.mark.process
def test_wrong_passwords_at_either_process_count_for_both(tmp_path: Path) -> None:
    """A guesser whose tries a balancer spreads over two processes gets no more of them
    than at one: five wrong passwords from its address in all, and it waits at both;
    the owner, at another address, is not held back at either."""
    _, nodes = cluster(tmp_path, 2)
    try:
        assert register(Browser(nodes[0]), "Greta").status_code == 303
        guessers = [Browser(node) for node in nodes]
        for guesser in guessers:
            guesser.http.headers["X-Forwarded-For"] = guessers[0].address
        codes = [
            guessers[i % 2].form("/login", name="Greta", password="wrong-guess").status_code
            for i in range(7)
        ]
        assert codes == [401] * 5 + [429, 429], codes
        for guesser in guessers:
            right = guesser.form("/login", name="greta", password="password-1")
            assert right.status_code == 429 and "try again in" in right.text
        for node in nodes:
            owner = Browser(node).form("/login", name="greta", password="password-1")
            assert owner.status_code == 303
        # Issue 32: every other limit per person and per address counts at both too.
        # Tables a person made that wait: three, wherever they were made.
        maker = [Browser(node) for node in nodes]
        register(maker[0], "Tabea")
        for browser in maker[1:]:
            browser.http.cookies = maker[0].http.cookies
            browser.http.headers["X-Forwarded-For"] = maker[0].address
            browser.csrf = browser.http.get("/api/session").json()["csrf"]
        seats = [{"kind": "me"}, {"kind": "open"}]
        made = [
            maker[i % 2]
            .post("/api/tables", {"game": "draw", "options": {"players": 2}, "seats": seats})
            .status_code
            for i in range(4)
        ]
        assert made == [201, 201, 201, 429], made
        # New tables from one address: five at once (by anyone there), wherever made.
        here = Browser(nodes[0]).address
        guests = []
        for i in range(6):
            guest = Browser(nodes[i % 2])
            guest.http.headers["X-Forwarded-For"] = here
            guest.form("/guest", name=f"Nachbar {i}")
            guests.append(guest)
        codes = [
            g.post(
                "/api/tables", {"game": "draw", "options": {"players": 2}, "seats": seats}
            ).status_code
            for g in guests
        ]
        assert codes[:4] == [201] * 4 and 429 in codes[4:], codes
        # Watchers from one address with no session: twenty sockets, wherever opened.
        table = maker[0].http.get("/api/tables").json()[0]["id"]
        from contextlib import ExitStack

        from websockets.sync.client import connect

        refused = 0
        with ExitStack() as sockets:
            for i in range(22):
                uri = f"{nodes[i % 2].ws_url}/ws/{table}"
                socket = sockets.enter_context(
                    connect(uri, additional_headers={"X-Forwarded-For": "10.99.0.1"})
                )
                refused += "too many open connections" in str(socket.recv(timeout=30))
        assert refused == 2, refused
    finally:
        for node in nodes:
            node.stop()
