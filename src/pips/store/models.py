"""The tables pips keeps: players, game tables with their seats, every move, chat;
results of games (real tables and the server's), groups, and the published world lists.

A game table's moves are stored one row each, in order, before anyone is told of them;
with the table's game, options and seed they rebuild the match exactly (the deals come
from the seed), so a restarted server resumes every unfinished game where it was.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)  # stored as UTC, naive (portable)


class Base(DeclarativeBase):
    pass


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

    seats: Mapped[list[Seat]] = relationship(
        back_populates="table", order_by="Seat.entrant", cascade="all, delete-orphan"
    )


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


class Group(Base):
    """A club: its members, and the representative who enters results for it."""

    __tablename__ = "groups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(60), unique=True)
    slug: Mapped[str] = mapped_column(String(60), unique=True)
    representative_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=now)
    approved_at: Mapped[datetime | None] = mapped_column(nullable=True)
    """When a site administrator approved the group: its representative's word then
    confirms the group's results (docs/results.md, "Which results count")."""
    approved_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)

    representative: Mapped[User] = relationship(foreign_keys=[representative_id])
    members: Mapped[list[GroupMember]] = relationship(
        back_populates="group", cascade="all, delete-orphan"
    )


class GroupMember(Base):
    """An account in a group: a member once both sides agreed (the representative
    invited it and it accepted, or it asked and the representative accepted), so that
    nobody is made a club's member, and vouched for by its representative, unasked."""

    __tablename__ = "group_members"

    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    joined_at: Mapped[datetime] = mapped_column(default=now)
    status: Mapped[str] = mapped_column(String(8), default="member")
    """``member``, ``invited`` (by the representative, waiting for the account) or
    ``asked`` (by the account, waiting for the representative)."""

    group: Mapped[Group] = relationship(back_populates="members")
    user: Mapped[User] = relationship()


class Player(Base):
    """A person who plays: the players of results point here, not at names, so that a
    typo is not a new person and two people of one name are two players.

    A player is made when a result first names them (in the group it was entered for);
    an account claims a player, approved by the group's representative (or an
    administrator), and an administrator merges two players who are one person.
    """

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(320), index=True)
    group_id: Mapped[int | None] = mapped_column(ForeignKey("groups.id"), nullable=True, index=True)
    """The group whose result first named the player (``None``: entered without one)."""
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    """The account that is this player (its claim approved, or its own games)."""
    merged_into: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    """Merged by an administrator into this player (this one is then only a name)."""
    created_at: Mapped[datetime] = mapped_column(default=now)


class PlayerClaim(Base):
    """An account asking to be a player ("this is me"): it blocks nobody until the
    player's group's representative (or an administrator) approves it; several
    accounts may ask for one player, and an account has few claims waiting at once."""

    __tablename__ = "player_claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=now)
    decided_at: Mapped[datetime | None] = mapped_column(nullable=True)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    approved: Mapped[bool | None] = mapped_column(nullable=True)


