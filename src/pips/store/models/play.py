"""Accounts, sign-ins and the server's game tables: seats, every move, chat, and which
process holds a table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pips.store.models.base import Base, now


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    name_key: Mapped[str] = mapped_column(String(160), unique=True)
    """The name case- and compatibility-folded (:func:`pips.core.names.name_key`): one
    account per name however it is written."""
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=now)
    admin: Mapped[bool] = mapped_column(default=False)
    """A site administrator: approves groups, decides disputes, merges players and
    clears flagged results. Granted only on the command line (``pips admin grant``)."""
    language: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """The language the account chose in a page (:mod:`pips.i18n`); none: its browser's."""
    skeleton: Mapped[str | None] = mapped_column(String(200), nullable=True, index=True)
    """The name's confusable skeleton (Unicode UTS #39): a name that looks like another
    account's or a live guest's is refused (``Honеst`` with a Cyrillic е)."""
    bot: Mapped[bool] = mapped_column(default=False)
    """A bot account (docs/bots-api.md): declared once, before its first game; shown as
    a bot, never on the world list, rated in the bots' pool of its own."""


class SignIn(Base):
    """A browser's session, kept on the server: the cookie holds only its token, so
    signing out (deleting the row) ends it for every copy of the cookie. An account's
    session names the account; a guest's holds the guest's name and token."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    """SHA-256 of the cookie's token: the database never holds a usable token."""
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    guest: Mapped[str | None] = mapped_column(String(40), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(160), index=True)
    skeleton: Mapped[str | None] = mapped_column(String(200), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(default=now)
    seen_at: Mapped[datetime] = mapped_column(default=now, index=True)
    """When the session was last used (kept to the minute): a guest's name is held only
    while the guest is live."""


class GameTable(Base):
    """A table: a game with its options, its seats, and the match played at it."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """A practice table's seed, chosen by its creator and shown to every seat; its
    deals come from ``random.Random(seed)`` and the table is not rated."""
    deal_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A public table's 256-bit deal key (hex) from the OS's CSPRNG, never sent to
    anyone (:mod:`pips.core.fairness`)."""
    status: Mapped[str] = mapped_column(String(12), default="waiting", index=True)
    """``waiting`` for players, ``playing``, ``finished`` or ``abandoned``."""
    private: Mapped[bool] = mapped_column(default=False)
    """Seen only by its players, its invitees and its spectators while it is played,
    and by its players only once it has ended (record, replay, result), unless every
    person who played asked to publish it (``published_at``). Never rated."""
    publish_asks: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    """The entrants of a private table who asked to publish it once it ended."""
    published_at: Mapped[datetime | None] = mapped_column(nullable=True)
    """When the last of its people asked: from then on the private table's game is
    public."""
    invite: Mapped[str] = mapped_column(String(32))
    turn_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=now)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    rematch: Mapped[str | None] = mapped_column(String(24), nullable=True)
    """The table of the rematch, once one of its players asked for it."""
    """The finished game as ``pips.record/1``."""
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The finished game's analysis (``Analysis.to_json``), kept with its record once
    made: it survives restarts and serves every process (issue 51)."""

    seats: Mapped[list[Seat]] = relationship(
        back_populates="table", order_by="Seat.entrant", cascade="all, delete-orphan"
    )


class ApiToken(Base):
    """A personal API token: a script's or a bot's way in as its account, without a
    browser's cookie and CSRF token (``Authorization: Bearer pips_...``). Shown once when
    made; only its SHA-256 is kept, so a copy of the database holds no usable token.
    ``scopes`` (space-separated, :data:`pips.server.accounts.tokens.SCOPES`) narrow what
    it may do; the account's own permissions still decide the rest."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    label: Mapped[str] = mapped_column(String(60))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    shown: Mapped[str] = mapped_column(String(16))
    """The token's first characters (``pips_AbC1``): enough to tell tokens apart in a
    list, far too few to use."""
    scopes: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime] = mapped_column(default=now)
    used_at: Mapped[datetime | None] = mapped_column(nullable=True)
    """When the token was last used (kept to the minute)."""
    revoked_at: Mapped[datetime | None] = mapped_column(nullable=True)


class Challenge(Base):
    """One account asks another to play (docs/bots-api.md): a game, its options and a
    turn timer. ``created`` until the one asked accepts (a table is made: ``table_id``)
    or declines, or the one who asked cancels."""

    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    challenged_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    game: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[Any]] = mapped_column(JSON)
    """The other seats (``{"kind": "open"}`` or ``{"kind": "bot", "bot": ...}``)."""
    turn_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(12), default="created", index=True)
    """``created``, ``accepted``, ``declined`` or ``canceled``."""
    table_id: Mapped[str | None] = mapped_column(String(24), nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=now, index=True)


class GuestName(Base):
    """When a guest first took a name (folded), whoever held it since: a guest holds a
    name against someone registering it for a day from then, however often the name is
    taken again (:mod:`pips.server.accounts`)."""

    __tablename__ = "guest_names"

    name_key: Mapped[str] = mapped_column(String(160), primary_key=True)
    first_taken: Mapped[datetime] = mapped_column(default=now, index=True)


class SignInFailure(Base):
    """Wrong passwords in a row for a name (folded), whoever holds it or not, from one
    address (``address``: a digest of it), or from every address together (``*``):
    what the growing waits after wrong passwords count
    (:class:`pips.server.accounts.Throttle`), kept here so that every server process
    counts the same, and a restart forgets none."""

    __tablename__ = "sign_in_failures"

    name_key: Mapped[str] = mapped_column(String(160), primary_key=True)
    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Float, index=True)
    """The last wrong password, in seconds since the epoch (the processes' clocks)."""


class TableLease(Base):
    """Which server process owns a live table, and until when (several processes,
    docs/server.md): the owner renews it every second; once ``until`` has passed any
    process may take the table over, replaying it from its stored moves."""

    __tablename__ = "table_leases"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(32), index=True)
    """The owning process's node id (random, new at every start)."""
    until: Mapped[datetime] = mapped_column(index=True)
    """UTC, by the database's clock (the processes' clocks may differ)."""


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
    stand_in: Mapped[str | None] = mapped_column(String(40), default=None)
    """The bot that made this move for a person who was away (None: the seat's holder)."""


class ChatLine(Base):
    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    author: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=now)
