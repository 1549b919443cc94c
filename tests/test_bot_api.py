"""The Bot API (docs/bots-api.md) against a real server: bot accounts, tokens made
through the API, challenges, the event and game streams, moves over HTTP, and
``pips bot`` connecting engines that speak ``pips.bot/1``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from pips.core.view import SPECTATOR
from pips.games.registry import find_game
from pips.server.accounts.identity import Identity
from pips.server.round import ForBot, ForCreator
from pips.server.settings import Settings
from pips.server.tables import Tables
from pips.store.db import Database
from tests.server_helpers import Browser, Player, Server, an_address, register, wait_for

ROOT = Path(__file__).resolve().parent.parent
ENGINE = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'heaviest.py'}"


@pytest.fixture
def server(shared_server: Server) -> Server:
    """The module's server of each database (its tests' accounts are their own)."""
    return shared_server


def api(server: Server, token: str | None = None) -> httpx.Client:
    headers = {"X-Forwarded-For": an_address()}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(base_url=server.url, headers=headers, timeout=30)


def bot_account(server: Server, name: str) -> str:
    """A new bot account: registered, a token made by its password through the API, and
    declared a bot with that token. The token."""
    assert register(Browser(server), name).status_code == 303
    with api(server) as http:
        made = http.post(
            "/api/tokens",
            json={"label": "bot", "scopes": ["play"], "name": name, "password": "password-1"},
        )
        assert made.status_code == 201, made.text
        token = str(made.json()["token"])
    with api(server, token) as http:
        upgraded = http.post("/api/bot/account/upgrade")
        assert upgraded.status_code == 200, upgraded.text
        assert upgraded.json() == {"name": name, "bot": True}
        assert upgraded.headers["RateLimit-Policy"].startswith('"bot";q=')
        assert upgraded.headers["RateLimit"].startswith('"bot";r=')
    return token


class Events(threading.Thread):
    """An account's event stream, read on a thread: every event it gave."""

    def __init__(self, client: httpx.Client) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.events: list[dict[str, Any]] = []
        self.opened = threading.Event()
        """Set once the stream answered: what happens from then on is told on it."""

    def run(self) -> None:
        try:
            with self.client.stream("GET", "/api/stream/event") as answer:
                assert answer.status_code == 200
                assert answer.headers["content-type"].startswith("application/x-ndjson")
                self.opened.set()
                for line in answer.iter_lines():
                    if line.strip():
                        self.events.append(json.loads(line))
        except httpx.HTTPError:
            pass  # closed by the test

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in list(self.events) if e["type"] == kind]


