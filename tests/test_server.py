"""The pips server as a real process on 127.0.0.1: whole games over websockets, what each
client is told, bad input, accounts, the API, and a kill -9 in the middle of a hand."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pips import record
from tests.databases import one_database
from tests.server_helpers import (
    Browser,
    Player,
    Server,
    database_urls,
    new_database,
    running,
    wait_for,
)

pytestmark = pytest.mark.process

on_every_database = pytest.mark.parametrize("database", database_urls())
once = pytest.mark.parametrize("database", one_database())


def stored_password(url: str) -> str:
    """The one stored password hash, read straight from the database."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as connection:
        value = connection.execute(text("SELECT password_hash FROM users")).scalar_one()
    engine.dispose()
    return str(value)


def tiles_held(data: dict[str, Any]) -> dict[tuple[int, int], set[tuple[int, int]]]:
    """From a finished record: every tile each seat held at any time in each hand."""
    held: dict[tuple[int, int], set[tuple[int, int]]] = defaultdict(set)
    for number, hand in enumerate(data["hands"], 1):
        for seat, tiles in enumerate(hand["deal"]):
            held[number, seat] |= {tuple(t) for t in tiles}
        for move in hand["moves"]:
            if move.get("draw"):
                held[number, move["seat"]].add(tuple(sorted(move["draw"], reverse=True)))
    return held


def assert_no_leak(messages: list[dict[str, Any]], held: dict[Any, set[Any]]) -> int:
    """No state message shows a seat a tile it never held, or another seat's draw."""
    checked = 0
    for message in messages:
        view = message.get("view")
        if message.get("type") != "state" or view is None:
            continue
        seat, hand = message["seat"], view["hand_number"]
        shown = {tuple(t) for t in view["hand"]} | {tuple(t) for t in message.get("hand_order", [])}
        shown |= {
            tuple(sorted(m["play"], reverse=True)) for m in message.get("legal", []) if "play" in m
        }
        if seat < 0:
            assert not shown, "a spectator was shown tiles in hand"
        else:
            assert shown <= held[hand, seat], f"seat {seat} was shown {shown - held[hand, seat]}"
        for event in [*view.get("history", []), message.get("event") or {}]:
            if event.get("draw") is not None:
                assert event["seat"] == seat, "another seat's drawn tile was shown"
        checked += 1
    return checked


@once
def test_two_people_and_two_bots_play_a_partnership_match_with_a_spectator(
    tmp_path: Path, database: str
) -> None:
    with running(tmp_path, new_database(database, tmp_path)) as server:
        ann, bo = Browser(server, "Ann"), Browser(server, "Bo")
        table = ann.create(
            "partnership",
            {"target": 3},
            [
                {"kind": "me"},
                {"kind": "open"},
                {"kind": "bot", "bot": "greedy"},
                {"kind": "bot", "bot": "expert"},
            ],
        )
        watcher = Player(Browser(server), table, plays=False)
        first = Player(ann, table)
        first.start()
        watcher.start()
        joined = bo.post(f"/api/tables/{table}/join")
        assert joined.status_code == 200, joined.text
        second = Player(bo, table)
        second.start()
        for client in (first, second, watcher):
            client.join(120)
            assert client.error is None and not client.is_alive()
        data = ann.http.get(f"/api/records/{table}").json()
        replayed = record.replay(data)
        assert replayed.match.is_over and max(replayed.match.scores) >= 3
        assert sorted(replayed.seats) == sorted(["Ann", "Bo", "casual 2", "expert 3"])
        held = tiles_held(data)
        assert assert_no_leak(first.messages, held) > 10
        assert assert_no_leak(second.messages, held) > 10
        assert assert_no_leak(watcher.messages, held) > 10
        # Both people's histories list the game; the API lists no finished table.
        history = ann.http.get("/api/players/Ann/history")
        assert history.status_code == 404  # guests have no account history
        assert table not in [t["id"] for t in ann.http.get("/api/tables").json()]


