"""The rounds of an event: drawn one at a time (:mod:`pips.results.draws`: tables of
the sizes the game allows, byes, seats by lot, repeated meetings avoided), drawn again
after a late arrival or a withdrawal, and online started at the server's tables."""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.results.common import Conflict, Context, NotFound, ResultsError
from pips.results.draws import (
    CLUBS_APART,
    Apart,
    RoundDraw,
    Table,
    TableOptions,
    draw_pairs_round,
    draw_round,
    draw_swiss_round,
)
from pips.results.events.book import Events
from pips.results.events.common import (
    BOT,
    event_standings,
    find_event,
    need_manager,
    open_event,
    round_of,
    scores_of,
    table_of,
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

    def draw_next(
        self,
        actor: int,
        key: str,
        *,
        method: str | None = None,
        top: int | None = None,
        final: int | None = None,
    ) -> dict[str, Any]:
        """Draw the next round from a seed of the OS's CSPRNG; the round before must be
        closed. ``method``: ``lot`` (avoiding the meetings of the rounds before) or
        ``swiss`` (by the standings), the event's pairing when not given; the first
        round is always by lot, the top seeds apart. ``final``: instead, the final
        table of the ``final`` players leading the standings (one table, ranked first
        by its places). ``top``: the set this round's tables play. Offline its tables
        can then be played and entered; online the organiser starts it."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            number = len(event.drawn) + 1
            if number > event.rounds and final is None:
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
            if any(one.method == "final" for one in event.drawn):
                raise Conflict(phrase("the final table was played: close the event"))
            chosen = method or event.pairing
            if chosen not in ("lot", "swiss"):
                raise ResultsError(phrase("a round is drawn by lot or swiss"))
            # The event's options, parsed once as it is read: typed from here on.
            tables = event_tables(event)
            if top is not None:
                self._check_set(event, tables, top)
            seed = secrets.randbelow(2**63)
            if final is not None:
                drawn = self._final(session, event, tables, number, final, seed)
            else:
                drawn = self._draw(session, event, tables, number, seed, method=chosen)
            # A set chosen for a round holds for the rounds after it (day two on
            # double-12) until another is chosen.
            drawn.top = top if top is not None else (event.drawn[-1].top if event.drawn else None)
            event.drawn.append(drawn)
            try:
                session.flush()
            except IntegrityError:
                raise Conflict(phrase("the round was drawn meanwhile")) from None
        return self.events.event(key, actor)

    def set_table(self, actor: int, key: str, number: int, table: int, top: int) -> dict[str, Any]:
        """Play table ``table`` of round ``number`` with the set ``top`` (a club with
        too few double-12 boxes); only before the table has a result."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            row = table_of(round_of(event, number), table)
            if row.scores or row.table_id:
                raise Conflict(phrase("table {number} has a result: its set stays", number=table))
            self._check_set(event, event_tables(event), top, len(row.seats))
            row.top = top
        return self.events.event(key, actor)

    @staticmethod
    def _check_set(
        event: Event, tables: TableOptions, top: int, players: int | None = None
    ) -> None:
        spec = find_game(event.game)
        if tables.with_set(top, players) is not None:
            return
        raise ResultsError(
            phrase("the {game} is not played with double-{top} here", game=spec.title, top=top)
        )

    def _final(
        self, session: Any, event: Event, tables: TableOptions, number: int, size: int, seed: int
    ) -> EventRound:
        """The final table: the ``size`` players leading the standings (not withdrawn),
        seats by lot."""
        if size not in tables.sizes:
            raise ResultsError(phrase("a table of this game does not seat {count}", count=size))
        if not event.drawn:
            raise Conflict(phrase("a final table is drawn after the rounds"))
        leaving = {p.name for p in event.players if p.withdrawn_from is not None}
        ranked = [
            s.name
            for s in event_standings(event, scores_of(session, event))
            if s.name not in leaving
        ]
        if len(ranked) < size:
            raise ResultsError(
                phrase(
                    "Players in the standings: {count}; the final table needs {size}.",
                    count=len(ranked),
                    size=size,
                )
            )
        seats = list(ranked[:size])
        random.Random(seed).shuffle(seats)
        return EventRound(
            number=number,
            seed=str(seed),
            byes=[],
            status="drawn" if event.online else "playing",
            drawn_at=self.context.clock(),
            played_on=self._day(event, number),
            method="final",
            tables=[EventTable(number=1, seats=seats)],
        )

    @staticmethod
    def _day(event: Event, number: int) -> date | None:
        schedule = event.schedule or []
        if not schedule:
            return None
        return date.fromisoformat(schedule[min(number, len(schedule)) - 1])

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
            if last.method == "final":
                raise Conflict(phrase("the final table is not drawn again"))
            # Who arrived after this round was drawn was put down for the next one; the
            # round is drawn again to seat them, so they play it.
            for player in event.players:
                if player.first_round == number + 1:
                    player.first_round = number
            again = self._draw(
                session,
                event,
                event_tables(event),
                number,
                secrets.randbelow(2**63),
                method=last.method,
                before=event.drawn[:-1],
            )
            # The new draw's values, not its rows: its tables belong to a round that was
            # never the event's, and moving them would bring that round along (unsaved,
            # with no event: the 500 organisers met at "Durchgang neu auslosen").
            last.seed, last.byes = again.seed, list(again.byes)
            last.tables.clear()
            session.flush()  # the old tables go before the new take their numbers
            last.tables.extend(
                EventTable(number=t.number, seats=list(t.seats)) for t in again.tables
            )
        return self.events.event(key, actor)

    def _draw(
        self,
        session: Any,
        event: Event,
        tables: TableOptions,
        number: int,
        seed: int,
        *,
        method: str = "lot",
        before: Sequence[EventRound] | None = None,
    ) -> EventRound:
        earlier = event.drawn if before is None else before
        playing = [
            p
            for p in event.players
            if p.first_round <= number
            and (p.withdrawn_from is None or p.withdrawn_from > number)
            and (p.checked_in or not event.check_in)
        ]
        met: Counter[frozenset[str]] = Counter()
        byes: Counter[str] = Counter()
        for done in earlier:
            for table in done.tables:
                met.update(RoundDraw(0, (Table(0, tuple(table.seats)),), ()).pairs())
            byes.update(done.byes)
        spec = find_game(event.game)
        rng = random.Random(seed)
        apart = Apart(
            clubs={p.name: p.club for p in playing},
            seeds={p.name: p.seed for p in playing if p.seed} if not earlier else {},
            club_cost=CLUBS_APART.get(event.clubs_apart or "normal", CLUBS_APART["normal"]),
        )
        sizes = tables.allowed()
        if event.fixed_pairs:
            pairs: dict[int, list[str]] = {}
            for p in playing:
                pairs.setdefault(p.pair or 0, []).append(p.name)
            whole = [tuple(members) for members in pairs.values() if len(members) == 2]
            one = draw_pairs_round(number, whole, spec.teams(4), rng, met, byes)  # type: ignore[arg-type]
        elif method == "swiss" and earlier:
            names = {p.name for p in playing}
            ranking = [
                s.name for s in event_standings(event, scores_of(session, event)) if s.name in names
            ]
            one = draw_swiss_round(number, ranking, sizes, rng, met, byes, apart)
        else:
            names_in_order = [p.name for p in playing]
            one = draw_round(number, names_in_order, sizes, rng, met, byes, apart)
        if not one.tables:
            # Name the cause: with check-in it is nearly always the ticks not yet set.
            if event.check_in:
                raise ResultsError(
                    phrase(
                        "Checked in: {checked} of {count}; a table needs at least {least}.",
                        checked=len(playing),
                        count=len(
                            [
                                p
                                for p in event.players
                                if p.withdrawn_from is None or p.withdrawn_from > number
                            ]
                        ),
                        least=min(sizes),
                    )
                )
            raise ResultsError(
                phrase(
                    "Players to draw: {count}; a table of this game needs at least {least}.",
                    count=len(playing),
                    least=min(sizes),
                )
            )
        return EventRound(
            number=number,
            seed=str(seed),
            byes=list(one.byes),
            status="drawn" if event.online else "playing",
            drawn_at=self.context.clock(),
            played_on=self._day(event, number),
            method="swiss" if method == "swiss" and earlier and not event.fixed_pairs else "lot",
            tables=[EventTable(number=t.number, seats=list(t.seats)) for t in one.tables],
        )

    def round_draw(self, key: str, number: int) -> tuple[dict[str, Any], RoundDraw]:
        """A drawn round as :mod:`pips.results.draws` has it (for its sheets), with the
        event's JSON."""
        # From the event as shown: read once (a thousand players' round is a tenth of a
        # second of the interpreter per read, and every reader of the sheets pays it).
        shown = self.events.event(key)
        one = next((r for r in shown["drawn"] if r["number"] == number), None)
        if one is None:
            raise NotFound(phrase("round {number} has not been drawn", number=number))
        drawn = RoundDraw(
            one["number"],
            tuple(Table(table["number"], tuple(table["seats"])) for table in one["tables"]),
            tuple(one["byes"]),
        )
        return shown, drawn

    # -- online rounds -----------------------------------------------------------------

    def start_online(
        self,
        actor: int,
        key: str,
        number: int,
        absent: Iterable[str] = (),
        *,
        most_tables: int | None = None,
    ) -> dict[int, list[OnlineSeat]]:
        """Begin starting an online round: the seats of each of its tables (a bot for a
        player marked ``absent``, if the event allows bots). The round is marked as
        starting, so that a second start is refused; :meth:`started_online` records the
        server's tables, :meth:`failed_online` undoes the mark.

        Refused (409, nothing changed): a round with a player whose account has not
        accepted to play the event (:meth:`Events.accept`: no account is seated, nor
        played by a bot, without its consent), a table with every seat absent (bots
        alone, in the players' names), and a round of more than ``most_tables``
        tables."""
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
            pending = sorted(
                n
                for t in one.tables
                for n in t.seats
                if not getattr(players.get(name_key(n)), "accepted", False)
            )
            if pending:
                raise Conflict(
                    phrase(
                        "{names}: not accepted to play this event yet (each player accepts "
                        "on the event's page)",
                        names=", ".join(pending),
                    )
                )
            empty = [t.number for t in one.tables if all(name_key(n) in away for n in t.seats)]
            if empty:
                raise Conflict(
                    phrase(
                        "table {number}: every player is absent; a table is not played by "
                        "bots alone",
                        number=empty[0],
                    )
                )
            if most_tables is not None and len(one.tables) > most_tables:
                raise Conflict(
                    phrase(
                        "an online round opens at most {most} tables on this server",
                        most=most_tables,
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


def event_tables(event: Event) -> TableOptions:
    """``event``'s options as it comes out of the database, parsed once into the game's
    typed options for each size of its tables (:class:`TableOptions`)."""
    return TableOptions.parse(find_game(event.game), event.options)