def pips_bot(server: Server, token: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PIPS_TOKEN": token, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen(
        [sys.executable, "-m", "pips", "bot", "--server", server.url, "--engine", ENGINE, *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def challenge_played(server: Server, person_name: str, first: str, second_token: str) -> str:
    """A person challenges the bot ``first`` to a game of three whose third seat is
    open; the bot's program accepts; the second bot (by its token) seeks the table; the
    person plays on the websocket to the end. The table's id."""
    person = Browser(server)
    assert register(person, person_name).status_code == 303
    events = Events(person.http)
    events.start()
    try:
        asked = person.post(
            f"/api/challenge/{first}",
            {"game": "draw", "options": {"players": 3}, "seats": [{"kind": "open"}]},
        )
        assert asked.status_code == 201, asked.text
        assert asked.json()["challenged"] == {"name": first, "bot": True}
        wait_for(lambda: events.of("challenge"), 30)
        # The bot's program accepts (the challenge no longer waits); the second bot
        # seeks the next open table of the game: the challenge's.
        wait_for(lambda: person.http.get("/api/challenge").json() == [], 30)
        with api(server, second_token) as http:
            answer = http.post("/api/bot/seek", json={"game": "draw", "options": {"players": 3}})
        assert answer.status_code == 200, answer.text
        assert answer.json()["created"] is False
        table_id = str(answer.json()["id"])
        start = wait_for(lambda: events.of("gameStart"), 30)[0]
        assert start["game"]["id"] == table_id
        player = Player(person, table_id)
        player.start()
        player.join(120)
        assert player.error is None, player.error
        record = person.http.get(f"/api/records/{table_id}").json()
        assert sorted(record["seats"]) == sorted([person_name, first, record["seats"][2]])
        # Every seat was played by its own: no stand-in made a move.
        assert record.get("stand_ins", []) == []
        wait_for(lambda: events.of("gameFinish"), 30)
        # A game with a bot account in it is never rated for people (the world list):
        # bots are rated in a pool of their own.
        entered = wait_for(
            lambda: person.http.get("/api/results", params={"player": person_name}).json()[
                "results"
            ]
        )
        assert not entered[0]["rated"] and not entered[0]["counts"]
        assert "a bot account played" in entered[0]["unrated"]
        return table_id
    finally:
        person.http.close()


def test_two_pips_bots_and_a_person_play_a_challenge_to_the_end(server: Server) -> None:
    one, other = bot_account(server, "EngineOne"), bot_account(server, "EngineTwo")
    bots = [pips_bot(server, one), pips_bot(server, other, "--accept", "people")]
    table_id = ""
    try:
        table_id = challenge_played(server, "Rosa", "EngineOne", other)
    finally:
        for process in bots:
            process.send_signal(signal.SIGINT)
        outputs = [process.communicate(timeout=30) for process in bots]
    for process, (said, complaints) in zip(bots, outputs, strict=True):
        assert process.returncode == 130, complaints
        assert "Traceback" not in complaints
        assert f"game {table_id}: finished" in said, said
    assert "from Rosa: accepted (200)" in outputs[0][0]


def documented(language: str) -> str:
    """The example bot of docs/bots-api.md in ``language``."""
    text = (ROOT / "docs" / "bots-api.md").read_text()
    return text.split(f"```{language}\n", 1)[1].split("```", 1)[0]


@pytest.mark.skipif(not Path("/usr/bin/node").exists(), reason="node (Debian's) is not here")
def test_the_documented_python_and_javascript_bots_play_a_challenge(
    server: Server, tmp_path: Path
) -> None:
    """The two complete bots of docs/bots-api.md, as printed there: the Python one is
    challenged by a person and accepts; the JavaScript one seeks the open seat; both
    play to the end."""
    python_bot, node_bot = tmp_path / "bot.py", tmp_path / "bot.mjs"
    python_bot.write_text(documented("python"))
    node_bot.write_text(documented("javascript"))
    assert len(documented("python").splitlines()) <= 45
    one, other = bot_account(server, "DocPython"), bot_account(server, "DocNode")
    programs = [
        subprocess.Popen(
            [command, str(path)],
            env={**os.environ, "PIPS_SERVER": server.url, "PIPS_TOKEN": token},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command, path, token in (
            (sys.executable, python_bot, one),
            ("/usr/bin/node", node_bot, other),
        )
    ]
    try:
        table_id = challenge_played(server, "Lena", "DocPython", other)
        record = httpx.get(f"{server.url}/api/records/{table_id}").json()
        assert {"DocPython", "DocNode"} <= set(record["seats"])
    finally:
        for program in programs:
            program.kill()
        complaints = [program.communicate(timeout=30)[1] for program in programs]
    for said in complaints:
        assert "Error" not in said, said


def test_a_returning_bot_reads_its_own_seat_after_a_stand_in(tmp_path: Path) -> None:
    """A bot (or a person) whose seat a stand-in played while it was away is sent its own
    seat's view when it connects again, not a spectator's ``seat: -1``; the moves are
    offered once the seat is its own again."""

    class Client:
        def __init__(self) -> None:
            self.got: list[dict[str, Any]] = []

        async def send(self, message: Any) -> None:
            self.got.append(dict(message))

    async def scene() -> None:
        defaults = Settings()
        tables = Tables(
            Database(f"sqlite:///{tmp_path / 'p.db'}"),
            bot_delay=3600,
            grace=defaults.grace,
            unattended=defaults.unattended,
        )
        tables.repository.db.upgrade()
        me = Identity(user_id=None, guest="g-1", name="Bo")
        table = await tables.create(
            find_game("draw"),
            find_game("draw").options_from_json({"players": 2}),
            [ForCreator(), ForBot("greedy")],
            me,
            seed=3,
        )
        await table.start_if_ready()
        seat = table.seat_of(me)
        assert seat >= 0
        async with table.lock:
            table.round.take_over(seat)
        assert table.seat_of(me) == SPECTATOR  # the stand-in holds it
        client = Client()
        await table.client_arrived(client, me)
        states = [m for m in client.got if m["type"] == "state"]
        assert states[0]["seat"] == seat
        assert "hand_order" in states[0]
        # Given back at once, or at its turn (then by the table's task).
        if table.round.holder(seat).taken_over:
            assert table.task is not None
            await table.task
        assert table.seat_of(me) == seat
        last = [m for m in client.got if m["type"] == "state"][-1]
        assert last["seat"] == seat
        match = table.round.match
        assert match is not None
        assert ("legal" in last) == (match.current_seat == seat)
        for task in [table.task, *table.timers, *table.empty.values()]:
            if task is not None:
                task.cancel()
        if table.unattended is not None:
            table.unattended.cancel()
        tables.repository.close()

    asyncio.run(scene())
