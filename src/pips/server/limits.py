"""Limits that keep one person from taking the server for themselves.

:class:`RateLimit` is a token bucket per key (an address, an account, a seat at a
table): ``burst`` actions at once, then ``per_minute`` on average. The server's limits
are declared in :class:`Limits` and documented in docs/server.md ("Limits"); an
operator sets others with ``pips serve --limit NAME=BURST/PER_MINUTE``. One process
counts in memory; several count in Redis (:meth:`Limits.share`).

Limits per address count people, not addresses (:func:`client_key`): an IPv6 address
by its /64, the network one subscriber is given whole, so that a client walking through
the 2**64 addresses of its own network is still one client.

    >>> clock = iter([0.0, 0.0, 0.0, 30.0]).__next__
    >>> limit = RateLimit(burst=2, per_minute=2, clock=clock)
    >>> limit.hit("a"), limit.hit("a")
    (1.0, 0.0)
    >>> limit.hit("a")
    Traceback (most recent call last):
    ...
    pips.server.limits.Limited: too many requests: try again in 30 seconds
    >>> limit.hit("a")  # half a minute later: one more
    0.0
"""

from __future__ import annotations

import asyncio
import ipaddress
import math
import time
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pips.core.phrase import N_, Phrase, phrase


def client_key(address: str) -> str:
    """The key the limits per address count ``address`` by: an IPv4 address itself, an
    IPv6 address by its /64 (one subscriber's network: RFC 6177 hands out at least a
    /64, so every address in it is the same person), an IPv4 address written as IPv6
    as the IPv4 address; anything else (a test's ``testclient``) as it is.

    >>> client_key("2001:db8:1:2:aaaa::1"), client_key("::ffff:10.0.0.1")
    ('2001:db8:1:2::/64', '10.0.0.1')
    """
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Limited(Exception):
    """Too many: ``retry_after`` seconds until one more is allowed."""

    def __init__(self, message: str, retry_after: int, quota: Quota | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.quota = quota


BUCKET = """
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local kept = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(kept[1]) or burst
local at = tonumber(kept[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return {taken, tostring(tokens)}
"""
"""One token bucket in Redis, taken from atomically (by the Redis server's clock): the
distributed twin of :meth:`RateLimit.hit`, the same algorithm (refill at ``rate`` a
second up to ``burst``, take one if one is there), written in Lua because Redis runs a
script whole, with no other client between its read and its write. A change to one is
made to both."""

GIVE_BACK = """
local burst = tonumber(ARGV[1])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
if tokens then
  redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(burst, tokens + 1)))
end
return 1
"""
"""One token given back to a bucket in Redis (a request refused after it was counted)."""


@dataclass(frozen=True)
class Quota:
    """What is left of a rate limit for one key, as the IETF's RateLimit header fields
    say it (draft-ietf-httpapi-ratelimit-headers-10): the policy ``name``, its ``limit``
    of requests in a ``window`` of seconds (a full bucket, refilled at its rate), the
    requests ``remaining`` now and the seconds until the bucket is full again
    (``reset``)."""

    name: str
    limit: int
    window: int
    remaining: int
    reset: int

    def headers(self) -> dict[str, str]:
        """``RateLimit-Policy`` and ``RateLimit`` (structured fields, RFC 9651)."""
        return {
            "RateLimit-Policy": f'"{self.name}";q={self.limit};w={self.window}',
            "RateLimit": f'"{self.name}";r={self.remaining};t={self.reset}',
        }


@dataclass
class RateLimit:
    burst: float
    per_minute: float
    what: str = "requests"
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    shared: Any = None
    """A Redis client (several processes): :meth:`take` counts there."""
    name: str = "requests"
    """The bucket's name in Redis."""

    async def take(self, key: str) -> Quota:
        """Count one for ``key`` where every process counts (this process alone without
        a broker); :class:`Limited` when it has had too many. What is left of the
        quota, for the answer's ``RateLimit`` header (:class:`Quota`)."""
        if self.shared is None:
            return self.quota(self.hit(key))
        taken, tokens = await self.shared.eval(
            BUCKET, 1, self._key(key), self.burst, self.per_minute / 60
        )
        if not int(taken):
            self._refuse(float(tokens))
        return self.quota(float(tokens))

    async def give_back(self, key: str) -> None:
        """Return the one :meth:`take` counted for ``key``: the request it was counted
        for was refused for another reason, and a refused request spends nothing."""
        if self.shared is None:
            tokens, at = self._buckets.get(key, (self.burst, self.clock()))
            self._buckets[key] = (min(self.burst, tokens + 1), at)
            return
        await self.shared.eval(GIVE_BACK, 1, self._key(key), self.burst)

    def _key(self, key: str) -> str:
        return f"pips:limit:{self.name}:{key}"

    def quota(self, tokens: float) -> Quota:
        """The quota with ``tokens`` left."""
        per_second = self.per_minute / 60
        return Quota(
            self.name,
            int(self.burst),
            math.ceil(self.burst / per_second),
            max(0, int(tokens)),
            max(0, math.ceil((self.burst - tokens) / per_second)),
        )

    def _refuse(self, tokens: float) -> None:
        wait = max(1, math.ceil((1 - tokens) * 60 / self.per_minute))
        raise Limited(
            phrase(
                "too many {what}: try again in {seconds} seconds",
                what=Phrase(self.what),
                seconds=wait,
            ),
            wait,
            self.quota(tokens),
        )

    def hit(self, key: str) -> float:
        """Count one for ``key``; :class:`Limited` when it has had too many. The tokens
        left."""
        moment = self.clock()
        if len(self._buckets) > 50_000:
            # Bounded memory under a flood of keys: forget the full buckets.
            refill = self.burst * 60 / self.per_minute
            self._buckets = {k: v for k, v in self._buckets.items() if moment - v[1] < refill}
        tokens, at = self._buckets.get(key, (self.burst, moment))
        tokens = min(self.burst, tokens + (moment - at) * self.per_minute / 60)
        if tokens < 1:
            self._buckets[key] = (tokens, moment)
            self._refuse(tokens)
        self._buckets[key] = (tokens - 1, moment)
        return float(tokens - 1)


@dataclass
class Limits:
    """Every limit of one server (defaults for a public server; tests may loosen)."""

    sign_in: RateLimit = field(
        default_factory=lambda: RateLimit(10, 10, N_("attempts from your address"), name="sign-in")
    )
    """Sign-in, registration and guest names, per address."""
    tables: RateLimit = field(
        default_factory=lambda: RateLimit(5, 6, N_("new tables"), name="tables")
    )
    """Tables created, per address."""
    tables_at_once: int = 3
    """Tables a person may have created that are waiting or being played (counted in
    the database, so every process counts the same)."""
    online_round_tables: int = 32
    """Tables one round of an online event opens at most (its start counts as one new
    table of the organiser's, against :attr:`tables` and :attr:`tables_at_once`)."""
    chat: RateLimit = field(
        default_factory=lambda: RateLimit(5, 20, N_("chat messages"), name="chat")
    )
    """Chat messages per person and table (counted where the table lives)."""
    chat_history: int = 200
    """Chat lines a table keeps (the oldest go first)."""
    analyses: RateLimit = field(
        default_factory=lambda: RateLimit(3, 6, N_("analyses started"), name="analyses")
    )
    """Analyses of finished games started (not those already made), per address."""
    events: RateLimit = field(
        default_factory=lambda: RateLimit(20, 20, N_("new events"), name="events")
    )
    """Events created, per account."""
    checks: RateLimit = field(
        default_factory=lambda: RateLimit(10, 30, N_("checks"), name="checks")
    )
    """Result checks and uploads, per address."""
    bot: RateLimit = field(
        default_factory=lambda: RateLimit(60, 120, N_("bot requests"), name="bot")
    )
    """Requests of the Bot API (moves, seeks, accounts), per account (docs/bots-api.md)."""
    challenges: RateLimit = field(
        default_factory=lambda: RateLimit(10, 20, N_("challenges"), name="challenges")
    )
    """Challenges made, per account."""
    tokens: RateLimit = field(
        default_factory=lambda: RateLimit(5, 5, N_("new tokens"), name="tokens")
    )
    """API tokens made through the API, per address."""
    sockets_per_address: int = 50
    """Websockets open at once from one address (every process together): a club
    behind one address plays at many tables, a flood of watchers does not."""
    sockets_anonymous_per_address: int = 20
    """... of which from nobody signed in (watchers without even a guest name)."""
    sockets: Sockets = field(init=False)
    requests_at_once: int = 6
    """HTTP requests answered at once per address (an IPv6 /64: :func:`client_key`),
    as many as a browser opens connections to one site; the address's further
    requests wait their turn, so that its flood (even of answers as cheap as a 429)
    takes no more of the event loop than six requests do, and a table's moves never
    queue behind forty of one person's."""
    requests_waiting: int = 100
    """... and waiting per address, beyond which one is refused at once (429)."""
    at_once: AtOnce = field(init=False)

    def __post_init__(self) -> None:
        self.sockets = Sockets(self.sockets_per_address, self.sockets_anonymous_per_address)
        self.at_once = AtOnce(self.requests_at_once, self.requests_waiting)

    checking: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    """Result batches checked at once (each in a worker thread): a flood of checks
    waits its turn instead of taking every core from the tables."""
    body_bytes: int = 64 * 1024
    """The largest request body (JSON, forms) ..."""
    upload_bytes: int = 2 * 1024 * 1024
    """... except a CSV or records upload."""

    def rates(self) -> dict[str, RateLimit]:
        """Every rate limit by its name (``pips serve --limit NAME=BURST/PER_MINUTE``)."""
        return {
            limit.name: limit
            for limit in (
                self.sign_in,
                self.tables,
                self.chat,
                self.analyses,
                self.events,
                self.checks,
                self.bot,
                self.challenges,
                self.tokens,
            )
        }

    def tune(self, settings: dict[str, tuple[float, float]]) -> None:
        """Set the rate limits ``settings`` names to (burst, per minute)."""
        rates = self.rates()
        for name, (burst, per_minute) in settings.items():
            rates[name].burst = burst
            rates[name].per_minute = per_minute

    def share(self, redis: Any, prefix: str, node: str) -> None:
        """Count every rate and the open sockets in Redis from now on (several
        processes; ``prefix`` is the site's, ``node`` this process's)."""
        for limit in self.rates().values():
            limit.shared = redis
        self.sockets.shared = redis
        self.sockets.mine = f"{prefix}sockets:{node}"
        self.sockets.everyone = f"{prefix}sockets"


class Sockets:
    """Websockets open at once per address: at most ``most``, of which at most
    ``most_anonymous`` from nobody signed in (watchers without even a guest name).
    Shared (several processes), each process keeps its counts in a Redis hash of its
    own, which lapses if the process dies, and a new socket counts every process's."""

    def __init__(self, most: int, most_anonymous: int) -> None:
        self.most = most
        self.most_anonymous = most_anonymous
        self._open: dict[str, int] = {}
        self.shared: Any = None
        self.mine = ""
        """This process's hash in Redis."""
        self.everyone = ""
        """The set of every process's hash."""

    async def open(self, address: str, anonymous: bool) -> None:
        """Count a new socket from ``address``; :class:`Limited` (and not counted) when
        the address has too many open."""
        keys = [address, *((address + "?",) if anonymous else ())]
        for key in keys:
            self._open[key] = self._open.get(key, 0) + 1
        counts = [self._open[key] for key in keys]
        if self.shared is not None:
            async with self.shared.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.hincrby(self.mine, key, 1)
                pipe.expire(self.mine, 30)
                await pipe.execute()
            counts = await self._everywhere(keys)
        if counts[0] > self.most or (anonymous and counts[1] > self.most_anonymous):
            await self.close(address, anonymous)
            raise Limited(phrase("too many open connections from your address"), 30)

    async def close(self, address: str, anonymous: bool) -> None:
        keys = [address, *((address + "?",) if anonymous else ())]
        for key in keys:
            left = self._open.get(key, 0) - 1
            if left > 0:
                self._open[key] = left
            else:
                self._open.pop(key, None)
        if self.shared is not None:
            async with self.shared.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.hincrby(self.mine, key, -1)
                await pipe.execute()

    async def keep(self) -> None:
        """Keep this process's counts alive in Redis (every tick of the cluster)."""
        if self.shared is not None:
            await self.shared.sadd(self.everyone, self.mine)
            await self.shared.expire(self.mine, 30)

    async def _everywhere(self, keys: list[str]) -> list[int]:
        hashes = [h.decode() for h in await self.shared.smembers(self.everyone)]
        if self.mine not in hashes:
            hashes.append(self.mine)
        async with self.shared.pipeline(transaction=False) as pipe:
            for name in hashes:
                pipe.hmget(name, keys)
            found = await pipe.execute()
        return [sum(int(values[i] or 0) for values in found) for i in range(len(keys))]


@dataclass(eq=False)
class _Turns:
    answering: asyncio.Semaphore
    here: int = 0
    """Requests being answered or waiting."""


class AtOnce:
    """Requests answered at once per client (:func:`client_key`): at most ``most``,
    the client's further ones waiting their turn (in the order they came), at most
    ``waiting`` of them; one more is :class:`Limited` at once. In this process only:
    what it shares out is this process's event loop.

    >>> at_once = AtOnce(most=1, waiting=0)
    >>> async def twice() -> str:
    ...     give_back = await at_once.take("10.0.0.1")
    ...     await at_once.take("10.0.0.1")
    ...     return "never"
    >>> asyncio.run(twice())
    Traceback (most recent call last):
    ...
    pips.server.limits.Limited: too many requests from your address at once: try again shortly
    """

    def __init__(self, most: int, waiting: int) -> None:
        self.most = most
        self.waiting = waiting
        self._clients: dict[str, _Turns] = {}

    def here(self, client: str) -> int:
        """``client``'s requests being answered or waiting."""
        turns = self._clients.get(client)
        return 0 if turns is None else turns.here

    async def take(self, client: str) -> Callable[[], None]:
        """Wait for ``client``'s turn: the function that gives it back (once, however
        often it is called)."""
        turns = self._clients.get(client)
        if turns is None:
            turns = self._clients[client] = _Turns(asyncio.Semaphore(self.most))
        if turns.here >= self.most + self.waiting:
            raise Limited(
                phrase("too many requests from your address at once: try again shortly"), 2
            )
        turns.here += 1
        try:
            await turns.answering.acquire()
        except BaseException:  # gone while waiting (the client hung up)
            self._left(client, turns)
            raise
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                turns.answering.release()
                self._left(client, turns)

        return give_back

    def _left(self, client: str, turns: _Turns) -> None:
        turns.here -= 1
        if not turns.here:  # kept for the clients with requests, no others
            del self._clients[client]


CLIENT: ContextVar[str] = ContextVar("client", default="unknown")
"""The client (:func:`client_key`) of the request being answered, set by the server's
guard (:class:`pips.server.guard.Guard`): whom work shared by every client is taken in
turn by (:class:`SharedTurns`)."""


def site_key(client: str) -> str:
    """The site a client (:func:`client_key`) belongs to, for sharing turns: an IPv6 /64
    by its /48, the most one site is handed (RFC 6177; a home gets a /56, 256 /64s of its
    own), anything else as it is.

    >>> site_key("2001:db8:1:2::/64"), site_key("10.0.0.1")
    ('2001:db8:1::/48', '10.0.0.1')
    """
    if client.endswith("/64"):
        return str(ipaddress.IPv6Network(client).supernet(new_prefix=48))
    return client


class SharedTurns:
    """``most`` turns at once at work every client shares, given to the clients waiting
    in turn (round robin), each client's own requests in the order they came. First come
    first served, a client with many requests waiting held every other back by all of
    them (thirty reads from five addresses made an organiser's entry of a result wait
    1.6 s, not 80 ms); in turn, a request waits for at most one turn of each client
    ahead of it.

    At most ``room`` requests wait, all clients together. When the room is full, the
    newest request of the client with the most waiting is refused to make room
    (:class:`Limited`), not the newcomer: a client with nothing waiting is always let
    in, and a refusal falls on whoever holds more than their share.

    >>> turns = SharedTurns(most=1, room=10)
    >>> async def order() -> list[str]:
    ...     give_back = await turns.take("flood")
    ...     done: list[str] = []
    ...     async def one(client: str) -> None:
    ...         (await turns.take(client))()
    ...         done.append(client)
    ...     waiting = [asyncio.create_task(one(c)) for c in ("flood",) * 3 + ("organiser",)]
    ...     await asyncio.sleep(0)
    ...     give_back()
    ...     await asyncio.gather(*waiting)
    ...     return done
    >>> asyncio.run(order())
    ['flood', 'organiser', 'flood', 'flood']
    """

    def __init__(self, most: int, room: int) -> None:
        self.free = most
        self.room = room
        self.waiting = 0
        """Requests waiting for a turn."""
        self._queues: dict[str, deque[asyncio.Future[None]]] = {}
        """Each waiting client's requests, the clients in the order their turns come (a
        dict keeps the order things were put in: a client served goes to the back)."""

    async def take(self, client: str) -> Callable[[], None]:
        """Wait for a turn: the function that gives it back (once, however often it is
        called). :class:`Limited` if the room is full and ``client`` would hold the most
        waiting, or if its request is the one refused to make room."""
        if self.free:
            self.free -= 1
            return self._giver()
        if self.waiting >= self.room:
            self._make_room(client)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(client, deque()).append(turn)
        self.waiting += 1
        try:
            await turn
        except BaseException:  # gone while waiting (a hang-up, a stop), or refused
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self._give_back()  # given the turn, then gone: the next one has it
            else:
                self._forget(client, turn)
            raise
        return self._giver()

    def _giver(self) -> Callable[[], None]:
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                self._give_back()

        return give_back

    def _give_back(self) -> None:
        while self._queues:
            client = next(iter(self._queues))
            queue = self._queues.pop(client)
            turn = queue.popleft()
            self.waiting -= 1
            if queue:
                self._queues[client] = queue  # to the back of the line
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1

    def _make_room(self, client: str) -> None:
        busy = Limited(phrase("the server is busy: try again in a minute"), 60)
        most = max(self._queues, key=lambda other: len(self._queues[other]))
        if len(self._queues[most]) <= len(self._queues.get(client, ())) + 1:
            raise busy  # nobody would hold more than this client
        refused = self._queues[most].pop()  # the newest of the most waiting
        self.waiting -= 1
        if not refused.done():
            refused.set_exception(busy)

    def _forget(self, client: str, turn: asyncio.Future[None]) -> None:
        queue = self._queues.get(client)
        if queue is not None and turn in queue:
            queue.remove(turn)
            self.waiting -= 1
            if not queue:
                del self._queues[client]
