"""Live tables: one actor per table, serialising its commands.

A :class:`LiveTable` owns one table's :class:`~pips.server.round.Round` (the pure game),
its clients and its timers. Every command runs under the table's lock: the round
decides, the repository stores what it decided (*before* any client hears of it, so a
server killed at any moment restarts with :meth:`Tables.recover` exactly where it was:
the deals come from the table's seed and the stored moves are replayed), then every
client is sent its own seat's view (spectators the public view), never another seat's
tile. Bots decide in a worker thread; database work runs in worker threads too.

Clients are anything with ``async send(message: dict)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pips import record
from pips.core.errors import RuleError
from pips.core.fairness import KEY_BYTES
from pips.core.phrase import phrase
from pips.core.view import SPECTATOR, Event
from pips.games.registry import find_game
from pips.server import messages
from pips.server.repository import StoredTable, TableRepository
from pips.server.round import Identity, Played, Round, SeatHolder, TableError
from pips.store.db import Database

__all__ = ["Client", "Identity", "LiveTable", "TableError", "Tables"]

log = logging.getLogger("pips.server")

UNATTENDED = 900.0
"""Seconds a table is kept with nobody connected (docs/server.md, "Limits")."""


class Client(Protocol):
    async def send(self, message: Any) -> None: ...


Outgoing = list[tuple[Client, Any]]
"""Messages for clients, made at one moment, delivered in that order."""


def new_table_id() -> str:
    """A table's id: 72 bits from the OS's CSPRNG (a private table's id is not its
    secret, its invitation is; still, ids are not to be guessed)."""
    return secrets.token_urlsafe(9)


@dataclass
class LiveTable:
    """One table in memory: its round, who is connected, and its running timers."""

    id: str
    round: Round
    private: bool = False
    invite: str = ""
    turn_seconds: int | None = None
    bot_delay: float = 0.6
    creator: Identity | None = None
    clients: dict[Client, Identity] = field(default_factory=dict)
    told: dict[Client, int] = field(default_factory=dict)
    """Per client, the number of moves made when it was last sent the table's state."""
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while messages are delivered, so deliveries keep the order they were made."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None
    timers: set[asyncio.Task[None]] = field(default_factory=set)
    empty: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    """Seats of people with no connection, with the task that hands them to a bot."""
    unattended: asyncio.Task[None] | None = None
    """While nobody is connected (no player, no spectator): the task that abandons the
    table once :attr:`Tables.unattended` seconds have passed."""
    hand_pause: float = 0.0
    """Seconds the table waits after a hand before the next one is played on (for the
    sheet between hands)."""
    deadline: float | None = None
    """When the turn timer of the person to move runs out (the event loop's clock)."""
    deadline_at: int = -1
    """The number of moves made when :attr:`deadline` was set."""
    chat: list[tuple[str, str]] = field(default_factory=list)
    """The kept chat, oldest first, as (author, text)."""
    rematch: str | None = None
    """The table of the rematch, once one of the players asked for it."""

    # -- reading -----------------------------------------------------------------------

    @property
    def status(self) -> str:
        return self.round.status

    def seat_of(self, who: Identity) -> int:
        return self.round.seat_of(who)

    def visible_to(self, who: Identity | None, invite: str) -> bool:
        """A private table is seen only with its invitation or by those seated at it."""
        if not self.private or secrets.compare_digest(invite, self.invite):
            return True
        if who is None:
            return False
        # Seated here, or a place is kept here for them (a rematch).
        return self.seat_of(who) >= 0 or any(e.kept and e.open_to(who) for e in self.round.entrants)

    def names(self) -> list[str]:
        return self.round.names()

    def away(self) -> frozenset[int]:
        """The entrants whose person has no connection (their seat waits, or a bot
        plays it for them)."""
        here = list(self.clients.values())
        return frozenset(
            i
            for i, holder in enumerate(self.round.entrants)
            if (holder.kind == "person" or holder.taken_over)
            and not any(holder.belongs_to(w) for w in here)
        )

    def _summary(self) -> messages.TableSummary:
        return self.round.summary(self.id, self.private, self.turn_seconds, self.away())

    def summary(self) -> dict[str, Any]:
        """What the lobby and the API show of a table (no hidden information)."""
        return dict(self._summary())

    def at_new_hand(self) -> bool:
        """Nobody has moved yet in a hand after the first: the sheet of the last one is
        being shown."""
        match = self.round.match
        return match is not None and len(match.hands) > 1 and not match.current.history

    def _shared(self) -> messages.SharedState:
        away = self.away()
        shared = self.round.shared_part(
            self.round.summary(self.id, self.private, self.turn_seconds, away)
        )
        shared["away"] = [entrant in away for entrant in self.round.seating_order]
        if self.rematch is not None:
            shared["rematch"] = self.rematch
        shared["stand_in"] = [
            self.round.entrants[entrant].taken_over for entrant in self.round.seating_order
        ]
        match = self.round.match
        seat = None if match is None else match.current_seat
        if seat is not None and self.turn_seconds is not None and not self.round.is_bot(seat):
            loop = asyncio.get_running_loop()
            if self.deadline_at != self.round.moves_made or self.deadline is None:
                pause = self.hand_pause if self.at_new_hand() else 0.0
                self.deadline = loop.time() + self.turn_seconds + pause
                self.deadline_at = self.round.moves_made
            left = max(0.0, self.deadline - loop.time())
            shared["timer"] = {"seat": seat, "left": round(left, 1)}
        return shared

    def message_for(self, seat: int, event: Event | None = None) -> messages.StateMessage:
        return self.round.message_for(seat, self._shared(), event)

    # -- telling -----------------------------------------------------------------------

    def publish(self, event: Event | None = None, skip: Client | None = None) -> Outgoing:
        """Every client's state message, as the round is now (each its own seat's view;
        seats are looked up every time: the lots may move people). Made under the
        table's lock once what changed is stored, so no client ever hears of a move the
        database does not hold; sent by :meth:`deliver` after the lock is released. A
        client that already has this position (it connected meanwhile) is not told of
        the move again."""
        shared = self._shared()
        made = self.round.moves_made
        out: Outgoing = []
        for client, who in self.clients.items():
            if client is skip or (event is not None and self.told.get(client, -1) >= made):
                continue
            out.append((client, self.round.message_for(self.seat_of(who), shared, event)))
            self.told[client] = made
        return out

    def greet(self, client: Client, who: Identity) -> Outgoing:
        """A client arrives (under the lock): it gets the kept chat and the table as its
        seat sees it with the hand's moves so far; the others see it is here."""
        away = self.away()
        self.clients[client] = who
        self.told[client] = self.round.moves_made
        seat = self.seat_of(who)
        state = self.message_for(seat)
        state["log"] = self.round.log(seat)
        out: Outgoing = [(client, messages.chat(author, text)) for author, text in self.chat]
        out.append((client, state))
        # The others are told only when a player is back (a spectator changes nothing).
        return out + (self.publish(skip=client) if self.away() != away else [])

    async def deliver(self, out: Outgoing) -> None:
        """Send what :meth:`publish` made. Deliveries go one after another, in the order
        they were made, so every client hears the table's changes in order; a client
        that went away is dropped and the rest go on."""
        async with self.sending:
            for client, message in out:
                if client not in self.clients:
                    continue
                try:
                    await client.send(message)
                except Exception as exc:
                    log.info("table %s: a client is gone (%r)", self.id, exc)
                    self.leave(client)
                    # A client at another process is told to connect again.
                    close = getattr(client, "close", None)
                    if close is not None:
                        with contextlib.suppress(Exception):
                            await close(1011)

    async def tell_all(self, message: Any) -> None:
        await self.deliver([(client, message) for client in self.clients])

    def leave(self, client: Client) -> None:
        self.clients.pop(client, None)
        self.told.pop(client, None)


