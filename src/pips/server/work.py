"""Work that cannot stall the tables: every slow or costly job of the server in a lane
of its own, each lane bounded.

Before, one pool of six threads (asyncio's default executor on two cores) served bot
decisions, the database and every PDF and CSV: eight anonymous downloads of a round's
score sheets took every thread and most of the interpreter, and another table's moves
went from 117 in 8 s to 3. Now (docs/server.md, "Work apart"):

* ``tables``: the live tables' database reads and writes (the moves have a writer
  thread of their own, :class:`~pips.server.repository.MoveWriter`);
* ``bots``: the decisions of the quick bots (random, greedy, expert);
* ``search``: the searching bots' decisions (:data:`SEARCHING`), one core's worth: their
  kernel releases the interpreter, and the other core stays the event loop's;
* ``papers``: PDFs, results CSVs parsed and checked, plots; one worker (a thread, or
  with ``apart`` a process of its own, where its interpreter cannot slow the event loop
  at all), and at most :attr:`Work.papers_waiting` jobs waiting: more are refused
  (503, :class:`Busy`) instead of queued for minutes.

What is left on asyncio's default executor is other database work (the results, the
events, two at once: :func:`pips.server.routes.common.run`) and the accounts (whose
password hashes have a pool of their own). A printed
sheet is made once per what it shows (:class:`Printed`), and each address may ask for
so many (:attr:`Work.prints`). Tables with a searching bot are capped per person and
per server (:meth:`Work.admit_search`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from pips import i18n
from pips.core.phrase import N_, phrase
from pips.server.limits import Limited, RateLimit
from pips.server.round import TableError
from pips.server.workers import stop_pool, worker_pool

T = TypeVar("T")

SEARCHING = frozenset({"search", "ismcts"})
"""The bots whose decisions take a core for a while (a search over sampled deals); the
others decide in milliseconds."""


def searching(bot: str | None) -> bool:
    """Whether the bot ``bot`` names (``search:hard``) searches."""
    return bot is not None and bot.partition(":")[0].strip().lower() in SEARCHING


@dataclass(frozen=True)
class Searching:
    """A live table with a searching bot, as :meth:`Work.admit_search` counts it."""

    playing: bool
    """Being played (its bots decide), not waiting for people."""
    made_by: frozenset[str]
    """The keys of the person who made it: account or guest, and address."""


class Busy(Limited):
    """Too many jobs of a lane wait already: come back later (503)."""


class Crowded(TableError):
    """Too many tables with searching bots (429 where a table is made): a table's
    refusal, so every route that makes one answers it as such."""

    def __init__(self, message: object, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def spoken(language: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function`` answering in ``language`` (in a worker: a thread of a lane, or a
    process of its own, has no request's context)."""
    with i18n.speaking(language):
        return function(*args, **kwargs)


class Lane:
    """One bounded executor; with ``waiting``, at most that many jobs queued or running
    at once (one more is :class:`Busy`)."""

    def __init__(self, name: str, make: Callable[[], Executor], waiting: int | None = None) -> None:
        self.name = name
        self._make = make
        self._executor: Executor | None = None
        self.waiting = waiting
        self.queued = 0
        """Jobs handed to this lane and not yet done."""

    @property
    def executor(self) -> Executor:
        """The executor, made at its first job (a process pool costs a second to start:
        a server that prints nothing never starts it)."""
        if self._executor is None:
            self._executor = self._make()
        return self._executor

    @property
    def apart(self) -> bool:
        """Whether its jobs run in another process (they take no context along)."""
        return isinstance(self.executor, ProcessPoolExecutor)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in this lane, in the caller's language; :class:`Busy` when
        the lane has as many jobs as it may."""
        if self.waiting is not None and self.queued >= self.waiting:
            raise Busy(phrase("the server is busy: try again in a minute"), 60)
        self.queued += 1
        try:
            job: Callable[[], T]
            if self.apart:
                job = partial(spoken, i18n.current(), function, *args)
            else:
                # Like asyncio.to_thread: the job sees the request's context.
                job = partial(contextvars.copy_context().run, function, *args)
            return await asyncio.get_running_loop().run_in_executor(self.executor, job)
        finally:
            self.queued -= 1

    def close(self) -> None:
        if isinstance(self._executor, ProcessPoolExecutor):
            stop_pool(self._executor)  # a busy worker ends now, not after its job
        elif self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor = None


def _paper_worker() -> None:
    """In the papers' process (which ends with the server: :mod:`pips.server.workers`):
    at a lower priority than the tables' process, its libraries loaded at once."""
    with contextlib.suppress(OSError):  # not allowed here: the same priority
        os.nice(5)
    # Loaded now, while the server starts, not at its first sheet (seconds on a busy
    # machine): the sheets' library and the plots'.
    import matplotlib

    import pips.results.sheet  # noqa: F401

    matplotlib.use("Agg")


def _threads(count: int, name: str) -> Callable[[], Executor]:
    return lambda: ThreadPoolExecutor(count, thread_name_prefix=f"pips-{name}")


