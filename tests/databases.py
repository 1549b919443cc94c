"""The databases tests run on: SQLite always, PostgreSQL when the test run has one
(``scripts/test`` starts it). Standard library only, so that test files that need no
database (most) load nothing of the storage stack."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

POSTGRES = os.environ.get("PIPS_TEST_POSTGRES_URL")
"""An admin URL of a PostgreSQL server for the storage tests (``.ci/run`` starts one);
each test gets a database of its own there."""


def database_urls() -> list[str]:
    """The databases the storage tests run on: SQLite always, PostgreSQL when given."""
    return ["sqlite", "postgresql"] if POSTGRES or os.environ.get("CI") else ["sqlite"]


def one_database() -> list[str]:
    """The database of a flow whose storage is incidental to it (a page's language, a
    championship's draw): PostgreSQL when the run has one, else SQLite. Every server
    test not parametrized runs on SQLite, the default, and the storage's own tests on
    both, so such a flow run twice would test the same storage twice at the price of a
    second server (in all, about a minute of the suite's time)."""
    return database_urls()[-1:]


def each_on_one_database(cases: list[str]) -> list[tuple[str, str]]:
    """``(database, case)`` for a flow whose cases differ in what they decide, not in
    what they store: each case once, the databases taken in turn, so that every database
    still sees the flow (a twelve-club championship run four times cost the suite 34
    CPU-seconds, twice 15)."""
    kinds = database_urls()
    return [(kinds[number % len(kinds)], case) for number, case in enumerate(cases)]


def new_database(kind: str, home: Path) -> str:
    """A fresh, empty database of ``kind`` for one test; its SQLAlchemy URL."""
    if kind == "sqlite":
        return f"sqlite:///{home / 'pips.db'}"
    if not POSTGRES:
        raise RuntimeError(
            "PIPS_TEST_POSTGRES_URL is not set (scripts/test starts PostgreSQL and sets it)"
        )
    import psycopg

    name = f"pips_test_{secrets.token_hex(6)}"
    with psycopg.connect(POSTGRES, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    if not _created:
        atexit.register(_drop_databases)
    _created.append(name)
    base = POSTGRES.rsplit("/", 1)[0]
    return f"{base.replace('postgresql://', 'postgresql+psycopg://', 1)}/{name}"


def migrated_database(kind: str, home: Path) -> str:
    """A fresh database of ``kind`` for one test with the schema at the newest migration:
    a copy of one migrated once per test process (SQLite: the file; PostgreSQL: a
    database made from it as template). Migrating each took a third of a second, the
    most of an in-process app's start; a test of the migrations themselves takes an
    empty one (:func:`new_database`)."""
    template = _templates.get(kind)
    if template is None:
        template = _templates[kind] = _migrated_template(kind)
    if kind == "sqlite":
        home.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, home / "pips.db")
        return f"sqlite:///{home / 'pips.db'}"
    import psycopg

    name = f"pips_test_{secrets.token_hex(6)}"
    with psycopg.connect(POSTGRES or "", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    _created.append(name)
    base = (POSTGRES or "").rsplit("/", 1)[0]
    return f"{base.replace('postgresql://', 'postgresql+psycopg://', 1)}/{name}"


_templates: dict[str, str] = {}
"""Per kind, the migrated template of this test process: a file, or a database's name."""


def _migrated_template(kind: str) -> str:
    from pips.store.db import Database

    home = Path(tempfile.mkdtemp(prefix="pips-template-"))
    atexit.register(shutil.rmtree, home, True)
    url = new_database(kind, home)
    db = Database(url)
    try:
        db.upgrade()
    finally:
        db.dispose()  # a template is copied whole: nobody may hold it open
    return str(home / "pips.db") if kind == "sqlite" else url.rsplit("/", 1)[1]


_created: list[str] = []
"""The databases this test process made, dropped when it ends so that runs do not pile
up databases on a server that outlives them."""


def _drop_databases() -> None:
    import psycopg

    try:
        with psycopg.connect(POSTGRES or "", autocommit=True) as admin:
            for name in _created:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    except psycopg.Error as error:
        print(f"could not drop the test databases: {error}", file=sys.stderr)