def test_a_fido_table_of_bots_is_watched_and_its_record_replays(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        ann = Browser(server, "Ann")
        table = ann.create(
            "fido",
            {"players": 4, "set": 9},
            [{"kind": "bot", "bot": b} for b in ("greedy", "random", "expert", "greedy")],
            seed=7,
        )
        data = wait_for(
            lambda: (r := ann.http.get(f"/api/records/{table}")).status_code == 200 and r.json()
        )
        assert record.replay(data).match.is_over
        positions = ann.http.get(f"/api/records/{table}/positions").json()
        moves = sum(len(h["moves"]) for h in data["hands"])
        assert len(positions) == moves + 1
        assert positions[-1]["view"]["result"] == data["hands"][0]["result"]


def test_bad_messages_get_an_error_to_that_client_only_and_change_nothing(tmp_path: Path) -> None:
    with running(tmp_path, bot_delay=0.3) as server:
        ann, bo = Browser(server, "Ann"), Browser(server, "Bo")
        table = ann.create("family", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
        assert bo.post(f"/api/tables/{table}/join").status_code == 200
        a, b, spectator = ann.socket(table), bo.socket(table), Browser(server).socket(table)

        def settled(connection: Any) -> dict[str, Any]:
            """The last state before a pong: an arrival tells the others who is here."""
            connection.send(json.dumps({"v": 1, "type": "ping"}))
            last: dict[str, Any] = {}
            while (message := json.loads(connection.recv(5)))["type"] != "pong":
                last = message
            return last

        state_a, state_b = settled(a), settled(b)
        settled(spectator)
        mover, other = (a, b) if state_a.get("legal") else (b, a)
        state = state_a if mover is a else state_b
        made = state["moves_made"]
        bad = [
            "not json",
            "[1, 2]",
            json.dumps({"type": "ping"}),
            json.dumps({"v": 2, "type": "ping"}),
            json.dumps({"v": 1, "type": "dance"}),
            json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made, "extra": 1}),
            json.dumps({"v": 1, "type": "move", "move": "0", "moves_made": made}),
            json.dumps({"v": 1, "type": "move", "move": 99, "moves_made": made}),
            json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made + 5}),
            json.dumps({"v": 1, "type": "chat", "text": "x" * 301}),
            "x" * 3000,
        ]
        for frame in bad:
            mover.send(frame)
            reply = json.loads(mover.recv(5))
            assert reply["type"] == "error" and "Traceback" not in reply["message"], frame
        # Out of turn, and a spectator's move: refused.
        other.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made}))
        assert "not your turn" in json.loads(other.recv(5))["message"]
        spectator.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made}))
        assert "spectators" in json.loads(spectator.recv(5))["message"]
        # Nothing changed, and the others heard nothing: their next message is the pong.
        for connection in (mover, other, spectator):
            connection.send(json.dumps({"v": 1, "type": "ping"}))
            assert json.loads(connection.recv(5))["type"] == "pong"
        assert ann.http.get(f"/api/tables/{table}").json()["moves_made"] == made
        mover.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made}))
        assert json.loads(mover.recv(5))["moves_made"] == made + 1
        for connection in (a, b, spectator):
            connection.close()


