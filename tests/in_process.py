"""The app in this process, for the tests whose server process is incidental: what they
ask goes through starlette's TestClient (no port, no process to start, 1-2 s of start-up
saved per server), and :class:`tests.server_helpers.Browser` talks to it as to a real
server (each person at an address of their own). No websockets: tests of those keep a
real server."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx


def cheap_hashing() -> None:
    """Lower the password hashes' cost of the apps this process makes from now on to
    argon2id's least: a person registered cost a quarter of a second of hashing, most
    of a page test's time. The same code runs; a server a test starts (``pips serve``)
    hashes at the real cost."""
    from pips.server import accounts

    accounts.PASSWORD_HASHING = accounts.HashCost(time_cost=1, memory_cost=1024)


class InProcess:
    """``create_app`` over a database of its own, its lifespan running while entered."""

    url = "http://testserver"
    tls = None

    def __init__(self, home: Path, database: str | None = None) -> None:
        from fastapi.testclient import TestClient

        from pips.server.app import create_app
        from pips.server.settings import Settings
        from pips.store.db import Database

        cheap_hashing()
        self.db = Database(database or f"sqlite:///{home / 'pips.db'}")
        # As tests.server_helpers.Server starts pips serve: bots move at once, no
        # warm-up, no analyses while playing, no monthly lists.
        settings = Settings(bot_delay=0.0, warm=False, publish_lists=False, analyse_while_playing=0)
        self.app = create_app(settings, db=self.db, secret="test-secret")
        self._life = TestClient(self.app)

    @property
    def ws_url(self) -> str:
        raise NotImplementedError("no websockets in process: this test needs a real server")

    def client(self, headers: dict[str, str]) -> httpx.Client:
        """An HTTP client of its own (its own cookies) for one person."""
        from fastapi.testclient import TestClient

        # As httpx.Client (the real server's clients): a redirect is an answer. The
        # address the real server reads from X-Forwarded-For (behind its trusted proxy)
        # is the client's own here: each person has their own, as there.
        address = headers.get("X-Forwarded-For", "testclient")
        return TestClient(
            self.app,
            base_url=self.url,
            headers=headers,
            follow_redirects=False,
            client=(address, 50000),
        )

    def __enter__(self) -> InProcess:
        self._life.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._life.__exit__(*exc)
        self.db.dispose()
