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


@pytest.mark.parametrize("database", database_urls())
def test_results_become_players_and_provisional_after_the_upgrade(
    tmp_path: Path, database: str
) -> None:
    """Revision 0004: names on results become players (one per account, else one per
    name within a group), ``entered`` becomes ``provisional``, a result confirmed by one
    player's word stays confirmed only if every other player's account confirmed it,
    and fingerprints no longer depend on the seat order."""
    db = Database(new_database(database, tmp_path))
    config = alembic_config(db.url)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
    at = "2026-10-05 10:00:00"
    with db.engine.begin() as connection:
        for user_id, name in ((1, "Anna"), (2, "Ben")):
            connection.execute(
                text(
                    "INSERT INTO users (id, name, name_key, password_hash, created_at) "
                    "VALUES (:i, :n, :k, 'x', :t)"
                ),
                {"i": user_id, "n": name, "k": name.lower(), "t": at},
            )
        for rid, status in ((1, "entered"), (2, "confirmed"), (3, "confirmed")):
            connection.execute(
                text(
                    'INSERT INTO results (id, game, played_on, place, "set", source, entered_by, '
                    "entered_at, status, rated, fingerprint) VALUES (:i, 'fido', :d, '', 6, "
                    "'api', 1, :t, :s, true, :f)"
                ),
                {"i": rid, "d": f"2026-10-0{rid}", "t": at, "s": status, "f": f"old{rid}"},
            )
            seats = [("Anna", 1), ("Ben", 2)] + ([("cleo", None)] if rid == 3 else [])
            for seat, (name, user) in enumerate(seats):
                connection.execute(
                    text(
                        "INSERT INTO result_players (result_id, seat, name, user_id, team, "
                        "points, pips, out, final, rank) VALUES (:r, :s, :n, :u, :s, 9, 0, "
                        "false, 9, 1)"
                    ),
                    {"r": rid, "s": seat, "n": name, "u": user},
                )
        # Result 2: Ben confirmed it (every other player's account); result 3 too, but
        # Cleo has no account, so one word no longer confirms it.
        for rid in (2, 3):
            connection.execute(
                text(
                    "INSERT INTO result_reviews (result_id, user_id, action, comment, "
                    "created_at) VALUES (:r, 2, 'confirm', '', :t)"
                ),
                {"r": rid, "t": at},
            )
    db.upgrade()
    with db.engine.connect() as connection:
        statuses = {
            int(i): str(st) for i, st in connection.execute(text("SELECT id, status FROM results"))
        }
        players = connection.execute(text("SELECT name, user_id FROM players ORDER BY id")).all()
        seated = connection.execute(
            text("SELECT count(*) FROM result_players WHERE player_id IS NULL")
        ).scalar_one()
        prints = connection.execute(text("SELECT fingerprint FROM results")).scalars().all()
    assert statuses == {1: "provisional", 2: "confirmed", 3: "provisional"}
    assert [(str(n), u) for n, u in players] == [("Anna", 1), ("Ben", 2), ("cleo", None)]
    assert seated == 0
    assert all(len(str(p)) == 64 for p in prints)
    db.dispose()
