"""The results of an event's tables: entered by one of the table's players or the
organiser (form, phone page, CSV, API, the command line), checked by the rules of any
result; a round closes when every table is in. Corrections need a reason and are kept:
a table's result is never edited, a new one is added and the last one counts. An online
table's result is its game's record, and nobody corrects it by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import Phrase, joined, phrase
from pips.results.authority import Action, TableFacts
from pips.results.common import Conflict, Context, ResultsError
from pips.results.entry import Checked, Entry, EntryError, Line, check
from pips.results.events.book import Events
from pips.results.events.common import (
    REASON_LENGTH,
    day_of,
    find_event,
    open_event,
    round_of,
    score_lines,
    score_of,
    set_of,
    table_of,
)
from pips.results.facts import event_facts, need
from pips.results.plausible import unusual
from pips.results.players import close
from pips.store.models import Event, EventRound, EventScore, EventTable


class TableScores:
    """Entering and correcting the results of an event's tables."""

    def __init__(self, context: Context, events: Events) -> None:
        self.context = context
        self.events = events

    def enter(
        self,
        actor: int,
        key: str,
        number: int,
        table: int,
        lines: Sequence[Line],
        *,
        reason: str = "",
        source: str = "api",
    ) -> dict[str, Any]:
        """Enter (or correct) the result of table ``table`` of round ``number``:
        ``lines`` name the table's players, in any order. Checked by the rules of any
        result (:func:`~pips.results.entry.check`); refused, nothing changes. The
        event as it stands after."""
        self.enter_only(actor, key, number, table, lines, reason=reason, source=source)
        return self.events.event(key, actor)

    def enter_only(
        self,
        actor: int,
        key: str,
        number: int,
        table: int,
        lines: Sequence[Line],
        *,
        reason: str = "",
        source: str = "api",
    ) -> None:
        """:meth:`enter` only, without reading the event back (a championship's 30 tables
        a round entered from a script)."""
        with self.context.db.session() as session, session.begin():
            event, one, row, checked = self._checked(
                session, actor, key, number, table, lines, reason
            )
            self._add_score(session, event, one, row, checked, actor, reason, source)

    def preview(
        self,
        actor: int,
        key: str,
        number: int,
        table: int,
        lines: Sequence[Line],
        *,
        reason: str = "",
    ) -> dict[str, Any]:
        """What :meth:`enter` would save, without saving it: the table's lines as they
        would count, the lines they replace (a correction: old against new) and what
        looks unusual (:func:`~pips.results.plausible.unusual`). Refuses what
        :meth:`enter` refuses."""
        with self.context.db.session() as session:
            _, _, row, checked = self._checked(session, actor, key, number, table, lines, reason)
            after = score_lines(checked)
            before = None
            if row.scores:
                old = {name_key(str(line["name"])): line for line in row.scores[-1].lines}
                before = [dict(old.get(name_key(str(line["name"])), {})) for line in after]
            return {
                "players": after,
                "before": before,
                "changed": changed_seats(before, after),
                "warnings": unusual(checked),
            }

    def enter_csv(
        self,
        actor: int,
        key: str,
        number: int,
        games: Sequence[Checked],
        reason: str = "",
        *,
        save: bool = True,
    ) -> dict[str, Any]:
        """Enter a round's results from a results CSV
        (:func:`~pips.results.entry_formats.read_csv`): each game goes to the table of
        the round whose players it names. All or none.
        With ``save`` false nothing is saved: the tables the games went to, with their
        lines and warnings, for a review (``{"tables": [...]}``)."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            one = round_of(event, number)
            by_players = {frozenset(name_key(n) for n in t.seats): t for t in one.tables}
            done: set[int] = set()
            review = []
            for position, game in enumerate(games, 1):
                names = frozenset(name_key(n) for n in game.entry.names)
                row = by_players.get(names)
                if row is None:
                    raise EntryError(self._no_table(one, game, position))
                if row.number in done:
                    raise EntryError(
                        phrase("table {number} is in the file twice", number=row.number)
                    )
                done.add(row.number)
                checked = self._check_table(event, one, row, game.entry.lines)
                self._may_enter(session, event, one, row, actor, reason)
                review.append(
                    {
                        "table": row.number,
                        "game": game.called(position),
                        "players": score_lines(checked),
                        "correction": bool(row.scores),
                        "warnings": unusual(checked),
                    }
                )
                if save:
                    self._add_score(session, event, one, row, checked, actor, reason, "csv")
            if not save:
                session.rollback()
                return {"tables": review}
        return self.events.event(key, actor)

    @staticmethod
    def _no_table(one: EventRound, game: Checked, position: int) -> Phrase:
        """Why a game of a round's CSV finds no table: the names no table of the round
        seats, each with the seated names it resembles (a typo)."""
        seated = [n for t in one.tables for n in t.seats]
        keys = {name_key(n) for n in seated}
        hints = []
        for name in game.entry.names:
            if name_key(name) in keys:
                continue
            like = sorted({n for n in seated if close(n, name)})
            hints.append(
                phrase("{name}: did you mean {names}?", name=name, names=" / ".join(like))
                if like
                else phrase("{name} plays no table of this round", name=name)
            )
        if not hints:
            hints.append(phrase("they sit at different tables"))
        return phrase(
            "{game}: no table of round {number} seats {names} ({hints})",
            game=game.called(position),
            number=one.number,
            names=", ".join(game.entry.names),
            hints=joined(hints, "; "),
        )

    def history(self, key: str, number: int, table: int) -> list[dict[str, Any]]:
        """Every result entered for a table, the first first, with who, when and why."""
        with self.context.db.session() as session:
            event = find_event(session, key)
            row = table_of(round_of(event, number), table)
            return [score_of(score, index).to_json() for index, score in enumerate(row.scores)]

    def _checked(
        self,
        session: Session,
        actor: int,
        key: str,
        number: int,
        table: int,
        lines: Sequence[Line],
        reason: str,
    ) -> tuple[Event, EventRound, EventTable, Checked]:
        """A table's result checked, and the actor's right to enter it: refused, with
        nothing changed, by the rules of any result or of the event."""
        event = open_event(session, key)
        one = round_of(event, number)
        row = table_of(one, table)
        checked = self._check_table(event, one, row, lines)
        self._may_enter(session, event, one, row, actor, reason)
        return event, one, row, checked

    def _check_table(
        self, event: Event, one: EventRound, row: EventTable, lines: Sequence[Line]
    ) -> Checked:
        if row.table_id is not None:
            raise ResultsError(
                phrase(
                    "table {number} is played on the server: its result is its game's record",
                    number=row.number,
                )
            )
        seats = {name_key(n): seat for seat, n in enumerate(row.seats)}
        given = {name_key(line.name): line for line in lines}
        if len(given) != len(lines) or set(given) != set(seats):
            raise EntryError(
                phrase(
                    "table {number} of round {round} seats {names}: give a line for each",
                    number=row.number,
                    round=one.number,
                    names=", ".join(row.seats),
                )
            )
        ordered = [given[name_key(n)] for n in row.seats]
        entry = Entry(
            event.game,
            day_of(event, one),
            set_of(event, len(row.seats), one, row),
            tuple(
                Line(n, ln.points, ln.pips, ln.out)
                for n, ln in zip(row.seats, ordered, strict=True)
            ),
            event.place,
            None,
        )
        return check(entry, self.context.today(), event.options)

    def _may_enter(
        self,
        session: Session,
        event: Event,
        one: EventRound,
        row: EventTable,
        actor: int,
        reason: str,
    ) -> None:
        if one.status not in ("playing", "closed"):
            raise Conflict(phrase("round {number} has not started", number=one.number))
        players = {p.name_key: p.user_id for p in event.players}
        accounts = frozenset(
            u for u in (players.get(name_key(n)) for n in row.seats) if u is not None
        )
        table = TableFacts(event_facts(session, event), accounts, one.status == "closed")
        need(session, actor, Action.CORRECT, table)
        if row.scores and not reason.strip():
            raise ResultsError(
                phrase(
                    "table {number} has a result: say why it is corrected",
                    number=row.number,
                )
            )
        if len(reason) > REASON_LENGTH:
            raise ResultsError(
                phrase("a reason is at most {count} characters", count=REASON_LENGTH)
            )

    def _add_score(
        self,
        session: Session,
        event: Event,
        one: EventRound,
        row: EventTable,
        checked: Checked,
        actor: int | None,
        reason: str,
        source: str,
    ) -> None:
        lines = score_lines(checked)
        row.scores.append(
            EventScore(
                lines=lines,
                target=checked.target,
                source=source,
                entered_by=actor,
                entered_at=self.context.clock(),
                reason=reason.strip(),
            )
        )
        session.flush()
        if one.status == "playing" and all(t.scores for t in one.tables):
            one.status, one.closed_at = "closed", self.context.clock()


def changed_seats(
    before: Sequence[dict[str, Any]] | None, after: Sequence[dict[str, Any]]
) -> list[list[str]]:
    """For each line, the fields a correction changes (``before`` lined up with
    ``after``; every field of a first result)."""
    fields = ("points", "pips", "out", "final", "rank")
    if before is None:
        return [list(fields) for _ in after]
    return [
        [f for f in fields if old.get(f) != new[f]] for old, new in zip(before, after, strict=True)
    ]
