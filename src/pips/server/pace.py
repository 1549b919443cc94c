"""A live table's clocks: when a bot plays its turn (deciding in the bots' lane of
:mod:`pips.server.work`), a person's turn timer, the grace period of a seat whose
person went away, and abandoning a table nobody watches. Each changes the table only
under its lock: a move through the table's command (:meth:`LiveTable.play_move
<pips.server.table.LiveTable.play_move>`, the bot's or the timer's move as the move it
is, never a number in a list), a seat taken over or given back and an
abandoned table directly (the round decides, the repository stores, then the clients
are told, as in a command)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from pips.server.round import TableError

if TYPE_CHECKING:
    from pips.server.accounts.identity import Identity
    from pips.server.table import LiveTable

log = logging.getLogger("pips.server")


class Pace:
    """The timers of one live table."""

    def __init__(self, table: LiveTable) -> None:
        self.table = table

    def schedule(self) -> None:
        """Let the bot to move play after the table's pace (off the event loop), or
        start the turn timer of a person to move; watch for empty seats."""
        table = self.table
        match = table.round.match
        if match is None or match.is_over or table.status != "playing":
            return
        self.watch_seats()
        seat = match.current_seat
        if seat is None:
            return
        if not table.round.is_bot(seat):
            if table.turn_seconds is not None and table.deadline_at == table.round.moves_made:
                made = table.round.moves_made
                timer = asyncio.create_task(self._turn_timer(seat, made))
                table.timers.add(timer)
                timer.add_done_callback(table.timers.discard)
            return
        if table.task is not None and not table.task.done():
            return
        if self._back(seat):
            table.task = asyncio.create_task(self._give_back(seat))
            return
        delay = table.bot_delay + (table.hand_pause if table.round.at_new_hand else 0.0)
        table.task = asyncio.create_task(self._bot_turn(seat, table.round.moves_made, delay))

    def _back(self, seat: int) -> bool:
        """Whether the person whose seat a bot plays is connected again."""
        table = self.table
        holder = table.round.holder(seat)
        return holder.taken_over and any(holder.belongs_to(w) for w in table.clients.values())

    async def _give_back(self, seat: int) -> None:
        """At their turn, a returning person takes their seat back from the bot."""
        table = self.table
        async with table.lock:
            match = table.round.match
            if match is None or match.current_seat != seat or not self._back(seat):
                table.task = None
                return
            entrant = table.round.give_back(seat)
            await table.house.repository.save_seat(table.id, entrant, table.round.entrants[entrant])
            out = table.outgoing()
            table.task = None
        await table.deliver(out)
        self.schedule()

    async def _turn_timer(self, seat: int, moves_made: int) -> None:
        """The turn timer ran out: the greedy choice is played for the seat."""
        table = self.table
        assert table.deadline is not None
        await asyncio.sleep(max(0.0, table.deadline - asyncio.get_running_loop().time()))
        match = table.round.match
        if match is None or table.round.moves_made != moves_made or match.current_seat != seat:
            return
        with contextlib.suppress(TableError):  # the person moved just in time
            await table.play_move(seat, table.round.timed_out_move(seat), moves_made)

    def watch_seats(self) -> None:
        """Start the grace period of every person's seat that has no connection."""
        table = self.table
        match = table.round.match
        if match is None or table.status != "playing":
            return
        connected = {table.seat_of(who) for who in table.clients.values()}
        for seat in range(match.players):
            holder = table.round.holder(seat)
            if holder.kind == "person" and seat not in connected and seat not in table.empty:
                table.empty[seat] = asyncio.create_task(self._take_over(seat))

    def stop_grace(self, who: Identity) -> None:
        """A client came (back): its seat's grace period stops."""
        table = self.table
        task = table.empty.pop(table.seat_of(who), None)
        if task is not None:
            task.cancel()

    async def _take_over(self, seat: int) -> None:
        table = self.table
        await asyncio.sleep(table.house.grace)
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
            await table.house.repository.save_seat(table.id, entrant, table.round.entrants[entrant])
            out = table.outgoing()
        await table.deliver(out)
        self.schedule()

    async def _bot_turn(self, seat: int, moves_made: int, delay: float) -> None:
        table = self.table
        await asyncio.sleep(delay)
        match = table.round.match
        assert match is not None
        if table.round.moves_made != moves_made or match.current_seat != seat:
            return
        seating = table.round.seating
        bot = seating.bot_to_move if seating is not None else None
        # In the bots' lane (a searching bot's in its own): never in front of the
        # database's work, nor a quick bot's behind a search.
        move = await table.house.work.decide(
            table.round.bot_decision, bot.name if bot is not None else None
        )
        table.task = None
        if move is None:
            log.info("table %s: no bot move at %d", table.id, moves_made)
            return
        try:
            await table.play_move(seat, move, moves_made, bot=True)
        except TableError as exc:  # its person came back meanwhile
            log.info("table %s: the bot's move %d was refused: %s", table.id, moves_made, exc)

    def watch_unattended(self) -> None:
        """With nobody connected, abandon the table after ``house.unattended`` seconds
        (unless someone comes meanwhile)."""
        table = self.table
        if table.clients or table.status not in ("waiting", "playing"):
            return
        if table.unattended is None or table.unattended.done():
            table.unattended = asyncio.get_running_loop().create_task(self._abandon())

    async def _abandon(self) -> None:
        table = self.table
        await asyncio.sleep(table.house.unattended)
        async with table.lock:
            if table.clients or table.status not in ("waiting", "playing"):
                return
            if not table.house.holds(self.table):
                return
            await table.house.repository.set_status(table.id, "abandoned")
            table.round.status = "abandoned"
        log.info(
            "table %s: abandoned, nobody there for %.0f s",
            table.id,
            table.house.unattended,
        )
        table.unattended = None
        table.house.forget(self.table)
        await table.close()
