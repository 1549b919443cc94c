"""``pips serve``: the pips server."""

from __future__ import annotations

from typing import Annotated

import typer

from pips import __version__
from pips.cli.base import app, fail, out
from pips.i18n import _


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
    ] = 0.6,
    grace: Annotated[
        float,
        typer.Option(help="Seconds a player may be away during a game before a bot takes over."),
    ] = 60.0,
    https_cookies: Annotated[
        bool, typer.Option(help="Send the session cookie over HTTPS only (behind TLS).")
    ] = False,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help="Addresses of reverse proxies whose X-Forwarded-For names the client "
            "(comma-separated, '*' for any); the limits per address count that client."
        ),
    ] = "127.0.0.1",
    warm_up: Annotated[
        bool, typer.Option(help="Compile the search bots' kernel at start, in the background.")
    ] = True,
) -> None:
    """Run the pips server: play in the browser with friends and bots."""
    if not 0 <= bot_delay <= 5:
        fail(_("--bot-delay must be 0 to 5 seconds"))
    if not 1 <= grace <= 3600:
        fail(_("--grace must be 1 to 3600 seconds"))
    if not 1 <= port <= 65535:
        fail(_("--port must be 1 to 65535"))
    import uvicorn

    from pips.server.app import create_app
    from pips.store.db import Database

    try:
        db = Database(database)
    except Exception as exc:  # a malformed URL or a missing driver
        fail(_("cannot use database {url!r}: {problem}").format(url=database, problem=exc))
    server_app = create_app(
        db, bot_delay=bot_delay, grace=grace, warm=warm_up, https_cookies=https_cookies
    )
    shown = f"[{host}]" if ":" in host else host
    out.print(f"pips {__version__} serving on http://{shown}:{port}/ (database {db.engine.url!r})")
    # No per-message deflate: state messages are small, and compressing each one for
    # every seat cost the server more than it saved (measured with benchmarks.load).
    uvicorn.run(
        server_app,
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=4096,
        ws_per_message_deflate=False,
        proxy_headers=True,
        forwarded_allow_ips=forwarded_allow_ips,
    )