def _process() -> Executor:
    return worker_pool(1, _paper_worker)


@dataclass
class Work:
    """The lanes of one server process, its printed sheets, and its caps on searching
    bots. Made where the app is composed (:class:`~pips.server.app.Services`), closed
    with it."""

    apart: bool = False
    """Papers in a process of their own (``pips serve``); in a thread otherwise (tests,
    where a process would cost each app a second)."""
    table_threads: int = 4
    bot_threads: int = 2
    search_threads: int = max(1, (os.cpu_count() or 2) - 1)
    """Searching bots' decisions at once: a core is left to the event loop."""
    papers_waiting: int = 8
    """PDFs, CSVs and plots queued or being made at once; more are refused (503)."""
    search_tables: int = 6
    """Tables with a searching bot being played at once, on this process (a new one
    beyond is refused; a waiting one uses nothing)."""
    search_tables_each: int = 2
    """Tables with a searching bot, waiting or played, that one person (an account or
    guest, or an address) has made."""
    printed_bytes: int = 64 * 1024 * 1024
    """Bytes of printed sheets kept (the least recently asked for go first)."""
    prints: RateLimit = field(
        default_factory=lambda: RateLimit(10, 20, N_("printed sheets"), name="prints")
    )
    """Printed sheets (PDFs) asked for, per address: an organiser prints a few per round."""
    tables: Lane = field(init=False)
    bots: Lane = field(init=False)
    search: Lane = field(init=False)
    papers: Lane = field(init=False)
    printed: Printed = field(init=False)

    def __post_init__(self) -> None:
        self.tables = Lane("tables", _threads(self.table_threads, "tables"))
        self.bots = Lane("bots", _threads(self.bot_threads, "bots"))
        self.search = Lane("search", _threads(self.search_threads, "search"))
        self.papers = Lane(
            "papers",
            _process if self.apart else _threads(1, "papers"),
            waiting=self.papers_waiting,
        )
        self.printed = Printed(self.printed_bytes)

    async def decide(self, decision: Callable[[], T], bot: str | None) -> T:
        """A bot's decision in its lane (``bot`` its name)."""
        return await (self.search if searching(bot) else self.bots).run(decision)

    def admit_search(
        self, bots: Iterable[str | None], person: Iterable[str], tables: Iterable[Searching]
    ) -> None:
        """Refuse (:class:`Crowded`) a new table with a searching bot among ``bots`` if
        :attr:`search_tables` of ``tables`` (every live table with a searching bot) are
        being played, or :attr:`search_tables_each` of them, waiting or played, were
        made by ``person``: the keys of the one asking (their account or guest, and
        their address, :func:`~pips.server.limits.client_key`), so that one person
        with many guest names is still one person.

        A waiting table's bots decide nothing, so the server counts only the tables
        being played: before, three guests with two waiting tables each locked every
        other person out of searching bots for a quarter of an hour."""
        if not any(searching(b) for b in bots):
            return
        tables = list(tables)
        mine = set(person)
        if sum(1 for t in tables if t.playing) >= self.search_tables:
            raise Crowded(
                phrase("too many games with searching bots on this server: try again later"),
                300,
            )
        if sum(1 for t in tables if mine & t.made_by) >= self.search_tables_each:
            raise Crowded(
                phrase(
                    "you have {count} games with searching bots: finish one first",
                    count=self.search_tables_each,
                ),
                300,
            )

    def start(self) -> None:
        """Start the papers' process now (with :attr:`apart`), in the background: a
        process of its own takes seconds to start, which no first sheet should wait."""
        if self.apart:
            self.papers.executor.submit(int)

    def close(self) -> None:
        for lane in (self.tables, self.bots, self.search, self.papers):
            lane.close()


class Printed:
    """Printed sheets made once per what they show (their key: the sheet's kind, the
    language and every input, hashed), the least recently asked for forgotten beyond
    ``most_bytes``; a sheet asked for again while it is made waits for the same one."""

    def __init__(self, most_bytes: int) -> None:
        self.most_bytes = most_bytes
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._making: dict[str, asyncio.Future[bytes]] = {}

    @staticmethod
    def key(*inputs: Any) -> str:
        """The key of a sheet made of ``inputs`` (plain data: their ``repr`` is what the
        sheet shows) in the current language."""
        return hashlib.sha256(repr((i18n.current(), inputs)).encode()).hexdigest()

    async def sheet(self, key: str, make: Callable[[], Awaitable[bytes]]) -> bytes:
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept
        making = self._making.get(key)
        if making is not None:
            return await asyncio.shield(making)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._making[key] = future
        try:
            made = await make()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            del self._making[key]
        future.set_result(made)
        self._keep(key, made)
        return made

    def _keep(self, key: str, made: bytes) -> None:
        if len(made) > self.most_bytes:
            return
        self._kept[key] = made
        self._bytes += len(made)
        while self._bytes > self.most_bytes:
            _, gone = self._kept.popitem(last=False)
            self._bytes -= len(gone)
