"""A real pips server process on 127.0.0.1 for tests, and clients that talk to it."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.databases import POSTGRES, database_urls, new_database
from tests.protocol_schema import check_server_message
from tests.tiers import starting_a_process

if TYPE_CHECKING:
    from pips.server.accounts.identity import Identity
    from pips.server.round import Round

__all__ = ["POSTGRES", "database_urls", "new_database"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``pips serve`` in a child process over a database URL (SQLite file by default);
    :class:`tests.in_thread.ThreadServer` serves the same app in a thread instead."""

    def __init__(
        self,
        home: Path,
        database: str | None = None,
        bot_delay: float = 0.0,
        grace: float = 60,
        extra: tuple[str, ...] = (),
        analyse_while_playing: int | None = 0,
    ) -> None:
        self.home = home
        self.extra = extra
        self.analyse_while_playing = analyse_while_playing
        """Games analysed as they are played: none by default in the tests (their
        games need no analysis, and every core is the tests'); ``None``: the server's
        own default."""
        self.analysis_level = "easy"
        """The analyses' search: the tests read what an analysis shows, not how good
        its values are, and at ``normal`` one game's analysis took a test 14 s of an
        idle machine, 48 s of a busy one."""
        self.grace = grace
        self.database = database or f"sqlite:///{home / 'pips.db'}"
        self.bot_delay = bot_delay
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    tls: ssl.SSLContext | None = None
    """The context a client trusts this server's certificate with (plain HTTP: none)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Server:
        starting_a_process("pips serve")
        env = {**os.environ, "PIPS_HOME": str(self.home), "PIPS_SECRET": "test-secret"}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pips",
                "serve",
                "--port",
                str(self.port),
                "--database",
                self.database,
                "--bot-delay",
                str(self.bot_delay),
                "--grace",
                str(self.grace),
                "--no-warm-up",  # the tests' bots do not search
                "--analysis-level",
                self.analysis_level,
                *(
                    ()
                    if self.analyse_while_playing is None
                    else ("--analyse-while-playing", str(self.analyse_while_playing))
                ),
                *self.extra,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.home / "server.log", "ab"),  # noqa: SIM115 - lives with the process
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/tables", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
            if self.process.poll() is not None:
                break
        raise RuntimeError("the server did not start: " + (self.home / "server.log").read_text())

    def run_pips(self, *arguments: str) -> str:
        """Run ``pips`` on this server's machine and database (as an administrator
        would); its output, or an error with what it said."""
        env = {**os.environ, "PIPS_HOME": str(self.home), "PIPS_SECRET": "test-secret"}
        done = subprocess.run(
            [sys.executable, "-m", "pips", *arguments, "--database", self.database],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"pips {' '.join(arguments)}: {done.stdout}{done.stderr}")
        return done.stdout

    def kill(self) -> None:
        """Kill without warning (SIGKILL): nothing gets to clean up."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def running(
    home: Path,
    database: str | None = None,
    bot_delay: float = 0.0,
    grace: float = 60,
    extra: tuple[str, ...] = (),
    limits: dict[str, tuple[float, float]] | None = None,
) -> Iterator[Server]:
    """A server for the block: in a thread of this process (tests/in_thread.py, with
    ``limits`` other than the defaults), or, given ``extra`` options of ``pips serve``'s
    command line, ``pips serve`` itself."""
    from tests.in_thread import ThreadServer

    server = (
        Server(home, database, bot_delay, grace, extra=extra)
        if extra
        else ThreadServer(home, database, bot_delay, grace, limits=limits)
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


def an_address() -> str:
    """An address of its own for one client (told by the proxy header the server trusts
    from 127.0.0.1), as people have: the limits per address apply to each alone, so tests
    sharing a server do not use up one another's allowance."""
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


class Site(Protocol):
    """Where a browser goes: a server, or a proxy in front of several."""

    @property
    def url(self) -> str: ...

    @property
    def ws_url(self) -> str: ...

    @property
    def tls(self) -> ssl.SSLContext | None: ...


class Browser:
    """One person's cookies: an HTTP client with a session, and websockets as them."""

    def __init__(self, server: Site, name: str | None = None) -> None:
        self.server = server
        self.address = an_address()
        headers = {"X-Forwarded-For": self.address}
        in_process = getattr(server, "client", None)  # tests.in_process.InProcess
        self.http = (
            in_process(headers)
            if in_process is not None
            else httpx.Client(
                base_url=server.url, timeout=30, headers=headers, verify=server.tls or True
            )
        )
        self.csrf = self.http.get("/api/session").json()["csrf"]
        if name is not None:
            response = self.form("/guest", name=name)
            assert response.status_code == 303, response.text

    def form(self, path: str, **data: str) -> httpx.Response:
        """Send a form with the session's CSRF token; signing in makes a new one, which
        is read again afterwards."""
        response = self.http.post(path, data={**data, "csrf": self.csrf})
        self.csrf = self.http.get("/api/session").json()["csrf"]
        return response

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})

    def create(self, game: str, options: dict[str, Any], seats: list[Any], **extra: Any) -> str:
        response = self.post(
            "/api/tables", {"game": game, "options": options, "seats": seats, **extra}
        )
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def socket(self, table_id: str, invite: str = "") -> ClientConnection:
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        uri = f"{self.server.ws_url}/ws/{table_id}?invite={invite}"
        headers = {"X-Forwarded-For": self.address, **({"Cookie": cookie} if cookie else {})}
        if "accept-language" in self.http.headers:
            headers["Accept-Language"] = self.http.headers["accept-language"]
        connection = connect(uri, additional_headers=headers, ssl=self.server.tls)
        # Entered as a context manager (websockets 17.1 warns otherwise); callers close it.
        return CheckedConnection(connection.__enter__())  # type: ignore[return-value]