class Tables:
    """Every live table of one server process, over one database."""

    def __init__(
        self,
        db: Database,
        *,
        bot_delay: float = 0.6,
        grace: float = 60.0,
        hand_pause: float | None = None,
    ) -> None:
        self.repository = TableRepository(db)
        self.live: dict[str, LiveTable] = {}
        self.bot_delay = bot_delay
        self.hand_pause = 8 * bot_delay if hand_pause is None else hand_pause
        """Seconds between hands for the sheet before the next hand is played on (the
        person to open it may go on at once)."""
        self.keep_finished = 600.0
        """Seconds a finished table stays live before only its record remains."""
        self.grace = grace
        """Seconds a person's seat may stay without a connection during a game before
        a bot takes it, so the others can finish."""
        self.chat_history = 200
        """Chat lines a table keeps."""
        self.unattended = UNATTENDED
        """Seconds a table plays on (or waits) with nobody connected before it is
        abandoned: a table of bots nobody watches never plays for ever, nor is it
        replayed at every restart."""
        self.moved: Callable[[float], None] = lambda seconds: None
        """Told of every accepted move: the seconds from its arrival to its stored,
        published state (the metrics' latency)."""
        self.result_of: Callable[[LiveTable, dict[str, Any]], Any] = lambda table, record: None
        """The result row a finished game is entered as (the results service's, set by
        the app), stored in the same transaction as the game's end."""

    # -- creating and joining --------------------------------------------------------

    async def create(
        self,
        game: str,
        options: dict[str, Any],
        seats: Sequence[Mapping[str, Any] | SeatHolder],
        creator: Identity,
        *,
        private: bool = False,
        turn_seconds: int | None = None,
        seed: int | None = None,
        table_id: str | None = None,
    ) -> LiveTable:
        """A new table (``table_id`` when the caller chose its id); bad options or seats
        raise :class:`TableError`, nothing stored.

        Its deals come from a new 256-bit key from the OS's CSPRNG; with ``seed`` it is
        a practice table instead, dealt from that seed (shown to every seat, unrated)."""
        if seed is not None and not 0 <= seed < 2**31:
            raise TableError(phrase("a seed is 0 to 2147483647"))
        if turn_seconds is not None and not 5 <= turn_seconds <= 600:
            raise TableError(phrase("the turn timer is 5 to 600 seconds"))
        key = None if seed is not None else secrets.token_hex(KEY_BYTES)
        game_round = Round.new(game, options, list(seats), creator, seed, key)
        table = LiveTable(
            id=table_id or new_table_id(),
            round=game_round,
            private=private,
            invite=secrets.token_urlsafe(12),
            turn_seconds=turn_seconds,
            bot_delay=self.bot_delay,
            creator=creator,
            hand_pause=self.hand_pause,
        )
        await self.repository.create(
            table.id,
            game_round.spec.name,
            game_round.options.to_json(),
            game_round.seed,
            key,
            game_round.entrants,
            private=private,
            invite=table.invite,
            turn_seconds=turn_seconds,
            created_by=creator.user_id,
        )
        self.live[table.id] = table
        self.watch_unattended(table)
        return table

    async def rematch(self, table_id: str, me: Identity) -> tuple[str, bool]:
        """The rematch of finished table ``table_id`` for ``me``, one of its players:
        its id, and whether it was made now (``me`` has the seat they had, and every
        other person's seat is kept for them; bots play again). :class:`LookupError`
        if there is no such table for ``me``, :class:`TableError` if no rematch can be
        had."""
        stored = await self.repository.load_async(table_id)
        if not any(e.belongs_to(me) or (e.kept and e.open_to(me)) for e in stored.entrants):
            if stored.private:
                raise LookupError(table_id)
            raise TableError(phrase("a rematch is for the people who played"))
        if stored.status != "finished":
            raise TableError(phrase("the game is not over yet"))
        if stored.rematch is not None:
            return stored.rematch, False
        fresh = new_table_id()
        standing = await self.repository.claim_rematch(table_id, fresh)
        if standing != fresh:  # another player asked at the same moment
            return standing, False
        seats: list[Mapping[str, Any] | SeatHolder] = []
        for holder in stored.entrants:
            if holder.belongs_to(me):
                seats.append({"kind": "me"})
            elif holder.kind == "bot" and not holder.taken_over:
                seats.append({"kind": "bot", "bot": holder.bot})
            elif holder.belongs_to_someone:
                name = holder.name.removesuffix(" (bot)")
                seats.append(SeatHolder("open", name, holder.user_id, holder.guest))
            else:
                seats.append({"kind": "open"})
        await self.create(
            stored.game,
            stored.options,
            seats,
            me,
            private=stored.private,
            turn_seconds=stored.turn_seconds,
            table_id=fresh,
        )
        old = self.live.get(table_id)
        if old is not None:
            # Its players still looking at the end of the game are offered the seat.
            async with old.lock:
                old.rematch = fresh
                out = old.publish()
            await old.deliver(out)
        return fresh, True

    async def join(self, table: LiveTable, who: Identity, entrant: int | None = None) -> None:
        """Take an open seat (the first one unless ``entrant`` says which)."""
        async with table.lock:
            taken = table.round.join(who, entrant)
            try:
                await self.repository.save_seat(table.id, taken, table.round.entrants[taken])
            except Exception:
                table.round.entrants[taken] = SeatHolder("open", "")
                raise TableError(phrase("the seat could not be saved; nothing changed")) from None
        await self.maybe_start(table)

    async def maybe_start(self, table: LiveTable) -> None:
        """Start when every seat is filled."""
        async with table.lock:
            if not table.round.ready:
                out = table.publish()
            else:
                table.round.start()
                await self.repository.set_status(table.id, "playing")
                out = table.publish()
        await table.deliver(out)
        self.schedule(table)

    # -- playing ---------------------------------------------------------------------

    async def play(
        self, table: LiveTable, seat: int, choice: Any, moves_made: Any, *, bot: bool = False
    ) -> None:
        """Seat ``seat`` plays the legal move numbered ``choice`` of the list it was
        sent when ``moves_made`` moves had been made; anything else is refused and
        changes nothing. A ``bot``'s move is refused once a person has the seat back."""
        started = time.perf_counter()
        async with table.lock:
            if bot and not table.round.is_bot(seat):
                raise TableError(phrase("the seat is a person's again"))
            played = table.round.play(seat, choice, moves_made)
            over = table.round.status == "finished"
            if over:
                await self._store_end(table, played)
            else:
                await self._store(table, played)
            out = table.publish(played.event)
        self.moved(time.perf_counter() - started)
        await table.deliver(out)
        if over:
            await self._ended(table)
        else:
            self.schedule(table)

    async def _store(self, table: LiveTable, played: Played) -> None:
        """Store a move the round applied before anyone hears of it. If it cannot be
        stored the round is rebuilt from the database, so memory never runs ahead of
        the disk."""
        try:
            await self.repository.add_move(table.id, played)
        except TableError as exc:  # refused, not broken: another process holds the table
            log.warning("table %s: move %d not stored: %s", table.id, played.number, exc)
            table.round = self._replayed(await self.repository.load_async(table.id))
            raise
        except Exception:
            log.exception("table %s: move %d could not be stored", table.id, played.number)
            table.round = self._replayed(await self.repository.load_async(table.id))
            raise TableError(phrase("the move could not be saved; nothing changed")) from None

    def schedule(self, table: LiveTable) -> None:
        """Let the bot to move play after the table's pace (off the event loop), or
        start the turn timer of a person to move; watch for empty seats."""
        match = table.round.match
        if match is None or match.is_over or table.status != "playing":
            return
        self.watch_seats(table)
        seat = match.current_seat
        if seat is None:
            return
        if not table.round.is_bot(seat):
            if table.turn_seconds is not None and table.deadline_at == table.round.moves_made:
                made = table.round.moves_made
                timer = asyncio.create_task(self._turn_timer(table, seat, made))
                table.timers.add(timer)
                timer.add_done_callback(table.timers.discard)
            return
        if table.task is not None and not table.task.done():
            return
        if self._back(table, seat):
            table.task = asyncio.create_task(self._give_back(table, seat))
            return
        delay = table.bot_delay + (table.hand_pause if table.at_new_hand() else 0.0)
        table.task = asyncio.create_task(self._bot_turn(table, seat, table.round.moves_made, delay))

    @staticmethod
    def _back(table: LiveTable, seat: int) -> bool:
        """Whether the person whose seat a bot plays is connected again."""
        holder = table.round.holder(seat)
        return holder.taken_over and any(holder.belongs_to(w) for w in table.clients.values())

    async def _give_back(self, table: LiveTable, seat: int) -> None:
        """At their turn, a returning person takes their seat back from the bot."""
        async with table.lock:
            match = table.round.match
            if match is None or match.current_seat != seat or not self._back(table, seat):
                table.task = None
                return
            entrant = table.round.give_back(seat)
            await self.repository.save_seat(table.id, entrant, table.round.entrants[entrant])
            out = table.publish()
            table.task = None
        await table.deliver(out)
        self.schedule(table)

    async def _turn_timer(self, table: LiveTable, seat: int, moves_made: int) -> None:
        """The turn timer ran out: the greedy choice is played for the seat."""
        assert table.deadline is not None
        await asyncio.sleep(max(0.0, table.deadline - asyncio.get_running_loop().time()))
        match = table.round.match
        if match is None or table.round.moves_made != moves_made or match.current_seat != seat:
            return
        with contextlib.suppress(TableError):  # the person moved just in time
            await self.play(table, seat, table.round.timed_out_move(seat), moves_made)

    def watch_seats(self, table: LiveTable) -> None:
        """Start the grace period of every person's seat that has no connection."""
        match = table.round.match
        if match is None or table.status != "playing":
            return
        connected = {table.seat_of(who) for who in table.clients.values()}
        for seat in range(match.players):
            holder = table.round.holder(seat)
            if holder.kind == "person" and seat not in connected and seat not in table.empty:
                table.empty[seat] = asyncio.create_task(self._take_over(table, seat))

    def arrived(self, table: LiveTable, who: Identity) -> None:
        """A client came (back): its seat's grace period stops."""
        task = table.empty.pop(table.seat_of(who), None)
        if task is not None:
            task.cancel()

    async def _take_over(self, table: LiveTable, seat: int) -> None:
        await asyncio.sleep(self.grace)
        async with table.lock:
            # Decided under the lock, and the seat stays marked as watched until it is
            # decided: a second watch of the same seat must not start meanwhile (it
            # would take the seat from the bot that already holds it).
            table.empty.pop(seat, None)
            match = table.round.match
            if match is None or table.status != "playing" or match.is_over:
                return
            if table.round.holder(seat).kind != "person":
                return
            if any(table.seat_of(who) == seat for who in table.clients.values()):
                return
            entrant = table.round.take_over(seat)
            await self.repository.save_seat(table.id, entrant, table.round.entrants[entrant])
            out = table.publish()
        await table.deliver(out)
        self.schedule(table)

    async def _bot_turn(self, table: LiveTable, seat: int, moves_made: int, delay: float) -> None:
        await asyncio.sleep(delay)
        match = table.round.match
        assert match is not None
        if table.round.moves_made != moves_made or match.current_seat != seat:
            return
        move = await asyncio.to_thread(table.round.bot_decision)
        table.task = None
        if move is None:
            log.info("table %s: no bot move at %d", table.id, moves_made)
            return
        try:
            await self.play(
                table, seat, list(match.legal_moves()).index(move), moves_made, bot=True
            )
        except TableError as exc:  # its person came back meanwhile
            log.info("table %s: the bot's move %d was refused: %s", table.id, moves_made, exc)

    async def _store_end(self, table: LiveTable, last: Played | None) -> None:
        """The one way a game ends (under the table's lock, before anyone hears of it):
        the last move, the record (revealing every deal's salt) and the result are
        stored in one transaction. If that fails, the round is rebuilt from the
        database, as for any move that could not be stored."""
        game_round = table.round
        match = game_round.match
        assert match is not None
        written = record.write_record(
            match,
            game_round.names(),
            seed=game_round.seed,
            bots=[game_round.bot_of(seat) for seat in range(match.players)],
            salts=game_round.salts(),
            stand_ins=game_round.stand_ins_json(),
        )
        try:
            result = self.result_of(table, written)
            await self.repository.finish(table.id, written, last, result)
        except TableError as exc:  # refused: another process holds the table, or ended it
            log.warning("table %s: the end of the game not stored: %s", table.id, exc)
            table.round = self._replayed(await self.repository.load_async(table.id))
            raise
        except Exception:
            log.exception("table %s: the end of the game could not be stored", table.id)
            table.round = self._replayed(await self.repository.load_async(table.id))
            raise TableError(phrase("the move could not be saved; nothing changed")) from None

    async def _ended(self, table: LiveTable) -> None:
        """After the end is stored and told: the table stays in memory a while for its
        players' last look, then only in the database (its record, replay and history)."""
        asyncio.get_running_loop().call_later(self.keep_finished, self.live.pop, table.id, None)

    async def _finish(self, table: LiveTable) -> None:
        """End a game the database shows as over but not ended (stopped in between)."""
        async with table.lock:
            await self._store_end(table, None)
            out = table.publish()
        await table.deliver(out)
        await self._ended(table)

    # -- chat --------------------------------------------------------------------------

    async def chat(self, table: LiveTable, author: str, text: str) -> None:
        await self.repository.add_chat(table.id, author, text, self.chat_history)
        table.chat = [*table.chat, (author, text)][-self.chat_history :]
        await table.tell_all(messages.chat(author, text))

    async def hint(self, table: LiveTable, seat: int) -> messages.Hint:
        """The expert bot's advice for ``seat`` at its turn (refused where the table
        gives no hints)."""
        async with table.lock:
            return table.round.hint(seat)

    async def left(self, table: LiveTable, client: Client) -> None:
        """A client went away: the others see if its person is now away, and its seat's
        grace period starts."""
        away = table.away()
        table.leave(client)
        self.watch_unattended(table)
        self.watch_seats(table)
        if table.away() == away:
            return
        async with table.lock:
            out = table.publish()
        await table.deliver(out)

    async def arrive(self, table: LiveTable, client: Client, who: Identity) -> None:
        """A client connects: it is told the table as stored, then every change."""
        async with table.lock:
            out = table.greet(client, who)
            if table.unattended is not None:
                table.unattended.cancel()
                table.unattended = None
        await table.deliver(out)
        self.arrived(table, who)
        match = table.round.match
        seat = table.round.returning(who)
        if match is None or seat == SPECTATOR:
            return
        if match.current_seat == seat and not match.is_over:
            # The bot may be thinking of this very move: the seat comes back after it.
            self.schedule(table)
            return
        # Back while others play, or once the game is over: the seat and its name are
        # the person's again at once (the record says which moves the bot made).
        async with table.lock:
            if table.round.returning(who) != seat:
                return
            entrant = table.round.give_back(seat)
            await self.repository.save_seat(table.id, entrant, table.round.entrants[entrant])
            out = table.publish()
        await table.deliver(out)

    async def spectate(self, table: LiveTable) -> messages.StateMessage:
        """The table as a spectator sees it, as stored."""
        async with table.lock:
            return table.message_for(SPECTATOR)

    # -- restart ---------------------------------------------------------------------

    def recover(self) -> int:
        """Load every unfinished table from the database, replaying its moves; how many."""
        ids = self.repository.unfinished()
        for table_id in ids:
            self.load(table_id)
        return len(ids)

    def load(self, table_id: str) -> LiveTable:
        """One table from the database (synchronous: at start, or in a worker thread when
        this process takes a table over from another)."""
        stored = self.repository.load(table_id)
        table = LiveTable(
            id=stored.id,
            round=self._replayed(stored),
            private=stored.private,
            invite=stored.invite,
            turn_seconds=stored.turn_seconds,
            bot_delay=self.bot_delay,
            hand_pause=self.hand_pause,
            chat=self.repository.chat_lines(stored.id)[-self.chat_history :],
        )
        self.live[table_id] = table
        return table

    async def drop(self, table_id: str) -> None:
        """Let a table go from this process (another one owns it now): its bot, timers
        and grace periods stop, and its clients are closed with "service restart" so
        they connect again and reach the new owner."""
        table = self.live.pop(table_id, None)
        if table is None:
            return
        for task in [table.task, *table.timers, *table.empty.values()]:
            if task is not None:
                task.cancel()
        for client in list(table.clients):
            table.leave(client)
            close = getattr(client, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close(1012)

    def _replayed(self, stored: StoredTable) -> Round:
        """A round as the database has it: the match replayed from its seed and moves."""
        spec = find_game(stored.game)
        game_round = Round(
            spec, spec.options_from_json(stored.options), stored.seed, stored.entrants, stored.key
        )
        if stored.status in ("playing", "finished"):
            game_round.start()
            for data, stand_in in zip(stored.moves, stored.stand_ins, strict=True):
                match = game_round.match
                assert match is not None
                try:
                    move = record.move_from_json(data, match.current)
                except (RuleError, ValueError, KeyError, TypeError) as exc:
                    raise TableError(
                        phrase(
                            "table {id}: a stored move is unreadable: {exc}", id=stored.id, exc=exc
                        )
                    ) from None
                game_round.restore(move, stand_in)
            game_round.status = stored.status
        return game_round

    def resume_bots(self) -> None:
        """After :meth:`recover`, inside the event loop: let waiting bots move, and end
        a game whose last move was stored but whose end was not (the server stopped in
        between)."""
        for table in list(self.live.values()):
            self.resume(table)

    def watch_unattended(self, table: LiveTable) -> None:
        """With nobody connected, abandon the table after :attr:`unattended` seconds
        (unless someone comes meanwhile)."""
        if table.clients or table.status not in ("waiting", "playing"):
            return
        if table.unattended is None or table.unattended.done():
            table.unattended = asyncio.get_running_loop().create_task(self._abandon(table))

    async def _abandon(self, table: LiveTable) -> None:
        await asyncio.sleep(self.unattended)
        async with table.lock:
            if table.clients or table.status not in ("waiting", "playing"):
                return
            if self.live.get(table.id) is not table:
                return
            await self.repository.set_status(table.id, "abandoned")
            table.round.status = "abandoned"
        log.info("table %s: abandoned, nobody there for %.0f s", table.id, self.unattended)
        table.unattended = None
        await self.drop(table.id)

    def resume(self, table: LiveTable) -> None:
        """Play on at a table just loaded from the database."""
        self.watch_unattended(table)
        match = table.round.match
        if match is not None and match.is_over and table.status == "playing":
            table.round.status = "finished"
            task = asyncio.get_running_loop().create_task(self._finish(table))
            table.timers.add(task)
            task.add_done_callback(table.timers.discard)
        else:
            self.schedule(table)
