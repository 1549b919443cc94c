"""The tables pips keeps: players, game tables with their seats, every move, chat.

A game table's moves are stored one row each, in order, before anyone is told of them;
with the table's game, options and seed they rebuild the match exactly (the deals come
from the seed), so a restarted server resumes every unfinished game where it was.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)  # stored as UTC, naive (portable)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=now)


class GameTable(Base):
    """A table: a game with its options, its seats, and the match played at it."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), default="waiting", index=True)
    """``waiting`` for players, ``playing``, ``finished`` or ``abandoned``."""
    private: Mapped[bool] = mapped_column(default=False)
    invite: Mapped[str] = mapped_column(String(32))
    turn_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=now)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The finished game as ``pips.record/1``."""

    seats: Mapped[list[Seat]] = relationship(
        back_populates="table", order_by="Seat.entrant", cascade="all, delete-orphan"
    )


class Seat(Base):
    """One entrant at a table (before any lots): a person, a bot, or open."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "entrant"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    entrant: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    """``open``, ``person`` or ``bot``."""
    name: Mapped[str] = mapped_column(String(40), default="")
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    guest: Mapped[str | None] = mapped_column(String(40), nullable=True)
    """The guest token of a person playing without an account."""
    bot: Mapped[str | None] = mapped_column(String(60), nullable=True)

    table: Mapped[GameTable] = relationship(back_populates="seats")


class MoveRow(Base):
    """A move made at a table, numbered from 0 across the hands of the match."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("table_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=now)


class ChatLine(Base):
    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    author: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=now)
