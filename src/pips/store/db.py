"""The database: an engine from ``PIPS_DATABASE_URL`` (SQLite file by default), the
schema brought up to date by alembic, and sessions."""

from __future__ import annotations

import os
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
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

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

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(connection: object, _record: object) -> None:
    # WAL lets readers go on while a move is written; foreign keys are off by default.
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
