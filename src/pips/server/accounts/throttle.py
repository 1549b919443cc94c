"""Throttles on signing in: per address a bucket of attempts, per name and address a
growing wait after wrong passwords, counted in memory or in the database so that every
server process counts the same ones (see :mod:`pips.server.accounts`)."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy import case, delete
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from pips.core.phrase import N_
from pips.i18n import _, reason
from pips.server.accounts.identity import AccountError
from pips.server.limits import Limited, RateLimit
from pips.store.db import Database
from pips.store.models import SignInFailure

NAME_FREE_FAILURES = 30
"""Wrong passwords for a name from all addresses together, in a day, before browsers
without the name's device cookie wait too."""

EVERY_ADDRESS = "*"
"""The key of the wrong passwords counted for a name from all addresses together."""


@dataclass
class _Failures:
    count: int = 0
    at: float = 0.0


class FailureBook(Protocol):
    """Where :class:`Throttle` keeps the wrong passwords in a row per name and address
    (``address`` a digest, or :data:`EVERY_ADDRESS`)."""

    def get(self, key: str, address: str, since: float) -> _Failures | None:
        """The failures for ``key`` from ``address`` whose last one came after
        ``since``."""
        ...

    def add(self, key: str, address: str, at: float, since: float) -> None:
        """One more wrong password at ``at``; a run whose last one came before
        ``since`` starts again at one."""
        ...

    def clear(self, key: str, address: str | None = None) -> None:
        """Forget the runs of ``key`` from ``address`` (``None``: from everywhere)."""
        ...


class MemoryBook:
    """Failures in this process only (one process, and the unit tests)."""

    def __init__(self) -> None:
        self._failures: dict[tuple[str, str], _Failures] = {}

    def get(self, key: str, address: str, since: float) -> _Failures | None:
        found = self._failures.get((key, address))
        return found if found is not None and found.at >= since else None

    def add(self, key: str, address: str, at: float, since: float) -> None:
        if len(self._failures) > 50_000:
            self._failures = {k: f for k, f in self._failures.items() if f.at >= since}
        failures = self._failures.get((key, address))
        if failures is None or failures.at < since:
            failures = self._failures[(key, address)] = _Failures()
        failures.count += 1
        failures.at = at

    def clear(self, key: str, address: str | None = None) -> None:
        for found in [k for k in self._failures if k[0] == key and address in (None, k[1])]:
            del self._failures[found]


class DatabaseBook:
    """Failures in the database (``sign_in_failures``): every server process over it
    counts the same wrong passwords, so several processes behind a balancer give a
    guesser no more tries than one, and a restart forgets none. Times are the processes'
    clocks (seconds since the epoch): the waits are seconds to minutes, well above what
    synchronized clocks differ by."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._adds = 0

    def get(self, key: str, address: str, since: float) -> _Failures | None:
        with self.db.session() as session:
            found = session.get(SignInFailure, (key, address))
            if found is None or found.at < since:
                return None
            return _Failures(found.count, found.at)

    def add(self, key: str, address: str, at: float, since: float) -> None:
        insert = sqlite_insert if self.db.engine.dialect.name == "sqlite" else postgres_insert
        row = SignInFailure
        # One statement: two processes counting the same name at once both count.
        statement = (
            insert(row)
            .values(name_key=key, address=address, count=1, at=at)
            .on_conflict_do_update(
                index_elements=[row.name_key, row.address],
                set_={"count": case((row.at < since, 1), else_=row.count + 1), "at": at},
            )
        )
        self._adds += 1
        with self.db.session() as session, session.begin():
            session.execute(statement)
            if self._adds % 1000 == 0:  # now and then, the runs nobody continued
                session.execute(delete(SignInFailure).where(SignInFailure.at < since))

    def clear(self, key: str, address: str | None = None) -> None:
        with self.db.session() as session, session.begin():
            gone = delete(SignInFailure).where(SignInFailure.name_key == key)
            if address is not None:
                gone = gone.where(SignInFailure.address == address)
            session.execute(gone)


@dataclass
class Throttle:
    """Attempts per address (a :class:`~pips.server.limits.RateLimit`) and wrong
    passwords per account (a growing wait, whatever address they come from). The
    methods about accounts may read the database (:class:`DatabaseBook`): call them off
    the event loop."""

    addresses: RateLimit = field(
        default_factory=lambda: RateLimit(10, 10, N_("attempts from your address"))
    )
    free_failures: int = 5
    """Wrong passwords for a name from one address before that address has to wait."""
    name_free_failures: int = NAME_FREE_FAILURES
    """... and from every address together, before browsers without a device cookie
    wait too."""
    longest_wait: float = 900.0
    forget_after: float = 86_400.0
    """A run of wrong passwords whose last one is this old is forgotten: far longer than
    the longest wait, so that a guesser at the longest wait does not start again."""
    clock: Callable[[], float] = time.monotonic
    book: FailureBook = field(default_factory=MemoryBook)

    async def attempt(self, address: str) -> None:
        """Count one attempt from ``address``; :class:`AccountError` (429) when it has
        made too many."""
        try:
            await self.addresses.take(address)
        except Limited as exc:
            raise AccountError(reason(exc), 429, exc.retry_after, held=True) from None

    def check_account(self, key: str, address: str, device: bool = False) -> None:
        """Refuse (429) while the name has to wait after wrong passwords from this
        address, or (without the name's device cookie, ``device``) from every address
        together."""
        moment = self.clock()
        since = moment - self.forget_after
        here = self.book.get(key, address_digest(address), since)
        wait = self._wait(here, self.free_failures, moment)
        if not device:
            everywhere = self.book.get(key, EVERY_ADDRESS, since)
            wait = max(wait, self._wait(everywhere, self.name_free_failures, moment))
        if wait > 0:
            seconds = math.ceil(wait)
            raise AccountError(
                _("too many wrong passwords for this name: try again in {seconds} seconds").format(
                    seconds=seconds
                ),
                429,
                seconds,
            )

    def _wait(self, failures: _Failures | None, free: int, moment: float) -> float:
        if failures is None or failures.count < free:
            return 0.0
        return self.wait_after(failures.count - free + self.free_failures) - (moment - failures.at)

    def wait_after(self, count: int) -> float:
        """Seconds to wait after ``count`` wrong passwords in a row: 2, 4, 8 ..."""
        return float(min(self.longest_wait, 2.0 ** (count - self.free_failures + 1)))

    def failed(self, key: str, address: str) -> None:
        moment = self.clock()
        for where in (address_digest(address), EVERY_ADDRESS):
            self.book.add(key, where, moment, moment - self.forget_after)

    def succeeded(self, key: str, address: str) -> None:
        """The right password: the wait at this address and for the name from every
        address is over (the owner holds the account)."""
        self.book.clear(key, address_digest(address))
        self.book.clear(key, EVERY_ADDRESS)

    def unlock(self, key: str) -> None:
        """Forget every wrong password for the name (an administrator's unlock)."""
        self.book.clear(key)


def address_digest(address: str) -> str:
    """An address as the failures are kept by: a digest, not the address itself."""
    return hashlib.sha256(address.encode()).hexdigest()
