"""The app served by uvicorn on 127.0.0.1 in a thread of the test's process: a real
server on a real port (HTTP, websockets, a browser, a bot program or a terminal client
connect to it as to ``pips serve``), without a process of its own to start.

A ``pips serve`` started for a test cost about 2.6 CPU-seconds (Python, the imports, the
app), most of it before the first request, and the suite started over a hundred of them
on a machine of two cores (docs/benchmarks.md, "Test time"). Here the test's process has
imported the app already; what is left is the app's start.

What needs the process keeps :class:`tests.server_helpers.Server`: a server killed or
stopped by a signal, its worker processes and their priorities, its command line's own
options (``--backups``, ``--workers``), and several servers over one database."""

from __future__ import annotations

import logging
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from tests.server_helpers import Server

SERVER_LOGGERS = ("pips", "uvicorn.error")
"""What a served app says (the server's own lines, and an error in a request), written
to ``server.log`` in the server's home, as ``pips serve`` writes its standard error, and
only there while a server runs (not to pytest's handlers: see :class:`PlainTracebacks`)."""


class PlainTracebacks(logging.Formatter):
    """A log line's traceback without the carets under the failing expression: to place
    them, Python 3.11 parses the line (``ast.parse``), and its parser's state is shared
    by the process's threads. A server thread formatting an error while pytest, in the
    test's thread, parses a failed test's source broke both ("AST constructor recursion
    depth mismatch", pytest's INTERNALERROR: the failure's own message lost)."""

    def formatException(self, ei: Any) -> str:
        kind, error, trace = ei
        frames = traceback.StackSummary.extract(traceback.walk_tb(trace))
        for frame in frames:
            frame.colno = frame.end_colno = None
        return "Traceback (most recent call last):\n" + "".join(
            [*frames.format(), *traceback.format_exception_only(kind, error)]
        ).rstrip("\n")


class ThreadServer(Server):
    """The app ``Settings`` describe with what ``pips serve`` is given by
    :class:`~tests.server_helpers.Server` (no warm-up, no analyses while playing, the
    easy analyses), served in a thread while started. It has no process to kill."""

    def __init__(
        self,
        home: Path,
        database: str | None = None,
        bot_delay: float = 0.0,
        grace: float = 60,
        unattended: float | None = None,
        limits: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        super().__init__(home, database, bot_delay, grace)
        self.unattended = unattended
        self.limits = limits or {}
        self._served: Any = None  # uvicorn.Server
        self._thread: threading.Thread | None = None
        self._log: logging.Handler | None = None
        self._db: Any = None

    def start(self) -> ThreadServer:
        import uvicorn

        from pips.server.app import create_app
        from pips.server.settings import Settings
        from pips.store.db import Database
        from tests.in_process import cheap_hashing

        cheap_hashing()
        optional: dict[str, Any] = {
            "unattended": self.unattended,
            "analyse_while_playing": self.analyse_while_playing,
        }
        settings = Settings(
            database=self.database,
            bot_delay=self.bot_delay,
            grace=self.grace,
            limits=self.limits,
            warm=False,  # --no-warm-up: the tests' bots do not search
            analysis_level=self.analysis_level,
            # None: the server's default, as Server leaves the option out.
            **{name: value for name, value in optional.items() if value is not None},
        )
        self._db = Database(self.database)
        app = create_app(settings, db=self._db, secret="test-secret")
        self._log = logging.FileHandler(self.home / "server.log", encoding="utf-8")
        self._log.setFormatter(PlainTracebacks("%(asctime)s %(levelname)s %(message)s"))
        for name in SERVER_LOGGERS:
            logger = logging.getLogger(name)
            logger.addHandler(self._log)
            logger.propagate = False
        logging.getLogger("pips").setLevel(logging.INFO)
        # As pips serve configures uvicorn (cli/serve.py); uvicorn's logging left as the
        # test's (no log_config: pytest keeps what is logged).
        self._served = uvicorn.Server(
            uvicorn.Config(
                app,
                host="127.0.0.1",
                port=self.port,
                log_config=None,
                log_level="warning",
                ws_max_size=4096,
                ws_per_message_deflate=False,
                proxy_headers=True,
                forwarded_allow_ips="127.0.0.1",
                timeout_graceful_shutdown=5,
            )
        )
        self._thread = threading.Thread(
            target=self._served.run, name=f"server-{self.port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self._served.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    "the server did not start: " + (self.home / "server.log").read_text()
                )
            time.sleep(0.02)
        return self

    def kill(self) -> None:
        raise TypeError("a server in a thread has no process to kill: use Server")

    def stop(self) -> None:
        if self._served is not None and self._thread is not None:
            self._served.should_exit = True
            self._thread.join(60)
        if self._log is not None:
            for name in SERVER_LOGGERS:
                logger = logging.getLogger(name)
                logger.removeHandler(self._log)
                # Another server of this process may still be writing its own log.
                logger.propagate = not any(
                    isinstance(handler.formatter, PlainTracebacks) for handler in logger.handlers
                )
            self._log.close()
            self._log = None
        if self._db is not None:
            self._db.dispose()
            self._db = None
