"""The declarative base of every table pips keeps, and the time rows are stamped with."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import DeclarativeBase


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)  # stored as UTC, naive (portable)


class Base(DeclarativeBase):
    pass
