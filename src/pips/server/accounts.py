"""Accounts, guests and sessions that hold under attack.

* **Passwords** are argon2id hashes (argon2-cffi), computed in a small thread pool of
  their own (one lane each, so a hash takes one core and the event loop keeps the
  other), never on the event loop; when too many wait, the newest is refused at once
  rather than queued behind the rest.
* **The same work whether or not an account exists**: signing in to a name nobody has
  verifies the password against a dummy hash, so the answer takes as long.
* **Throttles** (:class:`Throttle`): per address a bucket of attempts (sign-in,
  registration, guest names); per account a growing wait after repeated wrong
  passwords (2, 4, 8 ... seconds, at most 15 minutes), whatever address they come from,
  and whichever server process they reach (counted in the database). A refused attempt
  costs no hash.
* **Sessions live on the server** (the ``sessions`` table): the signed cookie holds only
  a random token, signing in makes a new token and a new CSRF token, and signing out
  deletes the session, so a copy of the old cookie is worth nothing.
* **Names** (:mod:`pips.core.names`): any language, no control or invisible
  characters, one holder per folded key, shared by accounts and guests.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import case, delete, or_, select
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from pips.core import names
from pips.core.phrase import N_
from pips.i18n import _, reason
from pips.paths import pips_home
from pips.server.limits import Limited, RateLimit
from pips.server.round import Identity
from pips.store.db import Database
from pips.store.models import SignIn, SignInFailure, User, now

SESSION_DAYS = 14
"""A session (and the cookie carrying it) lasts this long; a guest's name is held as
long as a session of the guest's is alive."""


