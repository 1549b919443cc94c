"""Asking the process that owns a table: a look at the table or a seat at it, for a
client connected at another process (several processes over one broker,
:mod:`pips.server.cluster`), and answering such asks for the tables held here."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from pips.core.phrase import phrase
from pips.i18n import reason, speaking, translated
from pips.server.accounts.identity import Identity
from pips.server.links import Look
from pips.server.round import TableError
from pips.server.standing import place_of
from pips.server.table import LiveTable

if TYPE_CHECKING:
    from pips.server.cluster import Cluster


STANDING = {"leave": "leave_seat", "resign": "resign", "abort": "abort"}
"""The ways to stand up from a table, and the live table's method for each (issue 51)."""


class TableCalls:
    """One process's asks of other processes, and its answers to theirs."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.waiting: dict[str, asyncio.Future[Any]] = {}
        """The asks sent, by id, until their answer comes."""

    async def answered(self, message: dict[str, Any]) -> None:
        waiting = self.waiting.pop(message["id"], None)
        if waiting is not None and not waiting.done():
            waiting.set_result(message)

    async def answer(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"op": "reply", "id": message["id"]}
        me = None if message["who"] is None else Identity(**message["who"])
        table = self.cluster.tables.live.get(message["table"])
        try:
            if table is None:
                reply["moved"] = True
            elif message["what"] == "look":
                with speaking(message["language"]):
                    found = await self.look_here(table, me, message["invite"])
                    reply["value"] = None if found is None else translated(asdict(found))
            elif message["what"] == "join":
                assert me is not None
                reply["value"] = await self.join_here(table, me, message["invite"])
            elif message["what"] in STANDING:
                assert me is not None
                reply["value"] = await self.stand_here(table, me, message["what"])
            elif message["what"] == "move":
                assert me is not None
                reply["value"] = await self.move_here(table, me, message["extra"])
        except LookupError:
            reply["missing"] = True
        except TableError as exc:
            with speaking(message["language"]):
                reply["error"] = translated(reason(exc))
        # Spawned: a reply must not wait behind this node's other messages.
        self.cluster._spawn(self.cluster.send_to_node(message["node"], reply))

    async def ask(
        self,
        table_id: str,
        what: str,
        me: Identity | None,
        invite: str,
        language: str,
        extra: dict[str, int] | None = None,
    ) -> Any:
        """Ask the table's owner; the answer's ``value``. A table nobody holds is taken
        over here first; :class:`LookupError` if there is no such table."""
        for _attempt in range(40):
            table = self.cluster.tables.live.get(table_id)
            if table is not None:
                if what == "look":
                    found = await self.look_here(table, me, invite)
                    return None if found is None else asdict(found)
                assert me is not None
                if what in STANDING:
                    return await self.stand_here(table, me, what)
                if what == "move":
                    return await self.move_here(table, me, extra or {})
                return await self.join_here(table, me, invite)
            owner = await self.cluster._owner(table_id)
            if owner is None:
                continue
            call_id = secrets.token_hex(8)
            waiting: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self.waiting[call_id] = waiting
            request = {
                "op": "call",
                "id": call_id,
                "node": self.cluster.node,
                "what": what,
                "table": table_id,
                "who": None if me is None else asdict(me),
                "invite": invite,
                "language": language,
                "extra": extra,
            }
            try:
                if await self.cluster.send_to_node(owner, request):
                    answer = await asyncio.wait_for(waiting, 10.0)
                    if "error" in answer:
                        raise TableError(answer["error"])
                    if answer.get("missing"):
                        raise LookupError(table_id)
                    if not answer.get("moved"):
                        return answer["value"]
            except TimeoutError:
                pass
            finally:
                self.waiting.pop(call_id, None)
            await asyncio.sleep(0.25)  # the owner is gone or moving: its lease will tell
        raise TableError(phrase("the table's server does not answer; try again"))

    async def look_here(self, table: LiveTable, me: Identity | None, invite: str) -> Look | None:
        if not table.visible_to(me, invite):
            return None
        state = dict(await table.spectate())
        return Look(table.summary(), state, -1 if me is None else table.seat_of(me))

    async def join_here(self, table: LiveTable, me: Identity, invite: str) -> dict[str, Any]:
        if not table.visible_to(me, invite):
            raise LookupError(table.id)
        await table.join(me)
        return {"seat": table.seat_of(me), "status": table.status}

    async def stand_here(self, table: LiveTable, me: Identity, what: str) -> dict[str, Any]:
        if place_of(table.round, me) < 0:
            raise LookupError(table.id)
        await getattr(table, STANDING[what])(me)
        return {"seat": table.seat_of(me), "status": table.status}

    async def move_here(
        self, table: LiveTable, me: Identity, move: dict[str, int]
    ) -> dict[str, Any]:
        if not table.visible_to(me, ""):
            # A private table is no table to those not seated at it: a 404 as for an id
            # made up, never a 409 that tells the id is real.
            raise LookupError(table.id)
        seat = table.seat_of(me)
        if seat < 0:
            raise TableError(phrase("you have no seat at this table, or a bot plays it now"))
        await table.submit_move(seat, move["move"], move["moves_made"])
        return {"moves_made": table.round.moves_made, "status": table.status}

    async def move(
        self, table_id: str, me: Identity, move: int, moves_made: int, language: str
    ) -> dict[str, Any]:
        """``me`` plays the legal move numbered ``move`` of the list sent at
        ``moves_made`` (the websocket's move, over HTTP), wherever the table lives: the
        moves made and the table's status after. :class:`LookupError` if there is no
        such table, :class:`TableError` if the move is refused."""
        extra = {"move": move, "moves_made": moves_made}
        if not self.cluster.several:
            table = self.cluster.tables.live.get(table_id)
            if table is None:
                raise LookupError(table_id)
            return await self.move_here(table, me, extra)
        value: dict[str, Any] = await self.ask(table_id, "move", me, "", language, extra)
        return value

    async def stand(self, table_id: str, me: Identity, what: str, language: str) -> dict[str, Any]:
        """``me`` leaves, resigns or aborts (``what``) at the table, wherever it lives:
        their seat and the table's status after. :class:`LookupError` if they have no
        place there, :class:`TableError` if it cannot be done."""
        if not self.cluster.several:
            table = self.cluster.tables.live.get(table_id)
            if table is None:
                raise LookupError(table_id)
            return await self.stand_here(table, me, what)
        value: dict[str, Any] = await self.ask(table_id, what, me, "", language)
        return value

    async def look(
        self, table_id: str, me: Identity | None, invite: str, language: str
    ) -> Look | None:
        """The table as ``me`` may see it, wherever it lives (``None``: no such table,
        or a private one ``me`` may not see)."""
        try:
            if not self.cluster.several:
                table = self.cluster.tables.live.get(table_id)
                return None if table is None else await self.look_here(table, me, invite)
            found = await self.ask(table_id, "look", me, invite, language)
        except LookupError:
            return None
        return None if found is None else Look(**found)

    async def join(self, table_id: str, me: Identity, invite: str, language: str) -> dict[str, Any]:
        """Take an open seat at the table: the seat and the table's status.
        :class:`LookupError` if there is no such table for ``me``, :class:`TableError`
        if the seat cannot be taken."""
        if not self.cluster.several:
            table = self.cluster.tables.live.get(table_id)
            if table is None:
                raise LookupError(table_id)
            return await self.join_here(table, me, invite)
        value: dict[str, Any] = await self.ask(table_id, "join", me, invite, language)
        return value
