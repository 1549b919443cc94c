"""Analyses of finished games for the browser (:mod:`pips.bots.analysis`), computed once
per game and kept.

An analysis costs seconds of a core (a partnership match of 28 hands about 17 s), and
the address of any finished game can be asked for: so a game is analysed once however
many ask at the same time, one analysis runs at a time (the others wait their turn
rather than take every core from the tables), starting one is rate-limited per address,
and the finished ones are kept (the newest ``keep``) in this process's memory.
"""

from __future__ import annotations

import asyncio
import io
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pips import record

if TYPE_CHECKING:  # the search loads with the first analysis, not with the server
    from pips.bots.analysis import Analysis

LEVEL = "normal"
"""The search every analysis of the server uses (docs/bots.md)."""
SEED = 1


class Analyses:
    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self._done: OrderedDict[str, Analysis] = OrderedDict()
        self._running: dict[str, asyncio.Task[Analysis]] = {}
        self._pictures: dict[str, bytes] = {}
        self._one_at_a_time = asyncio.Semaphore(1)

    async def picture(self, table_id: str, found: Analysis) -> bytes:
        """The plot of a kept analysis as SVG, drawn once (drawing takes a fraction of
        a second: never again per request)."""
        drawn = self._pictures.get(table_id)
        if drawn is None:
            async with self._one_at_a_time:
                buffer = io.BytesIO()
                from pips.bots.analysis import plot

                await asyncio.to_thread(plot, found, buffer, "svg")
                drawn = self._pictures[table_id] = buffer.getvalue()
        return drawn

    def known(self, table_id: str) -> Analysis | None:
        found = self._done.get(table_id)
        if found is not None:
            self._done.move_to_end(table_id)
        return found

    async def of(
        self,
        table_id: str,
        load: Callable[[], Awaitable[dict[str, Any]]],
        starting: Callable[[], Awaitable[None]],
    ) -> Analysis:
        """The analysis of finished game ``table_id``: kept, being made, or made now
        (``starting`` is called first: it may refuse, e.g. by a rate limit)."""
        found = self.known(table_id)
        if found is not None:
            return found
        running = self._running.get(table_id)
        if running is None:
            data = await load()  # an unknown game is refused before the limit counts
            found = self.known(table_id)  # another request may have begun, or ended
            if found is not None:
                return found
            running = self._running.get(table_id)
            if running is None:
                await starting()
                running = self._running.get(table_id)  # begun by another meanwhile
            if running is None:
                # A task of its own: a client that goes away does not stop it for the
                # others waiting.
                running = asyncio.create_task(self._make(table_id, data))
                self._running[table_id] = running
        return await asyncio.shield(running)

    async def _make(self, table_id: str, data: dict[str, Any]) -> Analysis:
        try:
            async with self._one_at_a_time:
                made = await asyncio.to_thread(_analyse, data)
        finally:
            del self._running[table_id]
        self._done[table_id] = made
        while len(self._done) > self.keep:
            gone, _ = self._done.popitem(last=False)
            self._pictures.pop(gone, None)
        return made


def _analyse(data: dict[str, Any]) -> Analysis:
    from pips.bots.analysis import analyse

    return analyse(record.replay(data), LEVEL, SEED)
