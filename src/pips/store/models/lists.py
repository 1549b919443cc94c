"""The published world lists: a month's list, its rows and the results it counted.
Published once and never changed (a change is refused by the database session)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    event,
)
from sqlalchemy.orm import Mapped, mapped_column

from pips.store.models.base import Base, now


class WorldList(Base):
    """A published monthly list of one game family. Published lists never change."""

    __tablename__ = "world_lists"
    __table_args__ = (UniqueConstraint("game", "month"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    month: Mapped[str] = mapped_column(String(7))
    """``YYYY-MM``: results played and entered up to this month's last day."""
    cutoff: Mapped[datetime] = mapped_column()
    computed_at: Mapped[datetime] = mapped_column(default=now)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    games: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    late: Mapped[int] = mapped_column(Integer, default=0)
    """How many of the results new to this list were played in an earlier month."""
    held: Mapped[int] = mapped_column(Integer, default=0)
    """How many of the month's results were held for an administrator at publication
    (not in this list; once cleared, a later list counts them as late)."""


class WorldListResult(Base):
    """A result counted for the first time by a published list: a month's export is
    exactly these, whatever happens to the results afterwards."""

    __tablename__ = "world_list_results"

    list_id: Mapped[int] = mapped_column(ForeignKey("world_lists.id"), primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("results.id"), primary_key=True, index=True)


class WorldListRow(Base):
    """A player's line in a published list, with their place in the list before."""

    __tablename__ = "world_list_rows"
    __table_args__ = (
        UniqueConstraint("list_id", "place", "name"),
        Index("ix_world_list_rows_name_list", "name", "list_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    list_id: Mapped[int] = mapped_column(ForeignKey("world_lists.id"))
    place: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(40))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id"), nullable=True, index=True
    )
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    last_played: Mapped[date] = mapped_column()
    previous_place: Mapped[int | None] = mapped_column(Integer, nullable=True)
    previous_rating: Mapped[float | None] = mapped_column(Float, nullable=True)


class PublishedListError(RuntimeError):
    """Something tried to change a published list."""


def _refuse_change(_mapper: object, _connection: object, target: object) -> None:
    raise PublishedListError(f"published lists are never changed ({type(target).__name__})")


for _model in (WorldList, WorldListRow, WorldListResult):
    event.listen(_model, "before_update", _refuse_change)
    event.listen(_model, "before_delete", _refuse_change)
