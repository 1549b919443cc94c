"""Backups and restores of a site (docs/server.md, "Operations"), while the server serves.

A backup is a ``pips.site/1`` file (:mod:`pips.store.site`) read from one snapshot of
the database, on SQLite and PostgreSQL alike (no ``pg_dump``, whose version must match
the server's); on SQLite it may instead be a copy of the database file made with
SQLite's online backup API. A restore takes either, into an empty database of either
kind, whose schema it first brings to the newest revision.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url

from pips.i18n import _
from pips.store import site
from pips.store.db import Database
from pips.store.site import SiteError

SQLITE_MAGIC = b"SQLite format 3\x00"
NAMED = re.compile(r"^pips-(\d{8}T\d{6}Z)\.site\.gz$")
"""The name of a scheduled backup: ``pips-20270101T030000Z.site.gz`` (UTC)."""
BACKUP_DIR = "PIPS_BACKUP_DIR"
"""The folder of the scheduled backups, which ``/metrics`` reports the age of."""

log = logging.getLogger("pips.backup")


@contextmanager
def _written(path: Path | None) -> Iterator[IO[bytes]]:
    """A file written whole or not at all (``None``: standard output)."""
    if path is None:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    fresh = path.with_name(path.name + ".part")
    try:
        with fresh.open("wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        fresh.replace(path)
    finally:
        fresh.unlink(missing_ok=True)


def export(db: Database, path: Path | None) -> int:
    """Write the site as ``pips.site/1`` to ``path`` (``None``: standard output) from one
    snapshot; how many rows."""
    with site.snapshot(db.engine) as connection, _written(path) as stream:
        return site.write(site.dump(connection), stream)


def sqlite_copy(db: Database, path: Path) -> None:
    """A consistent copy of a SQLite database file, made with SQLite's online backup
    API while the server writes (in one step: the copy is the database at one moment)."""
    source = db.engine.url.database
    if db.engine.dialect.name != "sqlite" or not source or source == ":memory:":
        raise SiteError(_("a copy of the database file is made of a SQLite database only"))
    fresh = path.with_name(path.name + ".part")
    fresh.unlink(missing_ok=True)
    try:
        with (
            closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as original,
            closing(sqlite3.connect(fresh)) as copy,
        ):
            original.backup(copy)
        fresh.replace(path)
    finally:
        fresh.unlink(missing_ok=True)


def restore(db: Database, stream: site.Reader, force: bool = False) -> dict[str, int]:
    """Restore a backup (``pips.site/1`` or a SQLite database file) into ``db``, whose
    schema is brought to the newest revision first; refused if ``db`` holds any row,
    unless ``force`` (then its rows are deleted, in the same transaction). The rows of
    each table."""
    first = stream.read(len(SQLITE_MAGIC))
    if first == SQLITE_MAGIC:
        with tempfile.TemporaryDirectory() as folder:
            copied = Path(folder) / "restored.db"
            with copied.open("wb") as out:
                out.write(first)
                while chunk := stream.read(1 << 20):
                    out.write(chunk)
            source = Database(f"sqlite:///{copied}")
            try:
                with site.snapshot(source.engine) as connection:
                    return _load(db, site.dump(connection), force)
            finally:
                source.dispose()
    return _load(db, site.read(_Again(first, stream)), force)


def restore_file(db: Database, path: Path | None, force: bool = False) -> dict[str, int]:
    """:func:`restore` from a file (``None``: standard input)."""
    if path is None:
        return restore(db, sys.stdin.buffer, force)
    with path.open("rb") as stream:
        return restore(db, stream, force)


def _load(db: Database, lines: Iterator[site.Line], force: bool) -> dict[str, int]:
    db.upgrade()
    with db.engine.begin() as connection:
        held = site.rows_in(connection)
        if held and not force:
            raise SiteError(
                _(
                    "the database is not empty ({count} rows): restore into a new one, or "
                    "give --force to replace what it holds"
                ).format(count=held)
            )
        if held:
            site.clear(connection)
        return site.load(lines, connection)


class _Again:
    """A stream whose first bytes, read to tell the file's kind, are read again."""

    def __init__(self, first: bytes, rest: site.Reader) -> None:
        self.first, self.rest = first, rest

    def read(self, size: int = -1, /) -> bytes:
        if not self.first:
            return self.rest.read(size)
        if size < 0:
            data, self.first = self.first + self.rest.read(), b""
            return data
        data, self.first = self.first[:size], self.first[size:]
        return data + (self.rest.read(size - len(data)) if len(data) < size else b"")


def describe(url: str) -> str:
    """A database URL as it may be printed (no password)."""
    return make_url(url).render_as_string(hide_password=True)


# -- scheduled backups -----------------------------------------------------------------------


def scheduled(folder: Path) -> list[tuple[datetime, Path]]:
    """The scheduled backups in ``folder``, oldest first."""
    found = []
    for path in folder.glob("pips-*.site.gz"):
        named = NAMED.match(path.name)
        if named:
            at = datetime.strptime(named[1], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
            found.append((at, path))
    return sorted(found)


def age(folder: Path, now: float | None = None) -> float:
    """Seconds since the newest scheduled backup in ``folder`` was made (infinite: none)."""
    made = scheduled(folder)
    if not made:
        return float("inf")
    return max(0.0, (now if now is not None else time.time()) - made[-1][0].timestamp())


def backup_now(url: str, folder: Path, keep: int) -> Path:
    """One scheduled backup of the site at ``url`` into ``folder``, keeping the newest
    ``keep`` of them."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = folder / f"pips-{stamp}.site.gz"
    db = Database(url)
    try:
        export(db, path)
    finally:
        db.dispose()
    for _at, old in scheduled(folder)[:-keep]:
        old.unlink(missing_ok=True)
    return path


class Schedule(threading.Thread):
    """A backup every ``hours``, the newest ``keep`` kept, while ``pips serve`` runs. A
    backup made less than ``hours`` ago (before a restart) counts: the next is due
    ``hours`` after it. A failed backup is logged, and tried again in a tenth of the
    period (at most ten minutes)."""

    def __init__(self, url: str, folder: Path, hours: float, keep: int) -> None:
        super().__init__(name="pips-backups", daemon=True)
        self.url, self.folder, self.every, self.keep = url, folder, hours * 3600, keep
        self.stopping = threading.Event()
        self.made = threading.Event()
        """Set after each backup made (for the tests)."""

    def run(self) -> None:
        wait = max(0.0, self.every - age(self.folder))
        while not self.stopping.wait(wait):
            try:
                path = backup_now(self.url, self.folder, self.keep)
            except Exception:  # logged, and tried again: a backup must not end the server
                log.exception("the scheduled backup failed")
                wait = min(self.every / 10, 600.0)
                continue
            log.info("backed up to %s", path)
            self.made.set()
            wait = self.every

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=60)