def test_a_flooding_client_is_refused_then_dropped(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        ann = Browser(server, "Ann")
        table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
        connection = ann.socket(table)
        json.loads(connection.recv(5))
        for _ in range(200):
            try:
                connection.send(json.dumps({"v": 1, "type": "ping"}))
            except Exception:
                break
        replies = []
        try:
            while True:
                replies.append(json.loads(connection.recv(5)))
        except Exception:
            pass
        assert any(r["type"] == "error" and "too many" in r["message"] for r in replies)
        assert connection.close_code == 4429


@once
def test_accounts_csrf_and_table_options_are_checked(tmp_path: Path, database: str) -> None:
    with running(tmp_path, new_database(database, tmp_path)) as server:
        web = Browser(server)
        csrf = web.csrf
        assert web.http.post("/register", data={"name": "Ann", "password": "pw"}).status_code == 403
        short = web.http.post("/register", data={"name": "Ann", "password": "pw", "csrf": csrf})
        assert "8 to 200" in short.text
        made = web.form("/register", name="Ann", password="secret-pw")
        assert made.status_code == 303
        assert web.http.get("/api/session").json()["name"] == "Ann"
        again = Browser(server)
        taken = again.http.post(
            "/register", data={"name": "Ann", "password": "other-pw", "csrf": again.csrf}
        )
        assert "taken" in taken.text
        wrong = again.http.post(
            "/login", data={"name": "Ann", "password": "nope-nope", "csrf": again.csrf}
        )
        assert "no such name and password" in wrong.text
        right = again.http.post(
            "/login", data={"name": "Ann", "password": "secret-pw", "csrf": again.csrf}
        )
        assert right.status_code == 303 and again.http.get("/api/session").json()["account"]
        # The password is stored as an argon2 hash, never as given.
        hashed = stored_password(server.database)
        assert hashed.startswith("$argon2") and "secret-pw" not in hashed
        # Bad tables: a clear error and nothing stored.
        for body, message in (
            ({"game": "chess", "seats": []}, "unknown game"),
            (
                {"game": "fido", "options": {"players": 12}, "seats": [{"kind": "me"}] * 12},
                "players",
            ),
            ({"game": "family", "options": {"players": 2}, "seats": [{"kind": "me"}]}, "2 seats"),
            (
                {
                    "game": "family",
                    "options": {"players": 2},
                    "seats": [{"kind": "bot", "bot": "nobody"}] * 2,
                },
                "unknown bot",
            ),
        ):
            response = web.post("/api/tables", body)
            assert response.status_code == 422 and message in response.text, response.text
        # A table that could be made, but without the session's CSRF token.
        fair = {
            "game": "family",
            "options": {"players": 2},
            "seats": [{"kind": "me"}, {"kind": "open"}],
        }
        assert web.http.post("/api/tables", json=fair).status_code == 403
        assert web.http.get("/api/tables").json() == []
        assert web.http.get("/api/tables/nope").status_code == 404
        assert web.http.get("/api/records/nope").status_code == 404
        schema = web.http.get("/openapi.json").json()
        assert "/api/tables" in schema["paths"] and "/api/records/{table_id}" in schema["paths"]


@once
def test_history_of_an_account_lists_its_finished_games(tmp_path: Path, database: str) -> None:
    with running(tmp_path, new_database(database, tmp_path)) as server:
        web = Browser(server)
        web.form("/register", name="Cy", password="secret-pw")
        table = web.create(
            "draw", {"players": 2}, [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}]
        )
        Player(web, table).run()
        games = wait_for(lambda: web.http.get("/api/players/Cy/history").json())
        assert games[0]["id"] == table and games[0]["record"] == f"/api/records/{table}"
        listed = web.http.get("/accounts/Cy/games")
        assert listed.status_code == 200 and f"/replay/{table}" in listed.text
        assert web.http.get("/accounts/Nobody/games").status_code == 404


@on_every_database
def test_a_killed_server_resumes_every_game_exactly(tmp_path: Path, database: str) -> None:
    """kill -9 in the middle of a hand, start again, finish: the record is the one an
    uninterrupted game gives (the same seed, the same moves)."""
    seats = [{"kind": "bot", "bot": b} for b in ("expert", "greedy", "random", "expert")]
    home = tmp_path / "interrupted"
    home.mkdir()
    url = new_database(database, home)
    server = Server(home, url, bot_delay=0.05).start()
    ann = Browser(server, "Ann")
    table = ann.create("doubles", {"players": 4, "target": 30}, seats, seed=99)
    wait_for(lambda: ann.http.get(f"/api/tables/{table}").json()["moves_made"] >= 12)
    server.kill()
    server = Server(home, url, bot_delay=0.0)
    server.start()
    try:
        later = Browser(server)
        interrupted = wait_for(
            lambda: (r := later.http.get(f"/api/records/{table}")).status_code == 200 and r.json()
        )
        again = Browser(server, "Bea")  # "Ann" is still the first guest's name
        fresh = again.create("doubles", {"players": 4, "target": 30}, seats, seed=99)
        whole = wait_for(
            lambda: (r := again.http.get(f"/api/records/{fresh}")).status_code == 200 and r.json()
        )
    finally:
        server.stop()
    assert interrupted["hands"] == whole["hands"] and interrupted["result"] == whole["result"]
    assert record.replay(interrupted).match.is_over


@pytest.mark.parametrize("path", ["/", "/t/nope", "/replay/x"])
def test_pages_answer_without_tracebacks(tmp_path: Path, path: str) -> None:
    with running(tmp_path) as server:
        response = Browser(server).http.get(path)
        assert response.status_code in (200, 404)
        assert "Traceback" not in response.text


