"""Accounts, guests and sessions that hold under attack.

* **Passwords** are argon2id hashes (argon2-cffi), computed in a thread of their own
  (one lane, so a hash takes one core and the event loop keeps the other), never on
  the event loop, taken in turn by client, an owner's device first
  (:mod:`pips.server.accounts.hashing`); past a bound, refused at once rather than
  queued behind the rest.
* **The same work whether or not an account exists**: signing in to a name nobody has
  verifies the password against a dummy hash, so the answer takes as long.
* **Throttles** (:class:`Throttle`): per address a bucket of attempts (sign-in,
  registration, guest names); per name *and address* a growing wait after repeated
  wrong passwords (2, 4, 8 ... seconds, at most 15 minutes), whichever server process
  they reach (counted in the database). So a guesser at one address never locks the
  owner out from another. Against a guesser at many addresses, a wait for the name
  from every address together after
  :data:`~pips.server.accounts.throttle.NAME_FREE_FAILURES` wrong passwords in a day; a
  browser the owner signed in from before carries a **device cookie** (OWASP's
  answer to lock-outs) and is never made to wait; an administrator unlocks a name
  (``pips admin unlock``). A refused attempt costs no hash.
* **Sessions live on the server** (the ``sessions`` table): the signed cookie holds only
  a random token, signing in makes a new token and a new CSRF token, and signing out
  deletes the session, so a copy of the old cookie is worth nothing.
* **Names** (:mod:`pips.core.names`): any language, no control or invisible
  characters, one holder per folded key, shared by accounts and guests; a name that
  *looks like* another (the same UTS #39 skeleton, :func:`pips.text.skeleton`:
  ``Honеst`` with a Cyrillic е beside ``Honest``) is refused too. A guest holds a name
  only while live (seen in the last :data:`GUEST_LIVE`), and against a registration
  for a day from when a guest first took it, however often taken again: a guest's
  rename gives the old name up at once.
* **Sockets end with their session**: signing out (and revoking a token) closes the
  sockets it let in, in every process (:mod:`pips.server.accounts.ending`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import hashlib
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import case, delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pips.core import names
from pips.i18n import _, explain
from pips.paths import pips_home
from pips.server.accounts.ending import session_key
from pips.server.accounts.hashing import HashQueue
from pips.server.accounts.identity import (
    AccountError,
    Identity,
    check_name,
    check_password,
)
from pips.server.accounts.throttle import DatabaseBook, MemoryBook, Throttle
from pips.store.db import Database
from pips.store.models import GuestName, SignIn, User, now
from pips.text import NameTaken, refuse_taken, skeleton

__all__ = [
    "AccountError",
    "Accounts",
    "DatabaseBook",
    "Identity",
    "MemoryBook",
    "Throttle",
    "check_name",
    "create_account",
    "csrf_token",
    "secret_key",
]

SESSION_DAYS = 14
"""A session (and the cookie carrying it) lasts this long."""

GUEST_LIVE = timedelta(hours=1)
"""A guest holds their name while one of their sessions was used this recently."""

GUEST_HOLDS_AGAINST_REGISTRATION = timedelta(days=1)
"""... and against someone registering the name, only this long after a guest first
took it, however often it was taken again since."""

GUEST_NAME_MEMORY = timedelta(days=30)
"""When a guest first took a name is forgotten this long after: a guest taking it then
holds it against registration for a day of their own."""


DATABASE_THREADS = 2
"""Threads reading and writing the accounts' rows (sessions, wrong passwords)."""

T = TypeVar("T")


@dataclass(frozen=True)
class HashCost:
    """What argon2id spends on a password's hash."""

    time_cost: int
    memory_cost: int
    """In KiB."""
    parallelism: int = 1

    def hasher(self) -> PasswordHasher:
        return PasswordHasher(
            time_cost=self.time_cost, memory_cost=self.memory_cost, parallelism=self.parallelism
        )


