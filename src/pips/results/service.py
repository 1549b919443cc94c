"""The results service, wired in one place: groups, players and their claims,
entering results, the register, reviews and holds, events, the world lists and what
administrators do, each an object of its own with a narrow interface, handed what it
needs when it is built (lila's ``Env`` does the same for its modules).

Who may do what, and which results count: docs/results.md ("Which results count"),
:mod:`pips.results.trust`, :mod:`pips.results.review` and :mod:`pips.results.players`.
Nobody changes a published list: a month is computed once
(:meth:`~pips.results.lists.WorldLists.compute_month`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pips.results.admin import Administration
from pips.results.claims import Claims
from pips.results.common import (
    COUNTED,
    Conflict,
    Context,
    Filter,
    NotAllowed,
    NotFound,
    ResultsError,
    month_bounds,
    month_of,
    settings_from_env,
    slugify,
    utc_now,
)
from pips.results.entries import Entries
from pips.results.events.book import Events
from pips.results.events.closing import Closing
from pips.results.events.rounds import EventRounds
from pips.results.events.scores import TableScores
from pips.results.fairplay import Fairplay
from pips.results.groups import Groups
from pips.results.holds import Holds
from pips.results.lists import WorldLists
from pips.results.players import Players
from pips.results.rating import RatingSettings
from pips.results.register import Register
from pips.results.review import Reviews
from pips.store.db import Database

__all__ = [
    "COUNTED",
    "Conflict",
    "Filter",
    "NotAllowed",
    "NotFound",
    "Results",
    "ResultsError",
    "month_bounds",
    "month_of",
    "publish_due_apart",
    "settings_from_env",
    "slugify",
    "utc_now",
]


class Results:
    """Every part of the results service over one database."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], datetime] = utc_now,
        settings: RatingSettings | None = None,
    ) -> None:
        self.context = context = Context(db, clock, settings or RatingSettings())
        self.groups = Groups(context)
        self.players = Players(context)
        self.claims = Claims(context)
        self.holds = Holds(context)
        self.fairplay = Fairplay(context)
        self.entries = Entries(context, self.players, self.holds, self.fairplay)
        self.register = Register(context, self.holds)
        self.reviews = Reviews(context, self.holds, self.register)
        self.lists = WorldLists(context)
        self.admin = Administration(context, self.holds)
        self.events = Events(context, self.players)
        self.rounds = EventRounds(context, self.events)
        self.scores = TableScores(context, self.events)
        self.closing = Closing(context, self.events, self.holds)

    @property
    def db(self) -> Database:
        return self.context.db

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.context.clock

    @property
    def settings(self) -> RatingSettings:
        return self.context.settings


def publish_due_apart(url: str, settings: RatingSettings) -> list[dict[str, Any]]:
    """:meth:`WorldLists.publish_due` over a connection of its own: run by the server in
    a worker process, so that rating a month does not hold up the games being played."""
    db = Database(url)
    try:
        return Results(db, settings=settings).lists.publish_due()
    finally:
        db.dispose()