class CheckedConnection:
    """A websocket whose every message received is checked against the protocol's
    AsyncAPI document (and the server's declared types): what a test sees, a client
    written from the document can read."""

    def __init__(self, connection: ClientConnection) -> None:
        self._connection = connection

    def recv(self, *args: Any, **kwargs: Any) -> Any:
        frame = self._connection.recv(*args, **kwargs)
        check_server_message(json.loads(frame))
        return frame

    def __enter__(self) -> CheckedConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self._connection.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


class Player(threading.Thread):
    """A websocket client that records every message and, when ``plays``, makes the
    first legal move whenever it is its turn, until the match is over."""

    def __init__(self, browser: Browser, table_id: str, plays: bool = True) -> None:
        super().__init__(daemon=True)
        self.connection = browser.socket(table_id)
        self.plays = plays
        self.patience = 30.0
        self.messages: list[dict[str, Any]] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while True:
                # A client that hears nothing for this long is a failure, not a hang.
                # Every message is checked against the protocol's document on the way
                # in (CheckedConnection).
                message = json.loads(self.connection.recv(timeout=self.patience))
                self.messages.append(message)
                if message.get("type") != "state":
                    continue
                match = message.get("match") or {}
                if match.get("over"):
                    return
                if self.plays and message.get("legal"):
                    choice = len(message["legal"]) - 1
                    self.connection.send(
                        json.dumps(
                            {
                                "v": 1,
                                "type": "move",
                                "move": choice,
                                "moves_made": message["moves_made"],
                            }
                        )
                    )
        except Exception as exc:  # reported by the test
            self.error = exc
        finally:
            self.connection.close()


def wait_for(check: Any, timeout: float = 60.0, every: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("timed out waiting")


def first_state(connection: Any) -> dict[str, Any]:
    """The next ``state`` message on a websocket (others are skipped)."""
    while True:
        message = json.loads(connection.recv(timeout=30))
        if message["type"] == "state":
            return dict(message)


def bots(n: int) -> list[dict[str, str]]:
    """``n`` greedy bot seats."""
    return [{"kind": "bot", "bot": "greedy"}] * n


def register(browser: Browser, name: str, password: str = "password-1") -> httpx.Response:
    return browser.form("/register", name=name, password=password)


def new_round(
    game: str,
    options: dict[str, Any],
    seats: list[Any],
    creator: Identity,
    seed: int | None = None,
    key: str | None = None,
) -> Round:
    """A round as a client's request makes one: the body parsed where it enters the
    server (a refused one raises pydantic's ``ValidationError``), then the round made
    of what was parsed."""
    from pips.server.round import Round
    from pips.server.routes.tables import NewTable

    body = NewTable.model_validate({"game": game, "options": options, "seats": seats})
    return Round.new(body.spec, body.chosen, [s.choice() for s in body.seats], creator, seed, key)
