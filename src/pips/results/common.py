"""What the parts of the results service share: the :class:`Context` every part is
handed (the database, the clock, the rating settings), its errors, months, the filter
of a listing, what counts for the world list, and the lookups of groups and
accounts."""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy import ColumnElement, and_, not_, or_, select
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.results.rating import RatingSettings
from pips.results.trust import VOUCHING
from pips.store.db import Database
from pips.store.models import (
    Group,
    Player,
    Result,
    ResultPlayer,
    User,
)

log = logging.getLogger("pips.results")

COUNTED = ("confirmed",)
"""Statuses whose results count for the world list (if rated and not held)."""

STATUSES = ("provisional", "confirmed", "disputed", "withdrawn", "held")
"""What a listing filters by (``held``: waiting for an administrator after a flag)."""


def held_clause() -> ColumnElement[bool]:
    """The "held" rule, the one place it is written: a result is held for an
    administrator while a hold of it is open (``flag``) and no administrator cleared
    it (:mod:`pips.results.holds`). :func:`held` says the same of one result."""
    return and_(Result.flag.is_not(None), Result.flag_cleared_by.is_(None))


def counted_clause() -> tuple[ColumnElement[bool], ...]:
    """The results that count for the world list, as SQL (docs/results.md, "Which
    results count"): confirmed by a source that vouches (:mod:`pips.results.trust`),
    rated, and not held by a flag."""
    return (
        Result.status.in_(COUNTED),
        Result.confirmed_by.in_(VOUCHING),
        Result.rated.is_(True),
        not_(held_clause()),
    )


def held(row: Result) -> bool:
    """:func:`held_clause` of one result in memory."""
    return row.flag is not None and row.flag_cleared_by is None


def counted(row: Result) -> bool:
    """:func:`counted_clause` of one result in memory."""
    return row.status in COUNTED and row.confirmed_by in VOUCHING and row.rated and not held(row)


BOT_PLAYED = phrase("not rated: a bot account played (bots are rated among bots)")
"""Why a result a bot account is at does not count (:func:`bot_seated`)."""


def bot_seated(session: Session, results: Collection[int] | None = None) -> set[int]:
    """Which of ``results`` (``None``: of all) a bot account is at, by the line's
    account or by its player's: the one decision the world list (which leaves them
    out) and a result's page (which says so) share. Bots are never rated as people
    (docs/bots-api.md); a bot account is only at the server's tables' games, entered
    unrated, since it enters no result by hand, claims no player, and an account at
    any result may not become a bot (so no player can take a game from the others'
    ratings by turning bot)."""
    query = (
        select(ResultPlayer.result_id)
        .outerjoin(Player, Player.id == ResultPlayer.player_id)
        .join(User, or_(User.id == ResultPlayer.user_id, User.id == Player.user_id))
        .where(User.bot)
        .distinct()
    )
    if results is None:
        return set(session.scalars(query))
    found: set[int] = set()
    ids = sorted(results)
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        found.update(session.scalars(query.where(ResultPlayer.result_id.in_(chunk))))
    return found


SLUG = re.compile(r"[^a-z0-9]+")


class ResultsError(Exception):
    """A refused request; ``status`` is the HTTP status the API answers with."""

    status = 422


class NotAllowed(ResultsError):
    status = 403


class NotFound(ResultsError):
    status = 404


class Conflict(ResultsError):
    status = 409


def settings_from_env() -> RatingSettings:
    """The rating settings of this installation: ``PIPS_RATING_HALF_LIFE`` days."""
    text = os.environ.get("PIPS_RATING_HALF_LIFE", "").strip()
    if not text:
        return RatingSettings()
    try:
        days = float(text)
    except ValueError:
        raise ValueError(f"PIPS_RATING_HALF_LIFE={text!r} is not a number of days") from None
    return RatingSettings(days)


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def month_bounds(month: str) -> tuple[date, date]:
    """The first day of ``YYYY-MM`` and the first day of the month after."""
    match = re.fullmatch(r"(\d{4})-(\d{2})", month.strip())
    if not match or not 1 <= int(match[2]) <= 12 or not 1 <= int(match[1]) <= 9998:
        raise ResultsError(phrase("{month!r} is not a month (YYYY-MM)", month=month))
    first = date(int(match[1]), int(match[2]), 1)
    after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return first, after


def month_of(day: date | datetime) -> str:
    return f"{day.year:04d}-{day.month:02d}"


SPELLED_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def slugify(name: str) -> str:
    """A group's address from its name, umlauts spelled out and other accents dropped
    (``Domino-Freunde Mühle`` is ``domino-freunde-muehle``)."""
    # Composed first: a name typed on some systems arrives as u + a combining mark.
    composed = unicodedata.normalize("NFC", name)
    spelled = unicodedata.normalize("NFKD", composed.casefold().translate(SPELLED_OUT))
    bare = "".join(c for c in spelled if not unicodedata.combining(c))
    return SLUG.sub("-", bare).strip("-")[:60]


@dataclass(frozen=True)
class Filter:
    """Which results a page or the API lists."""

    group: str | None = None
    game: str | None = None
    month: str | None = None
    player: str | None = None
    status: str | None = None
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True)
class Context:
    """What every part of the results service is handed: the database, the clock (UTC,
    so that tests can place themselves in any month) and the rating settings."""

    db: Database
    clock: Callable[[], datetime] = utc_now
    settings: RatingSettings = field(default_factory=RatingSettings)

    def today(self) -> date:
        return self.clock().date()


def group_named(session: Session, slug: str) -> Group:
    """The group of ``slug``, or :class:`NotFound`."""
    group = session.scalars(select(Group).where(Group.slug == slug)).first()
    if group is None:
        raise NotFound(phrase("no group {slug!r}", slug=slug))
    return group


def account_named(session: Session, name: str) -> User:
    """The account of ``name`` (however it is written), or :class:`NotFound`."""
    user = session.scalars(select(User).where(User.name_key == name_key(name))).first()
    if user is None:
        raise NotFound(phrase("no account named {value!r}", value=name.strip()))
    return user


def is_admin(session: Session, actor: int | None) -> bool:
    """Whether ``actor`` is a site administrator."""
    if actor is None:
        return False
    return bool(session.scalar(select(User.admin).where(User.id == actor)))


def need_admin(session: Session, actor: int | None) -> None:
    """Refuse (:class:`NotAllowed`) anyone but an administrator."""
    if not is_admin(session, actor):
        raise NotAllowed(phrase("only an administrator does this"))
