"""Password hashes taken in turn, so that one client's flood starves nobody else.

An argon2 hash takes a core for a fifth of a second, on purpose. :class:`HashQueue`
runs them in a pool of its own (one thread by default: argon2 lets go of the GIL, so on
two cores the event loop keeps the other one) and decides which waiting hash runs
next:

* **Two lanes.** A sign-in from a browser that signed in to the account before (its
  device cookie, :meth:`pips.server.accounts.Accounts.device_token`) waits in a lane of
  its own, served first: a flood of strangers, from however many addresses, never stands
  between an owner and their account. Every other hash (registrations, sign-ins from
  new browsers) waits in the other lane.
* **In turn by client.** Within a lane the clients (an address, an IPv6 network:
  :func:`pips.server.limits.client_key`) take turns, one hash each, however many each
  has waiting: the owner waits for one hash of each other client, not for all of them.
* **Bounded.** A client has at most ``per_client`` hashes waiting and a lane at most
  ``waiting``; more are refused at once (503) rather than queued. When a lane is full,
  a client with fewer waiting takes the place of the newest hash of the client with the
  most, so that a few clients with many cannot keep a new one out.

Everything but the hashing itself happens on the event loop, so the queue needs no lock.

    >>> queue = HashQueue(per_client=1, waiting=4)
    >>> queue.waiting_of("10.0.0.1"), queue.workers
    (0, 1)
    >>> queue.close()
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pips.i18n import _
from pips.server.accounts.identity import AccountError

BUSY_SECONDS = 2
"""What a refused hash is told to wait (``Retry-After``)."""


def busy() -> AccountError:
    return AccountError(
        _("the server is busy signing people in: try again shortly"),
        503,
        BUSY_SECONDS,
        held=True,
    )


@dataclass(eq=False)
class _Job:
    client: str
    function: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]


@dataclass
class _HashLane:
    """The hashes waiting in one lane, by client, the clients in their turn's order."""

    clients: OrderedDict[str, deque[_Job]] = field(default_factory=OrderedDict)
    size: int = 0

    def add(self, job: _Job) -> None:
        self.clients.setdefault(job.client, deque()).append(job)
        self.size += 1

    def remove(self, job: _Job) -> bool:
        jobs = self.clients.get(job.client)
        if jobs is None or job not in jobs:
            return False
        jobs.remove(job)
        self.size -= 1
        if not jobs:
            del self.clients[job.client]
        return True

    def next(self) -> _Job | None:
        """The next client's oldest hash; that client goes to the end of the turn."""
        if not self.clients:
            return None
        client, jobs = next(iter(self.clients.items()))
        job = jobs.popleft()
        self.size -= 1
        if jobs:
            self.clients.move_to_end(client)
        else:
            del self.clients[client]
        return job


class HashQueue:
    """Hashes (any function, in practice argon2's) run ``workers`` at a time, the
    waiting ones taken in turn by client, owners' devices first."""

    def __init__(self, workers: int = 1, *, per_client: int = 2, waiting: int = 64) -> None:
        self.workers = workers
        self.per_client = per_client
        self.waiting = waiting
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="pips-argon2")
        self._lanes = (_HashLane(), _HashLane())
        """Owners' devices, then everyone else."""
        self.running = 0
        """Hashes running now (at most ``workers``)."""

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def waiting_of(self, client: str) -> int:
        """Hashes ``client`` has waiting, in both lanes."""
        return sum(len(lane.clients.get(client, ())) for lane in self._lanes)

    async def run(
        self, client: str, function: Callable[..., Any], *args: Any, owner: bool = False
    ) -> Any:
        """``function(*args)`` in the pool, in ``client``'s turn (``owner``: in the lane
        of browsers that signed in to the account before); :class:`AccountError` (503)
        at once when there is no room for it."""
        job = _Job(client, function, args, asyncio.get_running_loop().create_future())
        lane = self._lanes[0 if owner else 1]
        self._admit(lane, job)
        # Gone before its turn (the client hung up): its place is free again.
        job.future.add_done_callback(lambda future: future.cancelled() and lane.remove(job))
        self._start()
        return await job.future

    def _admit(self, lane: _HashLane, job: _Job) -> None:
        mine = len(lane.clients.get(job.client, ()))
        if mine >= self.per_client:
            raise busy()
        if lane.size >= self.waiting:
            most, jobs = max(
                ((len(jobs), jobs) for jobs in lane.clients.values()), key=lambda found: found[0]
            )
            if most < 2 or most <= mine + 1:
                raise busy()
            # The newest hash of the client with the most waiting gives way.
            evicted = jobs[-1]
            lane.remove(evicted)
            evicted.future.set_exception(busy())
        lane.add(job)

    def _start(self) -> None:
        while self.running < self.workers:
            job = self._lanes[0].next() or self._lanes[1].next()
            if job is None:
                return
            if job.future.done():
                continue
            self.running += 1
            done = self.pool.submit(job.function, *job.args)
            loop = job.future.get_loop()
            done.add_done_callback(partial(self._done, loop, job))

    def _done(self, loop: asyncio.AbstractEventLoop, job: _Job, done: Future[Any]) -> None:
        # In the pool's thread: the rest is the event loop's (gone, if it has closed).
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._finished, job, done)

    def _finished(self, job: _Job, done: Future[Any]) -> None:
        self.running -= 1
        if not job.future.done():
            if done.cancelled():
                job.future.cancel()
            elif (error := done.exception()) is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(done.result())
        self._start()
