"""What the parts of the event service share: finding an event, its rounds and
tables, who manages it, and what its tables' results are."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, selectinload

from pips.core.phrase import phrase
from pips.games.registry import Game
from pips.results.authority import Action
from pips.results.common import Conflict, NotFound
from pips.results.entry import Checked, check, default_set
from pips.results.entry_formats import entry_from_record
from pips.results.facts import event_facts, may, need
from pips.results.standings import (
    DEFAULT_TIEBREAKS,
    Scoring,
    Standing,
    TableResult,
    standings,
)
from pips.store.models import Event, EventRound, EventScore, EventTable, GameTable

MOST_ROUNDS = 50
MOST_PLAYERS = 1000
"""More players than any event has: a guard against a flood, not a rule."""
REASON_LENGTH = 500
FAR_AHEAD = timedelta(days=3 * 365)
"""An event is planned at most this far ahead (a typo in the year is refused)."""
BOT = "expert"
"""The bot that plays for an absent player at an online event."""


@dataclass(frozen=True)
class Score:
    """A table's result as the event counts it: its lines, and where it came from."""

    lines: tuple[dict[str, Any], ...]
    source: str
    entered_by: str | None
    entered_at: str
    reason: str
    corrections: int

    @property
    def table_result(self) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
        return (
            tuple(str(line["name"]) for line in self.lines),
            tuple(int(line["final"]) for line in self.lines),
            tuple(int(line["rank"]) for line in self.lines),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [dict(line) for line in self.lines],
            "source": self.source,
            "entered_by": self.entered_by,
            "entered_at": self.entered_at,
            "reason": self.reason,
            "corrections": self.corrections,
        }


def score_lines(checked: Checked) -> list[dict[str, Any]]:
    """A checked result's lines as a table's result keeps them."""
    return [
        {
            "name": ln.name,
            "points": ln.points,
            "pips": ln.pips,
            "out": ln.out,
            "final": final,
            "rank": rank,
        }
        for ln, final, rank in zip(checked.entry.lines, checked.final, checked.ranks, strict=True)
    ]


def scoring_of(spec: Game) -> Scoring:
    """How an event of ``spec`` ranks: pairs by match wins, everyone else by points."""
    return Scoring.MATCH_WINS if spec.pairs else Scoring.POINTS


def find_event(session: Session, key: str) -> Event:
    """The event of ``key`` with its players, rounds, tables and their scores loaded in
    four queries: read one by one as they were used, a round of 250 tables cost 257
    queries and half of a thousand-player round's read (docs/benchmarks.md)."""
    event = session.scalars(
        select(Event)
        .where(Event.key == str(key)[:24])
        .options(
            selectinload(Event.players),
            selectinload(Event.drawn)
            .selectinload(EventRound.tables)
            .selectinload(EventTable.scores),
        )
    ).first()
    if event is None:
        raise NotFound(phrase("no such event"))
    return event


def open_event(session: Session, key: str) -> Event:
    """An event that is not closed (a closed one changes no more)."""
    event = find_event(session, key)
    if event.status == "closed":
        raise Conflict(
            phrase(
                "the event is closed: its games are results now (withdraw or dispute them there)"
            )
        )
    return event


def round_of(event: Event, number: int) -> EventRound:
    for one in event.drawn:
        if one.number == number:
            return one
    raise NotFound(phrase("round {number} has not been drawn", number=number))


def table_of(one: EventRound, number: int) -> EventTable:
    for table in one.tables:
        if table.number == number:
            return table
    raise NotFound(phrase("round {round} has no table {number}", round=one.number, number=number))


def manages(session: Session, event: Event, actor: int | None) -> bool:
    """Whether ``actor`` runs the event (:data:`~pips.results.authority.Action.RUN_EVENT`:
    its organiser, or an administrator)."""
    return actor is not None and bool(
        may(session, actor, Action.RUN_EVENT, event_facts(session, event))
    )


def need_manager(session: Session, event: Event, actor: int) -> None:
    need(session, actor, Action.RUN_EVENT, event_facts(session, event))


def set_of(
    event: Event, players: int, one: EventRound | None = None, table: EventTable | None = None
) -> int:
    """The set a table of ``players`` plays with at ``event``: the table's own, else
    its round's, else the event's, else the game's for that many players."""
    if table is not None and table.top is not None:
        return int(table.top)
    if one is not None and one.top is not None:
        return int(one.top)
    top = event.options.get("set")
    return int(top) if isinstance(top, int) else default_set(event.game, players)


def day_of(event: Event, one: EventRound) -> date:
    """The day a round was played: its own (an event over several days), else the
    event's."""
    return one.played_on or event.played_on


def score_of(score: EventScore, corrections: int) -> Score:
    return Score(
        tuple(score.lines),
        score.source,
        None if score.enterer is None else score.enterer.name,
        score.entered_at.isoformat(),
        score.reason,
        corrections,
    )


def finished_games(session: Session, event: Event) -> dict[str, Score]:
    """The online tables of ``event`` whose game is over, as table results."""
    ids = [t.table_id for one in event.drawn for t in one.tables if t.table_id]
    if not ids:
        return {}
    rows = session.execute(
        select(GameTable.id, GameTable.record, GameTable.finished_at).where(
            GameTable.id.in_(ids), GameTable.status == "finished"
        )
    ).all()
    found = {}
    for table_id, written, finished_at in rows:
        if not written or finished_at is None:
            continue
        try:
            entry = entry_from_record(written, finished_at.date())
            checked = check(entry, finished_at.date(), written.get("options"))
        except (KeyError, ValueError):
            continue
        lines = tuple(score_lines(checked))
        found[table_id] = Score(lines, "server", None, finished_at.isoformat(), "", 0)
    return found


def scores_of(session: Session, event: Event) -> dict[int, Score]:
    """Each table's result that counts: the last one entered, or an online table's
    finished game."""
    found: dict[int, Score] = {}
    finished = finished_games(session, event)
    for one in event.drawn:
        for t in one.tables:
            if t.scores:
                found[t.id] = score_of(t.scores[-1], len(t.scores) - 1)
            elif t.table_id in finished:
                found[t.id] = finished[t.table_id]
    return found


def sync_online(session: Session, event: Event, now: datetime) -> None:
    """Close an online round whose tables' games are all over (idempotent: two
    readers at once close it once)."""
    playing = [one for one in event.drawn if one.status == "playing" and event.online]
    if not playing:
        return
    finished = finished_games(session, event)
    for one in playing:
        if all(t.table_id in finished for t in one.tables):
            session.execute(
                update(EventRound)
                .where(EventRound.id == one.id, EventRound.status == "playing")
                .values(status="closed", closed_at=now)
            )


def event_standings(
    event: Event, scores: Mapping[int, Score], before: int | None = None
) -> list[Standing]:
    """The event's standings; ``before``: as they stood before that round was played
    (its own and later rounds left out), by which a round was drawn."""
    results = []
    byes = []
    for one in event.drawn:
        if before is not None and one.number >= before:
            continue
        byes += [(one.number, name) for name in one.byes]
        for t in one.tables:
            if t.id in scores:
                names, finals, places = scores[t.id].table_result
                results.append(TableResult(one.number, t.number, names, finals, places))
    return standings(
        results,
        Scoring(event.scoring),
        byes,
        [p.name for p in event.players],
        tiebreaks=event.tiebreaks or DEFAULT_TIEBREAKS,
        finals=[one.number for one in event.drawn if one.method == "final"],
    )
