"""A live table: the actor that serialises one table's commands.

A :class:`LiveTable` owns one table's :class:`~pips.server.round.Round` (the game, no
I/O), its clients and its clocks (:class:`~pips.server.pace.Pace`), and takes every
command for it (:meth:`LiveTable.join`, :meth:`LiveTable.submit_move`,
:meth:`LiveTable.say` ...). A command that changes the round runs under the table's
lock: the round decides, the repository stores what it decided (*before* any client
hears of it, so a server killed at any moment restarts exactly where it was: the deals
come from the table's seed or key and the stored moves are replayed, :func:`replayed`);
then, the lock released, every client is sent its own seat's view (spectators the
public view), never another seat's tile, in the order the messages were made
(:attr:`LiveTable.sending`). A chat line changes nothing of the round:
:meth:`LiveTable.say` stores and sends it without the lock. Bots decide in the bots'
lanes of :mod:`pips.server.work`, off the event loop; database work runs in worker
threads. What the table needs of its server comes in a :class:`TableHouse`, handed to
it when it is made; the registry of tables is :mod:`pips.server.tables`.

Clients are anything with ``async send(message: dict)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pips import record
from pips.core.errors import RuleError
from pips.core.moves import Move
from pips.core.phrase import phrase
from pips.core.view import SPECTATOR, MoveEvent
from pips.games.registry import find_game
from pips.server import messages, telling
from pips.server.accounts.identity import Identity
from pips.server.pace import Pace
from pips.server.repository import StoredTable, TableRepository
from pips.server.round import Played, Round, SeatHolder, TableError
from pips.server.standing import StandingUp
from pips.server.work import Work

log = logging.getLogger("pips.server")


class Client(Protocol):
    async def send(self, message: Any) -> None: ...


Outgoing = list[tuple[Client, Any]]
"""Messages for clients, made at one moment, delivered in that order."""


def new_table_id() -> str:
    """A table's id: 72 bits from the OS's CSPRNG (a private table's id is not its
    secret, its invitation is; still, ids are not to be guessed)."""
    return secrets.token_urlsafe(9)


@dataclass(frozen=True)
class TableHouse:
    """What a live table needs of the server process it lives in: where it is stored,
    its pace and limits, and whom it tells of moves and endings."""

    repository: TableRepository
    grace: float
    """Seconds a person's seat may stay without a connection during a game before a bot
    takes it, so the others can finish."""
    unattended: float
    """Seconds a table plays on (or waits) with nobody connected before it is abandoned:
    a table of bots nobody watches never plays for ever, nor is it replayed at every
    restart."""
    chat_history: int
    """Chat lines a table keeps."""
    keep_finished: float
    """Seconds a finished table stays live before only its record remains."""
    moved: Callable[[float], None]
    """Told of every accepted move: the seconds from its arrival to its stored,
    published state (the metrics' latency)."""
    result_of: Callable[[LiveTable, dict[str, Any]], Any]
    """The result row a finished game is entered as (the results service's), stored in
    the same transaction as the game's end."""
    holds: Callable[[LiveTable], bool]
    """Whether this process still holds the table live."""
    forget: Callable[[LiveTable], None]
    """Let the table go from the process's registry (only if it is this very table)."""
    progressed: Callable[[str, Callable[[], dict[str, Any]], bool], None]
    """Told of every move with the table's id, how to write its record so far, and
    whether the move ended a hand or the game: the analyses value the game meanwhile
    (:meth:`~pips.server.analyses.Analyses.follow`)."""
    work: Work
    """The lanes its bots decide in (:mod:`pips.server.work`)."""
    announce: Callable[[LiveTable, str], None] = lambda table, what: None
    """Told when a game starts (``gameStart``) and when it ends, finished or closed
    unplayed (``gameFinish``): the accounts' event streams (:mod:`pips.server.botapi`)."""


@dataclass
class LiveTable:
    """One table in memory: its round, who is connected, and its running timers."""

    id: str
    round: Round
    house: TableHouse
    """What the table needs of the server it lives in."""
    bot_delay: float
    private: bool = False
    invite: str = ""
    turn_seconds: int | None = None
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
    table once ``house.unattended`` seconds have passed."""
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
    pace: Pace = field(init=False, repr=False)
    """Its clocks: bots' turns, the turn timer, grace periods, abandoning."""
    standing: StandingUp = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.pace = Pace(self)
        self.standing = StandingUp(self)

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
        return telling.summary(self.round, self.id, self.private, self.turn_seconds, self.away())

    def summary(self) -> dict[str, Any]:
        """What the lobby and the API show of a table (no hidden information)."""
        return dict(self._summary())

    def _shared(self) -> messages.SharedState:
        away = self.away()
        shared = telling.shared_part(
            self.round, telling.summary(self.round, self.id, self.private, self.turn_seconds, away)
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
                pause = self.hand_pause if self.round.at_new_hand else 0.0
                self.deadline = loop.time() + self.turn_seconds + pause
                self.deadline_at = self.round.moves_made
            left = max(0.0, self.deadline - loop.time())
            shared["timer"] = {"seat": seat, "left": round(left, 1)}
        return shared

    def message_for(self, seat: int, event: MoveEvent | None = None) -> messages.StateMessage:
        return telling.message_for(self.round, seat, self._shared(), event)

    # -- telling -----------------------------------------------------------------------

    def outgoing(self, event: MoveEvent | None = None, skip: Client | None = None) -> Outgoing:
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
            out.append((client, state_for(self.round, who, client, shared, event)))
            self.told[client] = made
        return out

    def greet(self, client: Client, who: Identity) -> Outgoing:
        """A client arrives (under the lock): it gets the kept chat and the table as its
        seat sees it with the hand's moves so far; the others see it is here."""
        away = self.away()
        self.clients[client] = who
        self.told[client] = self.round.moves_made
        seat = self.round.viewing_seat(who)
        state = state_for(self.round, who, client, self._shared())
        state["log"] = telling.log(self.round, seat)
        out: Outgoing = [(client, messages.chat(author, text)) for author, text in self.chat]
        out.append((client, state))
        # The others are told only when a player is back (a spectator changes nothing).
        return out + (self.outgoing(skip=client) if self.away() != away else [])

    async def deliver(self, out: Outgoing) -> None:
        """Send what :meth:`outgoing` made, one after another in the order made (so every
        client hears the table's changes in order); a client that went away is dropped."""
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

    # -- commands (under the table's lock: decided, stored, then told; chat needs none) --

    async def join(self, who: Identity, entrant: int | None = None) -> None:
        """Take an open seat (the first one unless ``entrant`` says which)."""
        async with self.lock:
            taken = self.round.join(who, entrant)
            try:
                await self.house.repository.save_seat(self.id, taken, self.round.entrants[taken])
            except Exception:
                self.round.entrants[taken] = SeatHolder("open", "")
                raise TableError(phrase("the seat could not be saved; nothing changed")) from None
        await self.start_if_ready()

    async def start_if_ready(self) -> None:
        """Start when every seat is filled."""
        async with self.lock:
            if not self.round.ready:
                out = self.outgoing()
            else:
                self.round.start()
                await self.house.repository.set_status(self.id, "playing")
                out = self.outgoing()
                self.house.announce(self, "gameStart")
        await self.deliver(out)
        self.pace.schedule()

    async def submit_move(self, seat: int, choice: int, moves_made: int) -> None:
        """A client's move: the legal move numbered ``choice`` of the list sent to
        ``seat`` at ``moves_made`` moves; anything else is refused, changing nothing."""
        await self._play(seat, lambda: self.round.apply_choice(seat, choice, moves_made))

    async def play_move(self, seat: int, move: Move, moves_made: int, *, bot: bool = False) -> None:
        """A move made here (a bot's, a turn timer's) as the move it is; a ``bot``'s is
        refused once a person has the seat back."""
        await self._play(seat, lambda: self.round.apply_move(seat, move, moves_made), bot)

    async def _play(self, seat: int, apply: Callable[[], Played], bot: bool = False) -> None:
        """The round decides a move (``apply``, under the lock); stored, then told."""
        started = time.perf_counter()
        async with self.lock:
            if bot and not self.round.is_bot(seat):
                raise TableError(phrase("the seat is a person's again"))
            match = self.round.match
            hands = 0 if match is None else len(match.hand_states)
            played = apply()
            over = self.round.status == "finished"
            if over:
                await self._store_end(played)
            else:
                await self._store(played)
            out = self.outgoing(played.event)
            if match is not None and not over:
                self.house.progressed(self.id, self._record, len(match.hand_states) > hands)
        self.house.moved(time.perf_counter() - started)
        await self.deliver(out)
        if over:
            await self.ended()
        else:
            self.pace.schedule()

    async def _store(self, played: Played) -> None:
        """Store a move the round applied before anyone hears of it. If it cannot be
        stored the round is rebuilt from the database, so memory never runs ahead of
        the disk."""
        try:
            await self.house.repository.add_move(self.id, played)
        except TableError as exc:  # refused, not broken: another process holds the table
            log.warning("table %s: move %d not stored: %s", self.id, played.number, exc)
            self.round = replayed(await self.house.repository.load_async(self.id))
            raise
        except Exception:
            log.exception("table %s: move %d could not be stored", self.id, played.number)
            self.round = replayed(await self.house.repository.load_async(self.id))
            raise TableError(phrase("the move could not be saved; nothing changed")) from None

    async def _store_end(self, last: Played | None) -> None:
        """The one way a game ends (under the table's lock, before anyone hears of it):
        the last move, the record (revealing every deal's salt) and the result are
        stored in one transaction. If that fails, the round is rebuilt from the
        database, as for any move that could not be stored."""
        game_round = self.round
        match = game_round.match
        assert match is not None
        written = self._record(salts=game_round.salts())
        try:
            result = self.house.result_of(self, written)
            await self.house.repository.finish(self.id, written, last, result)
            self.house.progressed(self.id, lambda: written, True)
        except TableError as exc:  # refused: another process holds the table, or ended it
            log.warning("table %s: the end of the game not stored: %s", self.id, exc)
            self.round = replayed(await self.house.repository.load_async(self.id))
            raise
        except Exception:
            log.exception("table %s: the end of the game could not be stored", self.id)
            self.round = replayed(await self.house.repository.load_async(self.id))
            raise TableError(phrase("the move could not be saved; nothing changed")) from None

    def _record(self, salts: list[str] | None = None) -> dict[str, Any]:
        """The game's record as it stands (finished or not; without ``salts`` the
        deals' commitments are left out: a record so far stays in the server)."""
        game_round = self.round
        match = game_round.match
        assert match is not None
        return record.write_record(
            match,
            game_round.names(),
            seed=game_round.seed,
            bots=[game_round.bot_of(seat) for seat in range(match.players)],
            salts=salts,
            stand_ins=game_round.stand_ins_json(),
        )

    async def ended(self) -> None:
        """After the end is stored and told: the table stays in memory a while for its
        players' last look, then only in the database (its record, replay and history)."""
        self.house.announce(self, "gameFinish")
        asyncio.get_running_loop().call_later(self.house.keep_finished, self.house.forget, self)

    async def _finish(self) -> None:
        """End a game the database shows as over but not ended (stopped in between)."""
        async with self.lock:
            await self._store_end(None)
            out = self.outgoing()
        await self.deliver(out)
        await self.ended()

    # -- standing up (issue 51; pips.server.standing), for any client to call -----------

    async def abort(self, who: Identity) -> None:
        """Close the table unplayed before its first move, at any seated one's word."""
        await self.standing.abort(who)

    async def resign(self, who: Identity) -> None:
        """``who`` gives the game up: alone with bots, the game ends here without a
        result; with other people, a bot plays the seat to the end (as
        :meth:`leave_seat`), so that their game goes on."""
        await self.standing.leave(who)

    async def leave_seat(self, who: Identity) -> None:
        """``who`` leaves their seat for good: before the game it is open again; during
        it a bot plays it to the end (the record says which moves were the bot's). A
        table left with nobody but bots is closed."""
        await self.standing.leave(who)

    async def say(self, author: str, text: str) -> None:
        """A chat line, stored, then sent to all (no lock: it changes nothing of the round)."""
        await self.house.repository.add_chat(self.id, author, text, self.house.chat_history)
        self.chat = [*self.chat, (author, text)][-self.house.chat_history :]
        await self.tell_all(messages.chat(author, text))

    async def hint(self, seat: int) -> messages.Hint:
        """The expert bot's advice for ``seat`` at its turn (refused where none is given)."""
        async with self.lock:
            return telling.hint(self.round, seat)

    async def client_left(self, client: Client) -> None:
        """A client went away: the others see if its person is now away, and its seat's
        grace period starts."""
        away = self.away()
        self.leave(client)
        self.pace.watch_unattended()
        self.pace.watch_seats()
        if self.away() == away:
            return
        async with self.lock:
            out = self.outgoing()
        await self.deliver(out)

    async def client_arrived(self, client: Client, who: Identity) -> None:
        """A client connects: it is told the table as stored, then every change."""
        async with self.lock:
            out = self.greet(client, who)
            if self.unattended is not None:
                self.unattended.cancel()
                self.unattended = None
        await self.deliver(out)
        self.pace.stop_grace(who)
        match = self.round.match
        seat = self.round.returning(who)
        if match is None or seat == SPECTATOR:
            return
        if match.current_seat == seat and not match.is_over:
            # The bot may be thinking of this very move: the seat comes back after it.
            self.pace.schedule()
            return
        # Back while others play, or once the game is over: the seat and its name are
        # the person's again at once (the record says which moves the bot made).
        async with self.lock:
            if self.round.returning(who) != seat:
                return
            entrant = self.round.give_back(seat)
            await self.house.repository.save_seat(self.id, entrant, self.round.entrants[entrant])
            out = self.outgoing()
        await self.deliver(out)

    async def spectate(self) -> messages.StateMessage:
        """The table as a spectator sees it, as stored."""
        async with self.lock:
            return self.message_for(SPECTATOR)

    def resume(self) -> None:
        """Play on at a table just loaded from the database."""
        self.pace.watch_unattended()
        match = self.round.match
        if match is not None and match.is_over and self.status == "playing":
            self.round.status = "finished"
            task = asyncio.get_running_loop().create_task(self._finish())
            self.timers.add(task)
            task.add_done_callback(self.timers.discard)
        else:
            self.pace.schedule()

    async def offer_rematch(self, table_id: str) -> None:
        """Its players still looking at the end of the game are offered the seat they had
        at the rematch, table ``table_id``."""
        async with self.lock:
            self.rematch = table_id
            out = self.outgoing()
        await self.deliver(out)

    async def close(self) -> None:
        """Stop the table in this process: its bot, timers and grace periods stop, and
        its clients are closed with "service restart" so they connect again and reach
        the process that holds it now."""
        for task in [self.task, *self.timers, *self.empty.values()]:
            if task is not None:
                task.cancel()
        for client in list(self.clients):
            self.leave(client)
            close = getattr(client, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close(1012)


def state_for(
    game_round: Round,
    who: Identity,
    client: Client,
    shared: messages.SharedState,
    event: MoveEvent | None = None,
) -> messages.StateMessage:
    """The state message ``client`` of ``who`` is sent: the view of their seat (or of
    the one a stand-in plays for them), keeping the hand's moves for a client that
    reads them (a bot's game stream, :mod:`pips.server.routes.bot`)."""
    history = bool(getattr(client, "history", False))
    seat = game_round.viewing_seat(who)
    return telling.message_for(game_round, seat, shared, event, history=history)


def replayed(stored: StoredTable) -> Round:
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
                    phrase("table {id}: a stored move is unreadable: {exc}", id=stored.id, exc=exc)
                ) from None
            game_round.restore(move, stand_in)
        game_round.status = stored.status
    return game_round
