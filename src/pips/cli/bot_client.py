"""The client of ``pips bot`` (:mod:`pips.cli.bot`): its event stream, its games and
its engines. Imported when the command runs: httpx comes with the server extra, and
the rest of the ``pips`` command needs none of it."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from pips.bots.external import BotError, ExternalBot
from pips.cli.base import err, fail, out
from pips.cli.bot import Policy
from pips.i18n import _

MOST_BACKOFF = 60.0
"""Seconds at most between two attempts to open a dropped stream again."""
READ_SECONDS = 30.0
"""A stream silent this long (it sends an empty line every 7 s) is taken as dropped."""


@dataclass
class BotClient:
    """One account's connection to a server: its event stream, its games' threads."""

    server: str
    token: str
    engine: str
    accept: Policy = "any"
    games: tuple[str, ...] = ()
    stop: threading.Event = field(default_factory=threading.Event)
    playing: dict[str, threading.Thread] = field(default_factory=dict)
    name: str = ""
    open: list[httpx.Client] = field(default_factory=list)

    def client(self) -> httpx.Client:
        made = httpx.Client(
            base_url=self.server.rstrip("/"),
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=httpx.Timeout(30.0, read=READ_SECONDS),
        )
        self.open.append(made)
        return made

    def shutdown(self) -> None:
        """Stop: every stream is closed under its reader, whose game ends (its engine
        with it); the server's stand-in plays a seat left during a game."""
        self.stop.set()
        for made in list(self.open):
            with contextlib.suppress(Exception):
                made.close()
        for thread in list(self.playing.values()):
            thread.join(timeout=10)

    def say(self, text: str) -> None:
        out.print(text, markup=False)

    # -- the event stream ---------------------------------------------------------------

    def run(self) -> None:
        """Follow the account's events until stopped."""
        with self.client() as http:
            answer = http.get("/api/bot/account")
            if answer.status_code in (401, 403):
                fail(_("the server refused the token: {why}").format(why=_why(answer)))
            answer.raise_for_status()
            self.name = str(answer.json()["name"])
            self.say(
                _("connected to {server} as {name}").format(server=self.server, name=self.name)
            )
            for event in self.lines(http, "/api/stream/event"):
                self.handle(http, event)

    def lines(self, http: httpx.Client, path: str) -> Iterator[dict[str, Any]]:
        """The objects of an NDJSON stream, opened again after a pause whenever it drops,
        until stopped (or, for a game, until the server says there is no such game)."""
        pause = 1.0
        while not self.stop.is_set():
            try:
                with http.stream("GET", path) as answer:
                    if answer.status_code == 404:
                        return
                    if answer.status_code in (401, 403):
                        answer.read()
                        fail(_("the server refused the token: {why}").format(why=_why(answer)))
                    if answer.status_code == 429:
                        wait = float(answer.headers.get("retry-after", "10"))
                        self.stop.wait(min(wait, MOST_BACKOFF))
                        continue
                    answer.raise_for_status()
                    pause = 1.0
                    for line in answer.iter_lines():
                        if self.stop.is_set():
                            return
                        if line.strip():
                            yield json.loads(line)
            except (httpx.HTTPError, json.JSONDecodeError) as exc:
                if self.stop.is_set():
                    return
                err.print(
                    _("the stream {path} dropped ({why}); again in {seconds:.0f} s").format(
                        path=path, why=type(exc).__name__, seconds=pause
                    ),
                    markup=False,
                )
                self.stop.wait(pause)
                pause = min(MOST_BACKOFF, pause * 2)
                continue
            if path != "/api/stream/event":
                return  # a game's stream ends with its game

    def handle(self, http: httpx.Client, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge":
            challenge = event["challenge"]
            if challenge["challenged"]["name"] != self.name or challenge["status"] != "created":
                return
            welcome = self.welcome(challenge)
            verdict = "accept" if welcome else "decline"
            answer = http.post(f"/api/challenge/{challenge['id']}/{verdict}")
            said = (
                _("challenge {id} from {name}: accepted ({status})")
                if welcome
                else _("challenge {id} from {name}: declined ({status})")
            )
            self.say(
                said.format(
                    id=challenge["id"],
                    name=challenge["challenger"]["name"],
                    status=answer.status_code,
                )
            )
        elif kind == "gameStart":
            self.start_game(event["game"]["id"])

    def welcome(self, challenge: dict[str, Any]) -> bool:
        """Whether the policy accepts a challenge (``--accept``, ``--game``)."""
        if self.games and challenge["game"] not in self.games:
            return False
        if self.accept in ("any", "none"):
            return self.accept == "any"
        return (self.accept == "bots") == bool(challenge["challenger"]["bot"])

    # -- games ------------------------------------------------------------------------

    def start_game(self, table_id: str) -> None:
        running = self.playing.get(table_id)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(
            target=self.play, args=(table_id,), name=f"game-{table_id}", daemon=True
        )
        self.playing[table_id] = thread
        thread.start()

    def play(self, table_id: str) -> None:
        """Play one game to its end: at each turn the engine decides, the move is
        posted (a stale one is refused, and the next state message comes anyway)."""
        engine = ExternalBot(self.engine)
        self.say(_("game {id}: playing").format(id=table_id))
        try:
            with self.client() as http:
                for message in self.lines(http, f"/api/bot/game/stream/{table_id}"):
                    if message.get("type") != "state":
                        continue
                    status = message["table"]["status"]
                    if message.get("legal") and message.get("seat", -1) >= 0:
                        index = engine.decide(message["view"], message["legal"])
                        http.post(
                            f"/api/bot/game/{table_id}/move/{index}",
                            params={"moves_made": message["moves_made"]},
                        )
                    if status in ("finished", "abandoned"):
                        self.say(_("game {id}: {status}").format(id=table_id, status=status))
                        return
        except BotError as exc:
            # The seat is left to the server: a stand-in plays it after the grace period.
            err.print(_("game {id}: the engine failed: {why}").format(id=table_id, why=exc))
        except (httpx.HTTPError, RuntimeError) as exc:  # a client closed under it: stopped
            if not self.stop.is_set():
                err.print(_("game {id}: {why}").format(id=table_id, why=type(exc).__name__))
        finally:
            engine.close()


def _why(answer: httpx.Response) -> str:
    try:
        return str(answer.json().get("message", answer.status_code))
    except (ValueError, AttributeError):
        return str(answer.status_code)
