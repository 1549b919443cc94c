"""The rounds of an event: drawn one at a time (:mod:`pips.results.draws`: tables of
the sizes the game allows, byes, seats by lot, repeated meetings avoided), drawn again
after a late arrival or a withdrawal, and online started at the server's tables."""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.results.common import Conflict, Context, ResultsError
from pips.results.draws import (
    RoundDraw,
    Table,
    allowed_sizes,
    draw_pairs_round,
    draw_round,
)
from pips.results.events.book import Events
from pips.results.events.common import (
    BOT,
    find_event,
    need_manager,
    open_event,
    round_of,
)
from pips.store.models import Event, EventRound, EventTable


@dataclass(frozen=True)
class OnlineSeat:
    """A seat of an online round's table: who holds it, and whether a bot plays it."""

    name: str
    user_id: int
    bot: str | None


class EventRounds:
    """Drawing rounds and starting them online."""

    def __init__(self, context: Context, events: Events) -> None:
        self.context = context
        self.events = events

    def draw_next(self, actor: int, key: str) -> dict[str, Any]:
        """Draw the next round (:mod:`pips.results.draws`) from a seed of the OS's
        CSPRNG, avoiding the meetings of the rounds before; the round before must be
        closed. Offline its tables can then be played and entered; online the
        organiser starts it."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            number = len(event.drawn) + 1
            if number > event.rounds:
                raise Conflict(
                    phrase("all {count} rounds are drawn: close the event", count=event.rounds)
                )
            if event.drawn and event.drawn[-1].status != "closed":
                raise Conflict(
                    phrase(
                        "round {number} is still being played: every table's result first",
                        number=event.drawn[-1].number,
                    )
                )
            event.drawn.append(self._draw(event, number, secrets.randbelow(2**63)))
            try:
                session.flush()
            except IntegrityError:
                raise Conflict(phrase("the round was drawn meanwhile")) from None
        return self.events.event(key, actor)

    def redraw(self, actor: int, key: str, number: int) -> dict[str, Any]:
        """Draw the last round again (after a late arrival or a withdrawal), as long as
        none of its tables has a result and, online, it has not started."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            last = round_of(event, number)
            if last is not event.drawn[-1]:
                raise Conflict(phrase("only the last round drawn can be drawn again"))
            if any(t.scores or t.table_id for t in last.tables) or last.status == "closed":
                raise Conflict(
                    phrase("round {number} has begun: it is not drawn again", number=number)
                )
            again = self._draw(event, number, secrets.randbelow(2**63), before=event.drawn[:-1])
            last.seed, last.byes, last.tables = again.seed, again.byes, again.tables
        return self.events.event(key, actor)

    def _draw(
        self,
        event: Event,
        number: int,
        seed: int,
        before: Sequence[EventRound] | None = None,
    ) -> EventRound:
        earlier = event.drawn if before is None else before
        playing = [
            p
            for p in event.players
            if p.first_round <= number and (p.withdrawn_from is None or p.withdrawn_from > number)
        ]
        met: Counter[frozenset[str]] = Counter()
        byes: Counter[str] = Counter()
        for done in earlier:
            for table in done.tables:
                met.update(RoundDraw(0, (Table(0, tuple(table.seats)),), ()).pairs())
            byes.update(done.byes)
        spec = find_game(event.game)
        rng = random.Random(seed)
        if event.fixed_pairs:
            pairs: dict[int, list[str]] = {}
            for p in playing:
                pairs.setdefault(p.pair or 0, []).append(p.name)
            whole = [tuple(members) for members in pairs.values() if len(members) == 2]
            one = draw_pairs_round(number, whole, spec.teams(4), rng, met, byes)  # type: ignore[arg-type]
        else:
            names = [p.name for p in playing]
            one = draw_round(number, names, allowed_sizes(spec, event.options), rng, met, byes)
        if not one.tables:
            raise ResultsError(
                phrase(
                    "{count} players cannot be seated at a table of this game",
                    count=len(playing),
                )
            )
        return EventRound(
            number=number,
            seed=str(seed),
            byes=list(one.byes),
            status="drawn" if event.online else "playing",
            drawn_at=self.context.clock(),
            tables=[EventTable(number=t.number, seats=list(t.seats)) for t in one.tables],
        )

    def round_draw(self, key: str, number: int) -> tuple[dict[str, Any], RoundDraw]:
        """A drawn round as :mod:`pips.results.draws` has it (for its sheets), with the
        event's JSON."""
        with self.context.db.session() as session:
            event = find_event(session, key)
            one = round_of(event, number)
            drawn = RoundDraw(
                one.number,
                tuple(Table(t.number, tuple(t.seats)) for t in one.tables),
                tuple(one.byes),
            )
        return self.events.event(key), drawn

    # -- online rounds -----------------------------------------------------------------

    def start_online(
        self, actor: int, key: str, number: int, absent: Iterable[str] = ()
    ) -> dict[int, list[OnlineSeat]]:
        """Begin starting an online round: the seats of each of its tables (a bot for a
        player marked ``absent``, if the event allows bots). The round is marked as
        starting, so that a second start is refused; :meth:`started_online` records the
        server's tables, :meth:`failed_online` undoes the mark."""
        away = {name_key(n) for n in absent}
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            if not event.online:
                raise ResultsError(phrase("this event is played at real tables"))
            one = round_of(event, number)
            players = {p.name_key: p for p in event.players}
            seated = {name_key(n) for t in one.tables for n in t.seats}
            unknown = away - seated
            if unknown:
                raise ResultsError(
                    phrase(
                        "{names}: not at a table of this round", names=", ".join(sorted(unknown))
                    )
                )
            if away and not event.bots:
                raise ResultsError(
                    phrase(
                        "this event has no bots for absent players: withdraw them and "
                        "draw the round again"
                    )
                )
            changed = session.execute(
                update(EventRound)
                .where(EventRound.id == one.id, EventRound.status == "drawn")
                .values(status="starting")
            )
            if changed.rowcount != 1:  # type: ignore[attr-defined]
                raise Conflict(phrase("round {number} has already started", number=number))
            seats: dict[int, list[OnlineSeat]] = {}
            for table in one.tables:
                seats[table.number] = []
                for name in table.seats:
                    player = players[name_key(name)]
                    assert player.user_id is not None  # online players have accounts
                    bot = BOT if player.name_key in away else None
                    seats[table.number].append(OnlineSeat(player.name, player.user_id, bot))
            return seats

    def started_online(self, key: str, number: int, tables: Mapping[int, str]) -> dict[str, Any]:
        with self.context.db.session() as session, session.begin():
            event = find_event(session, key)
            one = round_of(event, number)
            for table in one.tables:
                table.table_id = tables[table.number]
            one.status = "playing"
        return self.events.event(key)

    def failed_online(self, key: str, number: int) -> None:
        with self.context.db.session() as session, session.begin():
            event = find_event(session, key)
            one = round_of(event, number)
            if one.status == "starting":
                one.status = "drawn"
