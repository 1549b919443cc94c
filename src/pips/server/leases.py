"""Table leases: which server process holds which table, for how long, and the fence that
refuses a process whose lease has passed (several processes over one PostgreSQL
database, docs/server.md)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Connection, delete, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.orm import Session

from pips.core.phrase import phrase
from pips.server.round import TableError
from pips.store.db import Database
from pips.store.models import GameTable, TableLease


class Leases:
    """Which process owns which live table (several processes, :mod:`pips.server.cluster`):
    a row per table in ``table_leases``, renewed by its owner, that any process may take
    once it has run out. Times are the database's, so the processes' clocks may differ.
    PostgreSQL only (its row locks make taking a lease atomic)."""

    def __init__(self, db: Database, node: str, seconds: float) -> None:
        if db.engine.dialect.name != "postgresql":
            raise ValueError("several server processes need PostgreSQL")
        self.db = db
        self.node = node
        self.seconds = seconds

    @staticmethod
    def _now() -> ColumnElement[datetime]:
        return func.timezone("UTC", func.now())

    def _until(self) -> ColumnElement[datetime]:
        return self._now() + timedelta(seconds=self.seconds)

    def write(self, session: Session, table_id: str) -> None:
        """The lease of a table this process creates (in the creating transaction)."""
        session.execute(
            insert(TableLease).values(table_id=table_id, owner=self.node, until=self._until())
        )

    def fence(self, connection: Connection, table_ids: Sequence[str]) -> None:
        """Within a transaction that writes these tables: refuse unless this process
        holds each one's lease now. The lease rows stay locked until the transaction
        ends, so nobody takes them over between this check and the commit: a process
        that stalled past its lease cannot store a move after another took the table."""
        held = connection.execute(
            select(TableLease.table_id)
            .where(
                TableLease.table_id.in_(table_ids),
                TableLease.owner == self.node,
                TableLease.until > self._now(),
            )
            .with_for_update(read=True)
        )
        lost = set(table_ids) - set(held.scalars())
        if lost:
            raise TableError(phrase("the table has moved to another server process"))

    def take(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it (or it ran out); whether this
        process holds it now."""
        statement = (
            upsert(TableLease)
            .values(table_id=table_id, owner=self.node, until=self._until())
            .on_conflict_do_update(
                index_elements=[TableLease.table_id],
                set_={"owner": self.node, "until": self._until()},
                where=or_(TableLease.until < self._now(), TableLease.owner == self.node),
            )
            .returning(TableLease.owner)
        )
        with self.db.engine.begin() as connection:
            return connection.execute(statement).scalar() == self.node

    def renew(self) -> set[str]:
        """Renew every lease this process holds; the tables it still holds. The leases of
        finished tables are let go (nobody needs to take those over)."""
        with self.db.engine.begin() as connection:
            connection.execute(
                delete(TableLease).where(
                    TableLease.owner == self.node,
                    TableLease.table_id.in_(
                        select(GameTable.id).where(GameTable.status.in_(("finished", "abandoned")))
                    ),
                )
            )
            held = connection.execute(
                update(TableLease)
                .where(TableLease.owner == self.node)
                .values(until=self._until())
                .returning(TableLease.table_id)
            )
            return set(held.scalars())

    def orphans(self, limit: int) -> list[str]:
        """Unfinished tables nobody holds (their owner stopped or died), oldest first."""
        with self.db.engine.connect() as connection:
            rows = connection.execute(
                select(GameTable.id)
                .outerjoin(TableLease, TableLease.table_id == GameTable.id)
                .where(
                    GameTable.status.in_(("waiting", "playing")),
                    or_(TableLease.owner.is_(None), TableLease.until < self._now()),
                )
                .order_by(GameTable.created_at)
                .limit(limit)
            )
            return list(rows.scalars())

    def owner(self, table_id: str) -> tuple[str | None, str | None]:
        """The process holding the table's lease now (``None`` if nobody does), and the
        table's status (``None``: no such table)."""
        with self.db.engine.connect() as connection:
            row = connection.execute(
                select(GameTable.status, TableLease.owner, TableLease.until > self._now())
                .outerjoin(TableLease, TableLease.table_id == GameTable.id)
                .where(GameTable.id == table_id)
            ).first()
        if row is None:
            return None, None
        status, owner, current = row
        return (owner if current else None), status

    def release(self, table_ids: list[str] | None = None) -> None:
        """Let tables go (all of this process's, when it stops): another process takes
        them over at once instead of after the lease runs out."""
        condition = TableLease.owner == self.node
        with self.db.engine.begin() as connection:
            if table_ids is None:
                connection.execute(delete(TableLease).where(condition))
            else:
                connection.execute(
                    delete(TableLease).where(condition, TableLease.table_id.in_(table_ids))
                )
