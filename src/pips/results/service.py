"""Results, groups and world lists in the database: what the web pages, the JSON API
and ``pips ranking`` do, with their permission rules.

Who may do what:

- enter a result: an account that played in the game; for a group, a member who played
  in it, or the group's representative for any of the group's games;
- confirm or dispute: an account that played in the game;
- resolve a dispute: whoever disputed it, or the group's representative;
- withdraw: whoever entered it, or the group's representative;
- nobody changes a published list: a month is computed once (:meth:`compute_month`).

A batch of results (a CSV upload) is saved whole or not at all.
"""

from __future__ import annotations

from typing import Any

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


class Results(Groups, Reviews, WorldLists):
    """The results service: groups (:mod:`pips.results.groups`), entering and reading
    results (:mod:`pips.results.entries`), reviewing them (:mod:`pips.results.review`)
    and the world lists (:mod:`pips.results.lists`), over one database."""


def publish_due_apart(url: str, settings: RatingSettings) -> list[dict[str, Any]]:
    """:meth:`Results.publish_due` over a connection of its own: run by the server in a
    worker process, so that rating a month does not hold up the games being played."""
    db = Database(url)
    try:
        return Results(db, settings=settings).publish_due()
    finally:
        db.dispose()
