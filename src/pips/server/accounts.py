"""Accounts: registration and sign-in with argon2 password hashes; guests by name.

Who a browser is lives in its signed session cookie (Starlette's session middleware):
an account's id, or a guest token with the name the guest chose, and the CSRF token
every form and JSON POST must carry.
"""

from __future__ import annotations

import os
import re
import secrets
import unicodedata
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from pips.paths import pips_home
from pips.server.tables import Identity
from pips.store.db import Database
from pips.store.models import User

NAME = re.compile(r"^[^\W_][\w .-]{0,38}(?<![ .-])$")
"""2 to 40 letters (of any alphabet: Jürgen, Søren), digits, spaces, dots, dashes or
underscores, starting with a letter or digit and not ending in a space, dot or dash."""
_hasher = PasswordHasher()


class AccountError(ValueError):
    """A refused registration or sign-in, in words for the person."""


def check_name(name: str) -> str:
    # One spelling per name: "ü" typed as one character or as u and a combining mark.
    name = unicodedata.normalize("NFC", name.strip())
    if not NAME.match(name) or len(name) < 2:
        raise AccountError("a name is 2 to 40 letters, digits, spaces, dots, dashes or underscores")
    return name


def register(db: Database, name: str, password: str) -> User:
    name = check_name(name)
    if not 8 <= len(password) <= 200:
        raise AccountError("a password is 8 to 200 characters")
    user = User(name=name, password_hash=_hasher.hash(password))
    try:
        with db.session() as session, session.begin():
            session.add(user)
    except IntegrityError:
        raise AccountError(f"the name {name!r} is taken") from None
    return user


def sign_in(db: Database, name: str, password: str) -> User:
    with db.session() as session:
        user = session.scalars(select(User).where(User.name == name.strip())).first()
    try:
        if user is None or not _hasher.verify(user.password_hash, password):
            raise AccountError("no such name and password")
    except (VerificationError, InvalidHashError):
        raise AccountError("no such name and password") from None
    return user


def identity(session: dict[str, Any]) -> Identity | None:
    """Who the browser with this session is, if it said."""
    if "user_id" in session:
        return Identity(user_id=int(session["user_id"]), name=str(session["name"]))
    if "guest" in session:
        return Identity(guest=str(session["guest"]), name=str(session["name"]))
    return None


def csrf_token(session: dict[str, Any]) -> str:
    """The session's CSRF token (made on first use)."""
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
