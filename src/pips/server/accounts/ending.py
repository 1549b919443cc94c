"""Sockets end with their session or token.

A websocket is let in once, when it opens; a token revoked or a session signed out
after that must not keep playing on it. :class:`Endings` holds this process's open
sockets by what let them in (:func:`session_key`, :func:`token_key`); ending a key
closes its sockets at once (code :data:`ENDED`), and a frame that was already on its
way is dropped unread. With several processes the cluster tells every other process
the same through the broker (:class:`Broker`), so a socket closes wherever it is.

    >>> session_key("abc") == session_key("abc"), token_key(7)
    (True, 'token:7')
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

ENDED = 4401
"""The close code of a socket whose session ended or whose token was revoked (as the
status 401: sign in again)."""


def session_key(token: str) -> str:
    """The key of a browser's session, by its token (as the database keeps it:
    hashed)."""
    return "session:" + hashlib.sha256(token.encode()).hexdigest()


def token_key(token_id: int) -> str:
    """The key of an API token, by its number."""
    return f"token:{token_id}"


@dataclass(eq=False)
class Watch:
    """One open socket: what let it in, and how to close it."""

    keys: tuple[str, ...]
    close: Callable[[str], Awaitable[None]]
    """Close the socket, telling it why (the key that ended)."""
    ended: bool = False
    """Set when a key ended: from then on the socket handles nothing it receives."""


class Broker(Protocol):
    """Where the processes tell one another (:class:`pips.server.cluster.Cluster`)."""

    redis: Any
    """The broker's client; ``None``: one process alone."""
    all: str
    """The channel every process hears."""
    node: str
    """This process."""


@dataclass
class Endings:
    """This process's open sockets by what let them in."""

    broker: Broker
    _open: dict[str, set[Watch]] = field(default_factory=dict)
    listeners: list[Callable[[str], None]] = field(default_factory=list)
    """Told every key that ends, here or at another process (the sessions' cache)."""

    async def heard(self, message: dict[str, Any]) -> None:
        """Keys ended at another process: their sockets here close."""
        if message.get("node") != self.broker.node:
            await self.close(str(key) for key in message["keys"])

    async def end(self, keys: list[str]) -> None:
        """Sessions signed out or tokens revoked: their sockets close, here and at every
        other process."""
        await self.close(keys)
        if self.broker.redis is not None:
            message = {"op": "ended", "node": self.broker.node, "keys": keys}
            await self.broker.redis.publish(self.broker.all, json.dumps(message))

    def watch(self, keys: Iterable[str], close: Callable[[str], Awaitable[None]]) -> Watch:
        watch = Watch(tuple(keys), close)
        for key in watch.keys:
            self._open.setdefault(key, set()).add(watch)
        return watch

    def forget(self, watch: Watch) -> None:
        """The socket closed."""
        for key in watch.keys:
            found = self._open.get(key)
            if found is not None:
                found.discard(watch)
                if not found:
                    del self._open[key]

    def open(self, key: str) -> int:
        """Sockets open here that ``key`` let in."""
        return len(self._open.get(key, ()))

    async def close(self, keys: Iterable[str]) -> int:
        """End ``keys`` in this process: close their sockets; how many."""
        closed = 0
        for key in keys:
            for listener in self.listeners:
                listener(key)
            for watch in list(self._open.get(key, ())):
                self.forget(watch)
                if watch.ended:
                    continue
                watch.ended = True
                closed += 1
                with contextlib.suppress(Exception):  # already going: closed anyway
                    await watch.close(key)
        return closed
