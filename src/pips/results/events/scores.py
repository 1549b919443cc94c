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
from pips.core.phrase import phrase
from pips.results.common import Conflict, Context, NotAllowed, ResultsError
from pips.results.entry import Checked, Entry, EntryError, Line, check
from pips.results.events.book import Events
from pips.results.events.common import (
    REASON_LENGTH,
    find_event,
    manages,
    open_event,
    round_of,
    score_lines,
    score_of,
    set_of,
    table_of,
)
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
        result (:func:`~pips.results.entry.check`); refused, nothing changes."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            one = round_of(event, number)
            row = table_of(one, table)
            checked = self._check_table(event, one, row, lines)
            self._may_enter(session, event, one, row, actor, reason)
            self._add_score(session, event, one, row, checked, actor, reason, source)
        return self.events.event(key, actor)

    def enter_csv(
        self, actor: int, key: str, number: int, games: Sequence[Checked], reason: str = ""
    ) -> dict[str, Any]:
        """Enter a round's results from a results CSV (:func:`~pips.results.entry.read_csv`):
        each game goes to the table of the round whose players it names. All or none."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            one = round_of(event, number)
            by_players = {frozenset(name_key(n) for n in t.seats): t for t in one.tables}
            done: set[int] = set()
            for position, game in enumerate(games, 1):
                names = frozenset(name_key(n) for n in game.entry.names)
                row = by_players.get(names)
                if row is None:
                    raise EntryError(
                        phrase(
                            "{game}: no table of round {number} seats {names}",
                            game=game.called(position),
                            number=number,
                            names=", ".join(game.entry.names),
                        )
                    )
                if row.number in done:
                    raise EntryError(
                        phrase("table {number} is in the file twice", number=row.number)
                    )
                done.add(row.number)
                checked = self._check_table(event, one, row, game.entry.lines)
                self._may_enter(session, event, one, row, actor, reason)
                self._add_score(session, event, one, row, checked, actor, reason, "csv")
        return self.events.event(key, actor)

    def history(self, key: str, number: int, table: int) -> list[dict[str, Any]]:
        """Every result entered for a table, the first first, with who, when and why."""
        with self.context.db.session() as session:
            event = find_event(session, key)
            row = table_of(round_of(event, number), table)
            return [score_of(score, index).to_json() for index, score in enumerate(row.scores)]

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
            event.played_on,
            set_of(event, len(row.seats)),
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
        manager = manages(session, event, actor)
        if one.status not in ("playing", "closed"):
            raise Conflict(phrase("round {number} has not started", number=one.number))
        if not manager:
            players = {p.name_key: p.user_id for p in event.players}
            if actor not in {players.get(name_key(n)) for n in row.seats}:
                raise NotAllowed(
                    phrase("only the table's players and the organiser enter its result")
                )
            if one.status == "closed":
                raise NotAllowed(
                    phrase(
                        "round {number} is closed: the organiser corrects its results",
                        number=one.number,
                    )
                )
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
