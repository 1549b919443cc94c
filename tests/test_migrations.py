"""The migrations build the schema the models declare, and carry old data forward
(SQLite and PostgreSQL): a site filled at every earlier revision with every kind of row
keeps its rows at the newest."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
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


# -- every earlier revision, filled with every kind of row, upgraded to the newest ---------


REVISIONS = [
    script.revision
    for script in reversed(
        list(ScriptDirectory.from_config(alembic_config("sqlite://")).walk_revisions())
    )
]
"""Every revision, oldest first."""

CHOICES: dict[tuple[str, str], tuple[object, object]] = {
    # Values the migrations read: a result entered and one confirmed, of a real table
    # and of the server; a finished table and one in play; a person and a bot.
    ("results", "status"): ("entered", "confirmed"),
    ("results", "source"): ("form", "server"),
    ("results", "game"): ("fido", "draw"),
    ("tables", "status"): ("finished", "playing"),
    ("tables", "game"): ("fido", "draw"),
    ("seats", "kind"): ("person", "bot"),
    ("result_reviews", "action"): ("confirm", "dispute"),
    ("group_members", "status"): ("member", "asked"),
    ("events", "status"): ("open", "closed"),
}
"""Columns whose values mean something to a migration, and the two rows' values."""

CHANGED: dict[tuple[str, str], str] = {
    # Revision 0004: statuses of the new trust model, fingerprints that ignore the
    # seats' order (tests above check how).
    ("results", "status"): "0004",
    ("results", "fingerprint"): "0004",
    # Revision 0017: skeletons taken again without spaces, hyphens, dots, apostrophes.
    ("users", "skeleton"): "0017",
    ("sessions", "skeleton"): "0017",
}
"""Columns a migration changes on purpose, and by which revision: a row filled before
it may have another value after the upgrade."""

DROPPED = {"sign_in_failures": "0009"}
"""Tables whose rows a migration drops on purpose (wrong passwords counted anew)."""


def value(table: Any, column: Any, i: int, made: dict[str, list[dict[str, Any]]]) -> Any:
    """The ``i``-th row's value of a column: every column filled in the first row, the
    nullable ones empty in the second; each foreign key points at the ``i``-th row of
    its table (the second row of a table that points at itself, at its first)."""
    keys = list(column.foreign_keys)
    if keys:
        target = keys[0].column
        if target.table is table:
            return made[table.name][0][target.name] if i == 1 else None
        return made[target.table.name][i][target.name]
    if column.nullable and i == 1 and not column.primary_key:
        return None
    if (table.name, column.name) in CHOICES:
        return CHOICES[table.name, column.name][i]
    kind = column.type
    if isinstance(kind, sa.Boolean):
        return i == 0
    if isinstance(kind, sa.Integer):
        return i + 1
    if isinstance(kind, sa.Float):
        return 1.5 + i
    if isinstance(kind, sa.DateTime):
        return datetime(2026, 10, 1 + i, 12, 30, 5, 123000)
    if isinstance(kind, sa.Date):
        return date(2026, 10, 1 + i)
    if isinstance(kind, sa.JSON):
        return {"row": i, "list": [1, "x", None]}
    text = f"{column.name}{i}Jö"
    length = getattr(kind, "length", None)
    return text[-length:] if length else text


def filled(connection: Any) -> dict[str, list[dict[str, Any]]]:
    """Two rows of every table the schema the connection sees has."""
    schema = sa.MetaData()
    schema.reflect(connection)
    made: dict[str, list[dict[str, Any]]] = {}
    for table in schema.sorted_tables:
        if table.name == "alembic_version":
            continue
        made[table.name] = []
        for i in range(2):
            made[table.name].append({c.name: value(table, c, i, made) for c in table.columns})
        connection.execute(table.insert(), made[table.name])
    return made


def rows_of(connection: Any) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Every row of every table, by primary key."""
    schema = sa.MetaData()
    schema.reflect(connection)
    found: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
    for table in schema.sorted_tables:
        keys = [c.name for c in table.primary_key.columns]
        found[table.name] = {
            tuple(row[k] for k in keys): dict(row)
            for row in connection.execute(sa.select(table)).mappings()
        }
    return found


@pytest.mark.slow
@pytest.mark.parametrize("revision", REVISIONS[:-1])
@pytest.mark.parametrize("database", database_urls())
def test_a_site_filled_at_an_earlier_revision_keeps_its_rows_at_the_newest(
    tmp_path: Path, database: str, revision: str
) -> None:
    db = Database(new_database(database, tmp_path))
    config = alembic_config(db.url)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    with db.engine.begin() as connection:
        filled(connection)
        before = rows_of(connection)
    db.upgrade()
    with db.engine.connect() as connection:
        after = rows_of(connection)
    for name, rows in before.items():
        if name == "alembic_version":
            continue
        if name in DROPPED and revision < DROPPED[name]:
            assert after[name] == {}, name
            continue
        assert set(after[name]) == set(rows), name  # every row kept, none added
        for key, row in rows.items():
            for column, old in row.items():
                if revision < CHANGED.get((name, column), "0000"):
                    continue
                if column in after[name][key]:
                    assert after[name][key][column] == old, (name, key, column)
    # What the migrations made of the old rows.
    seats = after["result_players"].values()
    assert all(s["player_id"] is not None for s in seats if s["user_id"] is not None)
    if revision < "0009":
        assert all(u["skeleton"] for u in after["users"].values())
    if revision < "0004":
        assert {r["status"] for r in after["results"].values()} <= {"provisional", "confirmed"}
    if "0004" <= revision < "0009":
        claimed = {(p["id"], p["claim_user_id"]) for p in before["players"].values()}
        kept = {(c["player_id"], c["user_id"]) for c in after["player_claims"].values()}
        assert {c for c in claimed if c[1] is not None} <= kept
    # The application reads every row as its models say.
    with db.session() as session:
        for mapper in Base.registry.mappers:
            model = mapper.class_
            assert len(session.scalars(sa.select(model)).all()) == len(after[model.__tablename__])
    db.dispose()


@pytest.mark.parametrize("database", database_urls())
def test_kept_skeletons_are_taken_again_without_separators(tmp_path: Path, database: str) -> None:
    """Revision 0017: a skeleton kept before it held the name's spaces and hyphens, so
    "AnnaLena Berg" would not have been found like an older "Anna-Lena Berg"."""
    from pips.text import skeleton

    db = Database(new_database(database, tmp_path))
    config = alembic_config(db.url)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0016")
    with db.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (name, name_key, skeleton, password_hash, created_at) "
                "VALUES (:n, :k, :s, 'x', :t)"
            ),
            {
                "n": "Anna-Lena Berg",
                "k": "anna-lena berg",
                "s": "anna-lena berg",
                "t": "2026-11-01",
            },
        )
    db.upgrade()
    with db.engine.connect() as connection:
        kept = connection.execute(text("SELECT skeleton FROM users")).scalar_one()
    assert kept == skeleton("Anna-Lena Berg") == skeleton("AnnaLena Berg")
    db.dispose()
