"""Analyses of finished games for the browser (:mod:`pips.bots.analysis`), made while the
game is played where the server has room, else when first asked, and kept.

An analysis costs seconds of a core per hand (a FIDO double-12 hand for five about
4 s), too long to wait for after the game. So while a game is played, its decisions are
valued in the background every few moves and at each hand's end
(:meth:`Analyses.follow`): when the game is over only its last few moves are left, and
asking for the analysis then finds it made or nearly made
(``benchmarks/analysis_speed.py``). Nothing of it is shown before the game
is over: the decisions are kept in this process, and the routes give them out only for
a finished game, to whoever may see its record.

The work runs in worker processes of its own (the search's Python parts would otherwise
hold the event loop's GIL): a followed game's in one that runs only when a core is
otherwise idle (``SCHED_IDLE``), since the tables come first; an analysis somebody asked
for in another, below the tables' priority but not idle (``nice`` 5), since a person
waits for it: at idle priority, a server whose cores its tables kept busy never answered
(two busy loops beside the tests were enough). Only the record so far goes to a worker,
and only the decisions it valued come back. At most ``following`` games are followed at
a time (the rest are analysed when asked); a game is analysed once however many ask at
the same time; starting one on request is rate-limited per address; the finished
analyses are kept (the newest ``keep``) in this process's memory and, once made, in the
database with the game's record (:attr:`Analyses.kept`), where a restart or another
process finds them. The workers end with the server, however it ends
(:mod:`pips.server.workers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from pips import record
from pips.server.settings import Settings
from pips.server.workers import stop_pool, worker_pool

if TYPE_CHECKING:  # the search loads with the first analysis, not with the server
    from pips.bots.analysis import Analysis
    from pips.server.repository import TableRepository
    from pips.server.work import Lane

log = logging.getLogger(__name__)

LEVELS = ("easy", "normal", "hard")
"""What ``pips serve --analysis-level`` takes: the search's levels (``pips.bots.search``,
not imported here: the search loads with the first analysis, not with the server)."""
SEED = 1
FOLLOW_EVERY = 8
"""Moves between two records of a followed game handed on (and at every hand's end)."""
NICENESS = 19
"""How much lower than the server's the following worker's priority is, where
``SCHED_IDLE`` is not offered (``nice``)."""
ASKED_NICENESS = 5
"""How much lower than the server's the priority of analyses asked for is (``nice``: a
third of a table process's share of a busy core)."""


class Analyses:
    def __init__(
        self,
        keep: int = 64,
        following: int = 0,
        workers: int = 1,
        executor: Executor | None = None,
        level: str = Settings.analysis_level,
        papers: Lane | None = None,
    ) -> None:
        """``executor`` runs the analyses (by default ``workers`` processes of their
        own for the followed games and one for those asked for, each started with its
        first analysis); ``papers``: where its plots are drawn (the lane of printed
        sheets, :mod:`pips.server.work`)."""
        self.papers = papers
        self.keep = keep
        self.following = following
        self.level = level
        self.workers = workers
        self._done: OrderedDict[str, Analysis] = OrderedDict()
        self._running: dict[str, asyncio.Task[Analysis]] = {}
        self._pictures: dict[str, bytes] = {}
        self._one_at_a_time = asyncio.Semaphore(1)
        self._valued: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        """Decisions of games still played (or just over), valued a few moves at a time."""
        self._followed: dict[str, asyncio.Task[None]] = {}
        """The games being valued now (a task each, which takes every newer record)."""
        self._latest: dict[str, dict[str, Any]] = {}
        self._moves: dict[str, int] = {}
        """Moves since a followed game's last record was handed on."""
        self._executor = executor
        self._pools: dict[bool, ProcessPoolExecutor] = {}
        """The worker processes, by whether a person asked for their analyses."""
        self.kept: Kept | None = None
        """Where finished analyses are kept with their records (the database), so that
        they survive a restart and every process of several finds them."""

    # -- while a game is played ------------------------------------------------------

    def follow(
        self, table_id: str, record_so_far: Callable[[], dict[str, Any]], ended: bool
    ) -> None:
        """A move was made at table ``table_id`` (``ended``: the move ended a hand, or
        the game): every few moves and at every hand's end, value the decisions made so
        far in the background, if the server follows this game or has room for one
        more. ``record_so_far`` is called only then (it writes the whole record)."""
        if not self.following or table_id in self._done:
            return
        running = table_id in self._followed
        if not running and len(self._followed) >= self.following:
            return  # analysed when asked, as before
        moves = self._moves.get(table_id, 0) + 1
        if not ended and moves < FOLLOW_EVERY:
            self._moves[table_id] = moves
            return
        self._moves[table_id] = 0
        # The newest record replaces one still waiting: a worker behind the game values
        # everything up to the newest move in one go.
        self._latest[table_id] = record_so_far()
        if not running:
            self._followed[table_id] = asyncio.get_running_loop().create_task(self._value(table_id))

    async def _value(self, table_id: str) -> None:
        try:
            while (data := self._latest.pop(table_id, None)) is not None:
                known = self._valued.setdefault(table_id, [])
                loop = asyncio.get_running_loop()
                done = [(d["hand"], d["move"]) for d in known]
                known += await loop.run_in_executor(
                    self._workers(asked=False), _value, data, done, self.level
                )
                self._valued.move_to_end(table_id)
                while len(self._valued) > self.keep:
                    gone, _ = self._valued.popitem(last=False)
                    self._moves.pop(gone, None)
        except Exception:
            log.exception("table %s: its analysis in the background failed", table_id)
        finally:
            del self._followed[table_id]

    def _workers(self, asked: bool) -> Executor:
        if self._executor is not None:
            return self._executor
        pool = self._pools.get(asked)
        if pool is None:
            # Processes that end with the server, however it ends (pips.server.workers).
            pool = self._pools[asked] = worker_pool(
                1 if asked else self.workers, _asked_for if asked else _in_the_background
            )
        return pool

    def close(self) -> None:
        for task in self._followed.values():
            task.cancel()
        for pool in self._pools.values():
            stop_pool(pool)  # an analysis half done is not waited for: the server stops
        self._pools.clear()

    # -- when asked ------------------------------------------------------------------

    async def picture(self, table_id: str, found: Analysis) -> bytes:
        """The plot of a kept analysis as SVG, drawn once (drawing takes a fraction of
        a second: never again per request)."""
        drawn = self._pictures.get(table_id)
        if drawn is None:
            async with self._one_at_a_time:
                if self.papers is None:
                    drawn = await asyncio.to_thread(_drawn, found)
                else:
                    drawn = await self.papers.run(_drawn, found)
                self._pictures[table_id] = drawn
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
        (``starting`` is called first, unless the game was followed as it was played:
        it may refuse, e.g. by a rate limit)."""
        found = self.known(table_id) or await self._kept(table_id)
        if found is not None:
            return found
        running = self._running.get(table_id)
        if running is None:
            data = await load()  # an unknown game is refused before the limit counts
            found = self.known(table_id)  # another request may have begun, or ended
            if found is not None:
                return found
            running = self._running.get(table_id)
            if running is None and not self._was_followed(table_id):
                await starting()
                running = self._running.get(table_id)  # begun by another meanwhile
            if running is None:
                # A task of its own: a client that goes away does not stop it for the
                # others waiting.
                running = asyncio.create_task(self._make(table_id, data))
                self._running[table_id] = running
        return await asyncio.shield(running)

    async def _kept(self, table_id: str) -> Analysis | None:
        """The analysis kept with the game's record, if one was made (by any process,
        before any restart)."""
        if self.kept is None or table_id in self._running:
            return None
        from pips.bots.analysis import Analysis, Decision

        try:
            data = await self.kept.load(table_id)
            if data is None or data.get("level") != self.level:
                return None
            found = Analysis(
                str(data["game"]),
                [str(name) for name in data["seats"]],
                str(data["level"]),
                int(data["seed"]),
                [Decision.from_json(d) for d in data["decisions"]],
            )
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("the kept analysis of %s is unreadable (%s): made again", table_id, exc)
            return None
        self._remember(table_id, found)
        return found

    def _remember(self, table_id: str, made: Analysis) -> None:
        self._done[table_id] = made
        while len(self._done) > self.keep:
            gone, _ = self._done.popitem(last=False)
            self._pictures.pop(gone, None)

    def _was_followed(self, table_id: str) -> bool:
        return table_id in self._followed or table_id in self._valued

    async def _make(self, table_id: str, data: dict[str, Any]) -> Analysis:
        from pips.bots.analysis import Analysis, Decision

        try:
            followed = self._followed.get(table_id)
            if followed is not None:  # the last hand, being valued: the rest is done
                with contextlib.suppress(Exception):
                    await followed
            known = self._valued.pop(table_id, [])
            loop = asyncio.get_running_loop()
            done = [(d["hand"], d["move"]) for d in known]
            async with self._one_at_a_time:
                valued = known + await loop.run_in_executor(
                    self._workers(asked=True), _value, data, done, self.level
                )
            valued.sort(key=lambda d: (d["hand"], d["move"]))
        finally:
            del self._running[table_id]
        replayed = record.replay(data)
        made = Analysis(
            replayed.spec.name,
            list(replayed.seats),
            self.level,
            SEED,
            [Decision.from_json(d) for d in valued],
        )
        self._remember(table_id, made)
        if self.kept is not None:
            try:
                await self.kept.save(table_id, made.to_json())
            except Exception:  # kept in memory all the same: made again after a restart
                log.exception("the analysis of %s could not be kept", table_id)
        return made


class Kept(Protocol):
    """Where analyses are kept (:class:`~pips.server.repository.TableRepository`)."""

    async def load(self, table_id: str) -> dict[str, Any] | None: ...

    async def save(self, table_id: str, analysis: dict[str, Any]) -> None: ...


def _value(data: dict[str, Any], done: list[tuple[int, int]], level: str) -> list[dict[str, Any]]:
    """The decisions of the record ``data`` so far (in a worker process) but those at
    ``done`` (hand, move): only what is new crosses between the processes."""
    from pips.bots.analysis import analyse

    found = analyse(record.replay(data), level, SEED, skip=set(done))
    return [d.to_json() for d in found.decisions]


def _asked_for() -> None:
    """A worker's priority for analyses a person waits for: below the tables', never
    starved by them."""
    os.nice(ASKED_NICENESS)


def _in_the_background() -> None:
    """A worker's priority: it runs only when a core would otherwise be idle (Linux's
    ``SCHED_IDLE``: a table's work takes the core from it at once), else ``nice``."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(NICENESS)


class KeptAnalyses:
    """Analyses kept in the tables' database, with their games' records."""

    def __init__(self, repository: TableRepository) -> None:
        self.repository = repository

    async def load(self, table_id: str) -> dict[str, Any] | None:
        return await self.repository.analysis(table_id)

    async def save(self, table_id: str, analysis: dict[str, Any]) -> None:
        await self.repository.keep_analysis(table_id, analysis)


def _drawn(found: Analysis) -> bytes:
    """The plot of ``found`` as SVG."""
    from pips.bots.analysis import plot

    buffer = io.BytesIO()
    plot(found, buffer, "svg")
    return buffer.getvalue()
