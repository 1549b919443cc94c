"""Events in the database (issue 22): a club evening, a cup, a championship.

An event has a game with its options, a date, a place, an organiser and its players.
Its rounds are drawn one at a time (:mod:`pips.results.draws`: tables of the sizes the
game allows, byes, seats by lot, repeated meetings avoided), its tables' results are
entered by the players of the table or the organiser (form, phone page, CSV, API, the
command line) and checked by the same rules as any result; a round closes when every
table is in. Corrections need a reason and are kept: a table's result is never edited,
a new one is added and the last one counts. The standings
(:mod:`pips.results.standings`) grow with every result. When the organiser closes the
event its games become results (:mod:`pips.results.entries`), which the next world list
counts.

Online, the same event is played at the server's tables: the organiser starts each
round, the draw fills the seats, and a bot plays for a player marked absent if the
event allows it. Such a table's result is its game's record: it is read from the table
when the game ends, and nobody corrects it by hand.

Who may do what:

- an event is created by the representative of a group (for the group) or by a site
  administrator; its organiser (or an administrator) runs it: players, draws, starting
  rounds, corrections after a round closed, closing;
- a table's result is entered by one of its players (with an account) or the
  organiser; once a table has a result, entering it again is a correction and needs a
  reason; after the round closed only the organiser corrects;
- when the event closes, its results are confirmed if the organiser's word confirms a
  result anywhere (an approved group's representative, an administrator), else they
  wait for the players like any other result (docs/results.md, "Which results count").
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from pips.core.errors import RuleError
from pips.core.names import check_name, name_key
from pips.core.phrase import phrase
from pips.games.face import GameSpec
from pips.games.registry import find_game
from pips.results.common import Conflict, NotAllowed, NotFound, ResultsError
from pips.results.draws import (
    RoundDraw,
    Table,
    allowed_sizes,
    draw_pairs_round,
    draw_round,
)
from pips.results.entries import Entries
from pips.results.entry import (
    Checked,
    Entry,
    EntryError,
    Line,
    check,
    default_set,
    entry_from_record,
)
from pips.results.standings import Scoring, Standing, TableResult, standings
from pips.store.models import (
    Event,
    EventPlayer,
    EventRound,
    EventScore,
    EventTable,
    GameTable,
    Player,
    Result,
    User,
)

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


@dataclass(frozen=True)
class OnlineSeat:
    """A seat of an online round's table: who holds it, and whether a bot plays it."""

    name: str
    user_id: int
    bot: str | None


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


def scoring_of(spec: GameSpec) -> Scoring:
    """How an event of ``spec`` ranks: pairs by match wins, everyone else by points."""
    return Scoring.MATCH_WINS if spec.pairs else Scoring.POINTS


