"""Live tables: the matches being played on the server, kept in memory for speed.

A :class:`LiveTable` owns one match, its seats and the clients watching it. Every move
is written to the database *before* any client hears of it, so a server killed at any
moment restarts with :meth:`Tables.recover` exactly where it was: the deals come from
the table's seed and the stored moves are replayed through the engine.

Clients are anything with ``async send(message: dict)``; each gets only its own seat's
view (spectators the public view), never another seat's tile.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import insert, select

from pips import record
from pips.bots.base import Bot, make_bot
from pips.core.errors import RuleError
from pips.core.moves import Move
from pips.core.view import SPECTATOR, Event, event_to_json, move_to_json
from pips.display import explain, final_word, hand_order
from pips.games.match import Match
from pips.games.registry import GameSpec, find_game
from pips.games.traits import DrawRule
from pips.server import protocol
from pips.store.db import Database
from pips.store.models import GameTable, MoveRow, Seat, now


class Client(Protocol):
    async def send(self, message: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Identity:
    """Who a connection is: an account, or a guest by their token."""

    user_id: int | None = None
    guest: str | None = None
    name: str = "guest"


class TableError(Exception):
    """A request the table refuses; its text goes to that client only."""


@dataclass
class SeatState:
    kind: str  # open, person, bot
    name: str
    user_id: int | None = None
    guest: str | None = None
    bot: str | None = None

    def held_by(self, who: Identity) -> bool:
        if self.kind != "person":
            return False
        if who.user_id is not None:
            return self.user_id == who.user_id
        return who.guest is not None and self.guest == who.guest


@dataclass
class LiveTable:
    id: str
    spec: GameSpec
    options: Any
    seed: int
    entrants: list[SeatState]
    status: str = "waiting"
    private: bool = False
    invite: str = ""
    turn_seconds: int | None = None
    bot_delay: float = 0.6
    match: Match | None = None
    clients: dict[Client, Identity] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: dict[int, Bot] = field(default_factory=dict)
    moves_made: int = 0
    task: asyncio.Task[None] | None = None
    timers: set[asyncio.Task[None]] = field(default_factory=set)
    empty: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    """Seats of people with no connection, with the task that hands them to a bot."""

    # -- reading -----------------------------------------------------------------------

    @property
    def seating(self) -> tuple[int, ...]:
        return self.match.seating if self.match is not None else tuple(range(len(self.entrants)))

    def seat_of(self, who: Identity) -> int:
        """The seat (after lots) ``who`` plays, or SPECTATOR."""
        for seat, entrant in enumerate(self.seating):
            if self.entrants[entrant].held_by(who):
                return seat
        return SPECTATOR

    def names(self) -> list[str]:
        return [self.entrants[e].name for e in self.seating]

    def summary(self) -> dict[str, Any]:
        """What the lobby and the API show of a table (no hidden information)."""
        return {
            "id": self.id,
            "game": self.spec.name,
            "title": self.spec.title,
            "options": self.options.to_json(),
            "status": self.status,
            "private": self.private,
            "seats": [{"kind": s.kind, "name": s.name, "bot": s.bot} for s in self.entrants],
            "scores": None if self.match is None else list(self.match.scores),
            "pairs": self.spec.pairs,
            "face": {
                "stock": self.spec.traits(self.options).draw is not DrawRule.NONE,
                "pass_word": self.spec.pass_word.capitalize(),
                "final_word": final_word(self.spec.name),
            },
            "turn_seconds": self.turn_seconds,
        }

    def message_for(
        self, seat: int, event: Event | None = None, shared: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The state message for one seat (or a spectator); ``shared`` is
        :meth:`shared_part`, when one broadcast builds it once for every seat."""
        message = dict(shared if shared is not None else self.shared_part())
        message["seat"] = seat
        match = self.match
        if match is None:
            return message
        view = match.current.view(seat)
        # The moves so far are not repeated in every message: ``event`` carries the
        # newest, and the finished record all of them.
        message["view"] = view.to_json(history=False)
        if seat >= 0:
            message["hand_order"] = [t.to_json() for t in hand_order(view)]
        if event is not None:
            message["event"] = event_to_json(event.seen_by(seat))
        if seat >= 0 and match.current_seat == seat:
            message["legal"] = [move_to_json(seat, m) for m in match.legal_moves()]
        return message

    def shared_part(self) -> dict[str, Any]:
        """What every seat's state message has in common (public)."""
        shared: dict[str, Any] = {
            "v": protocol.VERSION,
            "type": "state",
            "table": self.summary(),
            "names": self.names(),
            "moves_made": self.moves_made,
        }
        match = self.match
        if match is not None:
            hand = match.current.result
            if hand is not None:
                # How the hand's points came about, in the words of its rule.
                options = self.options.to_json()
                shared["explanation"] = explain(self.spec.name, options, hand, self.names())
            result = match.result
            shared["match"] = {
                "scores": list(match.scores),
                "target": match.target,
                "over": match.is_over,
                "result": None if result is None else result.to_json(),
            }
        return shared

    # -- changing ----------------------------------------------------------------------

    async def broadcast(self, event: Event | None = None) -> None:
        # Seats are looked up every time: the lots at the start may move people.
        shared = self.shared_part()
        for client, who in list(self.clients.items()):
            try:
                await client.send(self.message_for(self.seat_of(who), event, shared))
            except Exception:  # a client that went away is dropped, the rest go on
                self.clients.pop(client, None)


