"""What the events' API answers: an event as its page shows it, the events listed,
a table's result checked or its history, a round's CSV reviewed, an event's closing
reviewed, what its results wait for and its sanction."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pips.server.responses import Told


class EventListed(Told):
    """An event in the list; its ``key`` only to those who act on it."""

    key: str | None = Field(description="The event's address; null: not the asker's to act on.")
    name: str
    game: str
    date: str
    place: str
    players: int
    rounds: int
    drawn: int = Field(description="Rounds drawn.")
    online: bool
    status: str


class EventEntrant(Told):
    """A player of an event."""

    id: int
    name: str
    player: int | None = Field(description="The player's id in the register.")
    account: bool
    first_round: int
    withdrawn_from: int | None
    pair: int | None
    seed: int | None
    club: str
    team: str
    checked_in: bool
    accepted: bool
    mine: bool = Field(description="The asker's own line.")


class SeatBefore(Told):
    """A seat of a drawn table as the draw saw it."""

    name: str
    points: int | None
    rank: int | None
    repeats: list[str] = Field(description="Whom at the table they met before.")
    club_mates: list[str]


class TableOfRound(Told):
    number: int
    seats: list[str]
    before: list[SeatBefore]
    set: int
    table_id: str | None = Field(description="The online table's id, if it is one.")
    mine: bool
    result: dict[str, Any] | None = Field(description="The table's result, as its history.")


class RoundDrawn(Told):
    number: int
    seed: str
    status: str
    date: str
    method: str
    top: int | None
    byes: list[str]
    clubs_apart: str
    seeds_apart: bool
    tables: list[TableOfRound]


class EventStanding(Told):
    place: int
    name: str
    points: int
    wins: int
    games: int
    byes: int
    average_place: float
    buchholz: int
    best: int
    final_place: int | None
    withdrawn: bool
    withdrawn_from: int | None
    late_from: int | None
    club: str


class GroupLine(Told):
    """A club's or a team's line: its points are its best players' sum."""

    place: int
    name: str
    points: int
    counted: list[str] = Field(description="The players whose points count.")
    players: int


class ResultsWaitFor(Told):
    """Who an event's results wait for, with how many results each."""

    kind: str = Field(description="player, representative or admin.")
    who: str
    results: int


class EventShown(Told):
    """An event as its page shows it: players, rounds, tables with their results, the
    standings so far, and what the asker may do."""

    key: str
    name: str
    game: str
    title: str
    options: dict[str, Any]
    date: str
    place: str
    group: str | None = Field(description="The group's slug.")
    group_name: str | None
    organiser: str
    rounds: int
    scoring: str
    online: bool
    bots: bool
    fixed_pairs: bool
    schedule: list[str] | None
    pairing: str
    tiebreaks: list[str]
    check_in: bool
    counted: int
    clubs_apart: str
    status: str
    closed_at: str | None
    sanctioned: bool
    waiting: list[ResultsWaitFor]
    manage: bool = Field(description="The asker manages it.")
    players: list[EventEntrant]
    drawn: list[RoundDrawn]
    standings: list[EventStanding]
    clubs: list[GroupLine]
    teams: list[GroupLine]


class ScoreLine(Told):
    name: str
    points: int
    pips: int
    out: bool
    final: int
    rank: int


class TableChecked(Told):
    """What entering a table's result would save."""

    players: list[ScoreLine]
    before: list[dict[str, Any]] | None = Field(description="The lines a correction replaces.")
    changed: list[list[str]] = Field(description="The fields each line changes.")
    warnings: list[str]


class TableScore(Told):
    """One result entered for a table."""

    players: list[dict[str, Any]]
    source: str
    entered_by: str | None
    entered_at: str
    reason: str
    corrections: int


class TableFromCsv(Told):
    table: int
    game: str
    players: list[ScoreLine]
    correction: bool
    warnings: list[str]


class RoundCsvReviewed(Told):
    """The tables a round's CSV would go to (nothing saved)."""

    tables: list[TableFromCsv]


class ClosingReviewed(Told):
    """What closing an event would store (nothing saved)."""

    results: int
    counting: int
    kept: int = Field(description="Games already entered elsewhere, kept beside them.")
    waiting: list[ResultsWaitFor]


class EventSanctioned(Told):
    event: str
    sanctioned: bool
    results: int
    counting: int
    saved: bool
