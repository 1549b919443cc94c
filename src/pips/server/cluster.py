"""Where a table lives: in this process, or in another one of several (docs/server.md,
"Several server processes").

One process alone (the default) holds every table itself and :class:`Cluster` only
hands the routes its :class:`~pips.server.tables.Tables`. With a broker, each process
is a *node* with a random id, and each live table is owned by one node at a time: a
lease in PostgreSQL (:class:`~pips.server.leases.Leases`), renewed every second,
that any node may take once it has run out. The owner runs the table exactly as a single
process does; every other node forwards to it through Redis pub/sub:

- a client connected here for a table owned elsewhere is, at the owner, a
  :class:`RemoteClient`: the owner publishes each of its messages (its own seat's view,
  in its language) to this node, which hands it to the websocket, in order;
- the client's frames go to the owner's channel, as do the HTTP routes' looks and joins;
- every node publishes the public summaries of its tables for the lobby.

Nothing here decides a game, and the database is the truth both ways: a move is told to
anyone only once it is stored, and a node that takes a table over replays it from its
stored moves. When the owner dies, its lease runs out, another node takes its tables
over, and the clients, whose connections are closed with "service restart" (1012),
connect again by themselves and reach the new owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from pips.core.phrase import phrase
from pips.server import messages
from pips.server.accounts.ending import Endings
from pips.server.accounts.identity import Identity
from pips.server.calls import TableCalls
from pips.server.leases import Leases
from pips.server.limits import Limits
from pips.server.links import Link, LocalLink, Look, RemoteClient, RemoteLink, Socket
from pips.server.lobby import Lobby
from pips.server.tables import LiveTable, Tables
from pips.store.db import Database

__all__ = ["Cluster", "Link", "Look", "Socket"]

log = logging.getLogger("pips.server")


JOIN_PATIENCE = 120.0
"""How long a starting process keeps trying to reach the broker, in seconds, before it
gives up (and exits, for its supervisor to start it again)."""


async def patiently(attempt: Callable[[], Awaitable[None]], failing: str) -> None:
    """``attempt`` until it reaches the broker, waiting half a second after the first
    failure and twice as long after each next one (at most 5 s), each failure logged
    after ``failing``; the broker's error is raised once :data:`JOIN_PATIENCE` seconds
    are up."""
    from redis.exceptions import RedisError

    deadline = time.monotonic() + JOIN_PATIENCE
    pause = 0.5
    while True:
        try:
            await attempt()
            return
        except (RedisError, OSError) as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("%s (%r); trying again in %.1f s", failing, exc, pause)
            await asyncio.sleep(pause)
            pause = min(2 * pause, 5.0)


class Cluster:
    """This process's way to every table: its own :class:`Tables`, and with a broker the
    other nodes' tables through the owner of each."""

    def __init__(
        self,
        tables: Tables,
        db: Database,
        limits: Limits,
        broker: str | None = None,
        *,
        lease: float,
        tick: float = 1.0,
        node: str | None = None,
    ) -> None:
        self.tables = tables
        self.limits = limits
        self.chat = limits.chat
        self.node = node or secrets.token_hex(8)
        self.broker_url = broker
        self.tick = tick
        self.leases: Leases | None = None
        self.redis: Any = None
        self.pubsub: Any = None
        self.links: dict[str, RemoteLink] = {}
        self.remotes: dict[str, RemoteClient] = {}
        self.endings = Endings(self)  # the sockets here, by the session or token letting them in
        self.handlers: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {}
        """Further messages this node acts on, by ``op`` (the accounts' events)."""
        self.calls = TableCalls(self)
        self.lobby = Lobby(self)
        """What this process asks of the process that owns a table, and answers."""
        self.outgoing: asyncio.Queue[tuple[str, str, asyncio.Future[int]]] = asyncio.Queue()
        self.sender: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="pips-leases")
        self.ready = broker is None
        # The processes of one site share its database, whatever host name each uses
        # for it: its name keeps their channels apart from another site's on the same
        # Redis (and the tests' sites from one another).
        self.prefix = f"pips:{db.engine.url.database}:"
        self.all = self.prefix + "all"
        """The channel every node listens to: tables taken over, nodes stopping."""
        self.nodes = self.prefix + "nodes"
        """The set of the nodes' ids (for the lobby)."""
        if broker is not None:
            self.leases = Leases(db, self.node, lease)
            tables.repository.use_leases(self.leases)

    @property
    def several(self) -> bool:
        return self.broker_url is not None

    # -- life --------------------------------------------------------------------------

    async def start(self) -> None:
        """Join the others: listen on this node's channel, then take over every table
        nobody holds (at the first start, all of them) and keep the leases."""
        if self.broker_url is None:
            return
        import redis.asyncio as aioredis

        self.redis = aioredis.from_url(self.broker_url)
        # Every process counts the same rates and sockets: one person's requests spread
        # over N processes get no more than one process would give them.
        self.limits.share(self.redis, self.prefix, self.node)
        # When several processes start at once the broker's name can take a while to
        # resolve (the deployment drill saw a container's lookup hang 35 s on podman's
        # DNS): a process that gave up at the first timeout exited, and with it a third
        # of the site, though the broker was there all along.
        await patiently(self._subscribe, f"node {self.node}: the broker did not answer")
        self._spawn(self._listen())
        self.sender = asyncio.ensure_future(self._sending())
        self._spawn(self.sender)
        await self._keep()
        self._spawn(self._keeping())
        self.ready = True
        log.info("node %s joined", self.node)

    async def _subscribe(self) -> None:
        """Listen on this node's channel and the common one, on a new subscription, and
        be counted among the nodes (raises when the broker does not answer)."""
        with contextlib.suppress(Exception):
            if self.pubsub is not None:
                await self.pubsub.aclose()
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.prefix + self.node, self.all)
        await self.redis.sadd(self.nodes, self.node)

    async def stop(self) -> None:
        """Leave the others: stop listening (a message for this node now reaches
        nobody, so its senders look again), let go of every table so another node takes
        them over at once, and close the clients of those tables, which connect again
        and find them there. A rolling restart ends no game."""
        if self.redis is None or self.leases is None:
            return
        self.ready = False
        for task in list(self.tasks):
            task.cancel()
        while not self.outgoing.empty():  # nobody will publish these now
            self.outgoing.get_nowait()[2].cancel()
        held = list(self.tables.live)
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
            await asyncio.to_thread(self.leases.release)
            await self.redis.srem(self.nodes, self.node)
            await self.redis.delete(self.lobby.key(self.node))
            await self.redis.publish(self.all, json.dumps({"op": "released", "tables": held}))
        for table_id in held:
            await self.tables.drop(table_id)
        for link in list(self.links.values()):
            link.outbox.put_nowait(("close", 1012))
        await asyncio.sleep(0.1)  # the links' last words
        await self.redis.aclose()
        log.info("node %s left, %d tables released", self.node, len(held))

    def _spawn(self, work: Awaitable[Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("node %s: a task failed", self.node, exc_info=task.exception())

    async def _keeping(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            try:
                await self._keep()
            except Exception:  # the database or the broker hiccupped: next tick
                log.exception("node %s: keeping the leases failed", self.node)

    async def _keep(self) -> None:
        """One tick: renew the leases (a table whose lease was lost is let go), take over
        the tables nobody holds, and announce this node's tables to the lobbies."""
        assert self.leases is not None
        before = set(self.tables.live)
        held = await self._leasing(self.leases.renew)
        for table_id in before - held:
            if table_id in self.tables.live and self.tables.live[table_id].status != "finished":
                log.warning("node %s: lost the lease of table %s", self.node, table_id)
                await self.tables.drop(table_id)
        for table_id in await self._leasing(self.leases.orphans, 50):
            await self.take_over(table_id)
        await self.lobby.announce_tables()
        await self.limits.sockets.keep()

    async def _leasing(self, work: Callable[..., Any], *args: Any) -> Any:
        # A thread of its own: the shared worker threads may all be busy with bots and
        # moves under load, and a renewal that waits for them lets the lease run out.
        return await asyncio.get_running_loop().run_in_executor(self.executor, work, *args)

    async def take_over(self, table_id: str) -> LiveTable | None:
        """Take the lease of a table nobody holds and play on from what is stored."""
        assert self.leases is not None
        if table_id in self.tables.live:
            return self.tables.live[table_id]
        if not await self._leasing(self.leases.take, table_id):
            return None
        try:
            table = await asyncio.to_thread(self.tables.load, table_id)
        except Exception:
            log.exception("node %s: table %s could not be loaded", self.node, table_id)
            await asyncio.to_thread(self.leases.release, [table_id])
            return None
        table.resume()
        log.info("node %s took table %s over", self.node, table_id)
        await self.redis.publish(
            self.all, json.dumps({"op": "owner", "table": table_id, "node": self.node})
        )
        return table

    # -- the broker ----------------------------------------------------------------------

    async def send_to_node(self, node: str, message: dict[str, Any]) -> bool:
        """Send ``message`` to ``node``; whether it listens (a dead node does not)."""
        text = json.dumps(message)
        if self.sender is None or self.sender.done():  # stopping: the last words
            heard: int = await self.redis.publish(self.prefix + node, text)
            return heard > 0
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.outgoing.put_nowait((self.prefix + node, text, done))
        return await done > 0

    async def _sending(self) -> None:
        """Publish what :meth:`send_to_node` queued, in order, as many messages as are waiting
        in one pipeline: under load one round trip carries hundreds, and the broker's
        connections stay few (a publish each on a pooled connection ran out of them)."""
        while True:
            batch = [await self.outgoing.get()]
            while not self.outgoing.empty() and len(batch) < 512:
                batch.append(self.outgoing.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, text, _ in batch:
                        pipe.publish(channel, text)
                    heard = await pipe.execute()
            except asyncio.CancelledError:
                for _, _, done in batch:
                    done.cancel()
                raise
            except Exception as exc:  # the broker is away: each sender hears so
                for _, _, done in batch:
                    if not done.done():
                        done.set_exception(exc)
            else:
                for (_, _, done), count in zip(batch, heard, strict=True):
                    if not done.done():
                        done.set_result(int(count))

    async def _listen(self) -> None:
        """Act on this node's messages, one after another; when the broker's connection
        drops, subscribe again (every second until it answers)."""
        while True:
            try:
                async for item in self.pubsub.listen():
                    try:
                        await self._handle(json.loads(item["data"]))
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("node %s: a message could not be handled", self.node)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("node %s: the broker is away (%r); listening again", self.node, exc)
                # What the owners sent meanwhile is lost (pub/sub keeps nothing): the
                # clients here of tables elsewhere connect again, and each is sent the
                # table as it is now, instead of waiting on an update that never comes.
                for link in list(self.links.values()):
                    link.outbox.put_nowait(("close", 1012))
            await asyncio.sleep(1)
            with contextlib.suppress(Exception):
                await self._subscribe()

    async def _handle(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        handler: Callable[[dict[str, Any]], Awaitable[None]] | None = {
            "text": self._on_text,
            "close": self._on_close,
            "paced": self._on_paced,
            "arrive": self._on_arrive,
            "frame": self._on_frame,
            "leave": self._on_leave,
            "call": self.calls.answer,
            "reply": self.calls.answered,
            "owner": self._on_owner,
            "released": self._on_released,
            "ended": self.endings.heard,
            **self.handlers,
        }.get(str(op))
        if handler is not None:
            await handler(message)

    # For a client connected here.

    async def _on_text(self, message: dict[str, Any]) -> None:
        link = self.links.get(message["conn"])
        if link is not None:
            link.outbox.put_nowait(("text", message["text"]))

    async def _on_close(self, message: dict[str, Any]) -> None:
        link = self.links.get(message["conn"])
        if link is not None:
            link.outbox.put_nowait(("close", int(message["code"])))

    async def _on_paced(self, message: dict[str, Any]) -> None:
        link = self.links.get(message["conn"])
        if link is not None:
            link.accepted += 1

    async def _on_owner(self, message: dict[str, Any]) -> None:
        """A table has a new owner: its clients here that went through the old one
        connect again."""
        for link in list(self.links.values()):
            if link.table_id == message["table"] and link.owner != message["node"]:
                link.outbox.put_nowait(("close", 1012))

    async def _on_released(self, message: dict[str, Any]) -> None:
        """A node stopped and let its tables go: take them over now (one node wins
        each), rather than after their leases would have run out."""
        if self.ready:
            for table_id in message["tables"]:
                await self.take_over(table_id)

    # At the owner, for a client connected elsewhere.

    async def _on_arrive(self, message: dict[str, Any]) -> None:
        me = Identity(**message["who"])
        client = RemoteClient(self, message["node"], message["conn"], message["language"], me)
        client.history = bool(message.get("history", False))  # a bot's game stream
        table = self.tables.live.get(message["table"])
        if table is None:
            await client.close(1012)  # not here (any more): look again
            return
        if not table.visible_to(me, message["invite"]):
            # As a client connected here is told (routes/socket.py): the protocol's
            # error, not a dict of its own the clients' schema does not know.
            await client.send(messages.error(phrase("no such table"), "not_found"))
            await client.close(4404)
            return
        self.remotes[client.conn] = client
        self._spawn(client.serve(self.tables, table, self.chat))

    async def _on_frame(self, message: dict[str, Any]) -> None:
        client = self.remotes.get(message["conn"])
        if client is not None:
            client.inbox.put_nowait(message["frame"])

    async def _on_leave(self, message: dict[str, Any]) -> None:
        client = self.remotes.get(message["conn"])
        if client is not None:
            client.inbox.put_nowait(None)

    # -- what the routes ask -------------------------------------------------------------

    async def _owner(self, table_id: str) -> str | None:
        """The node holding the table, if another one does (``None`` after a pause, to
        look again); :class:`LookupError` if there is no unfinished table by that id."""
        assert self.leases is not None
        owner, status = await asyncio.to_thread(self.leases.owner, table_id)
        if status not in ("waiting", "playing"):
            raise LookupError(table_id)
        if owner is None or owner == self.node:
            await self.take_over(table_id)
            return None
        return owner

    async def connect(
        self, table_id: str, socket: Socket, me: Identity, invite: str
    ) -> Link | None:
        """Connect a client to its table, wherever the table lives (``None``: no such
        table, or a private one it may not see; the client has been told)."""
        for _attempt in range(40):
            table = self.tables.live.get(table_id)
            if table is not None:
                if not table.visible_to(me, invite):
                    return None
                await table.client_arrived(socket, me)
                return LocalLink(self.tables, table, socket, me, self.chat)
            if not self.several:
                return None
            try:
                owner = await self._owner(table_id)
            except LookupError:
                return None
            if owner is None:
                continue
            conn = secrets.token_hex(8)
            link = RemoteLink(self, conn, owner, table_id, socket)
            self.links[conn] = link
            arrival = {
                "op": "arrive",
                "conn": conn,
                "node": self.node,
                "table": table_id,
                "who": asdict(me),
                "invite": invite,
                "language": socket.language,
                "history": bool(getattr(socket, "history", False)),
            }
            if await self.send_to_node(owner, arrival):
                return link
            # Its owner died and its lease has not run out yet: wait for it.
            self.links.pop(conn, None)
            link.sender.cancel()
            link.forwarder.cancel()
            await asyncio.sleep(0.25)
        return None

    async def public(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The public tables of every node (:meth:`Lobby.public`)."""
        return await self.lobby.public()

    # -- health --------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """What the metrics count: tables held here and their clients (remote ones
        included), and clients connected here to tables elsewhere."""
        return {
            "tables": len(self.tables.live),
            "clients": sum(len(t.clients) for t in self.tables.live.values()),
            "forwarded": len(self.links),
        }
