"""What the parts of the results service share: its errors, months, the filter of a
listing, and the base every part builds on (the database, the clock, the rating
settings, and the lookups of groups, accounts and results)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.results.rating import RatingSettings
from pips.store.db import Database
from pips.store.models import (
    Group,
    Result,
    User,
)

log = logging.getLogger("pips.results")

COUNTED = ("confirmed",)
"""Statuses whose results count for the world list (if rated and not held)."""

STATUSES = ("provisional", "confirmed", "disputed", "withdrawn", "held")
"""What a listing filters by (``held``: waiting for an administrator after a flag)."""


def counted_clause() -> tuple[ColumnElement[bool], ...]:
    """The results that count for the world list, as SQL (docs/results.md, "Which
    results count"): confirmed, rated, and not held by a flag."""
    return (
        Result.status.in_(COUNTED),
        Result.rated.is_(True),
        or_(Result.flag.is_(None), Result.flag_cleared_by.is_not(None)),
    )


def counted(row: Result) -> bool:
    """:func:`counted_clause` of one result in memory."""
    held = row.flag is not None and row.flag_cleared_by is None
    return row.status in COUNTED and row.rated and not held


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


def slugify(name: str) -> str:
    return SLUG.sub("-", name.casefold()).strip("-")[:60]


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


class ServiceBase:
    """The results service over a database; ``clock`` gives the time (UTC) so tests
    can place themselves in any month."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], datetime] = utc_now,
        settings: RatingSettings | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.settings = settings or RatingSettings()

    def today(self) -> date:
        return self.clock().date()

    def _group(self, session: Session, slug: str) -> Group:
        group = session.scalars(select(Group).where(Group.slug == slug)).first()
        if group is None:
            raise NotFound(phrase("no group {slug!r}", slug=slug))
        return group

    def _user(self, session: Session, name: str) -> User:
        user = session.scalars(select(User).where(User.name_key == name_key(name))).first()
        if user is None:
            raise NotFound(phrase("no account named {value!r}", value=name.strip()))
        return user

    def _accounts(self, session: Session, names: Iterable[str]) -> dict[str, int]:
        """The accounts of ``names``, by their :func:`~pips.core.names.name_key`."""
        keys = {name_key(n) for n in names}
        if not keys:
            return {}
        rows = session.execute(select(User.id, User.name_key).where(User.name_key.in_(keys)))
        return {key: uid for uid, key in rows}
