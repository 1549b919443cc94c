"""How a server is set up, every default declared once, here.

``pips serve`` builds :class:`Settings` from its options (whose defaults are read from
here, tests/test_cli_edges.py checks), :func:`pips.server.app.create_app` makes the app
they describe, and the parts they reach (the tables, the analyses) are handed the values,
with no defaults of their own. A leaf: the command reads it without loading the server."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import ClassVar


@dataclass(frozen=True)
class Settings:
    """The server's settings; given to each worker process uvicorn starts through the
    environment (:attr:`VARIABLE`, as JSON)."""

    VARIABLE: ClassVar[str] = "PIPS_SERVE_SETTINGS"

    database: str | None = None
    """The database's URL (none: ``$PIPS_DATABASE_URL``, else SQLite in ``$PIPS_HOME``)."""
    bot_delay: float = 0.6
    """Seconds a bot waits before its move."""
    grace: float = 60.0
    """Seconds a player may be away during a game before a bot takes the seat."""
    unattended: float = 900.0
    """Seconds a table is kept with nobody connected before it is abandoned."""
    warm: bool = True
    """Compile the search bots' kernel at start, in the background."""
    https_cookies: bool = False
    """The session cookie goes over HTTPS only (behind TLS)."""
    publish_lists: bool = True
    """Publish each month's world list once the month is over (checked at start and
    hourly)."""
    broker: str | None = None
    """A Redis URL: one of several processes over one PostgreSQL database
    (:mod:`pips.server.cluster`)."""
    lease: float = 5.0
    """Seconds a dead process's tables wait before another takes them (renewed every
    second)."""
    log_json: bool = False
    """Log one JSON object per line."""
    analyse_while_playing: int = 4
    """Games analysed at once as they are played, a few moves at a time (0: only when
    asked)."""
    analysis_level: str = "normal"
    """How hard the analyses search (easy, normal or hard; docs/bots.md)."""
    public_url: str | None = None
    """The site's address as its users know it (``https://domino.example``), printed on
    papers that point back to it. Without it a sheet names the host the browser asked
    for, which a client may make up: a server on the internet sets it, and then no
    request's Host makes the same sheet be printed again (hostile review)."""
    limits: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Rate limits set other than by default: name to (burst, per minute)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Settings:
        values = json.loads(text)
        values["limits"] = {name: tuple(rate) for name, rate in values["limits"].items()}
        return cls(**values)