class Result(Base):
    """A finished game's result: entered by a person (form, CSV, API) or by the server.

    ``status`` is ``provisional``, ``confirmed``, ``disputed`` or ``withdrawn``; only a
    confirmed result that is rated and not held by a flag counts for the world list
    (docs/results.md, "Which results count"). A result is never edited: it is withdrawn
    and entered again, and every change of status is kept in :class:`ResultReview`.
    """

    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(20), index=True)
    played_on: Mapped[date] = mapped_column(index=True)
    place: Mapped[str] = mapped_column(String(80), default="")
    set: Mapped[int] = mapped_column(Integer)
    divisor: Mapped[int | None] = mapped_column(Integer, nullable=True)
    group_id: Mapped[int | None] = mapped_column(ForeignKey("groups.id"), nullable=True, index=True)
    source: Mapped[str] = mapped_column(String(8))
    """``form``, ``csv``, ``api`` or ``server``."""
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id"), nullable=True)
    entered_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    entered_at: Mapped[datetime] = mapped_column(default=now, index=True)
    status: Mapped[str] = mapped_column(String(12), default="provisional", index=True)
    confirmed_by: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """What confirmed it: ``server`` (every move seen), ``group`` (the representative of
    an approved group), ``players`` (the accounts of the other players) or ``admin``."""
    rated: Mapped[bool] = mapped_column(default=True)
    """False for a server game that is not rated (``unrated``: why)."""
    unrated: Mapped[str | None] = mapped_column(String(300), nullable=True)
    """Why a server game is not rated: a bot or a guest played, an account in probation
    (:mod:`pips.results.fairplay`)."""
    target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The match target played to, when not the game's own (FA-11, DB-13, PT-13)."""
    flag: Mapped[str | None] = mapped_column(String(300), nullable=True)
    """Why the result is held for an administrator (an anomaly), while a hold of it is
    open (:class:`ResultHold`); an administrator's clearing lets it count."""
    flag_cleared_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    fingerprint: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    """Refuses the same game entered twice; a withdrawn result gives its fingerprint up,
    so that it can be entered again."""
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id"), nullable=True, index=True)
    """The event the game was played at (entered when its organiser closed it)."""

    players: Mapped[list[ResultPlayer]] = relationship(
        back_populates="result", order_by="ResultPlayer.seat", cascade="all, delete-orphan"
    )
    reviews: Mapped[list[ResultReview]] = relationship(
        back_populates="result", order_by="ResultReview.id", cascade="all, delete-orphan"
    )
    group: Mapped[Group | None] = relationship()
    enterer: Mapped[User | None] = relationship(foreign_keys=[entered_by])


class ResultPlayer(Base):
    """One seat of a result, as entered, with its final score and place."""

    __tablename__ = "result_players"
    __table_args__ = (UniqueConstraint("result_id", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("results.id"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80), index=True)
    """The name as entered (the sheet's words; the player's name may differ)."""
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    """The account that played this seat at a server table."""
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id"), nullable=True, index=True
    )
    """The person (``None`` only for a guest or a bot at a server table)."""
    team: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    pips: Mapped[int] = mapped_column(Integer)
    out: Mapped[bool] = mapped_column(default=False)
    final: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)

    result: Mapped[Result] = relationship(back_populates="players")
    player: Mapped[Player | None] = relationship()


class ResultHold(Base):
    """A result held because one of its players has more confirmed games (or wins) on
    one day than anyone plays (:mod:`pips.results.holds`): its cause, and when it was
    lifted and why (the results that made it withdrawn or rejected, or an
    administrator's clearing)."""

    __tablename__ = "result_holds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("results.id"), index=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    """The player with too many games that day (none for holds kept from before)."""
    day: Mapped[date] = mapped_column()
    kind: Mapped[str] = mapped_column(String(8))
    """``table`` (real tables) or ``server``: each has its own bounds."""
    reason: Mapped[str] = mapped_column(String(300))
    held_at: Mapped[datetime] = mapped_column(default=now)
    lifted_at: Mapped[datetime | None] = mapped_column(nullable=True, index=True)
    lifted_because: Mapped[str | None] = mapped_column(String(300), nullable=True)


class ResultReview(Base):
    """Who confirmed, disputed, resolved or withdrew a result, when, and why."""

    __tablename__ = "result_reviews"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("results.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(10))
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=now)

    result: Mapped[Result] = relationship(back_populates="reviews")
    user: Mapped[User] = relationship()


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

    group: Mapped[Group | None] = relationship()
    organiser: Mapped[User] = relationship()
    players: Mapped[list[EventPlayer]] = relationship(
        back_populates="event", order_by="EventPlayer.id", cascade="all, delete-orphan"
    )
    drawn: Mapped[list[EventRound]] = relationship(
        back_populates="event", order_by="EventRound.number", cascade="all, delete-orphan"
    )


class EventPlayer(Base):
    """A player of an event: a person (:class:`Player`), with the rounds they are in."""

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
