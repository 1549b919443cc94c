"""Limits that keep one person from taking the server for themselves.

:class:`RateLimit` is a token bucket per key (an address, an account, a seat at a
table): ``burst`` actions at once, then ``per_minute`` on average. The server's limits
are declared in :data:`LIMITS` and documented in docs/server.md ("Limits"). They are
kept in memory: one server process serves every request.

    >>> clock = iter([0.0, 0.0, 0.0, 30.0]).__next__
    >>> limit = RateLimit(burst=2, per_minute=2, clock=clock)
    >>> limit.hit("a"); limit.hit("a")
    >>> limit.hit("a")
    Traceback (most recent call last):
    ...
    pips.server.limits.Limited: too many requests: try again in 30 seconds
    >>> limit.hit("a")  # half a minute later: one more
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pips.core.phrase import N_, Phrase, phrase


class Limited(Exception):
    """Too many: ``retry_after`` seconds until one more is allowed."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class RateLimit:
    burst: float
    per_minute: float
    what: str = "requests"
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def hit(self, key: str) -> None:
        """Count one for ``key``; :class:`Limited` when it has had too many."""
        moment = self.clock()
        if len(self._buckets) > 50_000:
            # Bounded memory under a flood of keys: forget the full buckets.
            refill = self.burst * 60 / self.per_minute
            self._buckets = {k: v for k, v in self._buckets.items() if moment - v[1] < refill}
        tokens, at = self._buckets.get(key, (self.burst, moment))
        tokens = min(self.burst, tokens + (moment - at) * self.per_minute / 60)
        if tokens < 1:
            self._buckets[key] = (tokens, moment)
            wait = math.ceil((1 - tokens) * 60 / self.per_minute)
            raise Limited(
                phrase(
                    "too many {what}: try again in {seconds} seconds",
                    what=Phrase(self.what),
                    seconds=wait,
                ),
                wait,
            )
        self._buckets[key] = (tokens - 1, moment)


@dataclass
class Limits:
    """Every limit of one server (defaults for a public server; tests may loosen)."""

    sign_in: RateLimit = field(
        default_factory=lambda: RateLimit(10, 10, N_("attempts from your address"))
    )
    """Sign-in, registration and guest names, per address."""
    tables: RateLimit = field(default_factory=lambda: RateLimit(5, 6, N_("new tables")))
    """Tables created, per address."""
    tables_at_once: int = 3
    """Tables a person may have created that are waiting or being played."""
    chat: RateLimit = field(default_factory=lambda: RateLimit(5, 20, N_("chat messages")))
    """Chat messages per person and table."""
    chat_history: int = 200
    """Chat lines a table keeps (the oldest go first)."""
    analyses: RateLimit = field(default_factory=lambda: RateLimit(3, 6, N_("analyses started")))
    """Analyses of finished games started (not those already made), per address."""
    events: RateLimit = field(default_factory=lambda: RateLimit(20, 20, N_("new events")))
    """Events created, per account."""
    checks: RateLimit = field(default_factory=lambda: RateLimit(10, 30, N_("checks")))
    """Result checks and uploads, per address."""
    checking: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    """Result batches checked at once (each in a worker thread): a flood of checks
    waits its turn instead of taking every core from the tables."""
    body_bytes: int = 64 * 1024
    """The largest request body (JSON, forms) ..."""
    upload_bytes: int = 2 * 1024 * 1024
    """... except a CSV or records upload."""
