"""Standing up from a table (issue 51): abort before the first move, resign, leave. The
live table's commands (:class:`StandingUp`, a part of
:class:`~pips.server.table.LiveTable`), which any client may call (the page's buttons,
the HTTP API, later bots over the API), and what they change of the round."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pips.bots.base import make_seated_bot
from pips.core.phrase import phrase
from pips.server.accounts.identity import Identity
from pips.server.round import TAKE_OVER_BOT, Round, SeatHolder, TableError

if TYPE_CHECKING:
    from pips.server.table import LiveTable, Outgoing


def place_of(game_round: Round, who: Identity) -> int:
    """The entrant whose place is ``who``'s (held, or played by a bot while they are
    away), or -1."""
    return next((i for i, e in enumerate(game_round.entrants) if e.belongs_to(who)), -1)


def begun(game_round: Round) -> bool:
    """Someone has moved: from here on a game is resigned or left, not aborted."""
    return game_round.status == "playing" and game_round.moves_made > 0


def people(game_round: Round) -> int:
    """The places of people (held, or played for them while they are away)."""
    return sum(e.belongs_to_someone for e in game_round.entrants)


def stand_up(game_round: Round, entrant: int) -> None:
    """The person of ``entrant`` leaves for good: before the game, the place is open
    again; during it, a bot plays it to the end under the person's name, and the place
    is no longer theirs (they do not get it back by coming back, and the table no longer
    counts as one of theirs)."""
    held = game_round.entrants[entrant]
    if game_round.status == "waiting":
        game_round.entrants[entrant] = SeatHolder("open", "")
        return
    game_round.entrants[entrant] = SeatHolder("bot", held.name, None, None, TAKE_OVER_BOT)
    if game_round.seating is not None:
        seat = game_round.seating_order.index(entrant)
        game_round.seating.seat(seat, make_seated_bot(TAKE_OVER_BOT))


def adopt_guest(game_round: Round, guest: str, user_id: int) -> None:
    """The guest of token ``guest`` registered as ``user_id``: their places at this
    table are the account's (as the database has them, :mod:`pips.results.guests`)."""
    for number, holder in enumerate(game_round.entrants):
        if holder.guest == guest:
            game_round.entrants[number] = replace(holder, user_id=user_id, guest=None)


class StandingUp:
    """A live table's commands to stand up (its :meth:`~LiveTable.abort`,
    :meth:`~LiveTable.resign` and :meth:`~LiveTable.leave_seat` call them), each under
    the table's lock: decided, stored, then told."""

    def __init__(self, table: LiveTable) -> None:
        self.table = table

    async def abort(self, who: Identity) -> None:
        table = self.table
        async with table.lock:
            self.place(who)
            if begun(table.round):
                raise TableError(
                    phrase("the game has begun: it is resigned or left, no longer aborted")
                )
            out = await self.closed()
        await self.after_closing(out)

    async def leave(self, who: Identity) -> None:
        table = self.table
        async with table.lock:
            entrant = self.place(who)
            if people(table.round) <= 1:
                out = await self.closed()
            else:
                stand_up(table.round, entrant)
                await table.house.repository.save_seat(
                    table.id, entrant, table.round.entrants[entrant]
                )
                out = table.outgoing()
        if table.status == "abandoned":
            await self.after_closing(out)
            return
        await table.deliver(out)
        table.pace.schedule()

    def place(self, who: Identity) -> int:
        """The entrant of ``who`` at a table still waiting or played (refused otherwise)."""
        if self.table.status not in ("waiting", "playing"):
            raise TableError(phrase("the game is over"))
        entrant = place_of(self.table.round, who)
        if entrant < 0:
            raise TableError(phrase("you have no seat at this table"))
        return entrant

    async def closed(self) -> Outgoing:
        """Close the table unfinished (under the lock): stored first, then told."""
        table = self.table
        await table.house.repository.set_status(table.id, "abandoned")
        table.round.status = "abandoned"
        return table.outgoing()

    async def after_closing(self, out: Outgoing) -> None:
        table = self.table
        await table.deliver(out)
        for task in [table.task, *table.timers, *table.empty.values()]:
            if task is not None:
                task.cancel()
        await table.ended()
