"""The database: an engine from ``PIPS_DATABASE_URL`` (SQLite file by default), the
schema brought up to date by alembic, and sessions."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from pips.paths import pips_home

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = 0x70697073
"""The PostgreSQL advisory lock held while the schema is migrated ("pips")."""


def default_url() -> str:
    """``PIPS_DATABASE_URL``, else a SQLite file in ``$PIPS_HOME`` (default ~/.pips)."""
    return os.environ.get("PIPS_DATABASE_URL") or f"sqlite:///{pips_home() / 'pips.db'}"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


class Database:
    """An engine and its sessions; :meth:`upgrade` applies the migrations."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self.engine: Engine = create_engine(self.url)
        self._checkpoints: _Checkpoints | None = None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", self._sqlite_pragmas)
            # A new SQLite file may be named in a folder not made yet (a restore into
            # a new site): SQLite makes the file, not its folder.
            file = self.engine.url.database
            if file not in (None, "", ":memory:") and not str(file).startswith("file:"):
                Path(str(file)).parent.mkdir(parents=True, exist_ok=True)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def checkpoint_in_background(self, every: float = 0.5) -> None:
        """On SQLite, copy the write-ahead log into the database from a thread of its
        own, and never in a commit. SQLite otherwise does it in whichever commit finds
        the log past 1,000 pages, and that commit (a move of some table) then waits
        for the pages to be written and synced: at 400 moves a second it was the
        server's slowest moves (100-250 ms, benchmarks/load.py). A no-op elsewhere."""
        in_memory = self.engine.url.database in (None, "", ":memory:")
        if self.engine.dialect.name != "sqlite" or in_memory or self._checkpoints is not None:
            return
        self._checkpoints = _Checkpoints(self.engine, every)
        self.engine.dispose()  # the pooled connections were opened checkpointing
        self._checkpoints.start()

    def _sqlite_pragmas(self, connection: object, _record: object) -> None:
        # WAL lets readers go on while a move is written; foreign keys are off by
        # default; a commit in WAL mode need not sync (a checkpoint does).
        cursor = connection.cursor()  # type: ignore[attr-defined]
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        if self._checkpoints is not None:
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (idempotent)."""
        config = alembic_config(self.url)
        sqlite = self.engine.dialect.name == "sqlite"
        with self.engine.connect() as connection:
            if sqlite:
                # SQLite alters a table by copying it and dropping the old one, which
                # its foreign keys refuse while rows point at it: off for the upgrade
                # (a pragma only takes effect outside a transaction).
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            with connection.begin():
                if self.engine.dialect.name == "postgresql":
                    # Several server processes start at once: one migrates, the others
                    # wait for it (the lock ends with the transaction).
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()

    def session(self) -> Session:
        return self.sessions()

    def stop_checkpoints(self) -> None:
        """Back to SQLite's own checkpoints, after a last one."""
        if self._checkpoints is not None:
            self._checkpoints.stop()
            self._checkpoints = None
            self.engine.dispose()

    def dispose(self) -> None:
        self.stop_checkpoints()
        self.engine.dispose()


class _Checkpoints(threading.Thread):
    """A passive checkpoint every ``every`` seconds: it copies what no reader still
    needs and waits for no one (SQLite releases the GIL while it works)."""

    def __init__(self, engine: Engine, every: float) -> None:
        super().__init__(name="pips-checkpoints", daemon=True)
        self.engine = engine
        self.every = every
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.wait(self.every):
            try:
                with self.engine.connect() as connection:
                    connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception:  # a busy or closing database: the next turn
                continue

    def stop(self) -> None:
        self._stopping.set()
        self.join(timeout=10)
        with self.engine.connect() as connection:  # what is left, before the last close
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
