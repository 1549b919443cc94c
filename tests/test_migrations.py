"""The migrations build the schema the models declare, and carry old data forward
(SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from pips.store.db import Database, alembic_config
from pips.store.models import Base
from tests.server_helpers import database_urls, new_database


@pytest.mark.parametrize("database", database_urls())
def test_the_migrated_schema_is_the_models_schema(tmp_path: Path, database: str) -> None:
    db = Database(new_database(database, tmp_path))
    db.upgrade()
    with db.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []
    db.dispose()


@pytest.mark.parametrize("database", database_urls())
def test_names_that_fold_alike_keep_their_accounts_after_the_upgrade(
    tmp_path: Path, database: str
) -> None:
    """Before names were folded, "alice" and "ALICE" could both register: the older
    keeps the name's key, the newer gets one of its own, and both can still sign in."""
    db = Database(new_database(database, tmp_path))
    config = alembic_config(db.url)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
    with db.engine.begin() as connection:
        for name in ("alice", "ALICE", "Jörg"):
            connection.execute(
                text("INSERT INTO users (name, password_hash, created_at) VALUES (:n, 'x', :t)"),
                {"n": name, "t": "2026-11-01 10:00:00"},
            )
        connection.execute(
            text(
                "INSERT INTO tables (id, game, options, seed, status, private, invite, "
                "created_at) VALUES ('t1', 'draw', '{}', 7, 'finished', false, 'i', :t)"
            ),
            {"t": "2026-11-01 10:00:00"},
        )
    db.upgrade()
    with db.engine.connect() as connection:
        rows = connection.execute(text("SELECT name, name_key FROM users")).all()
        keys: dict[str, str] = {str(n): str(k) for n, k in rows}
        seed, key = connection.execute(text("SELECT seed, deal_key FROM tables")).one()
    assert keys["alice"] == "alice" and keys["ALICE"].startswith("alice#")
    assert keys["Jörg"] == "jörg"
    assert (seed, key) == (7, None)
    db.dispose()
