"""A whole site in one portable file, ``pips.site/1`` (docs/site-format.md): every row of
every table, table by table in an order that satisfies the foreign keys, with typed
values written losslessly. Written and read as a stream (memory stays flat whatever the
site's size), from and into SQLite or PostgreSQL alike: a backup, and the way from one
database to the other and back.

The file is gzip'd JSON lines: a header, then for each table a line naming it and its
columns, one JSON array per row, and a line counting its rows; a last line closes the
file, so that a file cut short is refused, not half restored.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import IO, Any, Protocol

from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    Date,
    DateTime,
    Engine,
    Float,
    Integer,
    LargeBinary,
    Numeric,
    Table,
    Text,
    cast,
    column,
    func,
    select,
    table,
)
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.type_api import TypeEngine

from pips import __version__
from pips.i18n import _
from pips.store.db import alembic_config
from pips.store.models import Base

FORMAT = "pips.site/1"
BATCH = 500
"""Rows inserted at once: few round trips, and little held in memory."""

Line = dict[str, Any] | list[Any]
"""One line of the file, as JSON."""


class SiteError(Exception):
    """A file that is not a site pips can restore, or a database it may not restore into."""


def head_revision() -> str:
    """The newest migration: the schema this pips writes and reads."""
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


def revision_of(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def tables() -> list[Table]:
    """Every table pips keeps, each after the tables its foreign keys point at."""
    return list(Base.metadata.sorted_tables)


# -- values ----------------------------------------------------------------------------------


def kind(type_: TypeEngine[Any]) -> str:
    """How a column's values are written (docs/site-format.md, "Values")."""
    for known, name in (
        (JSON, "json"),
        (DateTime, "datetime"),
        (Date, "date"),
        (Boolean, "boolean"),
        (Integer, "integer"),
        (Float, "float"),
        (Numeric, "decimal"),
        (LargeBinary, "bytes"),
    ):
        if isinstance(type_, known):
            return name
    return "text"


def encode(kind: str, value: Any) -> Any:
    """A value read from the database as JSON (a JSON column's value is read as its text)."""
    if value is None:
        return None
    if kind == "json":
        return [json.loads(value)]  # in a list: a JSON null is [null], SQL's NULL null
    if kind in ("datetime", "date"):
        return str(value.isoformat())
    if kind == "float":
        return value if math.isfinite(value) else repr(float(value))  # "nan", "inf", "-inf"
    if kind == "decimal":
        return str(value)
    if kind == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def decode(kind: str, value: Any) -> Any:
    """A value of the file as the database takes it (raises ValueError if it is not one)."""
    if value is None:
        return None
    if kind == "json":
        if not isinstance(value, list) or len(value) != 1:
            raise ValueError("a JSON value is written as [value]")
        return JSON.NULL if value[0] is None else value[0]
    if kind == "datetime":
        return datetime.fromisoformat(_text(value))
    if kind == "date":
        return date.fromisoformat(_text(value))
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ValueError(f"not a boolean: {value!r}")
        return value
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"not an integer: {value!r}")
        return value
    if kind == "float":
        if isinstance(value, str):
            return float(value)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError(f"not a number: {value!r}")
        return float(value)
    if kind == "decimal":
        return Decimal(_text(value))
    if kind == "bytes":
        return base64.b64decode(_text(value), validate=True)
    return _text(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"not a string: {value!r}")
    return value


