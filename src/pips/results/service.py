"""Results, groups and world lists in the database: what the web pages, the JSON API
and ``pips ranking`` do, with their permission rules.

Who may do what, and which results count: docs/results.md ("Which results count"),
:mod:`pips.results.review` and :mod:`pips.results.players`. Nobody changes a published
list: a month is computed once (:meth:`compute_month`).

A batch of results (a CSV upload) is saved whole or not at all.
"""

from __future__ import annotations

from typing import Any

from pips.results.admin import Administration
from pips.results.common import (
    COUNTED,
    Conflict,
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
from pips.results.events import Events
from pips.results.groups import Groups
from pips.results.lists import WorldLists
from pips.results.rating import RatingSettings
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


class Results(Administration, Events, Groups, Reviews, WorldLists):
    """The results service: groups (:mod:`pips.results.groups`), players
    (:mod:`pips.results.players`), entering and reading results
    (:mod:`pips.results.entries`), reviewing them (:mod:`pips.results.review`), events
    (:mod:`pips.results.events`), the world lists (:mod:`pips.results.lists`) and what
    administrators do (:mod:`pips.results.admin`), over one database."""


def publish_due_apart(url: str, settings: RatingSettings) -> list[dict[str, Any]]:
    """:meth:`Results.publish_due` over a connection of its own: run by the server in a
    worker process, so that rating a month does not hold up the games being played."""
    db = Database(url)
    try:
        return Results(db, settings=settings).publish_due()
    finally:
        db.dispose()