PASSWORD_HASHING = HashCost(time_cost=3, memory_cost=65536)
"""argon2id's cost of a password's hash: three passes over 64 MiB, on one lane (a hash
keeps one core busy, not all of them). Read when an :class:`Accounts` is made; the
tests' in-process apps lower it (``cheap_hashing`` in tests/in_process.py); a server
the tests start never does."""


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
        waiting_hashes: int = 64,
        hashes_per_client: int = 2,
        throttle: Throttle | None = None,
        secret: str = "",
    ) -> None:
        self.db = db
        self.throttle = throttle or Throttle()
        # Device cookies: signed, naming the account a browser signed in to.
        self._devices = URLSafeSerializer(secret or secrets.token_urlsafe(32), salt="device")
        self._touched: dict[str, float] = {}
        self._guest_names = 0
        self._toucher = ThreadPoolExecutor(1, thread_name_prefix="pips-seen")
        self._work = ThreadPoolExecutor(DATABASE_THREADS, thread_name_prefix="pips-accounts")
        # One lane: a hash keeps one core busy, not all of them.
        self.hasher = PASSWORD_HASHING.hasher()
        self.hashes = HashQueue(hash_workers, per_client=hashes_per_client, waiting=waiting_hashes)
        self._dummy: str | None = None
        self._cache: OrderedDict[str, Identity | None] = OrderedDict()
        # Made now, in the hashing lane: made at the first sign-in to a name nobody has,
        # it made that one answer slower than the rest (0.6 s), which told that the
        # name is free.
        self.hashes.pool.submit(self._make_dummy)

    async def _db(self, function: Callable[..., T], *args: Any) -> T:
        """Database work of accounts, off the event loop in threads of their own: a
        flood of sign-ins queues there, not in front of the tables' moves (which are
        written in the loop's shared worker threads). Like ``asyncio.to_thread``, the
        work sees the request's context: its language, for the refusals it words."""
        job = functools.partial(contextvars.copy_context().run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._work, job)

    def _make_dummy(self) -> None:
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_urlsafe(16))

    def close(self) -> None:
        self.hashes.close()
        self._toucher.shutdown(wait=False, cancel_futures=True)
        self._work.shutdown(wait=False, cancel_futures=True)

    # -- hashing off the loop -----------------------------------------------------------

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
        await self.throttle.attempt(address)
        name = check_name(name)
        check_password(password)
        key = names.name_key(name)
        await self._db(self._refuse_held, name, None, True)
        digest = await self.hashes.run(address, self.hasher.hash, password)

        def write() -> int:
            with self.db.session() as session, session.begin():
                user = User(name=name, name_key=key, skeleton=skeleton(name), password_hash=digest)
                session.add(user)
                session.flush()
                return user.id

        try:
            user_id = await self._db(write)
        except IntegrityError:
            raise AccountError(_("the name {name!r} is taken").format(name=name), 409) from None
        return await self._open(Identity(user_id=user_id, name=name))

    async def sign_in(
        self, name: str, password: str, address: str, device: str = ""
    ) -> tuple[str, Identity]:
        """Sign in by name (as written or folded) and password; ``device`` is the
        browser's device cookie, if it has one."""
        return await self._open(await self.verify(name, password, address, device))

    async def verify(self, name: str, password: str, address: str, device: str = "") -> Identity:
        """The account of ``name`` if ``password`` is its own, counted and throttled as a
        sign-in is, opening no session (a token made through the API)."""
        await self.throttle.attempt(address)
        key = names.name_key(name)
        found = await self._db(self._account, key)
        known = found is not None and self.device_of(device) == found[0]
        await self._db(self.throttle.check_account, key, address, known)
        stored = None if found is None else found[2]
        # An owner's browser waits in a lane of its own (accounts.hashing).
        ok = await self.hashes.run(address, self._verify, stored, password, owner=known)
        if not ok or found is None:
            await self._db(self.throttle.failed, key, address)
            raise AccountError(_("no such name and password"), 401)
        await self._db(self.throttle.succeeded, key, address)
        return Identity(user_id=found[0], name=found[1])

    def device_token(self, user_id: int) -> str:
        """The device cookie of a browser that signed in to ``user_id``: with it, the
        owner never waits for a guesser's wrong passwords elsewhere."""
        return str(self._devices.dumps([user_id, secrets.token_urlsafe(8)]))

    def device_of(self, token: str) -> int | None:
        """The account a device cookie names (``None``: none, or forged)."""
        if not token or len(token) > 200:
            return None
        try:
            user_id, _nonce = self._devices.loads(token)
        except (BadSignature, ValueError, TypeError):
            return None
        return user_id if isinstance(user_id, int) else None

    async def guest(self, name: str, address: str, keep: Identity | None) -> tuple[str, Identity]:
        """A guest by name (no password); a guest who renames keeps their guest token,
        so their seats stay theirs, and gives the old name up."""
        await self.throttle.attempt(address)
        name = check_name(name)
        key = names.name_key(name)
        token = keep.guest if keep is not None and keep.guest is not None else None
        await self._db(self._refuse_held, name, token, False)
        return await self._open(Identity(guest=token or secrets.token_urlsafe(12), name=name), key)

    async def sign_out(self, session: dict[str, Any]) -> str | None:
        """End the session: its key (:func:`~pips.server.accounts.ending.session_key`),
        whose sockets are to close, if it had one."""
        token = session.get("token")
        session.clear()
        if not isinstance(token, str):
            return None
        digest = _digest(token)
        self._cache.pop(digest, None)

        def forget() -> None:
            with self.db.session() as db_session, db_session.begin():
                db_session.execute(delete(SignIn).where(SignIn.token_hash == digest))

        await self._db(forget)
        return session_key(token)

    def forget(self, key: str) -> None:
        """A session ended (``key``, here or at another process): not kept as signed
        in any more."""
        if key.startswith("session:"):
            self._cache.pop(key.removeprefix("session:"), None)

    def unlock(self, name: str) -> None:
        """Forget every wrong password for ``name`` (``pips admin unlock``)."""
        self.throttle.unlock(names.name_key(name))

    # -- sessions --------------------------------------------------------------------

    async def _open(self, who: Identity, key: str | None = None) -> tuple[str, Identity]:
        token = secrets.token_urlsafe(32)
        digest = _digest(token)

        def write() -> None:
            with self.db.session() as session, session.begin():
                if who.guest is not None:
                    # A guest's earlier names are given up: only the newest holds.
                    session.execute(delete(SignIn).where(SignIn.guest == who.guest))
                    self._first_taken(session, key or names.name_key(who.name))
                session.add(
                    SignIn(
                        token_hash=digest,
                        user_id=who.user_id,
                        guest=who.guest,
                        name=who.name,
                        name_key=key or names.name_key(who.name),
                        skeleton=skeleton(who.name),
                    )
                )

        await self._db(write)
        # Just written as seen: the next minute's requests need not write it again (and a
        # late write could otherwise land after a newer value).
        self._touched[digest] = time.monotonic()
        if who.guest is not None:
            for cached, known in list(self._cache.items()):
                if known is not None and known.guest == who.guest:
                    self._cache.pop(cached, None)
        self._remember(digest, who)
        return token, who

    def _first_taken(self, session: Session, key: str) -> None:
        """Keep when a guest first took the name ``key`` (a record older than
        :data:`GUEST_NAME_MEMORY` starts again: the name is someone else's now)."""
        moment = now()
        forgotten = moment - GUEST_NAME_MEMORY
        insert = sqlite_insert if self.db.engine.dialect.name == "sqlite" else postgres_insert
        # One statement: two guests taking the name at once keep the first moment.
        session.execute(
            insert(GuestName)
            .values(name_key=key, first_taken=moment)
            .on_conflict_do_update(
                index_elements=[GuestName.name_key],
                set_={
                    "first_taken": case(
                        (GuestName.first_taken < forgotten, moment),
                        else_=GuestName.first_taken,
                    )
                },
            )
        )
        self._guest_names += 1
        if self._guest_names % 1000 == 0:  # now and then, the names nobody took lately
            session.execute(delete(GuestName).where(GuestName.first_taken < forgotten))

    def identity(self, session: dict[str, Any]) -> Identity | None:
        """Who the browser with this session is, if anyone (a guest's session is
        marked as seen, at most once a minute, off the event loop)."""
        token = session.get("token")
        if not isinstance(token, str):
            return None
        digest = _digest(token)
        if digest in self._cache:
            self._cache.move_to_end(digest)
            who = self._cache[digest]
        else:
            with self.db.session() as db_session:
                row = db_session.get(SignIn, digest)
                who = None
                if row is not None and row.created_at > now() - timedelta(days=SESSION_DAYS):
                    who = Identity(user_id=row.user_id, guest=row.guest, name=row.name)
            self._remember(digest, who)
        if who is not None and who.guest is not None:
            self._touch(digest)
        return who

    def session_live(self, digest: str) -> bool:
        """Whether the session kept as ``digest`` is still there and young enough
        (reads the database: off the event loop)."""
        with self.db.session() as db_session:
            row = db_session.get(SignIn, digest)
            return row is not None and row.created_at > now() - timedelta(days=SESSION_DAYS)

    def _touch(self, digest: str) -> None:
        moment = time.monotonic()
        if moment - self._touched.get(digest, -1e9) < 60:
            return
        if len(self._touched) > 20_000:
            self._touched.clear()
        self._touched[digest] = moment

        def write() -> None:
            with self.db.session() as session, session.begin():
                session.execute(
                    update(SignIn).where(SignIn.token_hash == digest).values(seen_at=now())
                )

        self._toucher.submit(write)

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

        return await self._db(read)

    async def set_language(self, user_id: int, language: str) -> None:
        """Keep the account's language (one of :data:`pips.i18n.LANGUAGES`)."""

        def write() -> None:
            with self.db.session() as session, session.begin():
                user = session.get(User, user_id)
                if user is not None:
                    user.language = language

        await self._db(write)

    # -- reading ---------------------------------------------------------------------

    def _account(self, key: str) -> tuple[int, str, str] | None:
        with self.db.session() as session:
            row = session.execute(
                select(User.id, User.name, User.password_hash).where(User.name_key == key)
            ).first()
            return None if row is None else (row[0], row[1], row[2])

    def _refuse_held(self, name: str, guest: str | None, registering: bool) -> None:
        """Refuse (409) a name an account holds, or a live guest other than ``guest``
        (against a registration, only a guest seen in the last hour whose session
        began in the last day), or a name that looks like one of those."""
        key, shape = names.name_key(name), skeleton(name)
        moment = now()
        with self.db.session() as session:
            taken = session.scalars(
                select(User.name).where(or_(User.name_key == key, User.skeleton == shape)).limit(1)
            ).first()
            if taken is None:
                live = select(SignIn.name).where(
                    or_(SignIn.name_key == key, SignIn.skeleton == shape),
                    SignIn.user_id.is_(None),
                    SignIn.seen_at > moment - GUEST_LIVE,
                )
                if registering:
                    # A day from when a guest first took the name, not from the newest
                    # session: taking it again does not start the day again.
                    first = func.coalesce(GuestName.first_taken, SignIn.created_at)
                    live = live.outerjoin(GuestName, GuestName.name_key == SignIn.name_key).where(
                        first > moment - GUEST_HOLDS_AGAINST_REGISTRATION
                    )
                if guest is not None:
                    live = live.where(or_(SignIn.guest.is_(None), SignIn.guest != guest))
                taken = session.scalars(live.limit(1)).first()
        try:
            refuse_taken(name, taken)  # the rule every held name follows, a group's too
        except NameTaken as exc:
            raise AccountError(explain(exc), 409) from None


def create_account(db: Database, name: str, password: str) -> User:
    """An account made directly, with no session (administration, tests)."""
    name = check_name(name)
    check_password(password)
    user = User(
        name=name,
        name_key=names.name_key(name),
        skeleton=skeleton(name),
        password_hash=PASSWORD_HASHING.hasher().hash(password),
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
