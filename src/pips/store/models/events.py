"""Events, from a club evening to a championship: players, rounds, tables and scores."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pips.store.models.base import Base, now
from pips.store.models.play import (
    User,
)
from pips.store.models.results import (
    Group,
)


class Event(Base):
    """An event: a club evening, a cup, a championship (docs/events.md). Its players
    are drawn to tables round by round; each table's result is entered (or played on
    the server's tables, online); its organiser closes it, and its games become
    results."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(24), unique=True)
    """The event's address (``/events/KEY``), from the OS's CSPRNG: not guessable."""
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The game's options but the number of players (that is each table's)."""
    played_on: Mapped[date] = mapped_column(index=True)
    place: Mapped[str] = mapped_column(String(80), default="")
    group_id: Mapped[int | None] = mapped_column(ForeignKey("groups.id"), nullable=True)
    organiser_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    rounds: Mapped[int] = mapped_column(Integer)
    scoring: Mapped[str] = mapped_column(String(12))
    online: Mapped[bool] = mapped_column(default=False)
    """Played on the server's tables, seats filled by the draw."""
    bots: Mapped[bool] = mapped_column(default=False)
    """Online: a bot may play for a player the organiser marks absent."""
    fixed_pairs: Mapped[bool] = mapped_column(default=False)
    """A game of pairs played with fixed partners, drawn as pairs (else drawn alone)."""
    schedule: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    """The day of each round (ISO dates), for an event over several days; ``None``:
    every round on ``played_on``."""
    pairing: Mapped[str] = mapped_column(String(8), default="lot")
    """How rounds after the first are drawn: ``lot`` (avoiding repeats) or ``swiss``
    (by the standings)."""
    clubs_apart: Mapped[str] = mapped_column(String(8), default="normal")
    """How strongly the draw keeps club-mates apart
    (:data:`pips.results.draws.CLUBS_APART`): off, normal, strong, strict."""
    tiebreaks: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    """The organiser's tie-breaks (:data:`pips.results.standings.TIEBREAKS`)."""
    check_in: Mapped[bool] = mapped_column(default=False)
    """Only players checked in are drawn."""
    counted: Mapped[int] = mapped_column(Integer, default=3)
    """A club's or team's best players whose points make its standing."""
    status: Mapped[str] = mapped_column(String(8), default="open", index=True)
    """``open`` (players come, rounds are drawn and played) or ``closed``."""
    created_at: Mapped[datetime] = mapped_column(default=now)
    closed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    sanctioned_at: Mapped[datetime | None] = mapped_column(nullable=True)
    """When an administrator sanctioned the event (a federation's championship): its
    tables' results then count whoever plays (docs/results.md)."""
    sanctioned_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)

    group: Mapped[Group | None] = relationship()
    organiser: Mapped[User] = relationship(foreign_keys=[organiser_id])
    players: Mapped[list[EventPlayer]] = relationship(
        back_populates="event", order_by="EventPlayer.id", cascade="all, delete-orphan"
    )
    drawn: Mapped[list[EventRound]] = relationship(
        back_populates="event", order_by="EventRound.number", cascade="all, delete-orphan"
    )


class EventPlayer(Base):
    """A player of an event: a person (:class:`~pips.store.models.results.Player`), with
    the rounds they are in."""

    __tablename__ = "event_players"
    __table_args__ = (UniqueConstraint("event_id", "name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(320))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    first_round: Mapped[int] = mapped_column(Integer, default=1)
    """The first round they are drawn in (a late arrival's is after the round drawn)."""
    withdrawn_from: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Not drawn from this round on (a withdrawal); their games so far stay."""
    pair: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """With fixed partners, the pair's number (both partners carry it)."""
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The player's seed (1 the strongest): the top seeds sit apart in the first round."""
    club: Mapped[str] = mapped_column(String(80), default="")
    """The club the player plays for (kept apart from clubmates; club standings)."""
    team: Mapped[str] = mapped_column(String(80), default="")
    """The team the player plays in (team standings)."""
    checked_in: Mapped[bool] = mapped_column(default=False)
    """Here and ready (the check-in list)."""
    accepted: Mapped[bool] = mapped_column(default=False)
    """The player's account accepted to play the event (itself, never the organiser
    for it): an online event seats only accounts that did (docs/events.md)."""

    event: Mapped[Event] = relationship(back_populates="players")


class EventRound(Base):
    """A round of an event as drawn: its tables, who sits out, and the draw's seed."""

    __tablename__ = "event_rounds"
    __table_args__ = (UniqueConstraint("event_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[str] = mapped_column(String(20))
    """The draw's seed (decimal), from the OS's CSPRNG: shown, so the draw replays."""
    byes: Mapped[list[str]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(8), default="playing")
    """``drawn`` (online, until the organiser starts it), ``playing`` or ``closed``
    (every table's result is in)."""
    drawn_at: Mapped[datetime] = mapped_column(default=now)
    closed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    played_on: Mapped[date | None] = mapped_column(nullable=True)
    """The round's day (``None``: the event's)."""
    top: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The set the round's tables play (``None``: the event's)."""
    method: Mapped[str] = mapped_column(String(8), default="lot")
    """How it was drawn: ``lot``, ``swiss`` or ``final`` (the final table)."""

    event: Mapped[Event] = relationship(back_populates="drawn")
    tables: Mapped[list[EventTable]] = relationship(
        back_populates="round", order_by="EventTable.number", cascade="all, delete-orphan"
    )


class EventTable(Base):
    """A table of a round: its players in seat order, and online its server table."""

    __tablename__ = "event_tables"
    __table_args__ = (UniqueConstraint("round_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("event_rounds.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    seats: Mapped[list[str]] = mapped_column(JSON)
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id"), nullable=True)
    top: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The set this table plays, when not the round's."""

    round: Mapped[EventRound] = relationship(back_populates="tables")
    scores: Mapped[list[EventScore]] = relationship(
        back_populates="table", order_by="EventScore.id", cascade="all, delete-orphan"
    )


class EventScore(Base):
    """A table's result as entered, and every correction after it (the last one
    counts): never edited, so the history shows who changed what, when and why."""

    __tablename__ = "event_scores"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("event_tables.id"), index=True)
    lines: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    """Per seat: ``name``, ``points``, ``pips``, ``out``, ``final``, ``rank``."""
    target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    source: Mapped[str] = mapped_column(String(8))
    """``form``, ``csv``, ``api``, ``cli`` or ``server`` (an online table's game)."""
    entered_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    entered_at: Mapped[datetime] = mapped_column(default=now)
    reason: Mapped[str] = mapped_column(Text, default="")
    """Why a correction was made (empty for the first result)."""

    table: Mapped[EventTable] = relationship(back_populates="scores")
    enterer: Mapped[User | None] = relationship()