class AccountError(ValueError):
    """A refused registration or sign-in, in words for the person; ``status`` is its
    HTTP status and ``retry_after`` the seconds to wait, when waiting helps."""

    def __init__(self, message: str, status: int = 422, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def check_name(name: str) -> str:
    try:
        return names.check_name(name)
    except ValueError as exc:
        raise AccountError(reason(exc)) from None


def check_password(password: str) -> None:
    if not 8 <= len(password) <= 200:
        raise AccountError(_("a password is 8 to 200 characters"))


@dataclass
class _Failures:
    count: int = 0
    at: float = 0.0


class FailureBook(Protocol):
    """Where :class:`Throttle` keeps the wrong passwords in a row per name."""

    def get(self, key: str, since: float) -> _Failures | None:
        """The failures for ``key`` whose last one came after ``since``."""
        ...

    def add(self, key: str, at: float, since: float) -> None:
        """One more wrong password at ``at``; a run whose last one came before
        ``since`` starts again at one."""
        ...

    def clear(self, key: str) -> None: ...


class MemoryBook:
    """Failures in this process only (one process, and the unit tests)."""

    def __init__(self) -> None:
        self._failures: dict[str, _Failures] = {}

    def get(self, key: str, since: float) -> _Failures | None:
        found = self._failures.get(key)
        return found if found is not None and found.at >= since else None

    def add(self, key: str, at: float, since: float) -> None:
        if len(self._failures) > 50_000:
            self._failures = {k: f for k, f in self._failures.items() if f.at >= since}
        failures = self._failures.get(key)
        if failures is None or failures.at < since:
            failures = self._failures[key] = _Failures()
        failures.count += 1
        failures.at = at

    def clear(self, key: str) -> None:
        self._failures.pop(key, None)


class DatabaseBook:
    """Failures in the database (``sign_in_failures``): every server process over it
    counts the same wrong passwords, so several processes behind a balancer give a
    guesser no more tries than one, and a restart forgets none. Times are the processes'
    clocks (seconds since the epoch): the waits are seconds to minutes, well above what
    synchronized clocks differ by."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._adds = 0

    def get(self, key: str, since: float) -> _Failures | None:
        with self.db.session() as session:
            found = session.get(SignInFailure, key)
            if found is None or found.at < since:
                return None
            return _Failures(found.count, found.at)

    def add(self, key: str, at: float, since: float) -> None:
        insert = sqlite_insert if self.db.engine.dialect.name == "sqlite" else postgres_insert
        row = SignInFailure
        # One statement: two processes counting the same name at once both count.
        statement = (
            insert(row)
            .values(name_key=key, count=1, at=at)
            .on_conflict_do_update(
                index_elements=[row.name_key],
                set_={"count": case((row.at < since, 1), else_=row.count + 1), "at": at},
            )
        )
        self._adds += 1
        with self.db.session() as session, session.begin():
            session.execute(statement)
            if self._adds % 1000 == 0:  # now and then, the runs nobody continued
                session.execute(delete(SignInFailure).where(SignInFailure.at < since))

    def clear(self, key: str) -> None:
        with self.db.session() as session, session.begin():
            session.execute(delete(SignInFailure).where(SignInFailure.name_key == key))


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
    """Wrong passwords for an account before it has to wait."""
    longest_wait: float = 900.0
    forget_after: float = 86_400.0
    """A run of wrong passwords whose last one is this old is forgotten: far longer than
    the longest wait, so that a guesser at the longest wait does not start again."""
    clock: Callable[[], float] = time.monotonic
    book: FailureBook = field(default_factory=MemoryBook)

    def attempt(self, address: str) -> None:
        """Count one attempt from ``address``; :class:`AccountError` (429) when it has
        made too many."""
        try:
            self.addresses.hit(address)
        except Limited as exc:
            raise AccountError(reason(exc), 429, exc.retry_after) from None

    def check_account(self, key: str) -> None:
        """Refuse (429) while the account has to wait after wrong passwords."""
        moment = self.clock()
        failures = self.book.get(key, moment - self.forget_after)
        if failures is None or failures.count < self.free_failures:
            return
        wait = self.wait_after(failures.count) - (moment - failures.at)
        if wait > 0:
            seconds = math.ceil(wait)
            raise AccountError(
                _("too many wrong passwords for this name: try again in {seconds} seconds").format(
                    seconds=seconds
                ),
                429,
                seconds,
            )

    def wait_after(self, count: int) -> float:
        """Seconds to wait after ``count`` wrong passwords in a row: 2, 4, 8 ..."""
        return float(min(self.longest_wait, 2.0 ** (count - self.free_failures + 1)))

    def failed(self, key: str) -> None:
        moment = self.clock()
        self.book.add(key, moment, moment - self.forget_after)

    def succeeded(self, key: str) -> None:
        self.book.clear(key)


class Accounts:
    """Registration, sign-in, guests and sessions over one database.

    The coroutines run database work and hashing off the event loop; :meth:`identity`
    (asked on every request) answers from a cache of sessions and reads the database
    only for a token it has not seen, which the cookie's signature guarantees the
    server itself issued."""

    def __init__(
        self,
        db: Database,
        *,
        hash_workers: int = 1,
        waiting_hashes: int = 8,
        throttle: Throttle | None = None,
    ) -> None:
        self.db = db
        self.throttle = throttle or Throttle()
        # One lane: a hash keeps one core busy, not all of them.
        self.hasher = PasswordHasher(time_cost=3, memory_cost=65536, parallelism=1)
        self._pool = ThreadPoolExecutor(hash_workers, thread_name_prefix="pips-argon2")
        self._waiting_hashes = waiting_hashes
        self._hashing = 0
        self._dummy: str | None = None
        self._cache: OrderedDict[str, Identity | None] = OrderedDict()
        # Made now, in the hashing lane: made at the first sign-in to a name nobody has,
        # it made that one answer slower than the rest (0.6 s), which told that the
        # name is free.
        self._pool.submit(self._make_dummy)

    def _make_dummy(self) -> None:
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_urlsafe(16))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- hashing off the loop -----------------------------------------------------------

    async def _hash_work(self, function: Any, *args: Any) -> Any:
        if self._hashing >= self._waiting_hashes:
            raise AccountError(_("the server is busy signing people in: try again shortly"), 503, 2)
        self._hashing += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, function, *args)
        finally:
            self._hashing -= 1

    def _verify(self, stored: str | None, password: str) -> bool:
        if stored is None:
            # No such account: the same work as for one, so time tells nothing.
            self._make_dummy()  # at once if made at start
            assert self._dummy is not None
            stored = self._dummy
            password = ""
        try:
            return bool(self.hasher.verify(stored, password)) and password != ""
        except (VerificationError, InvalidHashError):
            return False

    # -- registering and signing in ---------------------------------------------------

    async def register(self, name: str, password: str, address: str) -> tuple[str, Identity]:
        """A new account, signed in: its session token and identity."""
        self.throttle.attempt(address)
        name = check_name(name)
        check_password(password)
        key = names.name_key(name)
        if await asyncio.to_thread(self._name_held, key, None):
            raise AccountError(_("the name {name!r} is taken").format(name=name), 409)
        digest = await self._hash_work(self.hasher.hash, password)

        def write() -> int:
            with self.db.session() as session, session.begin():
                user = User(name=name, name_key=key, password_hash=digest)
                session.add(user)
                session.flush()
                return user.id

        try:
            user_id = await asyncio.to_thread(write)
        except IntegrityError:
            raise AccountError(_("the name {name!r} is taken").format(name=name), 409) from None
        return await self._open(Identity(user_id=user_id, name=name))

    async def sign_in(self, name: str, password: str, address: str) -> tuple[str, Identity]:
        """Sign in by name (as written or folded) and password."""
        self.throttle.attempt(address)
        key = names.name_key(name)
        await asyncio.to_thread(self.throttle.check_account, key)
        found = await asyncio.to_thread(self._account, key)
        ok = await self._hash_work(self._verify, None if found is None else found[2], password)
        if not ok or found is None:
            await asyncio.to_thread(self.throttle.failed, key)
            raise AccountError(_("no such name and password"), 401)
        await asyncio.to_thread(self.throttle.succeeded, key)
        return await self._open(Identity(user_id=found[0], name=found[1]))

    async def guest(self, name: str, address: str, keep: Identity | None) -> tuple[str, Identity]:
        """A guest by name (no password); a guest who renames keeps their guest token,
        so their seats stay theirs."""
        self.throttle.attempt(address)
        name = check_name(name)
        key = names.name_key(name)
        token = keep.guest if keep is not None and keep.guest is not None else None
        if await asyncio.to_thread(self._name_held, key, token):
            raise AccountError(
                _("the name {name!r} is taken: choose another").format(name=name), 409
            )
        return await self._open(Identity(guest=token or secrets.token_urlsafe(12), name=name), key)

    async def sign_out(self, session: dict[str, Any]) -> None:
        token = session.get("token")
        session.clear()
        if isinstance(token, str):
            digest = _digest(token)
            self._cache.pop(digest, None)

            def forget() -> None:
                with self.db.session() as db_session, db_session.begin():
                    db_session.execute(delete(SignIn).where(SignIn.token_hash == digest))

            await asyncio.to_thread(forget)

    # -- sessions --------------------------------------------------------------------

    async def _open(self, who: Identity, key: str | None = None) -> tuple[str, Identity]:
        token = secrets.token_urlsafe(32)
        digest = _digest(token)

        def write() -> None:
            with self.db.session() as session, session.begin():
                session.add(
                    SignIn(
                        token_hash=digest,
                        user_id=who.user_id,
                        guest=who.guest,
                        name=who.name,
                        name_key=key or names.name_key(who.name),
                    )
                )

        await asyncio.to_thread(write)
        self._remember(digest, who)
        return token, who

    def identity(self, session: dict[str, Any]) -> Identity | None:
        """Who the browser with this session is, if anyone."""
        token = session.get("token")
        if not isinstance(token, str):
            return None
        digest = _digest(token)
        if digest in self._cache:
            self._cache.move_to_end(digest)
            return self._cache[digest]
        with self.db.session() as db_session:
            row = db_session.get(SignIn, digest)
            who = None
            if row is not None and row.created_at > now() - timedelta(days=SESSION_DAYS):
                who = Identity(user_id=row.user_id, guest=row.guest, name=row.name)
        self._remember(digest, who)
        return who

    def _remember(self, digest: str, who: Identity | None) -> None:
        self._cache[digest] = who
        if len(self._cache) > 20_000:
            self._cache.popitem(last=False)

    # -- languages -------------------------------------------------------------------

    async def language(self, user_id: int) -> str | None:
        """The language the account chose, if it chose one."""

        def read() -> str | None:
            with self.db.session() as session:
                user = session.get(User, user_id)
                return None if user is None else user.language

        return await asyncio.to_thread(read)

    async def set_language(self, user_id: int, language: str) -> None:
        """Keep the account's language (one of :data:`pips.i18n.LANGUAGES`)."""

        def write() -> None:
            with self.db.session() as session, session.begin():
                user = session.get(User, user_id)
                if user is not None:
                    user.language = language

        await asyncio.to_thread(write)

    # -- reading ---------------------------------------------------------------------

    def _account(self, key: str) -> tuple[int, str, str] | None:
        with self.db.session() as session:
            row = session.execute(
                select(User.id, User.name, User.password_hash).where(User.name_key == key)
            ).first()
            return None if row is None else (row[0], row[1], row[2])

    def _name_held(self, key: str, guest: str | None) -> bool:
        """Whether an account, or a live session of another guest, holds the name."""
        since = now() - timedelta(days=SESSION_DAYS)
        with self.db.session() as session:
            if session.scalar(select(User.id).where(User.name_key == key)) is not None:
                return True
            other = select(SignIn.token_hash).where(
                SignIn.name_key == key, SignIn.user_id.is_(None), SignIn.created_at > since
            )
            if guest is not None:
                other = other.where(or_(SignIn.guest.is_(None), SignIn.guest != guest))
            return session.scalar(other.limit(1)) is not None


def create_account(db: Database, name: str, password: str) -> User:
    """An account made directly, with no session (administration, tests)."""
    name = check_name(name)
    check_password(password)
    user = User(
        name=name,
        name_key=names.name_key(name),
        password_hash=PasswordHasher(parallelism=1).hash(password),
    )
    try:
        with db.session() as session, session.begin():
            session.add(user)
    except IntegrityError:
        raise AccountError(_("the name {name!r} is taken").format(name=name), 409) from None
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token(session: dict[str, Any]) -> str:
    """The session's CSRF token (made on first use, made anew at every sign-in)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return str(session["csrf"])


def secret_key() -> str:
    """``PIPS_SECRET``, else a random key kept in ``$PIPS_HOME/secret`` (made once)."""
    key = os.environ.get("PIPS_SECRET")
    if key:
        return key
    path = pips_home() / "secret"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()