def test_a_seat_left_empty_past_the_grace_period_is_taken_by_a_bot(tmp_path: Path) -> None:
    with running(tmp_path, grace=1) as server:
        ann, bo = Browser(server, "Ann"), Browser(server, "Bo")
        table = ann.create(
            "family", {"players": 2, "target": 20}, [{"kind": "me"}, {"kind": "open"}]
        )
        assert bo.post(f"/api/tables/{table}/join").status_code == 200
        # Bo never opens the table; Ann plays on and the match still ends.
        player = Player(ann, table)
        player.run()
        assert player.error is None, [
            (m.get("type"), m.get("moves_made"), bool(m.get("legal")), m.get("message"))
            for m in player.messages[-6:]
        ]
        data = wait_for(
            lambda: (r := ann.http.get(f"/api/records/{table}")).status_code == 200 and r.json()
        )
        # The seat keeps Bo's name; the record says which of its moves the bot made.
        assert sorted(data["seats"]) == ["Ann", "Bo"] and data["bots"] == [None, None]
        bo_seat = data["seats"].index("Bo")
        runs = data["stand_ins"]
        assert runs and {r["seat"] for r in runs} == {bo_seat}
        assert {r["bot"] for r in runs} == {"expert"}
        replayed = record.replay(data)
        assert replayed.stand_ins == runs
        # Every one of Bo's moves was the bot's: Bo never came.
        for hand, state in enumerate(replayed.match.hand_states, 1):
            mine = [i for i, e in enumerate(state.history, 1) if e.seat == bo_seat]
            covered = {
                i
                for r in runs
                if r["hand"] == hand
                for i in range(r["moves"][0], r["moves"][1] + 1)
            }
            assert set(mine) <= covered


def test_the_turn_timer_plays_for_a_person_who_does_not(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        ann = Browser(server, "Ann")
        table = ann.create(
            "draw",
            {"players": 2},
            [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}],
            turn_seconds=5,
        )
        watching = ann.socket(table)  # connected, so no grace period; but never moves
        first = json.loads(watching.recv(5))
        assert first["table"]["turn_seconds"] == 5
        made = wait_for(
            lambda: ann.http.get(f"/api/tables/{table}").json()["moves_made"] >= 2, timeout=30
        )
        assert made
        watching.close()


def test_chat_reaches_the_table_and_a_private_table_needs_its_invitation(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        ann, bo, eve = Browser(server, "Ann"), Browser(server, "Bo"), Browser(server, "Eve")
        response = ann.post(
            "/api/tables",
            {
                "game": "family",
                "options": {"players": 2},
                "seats": [{"kind": "me"}, {"kind": "open"}],
                "private": True,
            },
        )
        table, invite = response.json()["id"], response.json()["invite"]
        assert table not in [t["id"] for t in eve.http.get("/api/tables").json()]
        assert eve.http.get(f"/t/{table}").status_code == 404
        assert eve.post(f"/api/tables/{table}/join").status_code == 404
        assert bo.http.get(f"/t/{table}?invite={invite}").status_code == 200
        assert bo.post(f"/api/tables/{table}/join?invite={invite}").status_code == 200
        a, b = ann.socket(table), bo.socket(table)
        json.loads(a.recv(5))
        json.loads(b.recv(5))
        a.send(json.dumps({"v": 1, "type": "chat", "text": "good luck"}))
        for connection in (a, b):
            line = wait_for(
                lambda c=connection: (m := json.loads(c.recv(5)))["type"] == "chat" and m
            )
            assert line == {"v": 1, "type": "chat", "from": "Ann", "text": "good luck"}
        a.close()
        b.close()


def test_a_finished_table_leads_to_its_replay_once_it_has_left_memory(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        ann = Browser(server, "Ann")
        seats = [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "random"}]
        table = ann.create("draw", {"players": 2}, seats)
        wait_for(lambda: ann.http.get(f"/api/records/{table}").status_code == 200)
    with running(tmp_path) as server:  # a restart loads only unfinished tables
        web = Browser(server)
        moved = web.http.get(f"/t/{table}")
        assert moved.status_code == 303 and moved.headers["location"] == f"/replay/{table}"
        assert web.http.get(f"/api/records/{table}").json()["result"] is not None
