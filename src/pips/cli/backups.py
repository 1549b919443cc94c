"""``pips admin backup|restore|export|import``: a site kept safe, brought back, and moved
between SQLite and PostgreSQL (docs/server.md, "Operations"; the file format is
docs/site-format.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from pips import files
from pips.cli.base import ForceOption, err, fail
from pips.cli.results import DatabaseOption, admin
from pips.i18n import _, explain

FileArgument = Annotated[
    str, typer.Argument(metavar="FILE", help="The file ('-': standard output or input).")
]
ReplaceOption = Annotated[
    bool,
    typer.Option(
        "--force", help="Replace what the database holds (it is refused if it holds any row)."
    ),
]


def _database(database: str | None) -> Any:
    from pips.store.db import Database

    try:
        return Database(database)
    except Exception as exc:  # a malformed URL, a missing driver
        fail(_("cannot use database {url!r}: {problem}").format(url=database, problem=exc))


def _run(function: Any, *args: Any) -> Any:
    """Call ``function``; its refusals and the database's errors as one line."""
    from sqlalchemy.exc import SQLAlchemyError

    from pips.store.site import SiteError

    try:
        return function(*args)
    except SiteError as exc:
        fail(explain(exc))
    except (SQLAlchemyError, OSError) as exc:
        fail(_("cannot use the database: {problem}").format(problem=str(exc).splitlines()[0]))


def _target(file: str, force: bool) -> Path | None:
    if file == "-":
        return None
    path = Path(file)
    files.may_write(path, force)
    return path


@admin.command("backup")
def admin_backup(
    file: FileArgument,
    sqlite: Annotated[
        bool,
        typer.Option(
            "--sqlite", help="On SQLite: a copy of the database file instead (SQLite's backup)."
        ),
    ] = False,
    database: DatabaseOption = None,
    force: ForceOption = False,
) -> None:
    """Back the site up while the server serves: every row as it was at one moment, in
    the portable format (pips admin restore reads it into SQLite or PostgreSQL)."""
    from pips.store import backup

    db = _database(database)
    target = _target(file, force)
    try:
        if sqlite:
            if target is None:
                fail(_("--sqlite writes a file, not standard output"))
            _run(backup.sqlite_copy, db, target)
            err.print(_("copied the database to {file}").format(file=target), markup=False)
            return
        rows = _run(backup.export, db, target)
    finally:
        db.dispose()
    if target is not None:
        err.print(
            _("backed up {count} rows to {file}").format(count=rows, file=target), markup=False
        )


@admin.command("restore")
def admin_restore(
    file: FileArgument, database: DatabaseOption = None, force: ReplaceOption = False
) -> None:
    """Restore a backup (the portable format, or a SQLite copy) into an empty database,
    its schema brought up to date first."""
    from pips.store import backup

    source = None if file == "-" else Path(file)
    if source is not None and not source.is_file():
        fail(_("{file}: no such file").format(file=source))
    db = _database(database)
    try:
        counts = _run(backup.restore_file, db, source, force)
    finally:
        db.dispose()
    err.print(
        _("restored {count} rows into {database}").format(
            count=sum(counts.values()), database=backup.describe(db.url)
        ),
        markup=False,
    )


@admin.command("export")
def admin_export(
    file: FileArgument, database: DatabaseOption = None, force: ForceOption = False
) -> None:
    """Write the whole site in the portable format, streamed ('-': to standard output,
    for pips admin import on another database)."""
    admin_backup(file, sqlite=False, database=database, force=force)


@admin.command("import")
def admin_import(
    file: FileArgument, database: DatabaseOption = None, force: ReplaceOption = False
) -> None:
    """Read a site in the portable format into an empty database ('-': from standard
    input), SQLite or PostgreSQL."""
    admin_restore(file, database=database, force=force)
