"""The tables' storage: every database read and write of the live game server.

The table actor never touches SQLAlchemy itself: it asks the repository, whose
coroutines run the (synchronous) database work in a worker thread of the tables' own
(:class:`pips.server.work.Work`'s ``tables`` lane; the moves: the move writer's thread),
so a slow write never stalls the event loop, the other tables' games go on meanwhile,
and no PDF, CSV or bot waits in front of them. At start the
server reads what it must recover with the synchronous :meth:`TableRepository.load`,
before it accepts any connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.server.accounts.identity import Identity
from pips.server.leases import Leases
from pips.server.round import Played, SeatHolder, TableError
from pips.store.db import Database
from pips.store.models import ChatLine, GameTable, MoveRow, Seat, User, now

if TYPE_CHECKING:
    from pips.server.work import Lane

T = TypeVar("T")


@dataclass(frozen=True)
class StoredTable:
    """A table as the database has it: its settings, seats and moves so far."""

    id: str
    game: str
    options: dict[str, Any]
    seed: int | None
    key: str | None
    status: str
    private: bool
    invite: str
    turn_seconds: int | None
    entrants: list[SeatHolder]
    moves: list[dict[str, Any]]
    stand_ins: list[str | None]
    """For each move, the bot that made it for a person who was away, else None."""
    rematch: str | None = None
    """The table of its rematch, once asked for."""


class TableRepository:
    """The tables, seats, moves, chat and records of one database."""

    def __init__(self, db: Database, lane: Lane | None = None) -> None:
        self.db = db
        self.lane = lane
        """Where its database work runs (without one: asyncio's default executor)."""
        self._moves = MoveWriter(db)
        self.leases: Leases | None = None
        """With several processes: this process's leases. A new table is created with
        its lease, and a move or a game's end is stored only while the lease holds."""

    def use_leases(self, leases: Leases) -> None:
        self.leases = leases
        self._moves.fence = leases.fence

    async def _off(self, work: Callable[..., T], *args: Any) -> T:
        """``work`` off the event loop, in the tables' lane."""
        if self.lane is None:
            return await asyncio.to_thread(work, *args)
        return await self.lane.run(work, *args)

    def close(self) -> None:
        """Stop the move writer (after the moves queued so far are written)."""
        self._moves.close()

    # -- writing ---------------------------------------------------------------------

    async def create(
        self,
        table_id: str,
        game: str,
        options: dict[str, Any],
        seed: int | None,
        key: str | None,
        entrants: list[SeatHolder],
        *,
        private: bool,
        invite: str,
        turn_seconds: int | None,
        created_by: int | None,
    ) -> None:
        """A new table, with (several processes) the lease that makes this process its
        owner, in one transaction: no other process can take it in between."""

        def write() -> None:
            with self.db.session() as session, session.begin():
                session.add(
                    GameTable(
                        id=table_id,
                        game=game,
                        options=options,
                        seed=seed,
                        deal_key=key,
                        private=private,
                        invite=invite,
                        turn_seconds=turn_seconds,
                        created_by=created_by,
                        seats=[_seat_row(i, e) for i, e in enumerate(entrants)],
                    )
                )
                if self.leases is not None:
                    session.flush()
                    self.leases.write(session, table_id)

        await self._off(write)

    async def save_seat(self, table_id: str, entrant: int, holder: SeatHolder) -> None:
        def write() -> None:
            with self.db.session() as session, session.begin():
                row = session.scalars(
                    select(Seat).where(Seat.table_id == table_id, Seat.entrant == entrant)
                ).one()
                row.kind, row.name, row.user_id = holder.kind, holder.name, holder.user_id
                row.guest, row.bot = holder.guest, holder.bot

        await self._off(write)

    async def set_status(self, table_id: str, status: str) -> None:
        def write() -> None:
            with self.db.session() as session, session.begin():
                row = session.get(GameTable, table_id)
                assert row is not None
                row.status = status

        await self._off(write)

    async def add_move(self, table_id: str, played: Played) -> None:
        """Store one move; returns once it is committed (before anyone hears of it).
        A move whose number the table already has was made by another process that held
        the table meanwhile: it is refused as the lease's fence refuses (TableError), and
        the caller rebuilds the table from what is stored."""
        try:
            await self._moves.write(self._move_row(table_id, played))
        except IntegrityError:
            raise TableError(phrase("the table has moved to another server process")) from None

    @staticmethod
    def _move_row(table_id: str, played: Played) -> dict[str, Any]:
        return {
            "table_id": table_id,
            "number": played.number,
            "seat": played.seat,
            "move": played.move,
            "created_at": now(),
            "stand_in": played.stand_in,
        }

    async def finish(
        self,
        table_id: str,
        record: dict[str, Any],
        last: Played | None,
        result: Callable[[Session], Any] | None,
    ) -> None:
        """The end of a game in one transaction: its last move (unless it is stored
        already), the table finished with its record, and its result (``result``
        enters it in the session)."""

        def write() -> None:
            with self.db.session() as session, session.begin():
                if self.leases is not None:
                    self.leases.fence(session.connection(), [table_id])
                if last is not None:
                    session.execute(insert(MoveRow), [self._move_row(table_id, last)])
                row = session.get(GameTable, table_id, with_for_update=True)
                assert row is not None
                if row.status == "finished":
                    # Two processes that both thought they owned the table (one was
                    # paused past its lease): the first end stands.
                    raise TableError(phrase("the game has ended already"))
                row.status = "finished"
                row.finished_at = now()
                row.record = record
                if result is not None:
                    result(session)

        await self._off(write)

    async def add_chat(self, table_id: str, author: str, text: str, keep: int) -> None:
        """Store a chat line; the table keeps its newest ``keep`` lines."""

        def write() -> None:
            with self.db.session() as session, session.begin():
                session.add(ChatLine(table_id=table_id, author=author, text=text))
                session.flush()
                old = session.scalars(
                    select(ChatLine.id)
                    .where(ChatLine.table_id == table_id)
                    .order_by(ChatLine.id.desc())
                    .offset(keep)
                ).all()
                if old:
                    session.execute(delete(ChatLine).where(ChatLine.id.in_(old)))

        await self._off(write)

    # -- reading ---------------------------------------------------------------------

    def unfinished(self) -> list[str]:
        """The ids of the tables waiting or being played (at start, synchronously)."""
        with self.db.session() as session:
            return list(
                session.scalars(
                    select(GameTable.id).where(GameTable.status.in_(("waiting", "playing")))
                ).all()
            )

    def load(self, table_id: str) -> StoredTable:
        """One table with its seats and stored moves, in order; :class:`LookupError`
        if there is no such table."""
        with self.db.session() as session:
            row = session.get(GameTable, table_id)
            if row is None:
                raise LookupError(table_id)
            moves = session.execute(
                select(MoveRow.move, MoveRow.stand_in)
                .where(MoveRow.table_id == row.id)
                .order_by(MoveRow.number)
            ).all()
            return StoredTable(
                id=row.id,
                game=row.game,
                options=row.options,
                seed=row.seed,
                key=row.deal_key,
                status=row.status,
                private=row.private,
                invite=row.invite,
                turn_seconds=row.turn_seconds,
                entrants=[SeatHolder(s.kind, s.name, s.user_id, s.guest, s.bot) for s in row.seats],
                moves=[move for move, _ in moves],
                stand_ins=[stand_in for _, stand_in in moves],
                rematch=row.rematch,
            )

    def chat_lines(self, table_id: str) -> list[tuple[str, str]]:
        """A table's kept chat, oldest first, as (author, text)."""
        with self.db.session() as session:
            rows = session.execute(
                select(ChatLine.author, ChatLine.text)
                .where(ChatLine.table_id == table_id)
                .order_by(ChatLine.id)
            ).all()
            return [(author, text) for author, text in rows]

    async def claim_rematch(self, table_id: str, rematch: str) -> str:
        """Name ``rematch`` the rematch of finished table ``table_id`` unless another
        was named first (two players asking at once); the one that stands."""

        def write() -> str:
            with self.db.session() as session, session.begin():
                session.execute(
                    update(GameTable)
                    .where(GameTable.id == table_id, GameTable.rematch.is_(None))
                    .values(rematch=rematch)
                )
                row = session.get(GameTable, table_id)
                assert row is not None and row.rematch is not None
                return row.rematch

        return await self._off(write)

    async def load_async(self, table_id: str) -> StoredTable:
        return await self._off(self.load, table_id)

    async def record(self, table_id: str, who: Identity | None) -> dict[str, Any] | None:
        """The record of a finished game, if there is one ``who`` may see: a private
        table's only by the people who played it, until they all published it."""

        def read() -> dict[str, Any] | None:
            with self.db.session() as session:
                row = session.get(GameTable, table_id)
                if row is None or not _may_see(row, who):
                    return None
                return row.record

        return await self._off(read)

    async def tables_of(self, who: Identity) -> int:
        """How many tables ``who`` made that wait or are played (every process's: the
        per-person limit counts them here). A guest's are the tables of no account
        they hold a seat at."""

        def read() -> int:
            live = GameTable.status.in_(("waiting", "playing"))
            with self.db.session() as session:
                if who.user_id is not None:
                    query = select(func.count()).where(live, GameTable.created_by == who.user_id)
                else:
                    seated = select(Seat.table_id).where(Seat.guest == who.guest)
                    query = select(func.count()).where(
                        live, GameTable.created_by.is_(None), GameTable.id.in_(seated)
                    )
                return int(session.scalar(query) or 0)

        return await self._off(read)

    async def analysis(self, table_id: str) -> dict[str, Any] | None:
        """The analysis kept with a finished game's record, if one was made."""

        def read() -> dict[str, Any] | None:
            with self.db.session() as session:
                found = session.scalar(select(GameTable.analysis).where(GameTable.id == table_id))
                return None if found is None else dict(found)

        return await asyncio.to_thread(read)

    async def keep_analysis(self, table_id: str, analysis: dict[str, Any]) -> None:
        """Keep a finished game's analysis with its record."""

        def write() -> None:
            with self.db.session() as session, session.begin():
                session.execute(
                    update(GameTable)
                    .where(GameTable.id == table_id, GameTable.status == "finished")
                    .values(analysis=analysis)
                )

        await asyncio.to_thread(write)

    async def seated_tables(self, who: Identity) -> list[dict[str, Any]]:
        """The tables waiting or being played at which ``who`` has a place (held, or
        played for them while they are away), newest first: id, game and status."""

        def read() -> list[dict[str, Any]]:
            live = GameTable.status.in_(("waiting", "playing"))
            mine = (
                Seat.user_id == who.user_id if who.user_id is not None else Seat.guest == who.guest
            )
            if who.user_id is None and who.guest is None:
                return []
            query = (
                select(GameTable.id, GameTable.game, GameTable.status)
                .join(Seat, Seat.table_id == GameTable.id)
                .where(live, mine)
                .order_by(GameTable.created_at.desc())
                .limit(50)
            )
            with self.db.session() as session:
                return [
                    {"id": row.id, "game": row.game, "status": row.status}
                    for row in session.execute(query)
                ]

        return await asyncio.to_thread(read)

    async def ask_to_make_public(self, table_id: str, who: Identity) -> bool:
        """``who``, a person who played at the finished private table, asks to publish
        it; whether it is public now (every person who played asked)."""

        def write() -> bool:
            with self.db.session() as session, session.begin():
                row = session.get(GameTable, table_id, with_for_update=True)
                if row is None or row.status != "finished":
                    raise TableError(phrase("no finished game with that id"))
                people = [s for s in row.seats if s.user_id is not None or s.guest is not None]
                mine = [s.entrant for s in people if _holds(s, who)]
                if not mine:
                    raise TableError(phrase("only the people who played a table publish it"))
                asked = sorted({*(row.publish_asks or []), *mine})
                row.publish_asks = asked
                if row.published_at is None and {s.entrant for s in people} <= set(asked):
                    row.published_at = now()
                return row.published_at is not None or not row.private

        return await self._off(write)

    async def status(self, table_id: str) -> str | None:
        def read() -> str | None:
            with self.db.session() as session:
                row = session.get(GameTable, table_id)
                return None if row is None else row.status

        return await self._off(read)

    async def finished_games(
        self, name: str, who: Identity | None = None
    ) -> list[dict[str, Any]] | None:
        """The finished games of the account ``name`` that ``who`` may see, newest first
        (``None``: no such account)."""

        def read() -> list[dict[str, Any]] | None:
            with self.db.session() as session:
                user = session.scalars(select(User).where(User.name_key == name_key(name))).first()
                if user is None:
                    return None
                rows = [
                    r
                    for r in session.scalars(
                        select(GameTable)
                        .join(Seat)
                        .where(Seat.user_id == user.id, GameTable.status == "finished")
                        .order_by(GameTable.finished_at.desc())
                    ).unique()
                    if _may_see(r, who)
                ]
                return [
                    {
                        "id": r.id,
                        "game": r.game,
                        "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                        "seats": (r.record or {}).get("seats"),
                        # The names this account sat under (a guest's name before it
                        # registered and the game became the account's, issue 51).
                        "mine": sorted({s.name for s in r.seats if s.user_id == user.id}),
                        "result": (r.record or {}).get("result"),
                        "record": f"/api/records/{r.id}",
                    }
                    for r in rows
                ]

        return await self._off(read)


class MoveWriter:
    """Writes the moves of every table in one thread of its own, committing together the
    moves that arrive while the last commit runs (a group commit): under load a commit
    carries many moves, at rest it carries one. Every move's writer waits for the commit
    that holds its move; a failed commit fails each of its moves alone, retried one by
    one so one bad row cannot take the others with it."""

    BATCH = 256
    """Moves in one commit at the most."""

    def __init__(self, db: Database, lane: Lane | None = None) -> None:
        self.db = db
        self.lane = lane
        """Where its database work runs (without one: asyncio's default executor)."""
        self._queue: queue.SimpleQueue[
            tuple[dict[str, Any], asyncio.Future[None], asyncio.AbstractEventLoop] | None
        ] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.fence: Callable[[Connection, Sequence[str]], None] | None = None
        """Checks, in each commit, that this process may still write these tables'
        moves (:meth:`Leases.fence`)."""

    async def write(self, row: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._start()
        self._queue.put((row, done, loop))
        await done

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=10)
            self._thread = None

    def _start(self) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="pips-move-writer", daemon=True
                    )
                    self._thread.start()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self.BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self._queue.put(None)  # stop after this batch
                    break
                batch.append(item)
            try:
                self._insert([row for row, _, _ in batch])
            except Exception:
                for row, done, loop in batch:
                    try:
                        self._insert([row])
                    except Exception as exc:
                        _settle(loop, done, exc)
                    else:
                        _settle(loop, done, None)
            else:
                for _, done, loop in batch:
                    _settle(loop, done, None)

    def _insert(self, rows: list[dict[str, Any]]) -> None:
        # Core inserts: a move is written on every turn, and the ORM's unit of work
        # costs three times as much for one row.
        with self.db.engine.begin() as connection:
            if self.fence is not None:
                self.fence(connection, sorted({row["table_id"] for row in rows}))
            connection.execute(insert(MoveRow), rows)


def _settle(
    loop: asyncio.AbstractEventLoop, done: asyncio.Future[None], error: Exception | None
) -> None:
    def settle() -> None:
        if done.cancelled():
            return
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)

    with contextlib.suppress(RuntimeError):  # the loop has closed: the server is stopping
        loop.call_soon_threadsafe(settle)


def _seat_row(entrant: int, holder: SeatHolder) -> Seat:
    return Seat(
        entrant=entrant,
        kind=holder.kind,
        name=holder.name,
        user_id=holder.user_id,
        guest=holder.guest,
        bot=holder.bot,
    )


def _holds(seat: Seat, who: Identity | None) -> bool:
    """Whether ``who`` is the person of a stored seat (held, or taken over by a bot)."""
    return who is not None and who.holds(seat.user_id, seat.guest)


def _may_see(row: GameTable, who: Identity | None) -> bool:
    """A table's record and history are public, unless it is private and not
    published: then its people's only."""
    if not row.private or row.published_at is not None:
        return True
    return any(_holds(seat, who) for seat in row.seats)
