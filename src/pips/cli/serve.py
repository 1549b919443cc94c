"""``pips serve``: the pips server."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import typer

from pips import __version__
from pips.cli.base import app, fail, out
from pips.i18n import _
from pips.server.analyses import LEVELS
from pips.server.limits import Limits
from pips.server.settings import Settings

DEFAULTS = Settings()
"""The server's defaults, which are the options' (declared once, in Settings)."""


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(help="Database URL (default $PIPS_DATABASE_URL, else SQLite in $PIPS_HOME)."),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before its move (0 to 5).")
    ] = DEFAULTS.bot_delay,
    grace: Annotated[
        float,
        typer.Option(help="Seconds a player may be away during a game before a bot takes over."),
    ] = DEFAULTS.grace,
    unattended: Annotated[
        float,
        typer.Option(
            help="Seconds a table is kept with nobody connected (no player, no spectator) "
            "before it is abandoned."
        ),
    ] = DEFAULTS.unattended,
    https_cookies: Annotated[
        bool, typer.Option(help="Send the session cookie over HTTPS only (behind TLS).")
    ] = DEFAULTS.https_cookies,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="The site's address as its users know it (https://domino.example), "
            "printed on the score sheets; without it, the address the browser asked for."
        ),
    ] = DEFAULTS.public_url,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help="Addresses of reverse proxies whose X-Forwarded-For names the client "
            "(comma-separated, '*' for any); the limits per address count that client."
        ),
    ] = "127.0.0.1",
    warm_up: Annotated[
        bool, typer.Option(help="Compile the search bots' kernel at start, in the background.")
    ] = DEFAULTS.warm,
    analyse_while_playing: Annotated[
        int,
        typer.Option(
            min=0,
            max=64,
            help="Games analysed as they are played, a few moves at a time, at a lower "
            "priority than the tables, so that a game's analysis is ready when it ends (0: "
            "only when asked).",
        ),
    ] = DEFAULTS.analyse_while_playing,
    analysis_level: Annotated[
        str,
        typer.Option(
            help="How hard the analyses search: easy, normal or hard (docs/bots.md); "
            "easy spends a tenth of normal's playouts and solves no endgame."
        ),
    ] = DEFAULTS.analysis_level,
    broker: Annotated[
        str | None,
        typer.Option(
            help="Redis URL (default $PIPS_BROKER_URL): run as one of several processes "
            "over one PostgreSQL database (docs/server.md)."
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(help="Server processes on this port (more than 1 needs --broker).")
    ] = 1,
    lease: Annotated[
        float,
        typer.Option(help="Seconds a dead process's tables wait before another takes them."),
    ] = DEFAULTS.lease,
    log_json: Annotated[
        bool, typer.Option(help="Log one JSON object per line (for a log collector).")
    ] = DEFAULTS.log_json,
    backups: Annotated[
        Path | None,
        typer.Option(
            envvar="PIPS_BACKUP_DIR",
            metavar="DIR",
            help="Back the site up into this folder while serving (docs/server.md, "
            '"Operations"); /metrics tells the newest backup\'s age.',
        ),
    ] = None,
    backup_every: Annotated[
        float, typer.Option(min=0.01, max=24 * 366, help="Hours between backups.")
    ] = 24.0,
    backup_keep: Annotated[
        int, typer.Option(min=1, max=10_000, help="How many backups are kept (the newest).")
    ] = 7,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME=BURST/PER_MINUTE",
            help="A rate limit other than the default (repeatable; "
            "names: " + ", ".join(LIMIT_NAMES) + "; docs/server.md).",
        ),
    ] = None,
) -> None:
    """Run the pips server: play in the browser with friends and bots."""
    if not 0 <= bot_delay <= 5:
        fail(_("--bot-delay must be 0 to 5 seconds"))
    if not 1 <= grace <= 3600:
        fail(_("--grace must be 1 to 3600 seconds"))
    if not 1 <= unattended <= 86400:
        fail(_("--unattended must be 1 to 86400 seconds"))
    if not 1 <= port <= 65535:
        fail(_("--port must be 1 to 65535"))
    if not 1 <= workers <= 64:
        fail(_("--workers must be 1 to 64"))
    if not 2 <= lease <= 120:
        fail(_("--lease must be 2 to 120 seconds"))
    if analysis_level not in LEVELS:
        fail(
            _("--analysis-level must be easy, normal or hard, not {text!r}").format(
                text=analysis_level
            )
        )
    limits = {name: rate for name, rate in map(read_limit, limit or [])}
    broker = broker or os.environ.get("PIPS_BROKER_URL") or None
    if workers > 1 and broker is None:
        fail(_("several processes (--workers) need a broker: --broker redis://HOST:6379/0"))
    import uvicorn

    from pips.server.app import settings_app
    from pips.store.db import Database

    using = database or "the default database"
    try:
        db = Database(database)
        if broker is not None and db.engine.dialect.name != "postgresql":
            fail(_("several processes need PostgreSQL (--database postgresql+psycopg://...)"))
        if broker is not None:
            import redis

            using = broker
            redis.Redis.from_url(broker).ping()
    except typer.Exit:
        raise
    except Exception as exc:  # a malformed URL, a missing driver, no broker there
        fail(_("cannot use {url!r}: {problem}").format(url=hidden_password(using), problem=exc))
    settings = Settings(
        database=db.url,
        bot_delay=bot_delay,
        grace=grace,
        unattended=unattended,
        warm=warm_up,
        https_cookies=https_cookies,
        public_url=public_url,
        broker=broker,
        lease=lease,
        log_json=log_json,
        limits=limits,
        analyse_while_playing=analyse_while_playing,
        analysis_level=analysis_level,
    )
    if backups is not None:
        from pips.store.backup import BACKUP_DIR, Schedule

        # The processes' /metrics read the folder's newest backup (workers inherit it).
        os.environ[BACKUP_DIR] = str(backups.resolve())
        # The schema the first backup reads (the server would upgrade it on its start,
        # alembic in two threads at once does not).
        try:
            db.upgrade()
        except Exception as exc:  # no database there
            fail(
                _("cannot use {url!r}: {problem}").format(url=hidden_password(db.url), problem=exc)
            )
        Schedule(db.url, backups, backup_every, backup_keep).start()
    shown = f"[{host}]" if ":" in host else host
    many = f", {workers} processes, broker {hidden_password(broker)}" if broker else ""
    out.print(
        f"pips {__version__} serving on http://{shown}:{port}/ (database {db.engine.url!r}{many})"
    )
    # No per-message deflate: state messages are small, and compressing each one for
    # every seat cost the server more than it saved (measured with benchmarks.load).
    common: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": "warning",
        "ws_max_size": 4096,
        "ws_per_message_deflate": False,
        "proxy_headers": True,
        "forwarded_allow_ips": forwarded_allow_ips,
    }
    # uvicorn stops on SIGTERM and then raises it again, for the handler that was
    # there before: Python's default killed the process on the spot, so its exit
    # handlers never ran and multiprocessing's resource tracker found the papers' and
    # analyses' pools' semaphores never unlinked ("leaked semaphore objects"). Ended as
    # by sys.exit, the process runs them; its status is still a SIGTERM's (128 + 15).
    signal.signal(signal.SIGTERM, _exit_when_stopped)
    if workers == 1:
        uvicorn.run(settings_app(settings), **common)
        return
    # uvicorn's supervisor shares the socket among the processes, starts a new one for
    # each that dies, and replaces them one by one on SIGHUP (a rolling restart).
    os.environ[Settings.VARIABLE] = settings.to_json()
    # A new process joins the others (database, broker, orphaned tables) before it
    # answers; on a busy machine that takes longer than uvicorn's 5 s, and a restart
    # given up half way keeps the old process.
    uvicorn.run(
        "pips.server.app:from_environment",
        factory=True,
        workers=workers,
        timeout_worker_healthcheck=60,
        **common,
    )


def _exit_when_stopped(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


LIMIT_NAMES = tuple(Limits().rates())


def read_limit(text: str) -> tuple[str, tuple[float, float]]:
    """``NAME=BURST/PER_MINUTE`` as (name, (burst, per minute)); a clear error otherwise."""
    name, _equals, rate = text.partition("=")
    burst, _slash, per_minute = rate.partition("/")
    try:
        numbers = (float(burst), float(per_minute))
    except ValueError:
        numbers = (0.0, 0.0)
    if name.strip() not in LIMIT_NAMES or not all(0 < n <= 1_000_000 for n in numbers):
        fail(
            _("--limit {text!r}: give NAME=BURST/PER_MINUTE, NAME one of {names}").format(
                text=text, names=", ".join(LIMIT_NAMES)
            )
        )
    return name.strip(), numbers


def hidden_password(url: str) -> str:
    """``url`` as it may be printed: a password in it is not shown."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()