class Events(Entries):
    """Creating, running and closing events."""

    # -- creating ----------------------------------------------------------------------

    def create_event(
        self,
        actor: int,
        *,
        name: str,
        game: str,
        played_on: date,
        rounds: int,
        options: Mapping[str, Any] | None = None,
        place: str = "",
        group: str | None = None,
        online: bool = False,
        bots: bool = False,
        fixed_pairs: bool = False,
    ) -> dict[str, Any]:
        """A new event, organised by ``actor`` (the representative of ``group``, or an
        administrator without one); bad options are refused and nothing is stored."""
        name = " ".join(str(name).split())
        if not 2 <= len(name) <= 80:
            raise ResultsError(phrase("an event's name is 2 to 80 characters"))
        if len(place) > 80:
            raise ResultsError(phrase("a place is at most 80 characters"))
        if not 1 <= rounds <= MOST_ROUNDS:
            raise ResultsError(phrase("an event has 1 to {most} rounds", most=MOST_ROUNDS))
        if played_on > self.today() + FAR_AHEAD or played_on.year < 2000:
            raise ResultsError(
                phrase("{value} is not a date for an event", value=played_on.isoformat())
            )
        try:
            spec = find_game(game)
        except RuleError as exc:
            raise ResultsError(exc.args[0]) from None
        chosen = {k: v for k, v in dict(options or {}).items() if k != "players"}
        try:
            sizes = allowed_sizes(spec, chosen)
        except RuleError as exc:
            raise ResultsError(exc.args[0]) from None
        if online and any(
            spec.dealt_by_hand(spec.options_from_json({**chosen, "players": n})) for n in sizes
        ):
            raise ResultsError(phrase("an online event's tables deal themselves: no manual deals"))
        if fixed_pairs and not spec.pairs:
            raise ResultsError(phrase("fixed partners are for a game of pairs"))
        if bots and not online:
            raise ResultsError(phrase("bots play only at an online event's tables"))
        with self.db.session() as session, session.begin():
            group_row = self._group(session, group) if group else None
            if group_row is not None and group_row.representative_id != actor:
                raise NotAllowed(
                    phrase(
                        "only the representative of {name} organises its events",
                        name=group_row.name,
                    )
                )
            if group_row is None and not self._is_admin(session, actor):
                raise NotAllowed(
                    phrase(
                        "an event is organised by a group's representative (for the group) "
                        "or by an administrator"
                    )
                )
            row = Event(
                key=secrets.token_urlsafe(9),
                name=name,
                game=spec.name,
                options=chosen,
                played_on=played_on,
                place=place.strip(),
                group_id=None if group_row is None else group_row.id,
                organiser_id=actor,
                rounds=rounds,
                scoring=str(scoring_of(spec)),
                online=online,
                bots=bots,
                fixed_pairs=fixed_pairs,
            )
            session.add(row)
            session.flush()
            key = row.key
        return self.event(key, actor)

    def events(self, limit: int = 100) -> list[dict[str, Any]]:
        """Events, the latest first: what the events page lists."""
        with self.db.session() as session:
            rows = session.scalars(
                select(Event)
                .order_by(Event.played_on.desc(), Event.id.desc())
                .limit(limit)
                .options(selectinload(Event.players), selectinload(Event.drawn))
            )
            return [
                {
                    "key": e.key,
                    "name": e.name,
                    "game": e.game,
                    "date": e.played_on.isoformat(),
                    "place": e.place,
                    "players": len(e.players),
                    "rounds": e.rounds,
                    "drawn": len(e.drawn),
                    "online": e.online,
                    "status": e.status,
                }
                for e in rows
            ]

    # -- players -----------------------------------------------------------------------

    def add_players(
        self,
        actor: int,
        key: str,
        names: Sequence[str] = (),
        *,
        pairs: Sequence[Sequence[str]] = (),
        new_players: Iterable[str] = (),
    ) -> dict[str, Any]:
        """Add players (or, with fixed partners, pairs). Before the first round is drawn
        they play from round 1; later they are late arrivals, drawn from the next round.
        A name that resembles a known player of the group must be confirmed as new
        (:class:`~pips.results.players.UnknownPlayers`), as when entering a result."""
        if fixed_pairs_given := bool(pairs):
            if names:
                raise ResultsError(phrase("give players or pairs, not both"))
            if any(len(pair) != 2 for pair in pairs):
                raise ResultsError(phrase("a pair is two players"))
        wanted = [self._checked_name(n) for pair in pairs for n in pair] or [
            self._checked_name(n) for n in names
        ]
        if not wanted:
            raise ResultsError(phrase("no players given"))
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            self._manage(session, event, actor)
            if event.fixed_pairs != fixed_pairs_given:
                raise ResultsError(
                    phrase("this event is played with fixed partners: add pairs")
                    if event.fixed_pairs
                    else phrase("this event's partners are drawn: add players one by one")
                )
            known = {p.name_key for p in event.players}
            keys = [name_key(n) for n in wanted]
            for name, folded in zip(wanted, keys, strict=True):
                if folded in known or keys.count(folded) > 1:
                    raise Conflict(phrase("{name} is already a player of this event", name=name))
            if len(known) + len(wanted) > MOST_PLAYERS:
                raise ResultsError(phrase("an event has at most {most} players", most=MOST_PLAYERS))
            seating = self.seat_names(
                session, event.organiser, event.group, wanted, list(new_players)
            )
            first = len(event.drawn) + 1
            pair_number = max((p.pair or 0 for p in event.players), default=0)
            for index, (name, folded) in enumerate(zip(wanted, keys, strict=True)):
                player = seating.players[folded]
                if event.online and player.user_id is None:
                    raise ResultsError(
                        phrase(
                            "{name} has no account: an online event's players sit at the "
                            "server's tables with their accounts",
                            name=name,
                        )
                    )
                event.players.append(
                    EventPlayer(
                        name=name,
                        name_key=folded,
                        player_id=player.id,
                        user_id=player.user_id,
                        first_round=first,
                        pair=pair_number + 1 + index // 2 if event.fixed_pairs else None,
                    )
                )
        return self.event(key, actor)

    def withdraw_player(self, actor: int, key: str, player: int) -> dict[str, Any]:
        """A player leaves: not drawn from the next round on; their games so far stay.
        With fixed partners the pair leaves together."""
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            self._manage(session, event, actor)
            leaving = next((p for p in event.players if p.id == player), None)
            if leaving is None:
                raise NotFound(phrase("no player {number} in this event", number=player))
            if leaving.withdrawn_from is not None:
                raise Conflict(phrase("{name} has already withdrawn", name=leaving.name))
            for p in event.players:
                if p is leaving or (leaving.pair is not None and p.pair == leaving.pair):
                    p.withdrawn_from = len(event.drawn) + 1
        return self.event(key, actor)

    @staticmethod
    def _checked_name(name: str) -> str:
        try:
            return check_name(name)
        except ValueError as exc:
            raise ResultsError(
                phrase("{name!r}: {problem}", name=str(name)[:60], problem=exc.args[0])
            ) from None

    # -- rounds ------------------------------------------------------------------------

    def draw_next_round(self, actor: int, key: str) -> dict[str, Any]:
        """Draw the next round (:mod:`pips.results.draws`) from a seed of the OS's
        CSPRNG, avoiding the meetings of the rounds before; the round before must be
        closed. Offline its tables can then be played and entered; online the
        organiser starts it."""
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            self._manage(session, event, actor)
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
        return self.event(key, actor)

    def redraw_round(self, actor: int, key: str, number: int) -> dict[str, Any]:
        """Draw the last round again (after a late arrival or a withdrawal), as long as
        none of its tables has a result and, online, it has not started."""
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            self._manage(session, event, actor)
            last = self._round(event, number)
            if last is not event.drawn[-1]:
                raise Conflict(phrase("only the last round drawn can be drawn again"))
            if any(t.scores or t.table_id for t in last.tables) or last.status == "closed":
                raise Conflict(
                    phrase("round {number} has begun: it is not drawn again", number=number)
                )
            again = self._draw(event, number, secrets.randbelow(2**63), before=event.drawn[:-1])
            last.seed, last.byes, last.tables = again.seed, again.byes, again.tables
        return self.event(key, actor)

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
            drawn_at=self.clock(),
            tables=[EventTable(number=t.number, seats=list(t.seats)) for t in one.tables],
        )

    def round_draw(self, key: str, number: int) -> tuple[dict[str, Any], RoundDraw]:
        """A drawn round as :mod:`pips.results.draws` has it (for its sheets), with the
        event's JSON."""
        with self.db.session() as session:
            event = self._event(session, key)
            one = self._round(event, number)
            drawn = RoundDraw(
                one.number,
                tuple(Table(t.number, tuple(t.seats)) for t in one.tables),
                tuple(one.byes),
            )
        return self.event(key), drawn

    # -- online rounds -----------------------------------------------------------------

    def online_seats(
        self, actor: int, key: str, number: int, absent: Iterable[str] = ()
    ) -> dict[int, list[OnlineSeat]]:
        """Begin starting an online round: the seats of each of its tables (a bot for a
        player marked ``absent``, if the event allows bots). The round is marked as
        starting, so that a second start is refused; :meth:`online_started` records the
        server's tables, :meth:`online_failed` undoes the mark."""
        away = {name_key(n) for n in absent}
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            self._manage(session, event, actor)
            if not event.online:
                raise ResultsError(phrase("this event is played at real tables"))
            one = self._round(event, number)
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

    def online_started(self, key: str, number: int, tables: Mapping[int, str]) -> dict[str, Any]:
        with self.db.session() as session, session.begin():
            event = self._event(session, key)
            one = self._round(event, number)
            for table in one.tables:
                table.table_id = tables[table.number]
            one.status = "playing"
        return self.event(key)

    def online_failed(self, key: str, number: int) -> None:
        with self.db.session() as session, session.begin():
            event = self._event(session, key)
            one = self._round(event, number)
            if one.status == "starting":
                one.status = "drawn"

    # -- results -----------------------------------------------------------------------

    def enter_table(
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
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            one = self._round(event, number)
            row = self._table(one, table)
            checked = self._check_table(event, one, row, lines)
            self._may_enter(session, event, one, row, actor, reason)
            self._add_score(session, event, one, row, checked, actor, reason, source)
        return self.event(key, actor)

    def enter_round_csv(
        self, actor: int, key: str, number: int, games: Sequence[Checked], reason: str = ""
    ) -> dict[str, Any]:
        """Enter a round's results from a results CSV (:func:`~pips.results.entry.read_csv`):
        each game goes to the table of the round whose players it names. All or none."""
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            one = self._round(event, number)
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
        return self.event(key, actor)

    def table_history(self, key: str, number: int, table: int) -> list[dict[str, Any]]:
        """Every result entered for a table, the first first, with who, when and why."""
        with self.db.session() as session:
            event = self._event(session, key)
            row = self._table(self._round(event, number), table)
            return [self._score(score, index).to_json() for index, score in enumerate(row.scores)]

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
            self._set(event, len(row.seats)),
            tuple(
                Line(n, ln.points, ln.pips, ln.out)
                for n, ln in zip(row.seats, ordered, strict=True)
            ),
            event.place,
            None,
        )
        return check(entry, self.today(), event.options)

    def _may_enter(
        self,
        session: Session,
        event: Event,
        one: EventRound,
        row: EventTable,
        actor: int,
        reason: str,
    ) -> None:
        manager = self._manages(session, event, actor)
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
                entered_at=self.clock(),
                reason=reason.strip(),
            )
        )
        session.flush()
        if one.status == "playing" and all(t.scores for t in one.tables):
            one.status, one.closed_at = "closed", self.clock()

    # -- reading -----------------------------------------------------------------------

    def event(self, key: str, viewer: int | None = None) -> dict[str, Any]:
        """The event as its page and the API show it: players, rounds, tables with
        their results, and the standings so far."""
        self._sync_online(key)
        with self.db.session() as session:
            event = self._event(session, key)
            scores = self._scores(session, event)
            spec = find_game(event.game)
            players = {p.name_key: p for p in event.players}
            return {
                "key": event.key,
                "name": event.name,
                "game": event.game,
                "title": spec.title,
                "options": event.options,
                "date": event.played_on.isoformat(),
                "place": event.place,
                "group": None if event.group is None else event.group.slug,
                "group_name": None if event.group is None else event.group.name,
                "organiser": event.organiser.name,
                "rounds": event.rounds,
                "scoring": event.scoring,
                "online": event.online,
                "bots": event.bots,
                "fixed_pairs": event.fixed_pairs,
                "status": event.status,
                "closed_at": None if event.closed_at is None else event.closed_at.isoformat(),
                "manage": viewer is not None and self._manages(session, event, viewer),
                "players": [
                    {
                        "id": p.id,
                        "name": p.name,
                        "player": p.player_id,
                        "account": p.user_id is not None,
                        "first_round": p.first_round,
                        "withdrawn_from": p.withdrawn_from,
                        "pair": p.pair,
                    }
                    for p in event.players
                ],
                "drawn": [
                    {
                        "number": one.number,
                        "seed": one.seed,
                        "status": one.status,
                        "byes": list(one.byes),
                        "tables": [
                            {
                                "number": t.number,
                                "seats": list(t.seats),
                                "table_id": t.table_id,
                                "mine": viewer is not None
                                and viewer
                                in {
                                    getattr(players.get(name_key(n)), "user_id", None)
                                    for n in t.seats
                                },
                                "result": None if t.id not in scores else scores[t.id].to_json(),
                            }
                            for t in one.tables
                        ],
                    }
                    for one in event.drawn
                ],
                "standings": [
                    self._standing_json(s, players) for s in self._standings(event, scores)
                ],
            }

    def event_standings(self, key: str) -> tuple[dict[str, Any], list[Standing]]:
        """The event (without the viewer's rights) and its standings, for exports."""
        shown = self.event(key)
        with self.db.session() as session:
            event = self._event(session, key)
            return shown, self._standings(event, self._scores(session, event))

    def _standings(self, event: Event, scores: Mapping[int, Score]) -> list[Standing]:
        results = []
        byes = []
        for one in event.drawn:
            byes += [(one.number, name) for name in one.byes]
            for t in one.tables:
                if t.id in scores:
                    names, finals, places = scores[t.id].table_result
                    results.append(TableResult(one.number, t.number, names, finals, places))
        return standings(results, Scoring(event.scoring), byes, [p.name for p in event.players])

    @staticmethod
    def _standing_json(s: Standing, players: Mapping[str, EventPlayer]) -> dict[str, Any]:
        player = players.get(name_key(s.name))
        return {
            "place": s.place,
            "name": s.name,
            "points": s.points,
            "wins": s.wins,
            "games": s.games,
            "byes": s.byes,
            "average_place": s.average_place,
            "withdrawn": player is not None and player.withdrawn_from is not None,
        }

    def _scores(self, session: Session, event: Event) -> dict[int, Score]:
        """Each table's result that counts: the last one entered, or an online table's
        finished game."""
        found: dict[int, Score] = {}
        finished = self._finished_games(session, event)
        for one in event.drawn:
            for t in one.tables:
                if t.scores:
                    found[t.id] = self._score(t.scores[-1], len(t.scores) - 1)
                elif t.table_id in finished:
                    found[t.id] = finished[t.table_id]
        return found

    @staticmethod
    def _score(score: EventScore, corrections: int) -> Score:
        return Score(
            tuple(score.lines),
            score.source,
            None if score.enterer is None else score.enterer.name,
            score.entered_at.isoformat(),
            score.reason,
            corrections,
        )

    def _finished_games(self, session: Session, event: Event) -> dict[str, Score]:
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

    def _sync_online(self, key: str) -> None:
        """Close an online round whose tables' games are all over (idempotent: two
        readers at once close it once)."""
        with self.db.session() as session, session.begin():
            event = self._event(session, key)
            playing = [one for one in event.drawn if one.status == "playing" and event.online]
            if not playing:
                return
            finished = self._finished_games(session, event)
            for one in playing:
                if all(t.table_id in finished for t in one.tables):
                    session.execute(
                        update(EventRound)
                        .where(EventRound.id == one.id, EventRound.status == "playing")
                        .values(status="closed", closed_at=self.clock())
                    )

    # -- closing -----------------------------------------------------------------------

    def close_event(self, actor: int, key: str) -> dict[str, Any]:
        """Close the event: every drawn round must be over. Its real tables' games
        become results (confirmed when the organiser's word confirms, see the module's
        docstring), its online games' results are marked as the event's; the next world
        list counts them. A closed event changes no more."""
        self._sync_online(key)
        with self.db.session() as session, session.begin():
            event = self._open_event(session, key)
            self._manage(session, event, actor)
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
                        games.append(replace(self._from_score(event, t.scores[-1]), label=label))
            fingerprints = [g.fingerprint() for g in games]
            self._refuse_duplicates(session, games, fingerprints)
            people: dict[str, Player] = {}
            for p in event.players:
                if p.player_id is not None:
                    person = session.get(Player, p.player_id)
                    if person is not None:
                        people[p.name_key] = person
            organiser = session.get(User, actor)
            vouched = bool(organiser and organiser.admin) or (
                event.group is not None
                and event.group.approved_at is not None
                and event.group.representative_id == actor
            )
            moment = self.clock()
            rows = [
                self._row(game, fp, people, "event", moment, actor, event.group)
                for game, fp in zip(games, fingerprints, strict=True)
            ]
            for row in rows:
                row.event_id = event.id
                if vouched:
                    row.status = "confirmed"
                    row.confirmed_by = "admin" if organiser and organiser.admin else "group"
            session.add_all(rows)
            online = [t.table_id for one in event.drawn for t in one.tables if t.table_id]
            if online:
                session.execute(
                    update(Result).where(Result.table_id.in_(online)).values(event_id=event.id)
                )
            try:
                session.flush()
            except IntegrityError:
                raise Conflict("already entered (at the same moment by someone else)") from None
            self._flag_anomalies(session, rows)
            event.status, event.closed_at = "closed", moment
        return self.event(key, actor)

    def _from_score(self, event: Event, score: EventScore) -> Checked:
        lines = tuple(
            Line(str(ln["name"]), int(ln["points"]), int(ln["pips"]), bool(ln["out"]))
            for ln in score.lines
        )
        entry = Entry(
            event.game, event.played_on, self._set(event, len(lines)), lines, event.place, None
        )
        return check(entry, self.today(), event.options)

    # -- lookups -----------------------------------------------------------------------

    @staticmethod
    def _set(event: Event, players: int) -> int:
        top = event.options.get("set")
        return int(top) if isinstance(top, int) else default_set(event.game, players)

    def _event(self, session: Session, key: str) -> Event:
        event = session.scalars(select(Event).where(Event.key == str(key)[:24])).first()
        if event is None:
            raise NotFound(phrase("no such event"))
        return event

    def _open_event(self, session: Session, key: str) -> Event:
        event = self._event(session, key)
        if event.status == "closed":
            raise Conflict(
                phrase(
                    "the event is closed: its games are results now (withdraw or dispute "
                    "them there)"
                )
            )
        return event

    @staticmethod
    def _round(event: Event, number: int) -> EventRound:
        for one in event.drawn:
            if one.number == number:
                return one
        raise NotFound(phrase("round {number} has not been drawn", number=number))

    @staticmethod
    def _table(one: EventRound, number: int) -> EventTable:
        for table in one.tables:
            if table.number == number:
                return table
        raise NotFound(
            phrase("round {round} has no table {number}", round=one.number, number=number)
        )

    def _manages(self, session: Session, event: Event, actor: int | None) -> bool:
        return actor is not None and (event.organiser_id == actor or self._is_admin(session, actor))

    def _manage(self, session: Session, event: Event, actor: int) -> None:
        if not self._manages(session, event, actor):
            raise NotAllowed(phrase("only the event's organiser does this"))
