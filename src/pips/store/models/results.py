"""Results of games: groups and their members, players and their claims, results with their
players, holds and reviews."""

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
from sqlalchemy.orm import Mapped, mapped_column, relationship, validates

from pips.core.phrase import kept, restored
from pips.store.models.base import Base, now
from pips.store.models.play import (
    User,
)


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
    approval_asked_at: Mapped[datetime | None] = mapped_column(nullable=True)
    """When its representative asked an administrator to approve it (issue 50): the
    administrators' page lists the groups that asked first."""

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
    group_agreed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    """When the group's side answered for the player (made by its member or
    representative, or agreed by its representative later); ``None`` while another
    only proposed the player as the group's (an event's "Name; Club")."""
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
    unrated_phrase: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    flag_phrase: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """``unrated`` and ``flag`` as their phrases (:func:`pips.core.phrase.kept`), kept
    when they are set, so that each reader gets them in their language
    (:attr:`unrated_words`, :attr:`flag_words`); rows from before have none."""
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

    @validates("unrated", "flag")
    def _keep_phrase(self, key: str, words: str | None) -> str | None:
        setattr(self, f"{key}_phrase", kept(words))
        return words

    @property
    def unrated_words(self) -> str | None:
        """Why it is not rated, as a phrase to say in the reader's language (the
        English text where no phrase was kept)."""
        return None if self.unrated is None else restored(self.unrated_phrase, self.unrated)

    @property
    def flag_words(self) -> str | None:
        """Why it is held, as a phrase to say in the reader's language."""
        return None if self.flag is None else restored(self.flag_phrase, self.flag)


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
    reason_phrase: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    lifted_phrase: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """``reason`` and ``lifted_because`` as their phrases (template and fields), kept
    when they are set, so that each reader gets them in their language
    (:attr:`reason_words`, :attr:`lifted_words`); the English text stays for rows from
    before, and for anyone who reads the table itself."""

    @validates("reason", "lifted_because")
    def _keep_phrase(self, key: str, words: str | None) -> str | None:
        setattr(self, "reason_phrase" if key == "reason" else "lifted_phrase", kept(words))
        return words

    @property
    def reason_words(self) -> str:
        """Why it is held, as a phrase to say in the reader's language."""
        return restored(self.reason_phrase, self.reason)

    @property
    def lifted_words(self) -> str | None:
        """Why it was lifted, as a phrase to say in the reader's language."""
        if self.lifted_because is None:
            return None
        return restored(self.lifted_phrase, self.lifted_because)


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