# -- reading a database ----------------------------------------------------------------------


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection that sees the database as it was at one moment, while the server
    goes on writing: a read-only REPEATABLE READ transaction on PostgreSQL, one read
    transaction on SQLite (in WAL mode, writers do not wait for it)."""
    if engine.dialect.name == "sqlite":
        # The driver would begin a transaction only before a write: begun here, the
        # snapshot holds from the first read to the end.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("BEGIN")
            try:
                connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").all()
                yield connection
            finally:
                connection.exec_driver_sql("COMMIT")
        return
    with (
        engine.connect().execution_options(isolation_level="REPEATABLE READ") as connection,
        connection.begin(),
    ):
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
        yield connection


def dump(connection: Connection) -> Iterator[Line]:
    """The lines of the site the connection sees, header first (the connection must be
    a snapshot, and its schema the newest this pips knows)."""
    revision, head = revision_of(connection), head_revision()
    if revision != head:
        raise SiteError(
            _(
                "the database is at schema revision {found}, not {head}: start this "
                "version's server on it once (it upgrades the schema), then back it up"
            ).format(found=revision or "-", head=head)
        )
    created = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    yield {
        "format": FORMAT,
        "revision": head,
        "created": created,
        "pips": __version__,
        "from": connection.dialect.name,
    }
    total = 0
    for kept in tables():
        kinds = [kind(c.type) for c in kept.columns]
        yield {
            "table": kept.name,
            "columns": [[c.name, k] for c, k in zip(kept.columns, kinds, strict=True)],
        }
        read = [
            cast(c, Text).label(c.name) if k == "json" else c
            for c, k in zip(kept.columns, kinds, strict=True)
        ]
        query = select(*read).order_by(*kept.primary_key.columns)
        count = 0
        streamed = connection.execution_options(stream_results=True, yield_per=BATCH)
        for row in streamed.execute(query):
            yield [encode(k, v) for k, v in zip(kinds, row, strict=True)]
            count += 1
        yield {"rows": count}
        total += count
    yield {"end": FORMAT, "rows": total}


def write(lines: Iterable[Line], stream: IO[bytes]) -> int:
    """Write the lines gzip'd to ``stream``; how many rows."""
    rows = 0
    with gzip.GzipFile(fileobj=stream, mode="wb", mtime=0) as zipped:
        text = io.TextIOWrapper(zipped, encoding="utf-8", newline="\n")
        for line in lines:
            text.write(json.dumps(line, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
            text.write("\n")
            if isinstance(line, dict) and "end" in line:
                rows = int(line["rows"])
        text.flush()
        text.detach()
    return rows


# -- reading a file --------------------------------------------------------------------------


class Reader(Protocol):
    """What a file is read from: a file, standard input, a stream given back its start."""

    def read(self, size: int = -1, /) -> bytes: ...


def read(stream: Reader) -> Iterator[Line]:
    """The lines of a file (gzip'd or not), each checked to be JSON."""
    first = stream.read(2)
    buffered = io.BufferedReader(_Prefixed(first, stream))
    source = gzip.GzipFile(fileobj=buffered, mode="rb") if first == b"\x1f\x8b" else buffered
    done = 0
    try:
        for raw in io.TextIOWrapper(source, encoding="utf-8"):
            line = json.loads(raw)
            if not isinstance(line, dict | list):
                raise ValueError("a line is an object or an array")
            yield line
            done += 1
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise SiteError(
            _("line {number}: not a pips site file ({problem})").format(
                number=done + 1, problem=exc
            )
        ) from None


class _Prefixed(io.RawIOBase):
    """A stream with its first bytes, read already, put back in front."""

    def __init__(self, first: bytes, rest: Reader) -> None:
        self.first, self.rest = first, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.first:
            n = min(len(buffer), len(self.first))
            buffer[:n], self.first = self.first[:n], self.first[n:]
            return n
        data = self.rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


# -- writing a database ----------------------------------------------------------------------


def rows_in(connection: Connection) -> int:
    """How many rows the site's tables hold."""
    return sum(
        int(connection.scalar(select(func.count()).select_from(kept)) or 0) for kept in tables()
    )


def clear(connection: Connection) -> None:
    """Delete every row (restoring over a site, when told to): the published lists'
    refusal of a change is the ORM's, and this goes around it on purpose."""
    for kept in reversed(tables()):
        connection.execute(kept.delete())


def load(lines: Iterable[Line], connection: Connection) -> dict[str, int]:
    """Insert a site's lines into the (empty, newest) schema the connection sees, in
    its transaction; the rows of each table. Anything amiss raises :class:`SiteError`
    and the caller's transaction is rolled back: nothing is restored half."""
    known = {kept.name: kept for kept in tables()}
    iterator = enumerate(lines, 1)
    number = 0

    def refuse(number: int, message: str) -> SiteError:
        return SiteError(_("line {number}: {problem}").format(number=number, problem=message))

    number, header = next(iterator, (1, None))
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise refuse(
            number,
            _("not a pips site file (its first line names no format {format})").format(
                format=FORMAT
            ),
        )
    head = head_revision()
    if header.get("revision") != head:
        raise refuse(
            number,
            _(
                "the file is of schema revision {found}; this pips restores {head} only: "
                "restore it with the pips that wrote it, start that server once on the "
                "restored database, then back it up again"
            ).format(found=header.get("revision"), head=head),
        )
    counts: dict[str, int] = {}
    current: _Loading | None = None
    for number, line in iterator:
        try:
            if isinstance(line, list):
                if current is None:
                    raise refuse(number, _("a row before its table's line"))
                current.add(line)
                continue
            if current is not None:
                if set(line) != {"rows"} or line["rows"] != current.count:
                    raise refuse(
                        number,
                        _("table {table}: {count} rows, but its last line says {said}").format(
                            table=current.table.name, count=current.count, said=line
                        ),
                    )
                current.finish()
                counts[current.table.name] = current.count
                current = None
                continue
            if "end" in line:
                if line.get("rows") != sum(counts.values()):
                    raise refuse(number, _("the rows do not add up to the file's last line"))
                missing = sorted(set(known) - set(counts))
                if missing:
                    raise refuse(
                        number, _("tables missing: {names}").format(names=", ".join(missing))
                    )
                if next(iterator, None) is not None:
                    raise refuse(number, _("lines after the file's last line"))
                return counts
            name = line.get("table")
            if name not in known or name in counts:
                raise refuse(
                    number, _("an unknown or repeated table: {table!r}").format(table=name)
                )
            current = _Loading(connection, known[name], line.get("columns"))
        except (ValueError, TypeError, KeyError, StatementError, DBAPIError) as exc:
            if isinstance(exc, SiteError):
                raise
            problem = exc.orig if isinstance(exc, StatementError) and exc.orig else exc
            raise refuse(number, str(problem).splitlines()[0]) from None
    raise refuse(number, _("the file ends before its last line (cut short?)"))


class _Loading:
    """One table's rows on their way in, a batch at a time. A column that points at
    its own table (a player merged into another) is filled in once every row is in."""

    def __init__(self, connection: Connection, kept: Table, columns: Any) -> None:
        self.connection, self.table = connection, kept
        names = [c.name for c in kept.columns]
        given = [c[0] for c in columns] if isinstance(columns, list) else None
        if given is None or sorted(given) != sorted(names):
            raise ValueError(f"table {kept.name}: columns {given} are not this schema's {names}")
        self.names = given
        self.kinds = [kind(kept.columns[n].type) for n in given]
        self.later = {
            c.name for c in kept.columns if any(key.column.table is kept for key in c.foreign_keys)
        }
        keys = [c.name for c in kept.primary_key.columns]
        self.keys = keys
        # A light copy of the table whose JSON columns write None as SQL's NULL (the
        # model's write JSON's null), so that each is restored as it was.
        self.target = table(
            kept.name,
            *(
                column(c.name, JSON(none_as_null=True) if isinstance(c.type, JSON) else c.type)
                for c in kept.columns
            ),
        )
        self.batch: list[dict[str, Any]] = []
        self.deferred: list[dict[str, Any]] = []
        self.count = 0

    def add(self, values: list[Any]) -> None:
        if len(values) != len(self.names):
            raise ValueError(f"{len(values)} values for {len(self.names)} columns")
        row = {n: decode(k, v) for n, k, v in zip(self.names, self.kinds, values, strict=True)}
        put_off = {n: row[n] for n in self.later if row[n] is not None}
        if put_off:
            self.deferred.append({**{f"key_{k}": row[k] for k in self.keys}, **put_off})
            row.update(dict.fromkeys(put_off))
        self.batch.append(row)
        self.count += 1
        if len(self.batch) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            self.connection.execute(self.target.insert(), self.batch)
            self.batch = []

    def finish(self) -> None:
        self.flush()
        for row in self.deferred:
            where = [self.target.c[k] == row[f"key_{k}"] for k in self.keys]
            values = {n: v for n, v in row.items() if not n.startswith("key_")}
            self.connection.execute(self.target.update().where(*where).values(values))
        if self.connection.dialect.name == "postgresql":
            self._renumber()

    def _renumber(self) -> None:
        """PostgreSQL hands out new ids from a sequence that the rows given their ids
        did not move: it goes on after the largest."""
        key = list(self.table.primary_key.columns)
        if len(key) != 1 or not isinstance(key[0].type, Integer) or not key[0].autoincrement:
            return
        name = key[0].name
        sequence = self.connection.scalar(
            select(func.pg_get_serial_sequence(self.table.name, name))
        )
        if sequence is not None:
            largest = self.connection.scalar(select(func.max(self.table.c[name])))
            self.connection.execute(select(func.setval(sequence, (largest or 0) + 1, False)))
