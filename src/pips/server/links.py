"""How a client reaches its table wherever it lives: directly at the process that owns the
table, or through the broker from another process (a remote link there, a remote client
at the owner)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pips.server import messages
from pips.server.accounts.identity import Identity
from pips.server.frames import handle_frame
from pips.server.limits import RateLimit
from pips.server.tables import LiveTable, Tables

if TYPE_CHECKING:
    from pips.server.cluster import Cluster

log = logging.getLogger("pips.server")


class Socket(Protocol):
    """A client connection as this process holds it (a websocket)."""

    language: str

    async def send(self, message: Any) -> None: ...

    async def send_text(self, text: str) -> None: ...

    async def close(self, code: int) -> None: ...


@dataclass(frozen=True)
class Look:
    """A table as the asker may see it: its summary, its spectator state (in the asker's
    language) and the asker's seat (-1: none)."""

    summary: dict[str, Any]
    state: dict[str, Any]
    seat: int


class Link(Protocol):
    """A connected client's way to its table, wherever the table lives.

    :meth:`frame` says whether the table accepted the frame (a move the game paces by
    itself, which the socket's rate limit then gives back); a table in another process
    answers that later, and :meth:`paced` hands over the frames accepted since it was
    last asked."""

    async def frame(self, text: str) -> bool: ...

    def paced(self) -> int: ...

    async def leave(self) -> None: ...


class LocalLink:
    """A client of a table this process holds."""

    def __init__(
        self, tables: Tables, table: LiveTable, client: Socket, me: Identity, chat: RateLimit
    ) -> None:
        self.tables, self.table, self.client, self.me, self.chat = tables, table, client, me, chat

    async def frame(self, text: str) -> bool:
        return await handle_frame(self.tables, self.table, self.client, self.me, text, self.chat)

    def paced(self) -> int:
        return 0  # answered by frame() at once

    async def leave(self) -> None:
        await self.table.client_left(self.client)


class RemoteLink:
    """A client connected here, of a table another node owns: its frames are published
    to the owner, the owner's messages for it arrive through :meth:`Cluster._listen`
    and are sent in order by a task of its own (a slow client holds up nobody else)."""

    def __init__(self, cluster: Cluster, conn: str, owner: str, table_id: str, socket: Socket):
        self.cluster, self.conn, self.owner, self.table_id = cluster, conn, owner, table_id
        self.socket = socket
        self.outbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.sender = asyncio.create_task(self._send())
        self.forward: asyncio.Queue[str] = asyncio.Queue()
        self.forwarder = asyncio.create_task(self._forward())
        self.accepted = 0
        """Frames the owner accepted that the socket's rate limit has not given back."""

    async def _send(self) -> None:
        while True:
            kind, value = await self.outbox.get()
            try:
                if kind == "text":
                    await self.socket.send_text(value)
                else:
                    await self.socket.close(value)
                    return
            except Exception as exc:
                log.info("table %s: a forwarded client is gone (%r)", self.table_id, exc)
                return

    async def frame(self, text: str) -> bool:
        # Handed to a task of its own, in order: the websocket's reader never waits
        # on the broker.
        self.forward.put_nowait(text)
        return False  # the owner says later (:meth:`paced`)

    def paced(self) -> int:
        accepted, self.accepted = self.accepted, 0
        return accepted

    async def _forward(self) -> None:
        while True:
            text = await self.forward.get()
            heard = await self.cluster.send_to_node(
                self.owner, {"op": "frame", "conn": self.conn, "frame": text}
            )
            if not heard:
                # The owner is gone: the client connects again and finds the table's
                # next one.
                self.outbox.put_nowait(("close", 1012))
                return

    async def leave(self) -> None:
        self.cluster.links.pop(self.conn, None)
        self.sender.cancel()
        self.forwarder.cancel()
        with contextlib.suppress(Exception):
            await self.cluster.send_to_node(self.owner, {"op": "leave", "conn": self.conn})


class RemoteClient:
    """At the owner: a client connected to another node. What the table sends it is said
    in its language here and published to its node, which passes the text on. Its
    frames are acted on in order by a task of its own, so one client's slow move holds
    up no other."""

    def __init__(self, cluster: Cluster, node: str, conn: str, language: str, me: Identity):
        self.cluster, self.node, self.conn, self.language, self.me = (
            cluster,
            node,
            conn,
            language,
            me,
        )
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.history = False
        """Its views keep the hand's moves (a bot's game stream)."""

    async def send(self, message: messages.ServerMessage) -> None:
        # Typed as the protocol's messages, so a hand-built dict does not type-check.
        text = messages.encode_for(message, self.language)
        if not await self.cluster.send_to_node(
            self.node, {"op": "text", "conn": self.conn, "text": text}
        ):
            raise ConnectionError("the client's node is gone")

    async def close(self, code: int) -> None:
        await self.cluster.send_to_node(self.node, {"op": "close", "conn": self.conn, "code": code})

    async def serve(self, tables: Tables, table: LiveTable, chat: RateLimit) -> None:
        """Arrive at ``table``, act on each frame, and leave (``None`` in the inbox)."""
        try:
            await table.client_arrived(self, self.me)
            while (frame := await self.inbox.get()) is not None:
                if await handle_frame(tables, table, self, self.me, frame, chat):
                    # Without this a quick player's accepted moves would use up its
                    # rate at its own node, and its next move would be dropped.
                    await self.cluster.send_to_node(self.node, {"op": "paced", "conn": self.conn})
        except Exception:
            log.exception("table %s: a forwarded client failed", table.id)
            with contextlib.suppress(Exception):
                await self.close(1011)  # it connects again rather than wait for nothing
        finally:
            self.cluster.remotes.pop(self.conn, None)
            await table.client_left(self)