class Tables:
    """Every live table of one server process, over one database."""

    def __init__(self, db: Database, *, bot_delay: float = 0.6, grace: float = 60.0) -> None:
        self.db = db
        self.live: dict[str, LiveTable] = {}
        self.bot_delay = bot_delay
        self.keep_finished = 600.0
        """Seconds a finished table stays live before only its record remains."""
        self.grace = grace
        """Seconds a person's seat may stay without a connection during a game before
        a bot takes it, so the others can finish."""
        self.on_finish: list[Callable[[LiveTable], Awaitable[None]]] = []

    # -- creating and joining --------------------------------------------------------

    def create(
        self,
        game: str,
        options: dict[str, Any],
        seats: Sequence[dict[str, Any]],
        creator: Identity,
        *,
        private: bool = False,
        turn_seconds: int | None = None,
        seed: int | None = None,
    ) -> LiveTable:
        """A new table; ``seats`` per entrant: ``{"kind": "me"|"open"|"bot", "bot": name}``.
        Bad options or seats raise :class:`TableError` and nothing is stored."""
        try:
            spec = find_game(game)
            opts = spec.options_from_json(options)
        except (RuleError, TypeError) as exc:
            raise TableError(str(exc)) from None
        if len(seats) != opts.players:
            raise TableError(f"{spec.name} with these options has {opts.players} seats")
        if seed is not None and not 0 <= seed < 2**31:
            raise TableError("a seed is 0 to 2147483647")
        if turn_seconds is not None and not 5 <= turn_seconds <= 600:
            raise TableError("the turn timer is 5 to 600 seconds")
        entrants: list[SeatState] = []
        for number, seat in enumerate(seats):
            kind = seat.get("kind")
            if kind == "me":
                entrants.append(SeatState("person", creator.name, creator.user_id, creator.guest))
            elif kind == "open":
                entrants.append(SeatState("open", ""))
            elif kind == "bot":
                name = str(seat.get("bot") or "greedy")
                try:
                    make_bot(name)
                except RuleError as exc:
                    raise TableError(str(exc)) from None
                if name.startswith("external"):
                    raise TableError("external bots cannot sit at a server table")
                entrants.append(SeatState("bot", f"{name}-{number}", bot=name))
            else:
                raise TableError(f"seat {number}: kind is me, open or bot")
        if sum(e.kind == "person" for e in entrants) > 1:
            raise TableError("you can take one seat")
        table = LiveTable(
            id=secrets.token_urlsafe(9),
            spec=spec,
            options=opts,
            seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
            entrants=entrants,
            private=private,
            invite=secrets.token_urlsafe(12),
            turn_seconds=turn_seconds,
            bot_delay=self.bot_delay,
        )
        with self.db.session() as session, session.begin():
            session.add(
                GameTable(
                    id=table.id,
                    game=spec.name,
                    options=opts.to_json(),
                    seed=table.seed,
                    private=private,
                    invite=table.invite,
                    turn_seconds=turn_seconds,
                    created_by=creator.user_id,
                    seats=[_seat_row(i, e) for i, e in enumerate(entrants)],
                )
            )
        self.live[table.id] = table
        return table

    async def join(self, table: LiveTable, who: Identity, entrant: int | None = None) -> None:
        """Take an open seat (the first one unless ``entrant`` says which)."""
        async with table.lock:
            if table.status != "waiting":
                raise TableError("the game has started; you can watch")
            if any(e.held_by(who) for e in table.entrants):
                raise TableError("you already have a seat here")
            free = [i for i, e in enumerate(table.entrants) if e.kind == "open"]
            if entrant is not None:
                free = [i for i in free if i == entrant]
            if not free:
                raise TableError("no open seat")
            table.entrants[free[0]] = SeatState("person", who.name, who.user_id, who.guest)
            self._save_seat(table, free[0])
        await self.maybe_start(table)

    async def maybe_start(self, table: LiveTable) -> None:
        """Start when every seat is filled."""
        async with table.lock:
            if table.status != "waiting" or any(e.kind == "open" for e in table.entrants):
                await table.broadcast()
                return
            self._begin(table)
            with self.db.session() as session, session.begin():
                row = session.get(GameTable, table.id)
                assert row is not None
                row.status = "playing"
        await table.broadcast()
        self.schedule(table)

    def _begin(self, table: LiveTable) -> None:
        table.match = Match(table.spec, table.options, random.Random(table.seed))
        table.status = "playing"
        for seat, entrant in enumerate(table.match.seating):
            name = table.entrants[entrant].bot
            if name is not None:
                table.bots[seat] = make_bot(name)

    # -- playing ---------------------------------------------------------------------

    async def play(self, table: LiveTable, seat: int, choice: Any, moves_made: Any) -> None:
        """Seat ``seat`` plays the legal move numbered ``choice`` of the list it was
        sent when ``moves_made`` moves had been made; anything else is refused and
        changes nothing."""
        async with table.lock:
            match = table.match
            if match is None or table.status != "playing":
                raise TableError("the game is not being played")
            if seat < 0:
                raise TableError("spectators cannot move")
            if match.current_seat != seat:
                raise TableError("it is not your turn")
            if moves_made != table.moves_made:
                raise TableError("that move list is out of date")
            legal = match.legal_moves()
            if not isinstance(choice, int) or isinstance(choice, bool):
                raise TableError("move is the number of a legal move")
            if not 0 <= choice < len(legal):
                raise TableError(f"move must be 0 to {len(legal) - 1}")
            event = self._apply(table, seat, legal[choice])
        await table.broadcast(event)
        await self._after_move(table)

    def _apply(self, table: LiveTable, seat: int, move: Move) -> Event:
        """Apply a legal move and store it (a draw with the tile it took) before anyone
        hears of it. If it cannot be stored the table is rebuilt from the database, so
        memory never runs ahead of the disk."""
        match = table.match
        assert match is not None
        event = match.play(move)
        try:
            # A Core insert: a move is written on every turn, and the ORM's unit of
            # work costs three times as much for one row.
            with self.db.engine.begin() as connection:
                connection.execute(
                    insert(MoveRow),
                    {
                        "table_id": table.id,
                        "number": table.moves_made,
                        "seat": seat,
                        "move": move_to_json(seat, event.move),
                        "created_at": now(),
                    },
                )
        except Exception:
            self._rebuild(table)
            raise TableError("the move could not be saved; nothing changed") from None
        table.moves_made += 1
        return event

    async def _after_move(self, table: LiveTable) -> None:
        match = table.match
        assert match is not None
        if match.is_over:
            await self._finish(table)
            return
        self.schedule(table)

    def schedule(self, table: LiveTable) -> None:
        """Let the bot to move play after the table's pace (off the event loop), or
        start the turn timer of a person to move; watch for empty seats."""
        match = table.match
        if match is None or match.is_over or table.status != "playing":
            return
        self.watch_seats(table)
        seat = match.current_seat
        if seat is None:
            return
        if seat not in table.bots:
            if table.turn_seconds is not None:
                made = table.moves_made
                timer = asyncio.create_task(self._turn_timer(table, seat, made))
                table.timers.add(timer)
                timer.add_done_callback(table.timers.discard)
            return
        if table.task is not None and not table.task.done():
            return
        table.task = asyncio.create_task(self._bot_turn(table, seat, table.moves_made))

    async def _turn_timer(self, table: LiveTable, seat: int, moves_made: int) -> None:
        """The turn timer ran out: the greedy choice is played for the seat."""
        assert table.turn_seconds is not None
        await asyncio.sleep(table.turn_seconds)
        match = table.match
        if match is None or table.moves_made != moves_made or match.current_seat != seat:
            return
        legal = match.legal_moves()
        view = match.current.view(seat)
        move = make_bot("greedy").choose(view, legal, random.Random(table.seed))
        with contextlib.suppress(TableError):
            await self.play(table, seat, list(legal).index(move), moves_made)

    def watch_seats(self, table: LiveTable) -> None:
        """Start the grace period of every person's seat that has no connection."""
        if table.match is None or table.status != "playing":
            return
        connected = {table.seat_of(who) for who in table.clients.values()}
        for seat, entrant in enumerate(table.match.seating):
            state = table.entrants[entrant]
            if state.kind == "person" and seat not in connected and seat not in table.empty:
                task = asyncio.create_task(self._take_over(table, seat))
                table.empty[seat] = task

    def arrived(self, table: LiveTable, who: Identity) -> None:
        """A client came (back): its seat's grace period stops."""
        task = table.empty.pop(table.seat_of(who), None)
        if task is not None:
            task.cancel()

    async def _take_over(self, table: LiveTable, seat: int) -> None:
        await asyncio.sleep(self.grace)
        table.empty.pop(seat, None)
        match = table.match
        if match is None or table.status != "playing" or match.is_over:
            return
        if any(table.seat_of(who) == seat for who in table.clients.values()):
            return
        async with table.lock:
            entrant = match.seating[seat]
            gone = table.entrants[entrant]
            table.entrants[entrant] = SeatState(
                "bot", f"{gone.name} (bot)", gone.user_id, gone.guest, "expert"
            )
            table.bots[seat] = make_bot("expert")
            self._save_seat(table, entrant)
        await table.broadcast()
        self.schedule(table)

    async def _bot_turn(self, table: LiveTable, seat: int, moves_made: int) -> None:
        await asyncio.sleep(table.bot_delay)
        match = table.match
        assert match is not None
        if table.moves_made != moves_made or match.current_seat != seat:
            return
        legal = match.legal_moves()
        view = match.current.view(seat)
        rng = random.Random(f"{table.seed}/{len(match.hands)}/{len(match.current.history)}")
        bot = table.bots[seat]
        move = (
            legal[0] if len(legal) == 1 else await asyncio.to_thread(bot.choose, view, legal, rng)
        )
        table.task = None
        await self.play(table, seat, list(legal).index(move), moves_made)

    async def _finish(self, table: LiveTable) -> None:
        match = table.match
        assert match is not None
        table.status = "finished"
        written = record.write_record(
            match,
            table.names(),
            seed=table.seed,
            bots=[table.entrants[e].bot for e in match.seating],
        )
        with self.db.session() as session, session.begin():
            row = session.get(GameTable, table.id)
            assert row is not None
            row.status = "finished"
            row.finished_at = now()
            row.record = written
        await table.broadcast()
        # A finished table stays in memory a while for its players' last look, then only
        # in the database (its record, replay and history).
        asyncio.get_running_loop().call_later(self.keep_finished, self.live.pop, table.id, None)
        for hook in self.on_finish:
            await hook(table)

    # -- restart ---------------------------------------------------------------------

    def recover(self) -> int:
        """Load every unfinished table from the database, replaying its moves; how many."""
        with self.db.session() as session:
            ids = session.scalars(
                select(GameTable.id).where(GameTable.status.in_(("waiting", "playing")))
            ).all()
        for table_id in ids:
            self.live[table_id] = self._load(table_id)
        return len(ids)

    def _rebuild(self, table: LiveTable) -> None:
        loaded = self._load(table.id)
        table.match, table.moves_made, table.status = (
            loaded.match,
            loaded.moves_made,
            loaded.status,
        )

    def _load(self, table_id: str) -> LiveTable:
        """A table as the database has it: the match replayed from its seed and moves."""
        with self.db.session() as session:
            row = session.get(GameTable, table_id)
            assert row is not None
            spec = find_game(row.game)
            table = LiveTable(
                id=row.id,
                spec=spec,
                options=spec.options_from_json(row.options),
                seed=row.seed,
                entrants=[SeatState(s.kind, s.name, s.user_id, s.guest, s.bot) for s in row.seats],
                status=row.status,
                private=row.private,
                invite=row.invite,
                turn_seconds=row.turn_seconds,
                bot_delay=self.bot_delay,
            )
            if row.status in ("playing", "finished"):
                self._begin(table)
                table.status = row.status
                assert table.match is not None
                moves = session.scalars(
                    select(MoveRow).where(MoveRow.table_id == row.id).order_by(MoveRow.number)
                ).all()
                for stored in moves:
                    table.match.play(record.move_from_json(stored.move, table.match.current))
                    table.moves_made += 1
        return table

    def resume_bots(self) -> None:
        """After :meth:`recover`, inside the event loop: let waiting bots move."""
        for table in self.live.values():
            self.schedule(table)

    def _save_seat(self, table: LiveTable, entrant: int) -> None:
        with self.db.session() as session, session.begin():
            row = session.scalars(
                select(Seat).where(Seat.table_id == table.id, Seat.entrant == entrant)
            ).one()
            state = table.entrants[entrant]
            row.kind, row.name, row.user_id = state.kind, state.name, state.user_id
            row.guest, row.bot = state.guest, state.bot


def _seat_row(entrant: int, state: SeatState) -> Seat:
    return Seat(
        entrant=entrant,
        kind=state.kind,
        name=state.name,
        user_id=state.user_id,
        guest=state.guest,
        bot=state.bot,
    )
