"""The live tables of one server process: a registry that makes, finds, loads and lets
go of tables; every command for a table goes to the table itself
(:class:`~pips.server.table.LiveTable`, the actor).

A table is made with a new key (:meth:`Tables.create`), made again for a rematch
(:meth:`Tables.rematch`), loaded from the database after a restart or when this process
takes it over from another (:meth:`Tables.recover`, :meth:`Tables.load`), and let go
when another process holds it now (:meth:`Tables.drop`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from pips.bots.base import seated_name
from pips.core.fairness import KEY_BYTES
from pips.core.phrase import phrase
from pips.games.options import GameOptions
from pips.games.registry import Game, find_game
from pips.server.accounts.identity import Identity
from pips.server.repository import TableRepository
from pips.server.requests import BotSeat
from pips.server.round import ForAnyone, ForCreator, Round, SeatChoice, SeatHolder, TableError
from pips.server.table import Client, LiveTable, TableHouse, new_table_id, replayed
from pips.server.work import Searching, Work, searching
from pips.store.db import Database

__all__ = ["Client", "Identity", "LiveTable", "TableError", "Tables"]


KEEP_FINISHED = 600.0
"""Seconds a finished table stays live before only its record remains."""


def person_key(who: Identity | None) -> str:
    """Who made a table, as the caps per person count: their account, or their guest
    token."""
    if who is None:
        return ""
    return f"user:{who.user_id}" if who.user_id is not None else f"guest:{who.guest}"


def no_result(table: LiveTable, written: dict[str, Any]) -> None:
    """Tables with no results service behind them enter no result."""
    return None


class Tables:
    """Every live table of one server process, over one database."""

    def __init__(
        self,
        db: Database,
        *,
        bot_delay: float,
        grace: float,
        unattended: float,
        hand_pause: float | None = None,
        chat_history: int = 200,
        moved: Callable[[float], None] = lambda seconds: None,
        result_of: Callable[[LiveTable, dict[str, Any]], Any] = no_result,
        progressed: Callable[[str, Callable[[], dict[str, Any]], bool], None] = (
            lambda table_id, record_so_far, ended: None
        ),
        work: Work | None = None,
    ) -> None:
        self.work = work or Work()
        """The lanes its database work and bots' decisions run in (:mod:`pips.server.work`)."""
        self.repository = TableRepository(db, self.work.tables)
        self.live: dict[str, LiveTable] = {}
        self.addresses: dict[str, str] = {}
        """The address (:func:`~pips.server.limits.client_key`) each table made here was
        made from, for the caps on searching bots."""
        self.announced: list[Callable[[LiveTable, str], None]] = []
        """Told when a table's game starts or ends (the accounts' event streams)."""
        self.bot_delay = bot_delay
        self.hand_pause = 8 * bot_delay if hand_pause is None else hand_pause
        """Seconds between hands for the sheet before the next hand is played on (the
        person to open it may go on at once)."""
        self.house = TableHouse(
            repository=self.repository,
            grace=grace,
            unattended=unattended,
            chat_history=chat_history,
            keep_finished=KEEP_FINISHED,
            moved=moved,
            result_of=result_of,
            holds=lambda table: self.live.get(table.id) is table,
            forget=self._forget,
            progressed=progressed,
            work=self.work,
            announce=self._announce,
        )

    def _announce(self, table: LiveTable, what: str) -> None:
        for listener in self.announced:
            listener(table, what)

    def _forget(self, table: LiveTable) -> None:
        if self.live.get(table.id) is table:
            del self.live[table.id]
            self.addresses.pop(table.id, None)

    def _made(self, table_id: str, game_round: Round, **settings: Any) -> LiveTable:
        return LiveTable(
            id=table_id,
            round=game_round,
            house=self.house,
            bot_delay=self.bot_delay,
            hand_pause=self.hand_pause,
            **settings,
        )

    # -- making ----------------------------------------------------------------------

    async def create(
        self,
        spec: Game,
        options: GameOptions,
        seats: Sequence[SeatChoice | SeatHolder],
        creator: Identity,
        *,
        private: bool = False,
        turn_seconds: int | None = None,
        seed: int | None = None,
        table_id: str | None = None,
        capped: bool = True,
        address: str | None = None,
    ) -> LiveTable:
        """A new table (``table_id`` when the caller chose its id); bad options or seats
        raise :class:`TableError`, nothing stored.

        Its deals come from a new 256-bit key from the OS's CSPRNG; with ``seed`` it is
        a practice table instead, dealt from that seed (shown to every seat, unrated).
        A table with a searching bot is refused (:class:`~pips.server.work.Crowded`)
        beyond the caps of :meth:`Work.admit_search` unless not ``capped`` (an event's
        online round, whose organiser seats bots for the absent); ``address``: the
        creator's (:func:`~pips.server.limits.client_key`), counted with them."""
        if seed is not None and not 0 <= seed < 2**31:
            raise TableError(phrase("a seed is 0 to 2147483647"))
        if turn_seconds is not None and not 5 <= turn_seconds <= 600:
            raise TableError(phrase("the turn timer is 5 to 600 seconds"))
        key = None if seed is not None else secrets.token_hex(KEY_BYTES)
        game_round = Round.new(spec, options, list(seats), creator, seed, key)
        self.work.admit_search(
            (e.bot for e in game_round.entrants if capped and e.kind == "bot"),
            self._made_by(creator, address),
            [
                Searching(t.status == "playing", self._made_by(t.creator, self.addresses.get(t.id)))
                for t in self.live.values()
                if t.status in ("waiting", "playing")
                and any(e.kind == "bot" and searching(e.bot) for e in t.round.entrants)
            ],
        )
        table = self._made(
            table_id or new_table_id(),
            game_round,
            private=private,
            invite=secrets.token_urlsafe(12),
            turn_seconds=turn_seconds,
            creator=creator,
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
        if address is not None:
            self.addresses[table.id] = address
        table.pace.watch_unattended()
        return table

    @staticmethod
    def _made_by(creator: Identity | None, address: str | None) -> frozenset[str]:
        """The keys a table's maker is counted by: their account or guest, and their
        address (one person with many guest names is one person)."""
        keys = {person_key(creator)} - {""}
        if address is not None:
            keys.add(f"address:{address}")
        return frozenset(keys)

    async def rematch(
        self, table_id: str, me: Identity, address: str | None = None
    ) -> tuple[str, bool]:
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
        seats: list[SeatChoice | SeatHolder] = []
        for holder in stored.entrants:
            if holder.belongs_to(me):
                seats.append(ForCreator())
            elif holder.kind == "bot" and not holder.taken_over:
                # A table made before seats took levels only plays on at a level (the
                # stored name checked again as a client's would be).
                seats.append(BotSeat(kind="bot", bot=seated_name(holder.bot or "greedy")).choice())
            elif holder.belongs_to_someone:
                seats.append(SeatHolder("open", holder.name, holder.user_id, holder.guest))
            else:
                seats.append(ForAnyone())
        spec = find_game(stored.game)
        await self.create(
            spec,
            spec.options_from_json(stored.options),
            seats,
            me,
            private=stored.private,
            turn_seconds=stored.turn_seconds,
            table_id=fresh,
            address=address,
        )
        old = self.live.get(table_id)
        if old is not None:
            await old.offer_rematch(fresh)
        return fresh, True

    # -- restart and hand-over -------------------------------------------------------

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
        table = self._made(
            stored.id,
            replayed(stored),
            private=stored.private,
            invite=stored.invite,
            turn_seconds=stored.turn_seconds,
            chat=self.repository.chat_lines(stored.id)[-self.house.chat_history :],
        )
        self.live[table_id] = table
        return table

    def resume_bots(self) -> None:
        """After :meth:`recover`, inside the event loop: let waiting bots move, and end
        a game whose last move was stored but whose end was not (the server stopped in
        between)."""
        for table in list(self.live.values()):
            table.resume()

    async def drop(self, table_id: str) -> None:
        """Let a table go from this process (another one owns it now): it stops, and its
        clients are told to connect again (:meth:`LiveTable.close`)."""
        table = self.live.pop(table_id, None)
        self.addresses.pop(table_id, None)
        if table is not None:
            await table.close()
