"""Closing an event: every drawn round must be over; its real tables' games become
results, its online games' results are marked as the event's, and the next world list
counts them (when the organiser's word vouches for them: :mod:`pips.results.trust`).

A table's game entered outside the event (by one of its players, a group, another
event, before the close) can neither block the close nor keep the event's result from
being made: the close always records each table's game as the event's. The other copy
of the same game (its fingerprint: the same numbers whatever the order of the seats)
is withdrawn, with the organiser's word saying why, where the event's word covers it
(entered by the organiser, every player of the organiser's approved group, an
administrator's or a sanctioned event: :mod:`pips.results.authority`). Else both are
kept and the game counts once: the other copy stays the one that counts if it counts
already or is another event's that its own word vouches for
(:func:`~pips.results.authority.stands`), and the event's result is kept beside it,
not rated; otherwise the other copy gives way (no longer rated, its fingerprint given
to the event's result), and withdrawing it takes nothing from the event.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import select, update

from pips.core.phrase import phrase
from pips.results.authority import Action, TakeOver, decide, stands
from pips.results.common import Conflict, Context, ResultsError, counted
from pips.results.entries import refuse_duplicates, result_row, store_results
from pips.results.entry import Checked, Entry, Line, check
from pips.results.events.book import Events
from pips.results.events.common import (
    day_of,
    find_event,
    need_manager,
    open_event,
    set_of,
    sync_online,
)
from pips.results.facts import actor_facts, event_facts, result_facts
from pips.results.holds import Holds, causes
from pips.results.review import waits_of
from pips.store.models import (
    Event,
    EventRound,
    EventScore,
    EventTable,
    Player,
    Result,
    ResultReview,
)


class Closing:
    """Closing events into results."""

    def __init__(self, context: Context, events: Events, holds: Holds) -> None:
        self.context = context
        self.events = events
        self.holds = holds

    def close(self, actor: int, key: str, *, save: bool = True) -> dict[str, Any]:
        """Close the event (see the module). A closed event changes no more. Without
        ``save`` nothing changes: what closing would do is answered (how many results
        it makes, how many count at once, and whose word the others wait for)."""
        with self.context.db.session() as session, session.begin():
            sync_online(session, find_event(session, key), self.context.clock())
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            if not event.drawn:
                raise ResultsError(phrase("no round has been played"))
            for one in event.drawn:
                if one.status != "closed":
                    missing = [str(t.number) for t in one.tables if not t.scores]
                    raise Conflict(
                        phrase(
                            "round {number} is not over: no result from table {tables}",
                            number=one.number,
                            tables=", ".join(missing) or "?",
                        )
                    )
            games: list[Checked] = []
            for one in event.drawn:
                for t in one.tables:
                    if t.table_id is None:
                        label = phrase(
                            "round {round}, table {table}", round=one.number, table=t.number
                        )
                        games.append(
                            replace(self._from_score(event, one, t, t.scores[-1]), label=label)
                        )
            fingerprints = [g.fingerprint() for g in games]
            kept, standing = self._take_over(session, event, games, fingerprints, actor)
            refuse_duplicates(
                session,
                [g for g, fp in zip(games, fingerprints, strict=True) if fp not in standing],
                [fp for fp in fingerprints if fp not in standing],
                actor,
            )
            people: dict[str, Player] = {}
            for p in event.players:
                if p.player_id is not None:
                    person = session.get(Player, p.player_id)
                    if person is not None:
                        people[p.name_key] = person
            moment = self.context.clock()
            rows = [
                result_row(game, fp, people, "event", moment, actor, event.group)
                for game, fp in zip(games, fingerprints, strict=True)
            ]
            for row in rows:
                row.event_id = event.id
                other = standing.get(row.fingerprint or "")
                if other is not None:
                    # Kept beside the copy that counts: the game counts once.
                    row.fingerprint, row.rated = None, False
                    row.unrated = phrase(
                        "the same game as result {number}, which counts in its place",
                        number=other,
                    )
            online = [t.table_id for one in event.drawn for t in one.tables if t.table_id]
            if online:
                session.execute(
                    update(Result).where(Result.table_id.in_(online)).values(event_id=event.id)
                )
            store_results(session, rows, self.holds)
            event.status, event.closed_at = "closed", moment
            if not save:
                made = list(session.scalars(select(Result).where(Result.event_id == event.id)))
                summary = {
                    "results": len(made),
                    "counting": sum(1 for r in made if counted(r)),
                    "kept": kept,
                    "waiting": waits_of(session, made),
                }
                session.rollback()
                return summary
        return self.events.event(key, actor)

    def _take_over(
        self,
        session: Any,
        event: Event,
        games: list[Checked],
        fingerprints: list[str],
        actor: int,
    ) -> tuple[int, dict[str, int]]:
        """Withdraw the results of the very games the event's tables played that the
        event's word covers (:mod:`pips.results.authority`): the event's own result
        takes their place. Of the others (the module says which), those that stand are
        returned by fingerprint (the event's result is kept beside them, not counting)
        and the rest give way; with how many of them are kept beside the event's."""
        known = session.scalars(select(Result).where(Result.fingerprint.in_(fingerprints))).all()
        labels = dict(zip(fingerprints, (g.label for g in games), strict=True))
        closer = actor_facts(session, actor)
        facts = event_facts(session, event)
        kept = 0
        standing: dict[str, int] = {}
        for row in known:
            if row.event_id == event.id:
                continue
            table = labels.get(row.fingerprint or "", "") or "?"
            result = result_facts(session, row)
            if decide(closer, Action.TAKE_OVER, TakeOver(facts, result)):
                row.status, row.fingerprint = "withdrawn", None
                row.reviews.append(
                    ResultReview(
                        user_id=actor,
                        action="withdraw",
                        comment=phrase(
                            "the same game as {table} of the event {name}, whose result "
                            "takes its place",
                            table=table,
                            name=event.name,
                        ),
                    )
                )
                session.flush()
                self.holds.release(session, row, phrase("the result was withdrawn"))
                self.holds.recheck(session, causes([row]))
                continue
            kept += 1
            its_event = session.get(Event, row.event_id) if row.event_id else None
            other = None if its_event is None else event_facts(session, its_event)
            if stands(result, counted(row), other):
                standing[row.fingerprint or ""] = row.id
                continue
            # Not the organiser's to withdraw: it stays, but the event's result is
            # the one that counts (and its fingerprint is the event's now).
            row.fingerprint, row.rated = None, False
            row.unrated = phrase(
                "the same game as {table} of the event {name}, whose result counts in its place",
                table=table,
                name=event.name,
            )
            session.flush()
        return kept, standing

    def _from_score(
        self, event: Event, one: EventRound, table: EventTable, score: EventScore
    ) -> Checked:
        """A table's last result as a result, dated by its round's day (a championship
        over two days dates each game by the day it was played)."""
        lines = tuple(
            Line(str(ln["name"]), int(ln["points"]), int(ln["pips"]), bool(ln["out"]))
            for ln in score.lines
        )
        entry = Entry(
            event.game,
            day_of(event, one),
            set_of(event, len(lines), one, table),
            lines,
            event.place,
            None,
        )
        return check(entry, self.context.today(), event.options)
